//! Where handicap stones go.

/// The kata's handicap points, in placement order, for the square sizes that have them.
pub fn handicap_points(size: usize) -> Option<&'static [&'static str]> {
    match size {
        9 => Some(&["7G", "3C", "3G", "7C", "5E"]),
        13 => Some(&["10K", "4D", "4K", "10D", "7G", "7D", "7K", "10G", "4G"]),
        19 => Some(&["16Q", "4D", "4Q", "16D", "10K", "10D", "10Q", "16K", "4K"]),
        _ => None,
    }
}
