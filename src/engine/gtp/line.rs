//! One line of GTP input as the protocol (version 2, section 2) says to read it: control
//! characters other than tab and newline dropped (so CR LF reads as LF), tabs made spaces,
//! everything after `#` a comment, and a line left empty not a command. Then an optional
//! numeric id, the command name, and its arguments.

/// A command as read from a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub id: Option<u64>,
    pub name: String,
    pub args: Vec<String>,
}

/// The command on `line` (raw bytes, newline included or not), `None` for a line with no
/// command (empty, blank or a comment).
pub fn read(line: &[u8]) -> Option<Command> {
    let text = String::from_utf8_lossy(line);
    let cleaned: String = text
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let without_comment = cleaned.split('#').next().unwrap_or("");
    let mut words = without_comment.split(' ').filter(|w| !w.is_empty());
    let first = words.next()?;
    let (id, name) = match first.parse::<u64>() {
        Ok(id) if first.bytes().all(|b| b.is_ascii_digit()) => {
            (Some(id), words.next().unwrap_or("").to_string())
        }
        _ => (None, first.to_string()),
    };
    Some(Command {
        id,
        name,
        args: words.map(str::to_string).collect(),
    })
}

/// A reply: `=ID result` or `?ID message`, then the empty line that ends every reply.
pub fn reply(id: Option<u64>, result: &Result<String, String>) -> String {
    let (mark, text) = match result {
        Ok(text) => ('=', text),
        Err(text) => ('?', text),
    };
    let id = id.map_or(String::new(), |id| id.to_string());
    if text.is_empty() {
        format!("{mark}{id}\n\n")
    } else {
        format!("{mark}{id} {text}\n\n")
    }
}

/// The most characters of a value an error message shows (a command line may be long).
const SHOWN_CHARACTERS: usize = 40;

/// A value from the input as an error message shows it: quoted, and cut short if long.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARACTERS) {
        Some((cut, _)) => format!("{:?}", format!("{}...", &text[..cut])),
        None => format!("{text:?}"),
    }
}

/// The arguments of `command`, which takes exactly those `names` (placeholders such as
/// `VERTEX`): a syntax error names the first one missing, or the first word too many.
pub fn arguments<'a, const N: usize>(
    command: &str,
    args: &'a [String],
    names: [&str; N],
) -> Result<[&'a str; N], String> {
    if let Some(extra) = args.get(N) {
        return Err(if N == 0 {
            format!(
                "syntax error: unexpected {} ({command} takes no arguments)",
                quoted(extra)
            )
        } else {
            format!(
                "syntax error: unexpected {} (usage: {})",
                quoted(extra),
                usage(command, &names)
            )
        });
    }
    if let Some(missing) = names.get(args.len()) {
        return Err(missing_argument(missing, &usage(command, &names)));
    }
    Ok(std::array::from_fn(|i| args[i].as_str()))
}

/// The syntax error of an argument left out: `syntax error: missing VERTEX (usage: play COLOR
/// VERTEX)`.
pub fn missing_argument(name: &str, usage: &str) -> String {
    format!("syntax error: missing {name} (usage: {usage})")
}

fn usage(command: &str, names: &[&str]) -> String {
    std::iter::once(command)
        .chain(names.iter().copied())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(id: Option<u64>, name: &str, args: &[&str]) -> Option<Command> {
        Some(Command {
            id,
            name: name.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        })
    }

    #[test]
    fn ids_comments_tabs_and_control_characters() {
        assert_eq!(read(b"7 play b d4\r\n"), command(Some(7), "play", &["b", "d4"]));
        assert_eq!(
            read(b"play\tb   d4 # a comment"),
            command(None, "play", &["b", "d4"])
        );
        assert_eq!(read(b"na\x01me\x7f\n"), command(None, "name", &[]));
        assert_eq!(read(b"  \r\n"), None);
        assert_eq!(read(b"# only a comment"), None);
        assert_eq!(read(b""), None);
        assert_eq!(read(b"12"), command(Some(12), "", &[]));
        assert_eq!(read(b"-3 name"), command(None, "-3", &["name"]));
        assert_eq!(
            read(b"\xff\xfe name"),
            command(None, "\u{fffd}\u{fffd}", &["name"])
        );
    }

    #[test]
    fn missing_and_extra_arguments_are_syntax_errors_naming_them() {
        let words = |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_string).collect() };
        assert_eq!(
            arguments("play", &words("b d4"), ["COLOR", "VERTEX"]),
            Ok(["b", "d4"])
        );
        assert_eq!(
            arguments("play", &words("b"), ["COLOR", "VERTEX"]),
            Err("syntax error: missing VERTEX (usage: play COLOR VERTEX)".into())
        );
        assert_eq!(
            arguments("known_command", &[], ["COMMAND"]),
            Err("syntax error: missing COMMAND (usage: known_command COMMAND)".into())
        );
        assert_eq!(
            arguments("play", &words("b d4 e5"), ["COLOR", "VERTEX"]),
            Err("syntax error: unexpected \"e5\" (usage: play COLOR VERTEX)".into())
        );
        assert_eq!(
            arguments("name", &words("now"), []),
            Err("syntax error: unexpected \"now\" (name takes no arguments)".into())
        );
        assert_eq!(arguments("name", &[], []), Ok([]));
    }

    #[test]
    fn values_are_quoted_and_long_ones_cut_short() {
        assert_eq!(quoted("Z9"), "\"Z9\"");
        assert_eq!(quoted(&"x".repeat(40)), format!("\"{}\"", "x".repeat(40)));
        assert_eq!(quoted(&"é".repeat(100_000)), format!("\"{}...\"", "é".repeat(40)));
        assert_eq!(quoted("a\"b"), "\"a\\\"b\"");
    }

    #[test]
    fn replies_echo_the_id_and_end_with_an_empty_line() {
        assert_eq!(reply(Some(7), &Ok("2".into())), "=7 2\n\n");
        assert_eq!(reply(None, &Ok(String::new())), "=\n\n");
        assert_eq!(
            reply(Some(3), &Err("unknown command".into())),
            "?3 unknown command\n\n"
        );
    }
}
