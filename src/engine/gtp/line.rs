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
    fn replies_echo_the_id_and_end_with_an_empty_line() {
        assert_eq!(reply(Some(7), &Ok("2".into())), "=7 2\n\n");
        assert_eq!(reply(None, &Ok(String::new())), "=\n\n");
        assert_eq!(
            reply(Some(3), &Err("unknown command".into())),
            "?3 unknown command\n\n"
        );
    }
}
