//! Bytes to text. In order: a byte-order mark (UTF-8, UTF-16) decides; UTF-16 without one is
//! recognised by its zero bytes; then the file's own `CA[...]`; then UTF-8 if the bytes are
//! UTF-8 (ASCII included); else `chardetng`'s guess from the bytes (the detector Firefox uses:
//! GBK, Shift_JIS, EUC-KR, Big5, windows-1252 and the rest). SGF's syntax is ASCII, but
//! Shift_JIS and GBK put `]` and `\` inside characters, so the whole file is decoded before
//! it is parsed.

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};

use super::tree::Problem;

pub struct Decoded {
    pub text: String,
    pub encoding: &'static Encoding,
    /// A `CA[...]` not understood or not matching the bytes.
    pub problems: Vec<Problem>,
}

/// Decodes a file's bytes; see the module's documentation. Bytes that are not valid in the
/// encoding chosen become U+FFFD, and the first one is a problem.
pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some((encoding, bom_length)) = Encoding::for_bom(bytes) {
        return decode_as(encoding, &bytes[bom_length..], Vec::new());
    }
    if let Some(encoding) = utf16_without_bom(bytes) {
        return decode_as(encoding, bytes, Vec::new());
    }
    let mut problems = Vec::new();
    if let Some((label, line, column)) = charset(bytes) {
        // Java's names too: ISO8859_1, EUC_KR.
        let label_found = Encoding::for_label(label.trim().as_bytes())
            .or_else(|| Encoding::for_label(label.trim().replace('_', "-").as_bytes()));
        match label_found {
            // A file that says UTF-16 but has no zero bytes was re-encoded without its CA changing.
            Some(encoding) if encoding == UTF_16LE || encoding == UTF_16BE => {}
            Some(encoding) => {
                let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
                if !had_errors {
                    return Decoded {
                        text: text.into_owned(),
                        encoding,
                        problems,
                    };
                }
                let guess = guess(bytes);
                let (line, column) = first_replacement(&text).unwrap_or((line, column));
                problems.push(Problem::new(
                    line,
                    column,
                    format!(
                        "CA[{label}] does not match the bytes (not valid {}): read as {}",
                        encoding.name(),
                        guess.name()
                    ),
                ));
                return decode_as(guess, bytes, problems);
            }
            None => problems.push(Problem::new(
                line,
                column,
                format!("unknown character set CA[{label}]: the encoding is guessed"),
            )),
        }
    }
    decode_as(guess(bytes), bytes, problems)
}

fn decode_as(encoding: &'static Encoding, bytes: &[u8], mut problems: Vec<Problem>) -> Decoded {
    let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
    if had_errors {
        if let Some((line, column)) = first_replacement(&text) {
            problems.push(Problem::new(
                line,
                column,
                format!("bytes that are not valid {} (read as U+FFFD)", encoding.name()),
            ));
        }
    }
    Decoded {
        text: text.into_owned(),
        encoding,
        problems,
    }
}

fn guess(bytes: &[u8]) -> &'static Encoding {
    if std::str::from_utf8(bytes).is_ok() {
        return UTF_8;
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    detector.guess(None, true)
}

/// UTF-16 without a byte-order mark: the zero bytes of its ASCII characters all fall on even
/// (big-endian) or all on odd (little-endian) offsets.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = &bytes[..bytes.len().min(4096) & !1];
    if sample.len() < 4 {
        return None;
    }
    let zeros = |parity: usize| sample.iter().skip(parity).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (zeros(0), zeros(1));
    let half = sample.len() / 2;
    if even * 2 > half && odd == 0 {
        Some(UTF_16BE)
    } else if odd * 2 > half && even == 0 {
        Some(UTF_16LE)
    } else {
        None
    }
}

/// The first `CA[...]` of the file, read as ASCII, and where its value starts. Only a `CA`
/// that starts a property counts (not the end of, say, `TCA[`).
fn charset(bytes: &[u8]) -> Option<(String, usize, usize)> {
    let mut start = 0;
    while let Some(found) = find(&bytes[start..], b"CA[") {
        let at = start + found;
        start = at + 3;
        if at > 0 && bytes[at - 1].is_ascii_uppercase() {
            continue;
        }
        let value = &bytes[start..];
        let end = value.iter().position(|&b| b == b']')?;
        let label = String::from_utf8_lossy(&value[..end]).into_owned();
        let line = 1 + bytes[..start].iter().filter(|&&b| b == b'\n').count();
        let column = start
            - bytes[..start]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
        return Some((label, line, column));
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn first_replacement(text: &str) -> Option<(usize, usize)> {
    let (line_number, line) = text
        .split('\n')
        .enumerate()
        .find(|(_, l)| l.contains('\u{FFFD}'))?;
    let column = line.chars().position(|c| c == '\u{FFFD}')? + 1;
    Some((line_number + 1, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_order_marks_and_utf16() {
        let text = "(;PB[黒]C[é])";
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend(text.as_bytes());
        assert_eq!(decode(&bytes).text, text);
        let utf16: Vec<u16> = text.encode_utf16().collect();
        let little: Vec<u8> = utf16.iter().flat_map(|u| u.to_le_bytes()).collect();
        let big: Vec<u8> = utf16.iter().flat_map(|u| u.to_be_bytes()).collect();
        assert_eq!(decode(&little).text, text);
        assert_eq!(decode(&big).text, text);
        let mut marked = vec![0xFF, 0xFE];
        marked.extend(&little);
        assert_eq!(decode(&marked).text, text);
    }

    #[test]
    fn the_files_charset_then_a_guess() {
        for (label, name) in [
            ("GB2312", "GBK"),
            ("Shift_JIS", "Shift_JIS"),
            ("EUC-KR", "EUC-KR"),
        ] {
            let encoding = Encoding::for_label(label.as_bytes()).unwrap();
            let text = format!("(;CA[{label}]PB[本因坊秀策]PW[이창호]C[ソ表])");
            let (bytes, _, unmappable) = encoding.encode(&text);
            if unmappable {
                continue;
            }
            let decoded = decode(&bytes);
            assert_eq!(decoded.encoding.name(), name);
            assert_eq!(decoded.text, text);
            assert!(decoded.problems.is_empty());
        }
        // No CA: a guess. Shift_JIS puts ']' (0x5D) inside characters such as ソ (83 5C) or 表 (95 5C).
        let text = "(;PB[本因坊秀策]PW[井山裕太]C[ソ表示はこちらです。本因坊戦の第一局です。])";
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(text);
        let decoded = decode(&bytes);
        assert_eq!(decoded.encoding.name(), "Shift_JIS");
        assert_eq!(decoded.text, text);
    }

    #[test]
    fn a_wrong_or_unknown_charset_is_a_problem() {
        let (bytes, _, _) =
            encoding_rs::GBK.encode("(;CA[UTF-8]PB[聂卫平]PW[马晓春]C[第一届中日围棋擂台赛])");
        let decoded = decode(&bytes);
        assert_eq!(decoded.problems.len(), 1);
        assert!(decoded.problems[0]
            .message
            .starts_with("CA[UTF-8] does not match"));
        let decoded = decode(b"(;CA[klingon]PB[x])");
        assert_eq!(decoded.text, "(;CA[klingon]PB[x])");
        assert_eq!((decoded.problems[0].line, decoded.problems[0].column), (1, 5));
    }
}
