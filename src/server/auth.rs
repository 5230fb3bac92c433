//! Player names, and the secret tokens that prove them (stored only as SHA-256 hashes).

use sha2::{Digest, Sha256};

pub const MAX_NAME_LEN: usize = 20;

/// Checks a name: 1 to 20 of ASCII letters, digits, `_` and `-`.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(format!(
            "a name has 1 to {MAX_NAME_LEN} characters, not {}",
            name.chars().count()
        ));
    }
    match name
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    {
        Some(c) => Err(format!(
            "a name has only letters, digits, _ and -, not {c:?} as in {name:?}"
        )),
        None => Ok(()),
    }
}

/// The key a name is known by, the same regardless of case.
pub fn name_key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// A fresh token: 32 random bytes as 64 hexadecimal digits.
pub fn new_token() -> String {
    hex(&random_bytes::<32>())
}

pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Whether `token` hashes to `hash`, comparing every byte whatever the first difference.
pub fn token_matches(token: &str, hash: &[u8; 32]) -> bool {
    token_hash(token)
        .iter()
        .zip(hash)
        .fold(0u8, |diff, (a, b)| diff | (a ^ b))
        == 0
}

/// A game id: 12 characters of an alphabet without look-alikes (about 60 bits).
/// The letters of game ids (no l, o, 0 or 1, which people mistake).
const GAME_ID_ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
const GAME_ID_LEN: usize = 12;

/// Whether `id` has the form of the ids `new_game_id` makes.
pub fn is_game_id(id: &str) -> bool {
    id.len() == GAME_ID_LEN && id.bytes().all(|b| GAME_ID_ALPHABET.contains(&b))
}

pub fn new_game_id() -> String {
    const ALPHABET: &[u8; 32] = GAME_ID_ALPHABET;
    random_bytes::<GAME_ID_LEN>()
        .iter()
        .map(|&b| ALPHABET[(b & 31) as usize] as char)
        .collect()
}

/// A fair coin from the operating system's random source.
pub fn coin() -> bool {
    random_bytes::<1>()[0] & 1 == 1
}

/// A seed from the operating system's random source.
pub fn random_seed() -> u64 {
    u64::from_le_bytes(random_bytes::<8>())
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random source works");
    bytes
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in ["a", "alice", "Bob_2", "x-y", &"n".repeat(20)] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in ["", &"n".repeat(21), "al ice", "é", "a.b", "<script>"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert_eq!(name_key("AlIce"), "alice");
    }

    #[test]
    fn tokens_are_fresh_and_checked_by_hash() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(token_matches(&a, &token_hash(&a)));
        assert!(!token_matches(&b, &token_hash(&a)));
        assert_eq!(new_game_id().len(), 12);
    }
}
