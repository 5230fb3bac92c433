//! A GTP session: commands read from the input on a thread of their own (a controller such as
//! Sabaki sends the next command without waiting), answered strictly in order on the output,
//! each reply flushed at once; logs go elsewhere (standard error), never to the output.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::time::Duration;

use super::analyze::{info_line, request};
use super::engine::{Engine, Genmove};
use super::line::{self, arguments, Command};
use crate::bot::{Bot, Budget, Candidate, Report};

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Quit,
    EndOfInput,
    /// `stop` said to stop (Ctrl-C).
    Interrupted,
}

/// How often a waiting session asks `stop`.
const POLL: Duration = Duration::from_millis(50);

/// Runs a session on `input` and `output` until `quit`, the end of the input, or `stop`
/// answering `true` (asked every few milliseconds). Fails only when the output cannot be written.
pub fn run(
    input: impl Read + Send + 'static,
    output: &mut dyn Write,
    log: Box<dyn Write + Send>,
    bot: Bot,
    stop: &mut dyn FnMut() -> bool,
) -> io::Result<Ending> {
    let lines = read_lines(input);
    let mut session = Session {
        engine: Engine::new(bot, log),
        lines,
        pending: None,
        input_ended: false,
    };
    session.serve(output, stop)
}

/// The input's lines, sent one by one from a reader thread (which ends with the input).
fn read_lines(input: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(input);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if sender.send(line).is_err() {
                        return;
                    }
                }
            }
        }
    });
    receiver
}

struct Session {
    engine: Engine,
    lines: Receiver<Vec<u8>>,
    /// A line read while an analysis ran: the next command.
    pending: Option<Vec<u8>>,
    input_ended: bool,
}

impl Session {
    fn serve(&mut self, output: &mut dyn Write, stop: &mut dyn FnMut() -> bool) -> io::Result<Ending> {
        loop {
            let line = match self.pending.take() {
                Some(line) => line,
                None => match self.next_line(stop) {
                    Ok(line) => line,
                    Err(ending) => return Ok(ending),
                },
            };
            let Some(command) = line::read(&line) else {
                continue;
            };
            match command.name.as_str() {
                "quit" => {
                    let reply = arguments("quit", &command.args, []).map(|_| String::new());
                    output.write_all(line::reply(command.id, &reply).as_bytes())?;
                    output.flush()?;
                    if reply.is_ok() {
                        return Ok(Ending::Quit);
                    }
                }
                "lz-analyze" => self.analyze(&command, output, stop)?,
                "lz-genmove_analyze" => self.genmove_analyze(&command, output, stop)?,
                name => {
                    let reply = self.engine.execute(name, &command.args, stop);
                    output.write_all(line::reply(command.id, &reply).as_bytes())?;
                }
            }
            output.flush()?;
        }
    }

    /// The next line of input, waiting for it.
    fn next_line(&mut self, stop: &mut dyn FnMut() -> bool) -> Result<Vec<u8>, Ending> {
        loop {
            match self.lines.recv_timeout(POLL) {
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Disconnected) => return Err(Ending::EndOfInput),
                Err(RecvTimeoutError::Timeout) if stop() => return Err(Ending::Interrupted),
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Whether input arrived (or ended) while an analysis ran, keeping the line for later.
    fn input_waiting(&mut self) -> bool {
        if self.pending.is_none() && !self.input_ended {
            match self.lines.try_recv() {
                Ok(line) => self.pending = Some(line),
                Err(TryRecvError::Disconnected) => self.input_ended = true,
                Err(TryRecvError::Empty) => {}
            }
        }
        self.pending.is_some() || self.input_ended
    }

    /// `lz-analyze`: reports until the next command arrives.
    fn analyze(
        &mut self,
        command: &Command,
        output: &mut dyn Write,
        stop: &mut dyn FnMut() -> bool,
    ) -> io::Result<()> {
        let request = match request(&command.name, &command.args, self.engine.game.board()) {
            Ok(request) => request,
            Err(problem) => return output.write_all(line::reply(command.id, &Err(problem)).as_bytes()),
        };
        let mut position = self.engine.game.clone();
        if let Some(color) = request.color {
            position.set_to_move(color);
        }
        output
            .write_all(format!("={}\n", command.id.map_or(String::new(), |id| id.to_string())).as_bytes())?;
        output.flush()?;
        let interval = Duration::from_millis(request.centiseconds * 10);
        let komi = self.engine.komi;
        loop {
            let mut interrupted = false;
            let candidates = {
                let Session { engine, .. } = self;
                let mut halt = || {
                    interrupted |= stop();
                    interrupted
                };
                engine
                    .bot
                    .analyze(&position, komi, Budget::time(interval), &mut halt)
            };
            output.write_all(format!("{}\n", info_line(&candidates, position.board())).as_bytes())?;
            output.flush()?;
            if interrupted || self.input_waiting() {
                break;
            }
        }
        output.write_all(b"\n")
    }

    /// `lz-genmove_analyze`: `=`, a report every interval while the bot searches and one at
    /// the end, `play MOVE` and the empty line; the move is played.
    fn genmove_analyze(
        &mut self,
        command: &Command,
        output: &mut dyn Write,
        stop: &mut dyn FnMut() -> bool,
    ) -> io::Result<()> {
        let request = match request(&command.name, &command.args, self.engine.game.board()) {
            Ok(request) => request,
            Err(problem) => return output.write_all(line::reply(command.id, &Err(problem)).as_bytes()),
        };
        let color = request.color.unwrap_or(self.engine.game.to_move());
        let mut position = self.engine.game.clone();
        position.set_to_move(color);
        output
            .write_all(format!("={}\n", command.id.map_or(String::new(), |id| id.to_string())).as_bytes())?;
        output.flush()?;
        let mut failed = None;
        let mut send = |candidates: &[Candidate]| {
            if failed.is_none() && !candidates.is_empty() {
                let line = format!("{}\n", info_line(candidates, position.board()));
                if let Err(error) = output.write_all(line.as_bytes()).and_then(|()| output.flush()) {
                    failed = Some(error);
                }
            }
        };
        let report = Report {
            every: Duration::from_millis(request.centiseconds * 10),
            send: &mut send,
        };
        let (decision, candidates) = self.engine.decide(&position, false, stop, Some(report));
        if let Some(error) = failed {
            return Err(error);
        }
        output.write_all(format!("{}\n", info_line(&candidates, position.board())).as_bytes())?;
        match self.engine.carry_out(decision, color, Genmove::Play) {
            Ok(played) => output.write_all(format!("play {played}\n\n").as_bytes()),
            Err(problem) => output.write_all(format!("{problem}\n\n").as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Settings;

    fn session(input: &str) -> (String, Ending) {
        let settings = Settings {
            budget: Budget::playouts(30),
            threads: 1,
            seed: 1,
            resign: true,
        };
        let mut output = Vec::new();
        let ending = run(
            io::Cursor::new(input.as_bytes().to_vec()),
            &mut output,
            Box::new(io::sink()),
            Bot::new(settings),
            &mut || false,
        )
        .expect("a Vec takes every write");
        (String::from_utf8(output).expect("UTF-8 replies"), ending)
    }

    #[test]
    fn replies_come_in_order_and_quit_ends_the_session() {
        let (output, ending) = session("1 name\n\n2 bogus\n3 quit\n4 name\n");
        assert_eq!(output, "=1 gokata\n\n?2 unknown command \"bogus\"\n\n=3\n\n");
        assert_eq!(ending, Ending::Quit);
        let (output, ending) = session("boardsize 5\ngenmove b\n");
        assert!(
            output.starts_with("=\n\n= ") && output.ends_with("\n\n"),
            "{output:?}"
        );
        assert_eq!(ending, Ending::EndOfInput);
    }

    #[test]
    fn missing_arguments_are_syntax_errors_and_bad_values_are_named() {
        let (output, ending) = session(
            "known_command\n\
             2 known_command play extra\n\
             boardsize 9\n\
             play black Z9\n\
             play purple D4\n\
             play b\n\
             play b I5\n\
             play b D4\n\
             play w d4\n\
             3 frobnicate\n\
             quit now\n\
             genmove\n\
             showboard\n",
        );
        let replies: Vec<&str> = output.trim_end().split("\n\n").collect();
        assert_eq!(
            replies[..11],
            [
                "? syntax error: missing COMMAND (usage: known_command COMMAND)",
                "?2 syntax error: unexpected \"extra\" (usage: known_command COMMAND)",
                "=",
                "? invalid coordinate \"Z9\": the columns of this 9x9 board are A-H, J",
                "? invalid color \"purple\"",
                "? syntax error: missing VERTEX (usage: play COLOR VERTEX)",
                "? invalid coordinate \"I5\": there is no column I; the columns of this 9x9 board are A-H, J",
                "=",
                "? illegal move D4 for white: the point is occupied",
                "?3 unknown command \"frobnicate\"",
                "? syntax error: unexpected \"now\" (quit takes no arguments)",
            ]
        );
        assert_eq!(
            replies[11],
            "? syntax error: missing COLOR (usage: genmove COLOR)"
        );
        assert_eq!(
            replies[12].matches('x').count(),
            1,
            "only D4 was played: {}",
            replies[12]
        );
        assert_eq!(
            ending,
            Ending::EndOfInput,
            "quit with an argument is refused, not obeyed"
        );
    }

    #[test]
    fn analysis_arguments_that_do_not_read_are_refused_and_nothing_is_searched() {
        let (output, _) = session(
            "boardsize 9\nlz-analyze purple\n4 lz-genmove_analyze b purple\nlz-analyze interval\nshowboard\n",
        );
        let replies: Vec<&str> = output.trim_end().split("\n\n").collect();
        assert_eq!(replies.len(), 5, "{output:?}");
        assert!(
            replies[1].starts_with("? invalid argument \"purple\" (usage: lz-analyze "),
            "{output:?}"
        );
        assert!(
            replies[2].starts_with("?4 invalid argument \"purple\" (usage: lz-genmove_analyze "),
            "{output:?}"
        );
        assert!(
            replies[3].starts_with("? syntax error: missing N (usage: lz-analyze "),
            "{output:?}"
        );
        assert!(
            !replies[4].contains('x') && !replies[4].contains('o'),
            "nothing played: {output:?}"
        );
        assert!(!output.contains("info move"), "{output:?}");
    }

    /// A log the test reads after the session.
    #[derive(Clone, Default)]
    struct SharedLog(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for SharedLog {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_genmove_without_a_search_logs_why_and_no_log_line_shows_nan() {
        let log = SharedLog::default();
        let settings = Settings {
            budget: Budget::playouts(30),
            threads: 1,
            seed: 1,
            resign: true,
        };
        let mut output = Vec::new();
        // Two passes, then white (ahead by the komi on an empty board) passes at once; black
        // searches.
        let input = "boardsize 9\nplay b pass\nplay w pass\ngenmove w\ngenmove b\nkgs-genmove_cleanup w\n";
        run(
            io::Cursor::new(input.as_bytes().to_vec()),
            &mut output,
            Box::new(log.clone()),
            Bot::new(settings),
            &mut || false,
        )
        .unwrap();
        let output = String::from_utf8(output).unwrap();
        assert!(output.starts_with("=\n\n=\n\n=\n\n= pass\n\n= "), "{output:?}");
        let log = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 3, "{log}");
        assert!(
            lines[0].starts_with(
                "gokata: white pass (no search: the last turn was a pass, and passing now ends the game with a win, "
            ),
            "{log}"
        );
        assert!(
            lines[1].starts_with("gokata: black ") && lines[1].contains(" visits, win rate 0."),
            "{log}"
        );
        assert!(!log.to_ascii_lowercase().contains("nan"), "{log}");
    }

    #[test]
    fn an_analysis_cut_short_by_the_end_of_the_input_still_ends_its_reply() {
        let (output, _) = session("boardsize 5\nlz-analyze 5\n");
        assert!(output.starts_with("=\n\n=\ninfo move "), "{output:?}");
        assert!(output.ends_with("\n\n"), "{output:?}");
    }
}
