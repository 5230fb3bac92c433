//! The state a GTP session plays on (the game, komi, time control, the bot) and every command
//! but the analysis ones, which stream their answers ([`super::session`]).

use std::io::Write;
use std::time::Instant;

use super::clock::Clock;
use super::handicap;
use super::line::{arguments, missing_argument, quoted};
use super::sgf_io;
use super::vertex::{self, color as read_color, vertex as read_vertex};
use crate::bot::{dead_stones, score_without, seki_stones, Bot, Candidate, Decision, Report, PASS};
use crate::{area_score, render, Board, Color, Game, GoError, Point, MAX_SIDE};

/// Every command the engine knows, in `list_commands` order.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "time_settings",
    "time_left",
    "kgs-time_settings",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "loadsgf",
    "printsgf",
    "reg_genmove",
    "kgs-genmove_cleanup",
    "gogui-analyze_commands",
    "lz-analyze",
    "lz-genmove_analyze",
];

/// What `genmove` and its kin do with the move chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Genmove {
    /// Play it (`genmove`).
    Play,
    /// Only name it (`reg_genmove`).
    Name,
    /// Play it, capturing dead stones before passing (`kgs-genmove_cleanup`).
    Cleanup,
}

pub struct Engine {
    pub game: Game,
    pub komi: f64,
    pub bot: Bot,
    clock: Clock,
    log: Box<dyn Write + Send>,
}

pub type Reply = Result<String, String>;

impl Engine {
    pub fn new(bot: Bot, log: Box<dyn Write + Send>) -> Engine {
        Engine {
            game: Game::new(19, 19).expect("a valid size"),
            komi: 7.5,
            bot,
            clock: Clock::default(),
            log,
        }
    }

    /// Runs one command (not `quit` or the analysis ones, which the session handles). A
    /// command refused changes nothing; its error names the value refused, or the argument
    /// missing (a syntax error).
    pub fn execute(&mut self, name: &str, args: &[String], stop: &mut dyn FnMut() -> bool) -> Reply {
        let no_arguments = || arguments(name, args, []);
        match name {
            "protocol_version" => no_arguments().map(|_| "2".into()),
            "name" => no_arguments().map(|_| "gokata".into()),
            "version" => no_arguments().map(|_| env!("CARGO_PKG_VERSION").into()),
            "known_command" => {
                let [command] = arguments(name, args, ["COMMAND"])?;
                Ok(COMMANDS.contains(&command).to_string())
            }
            "list_commands" => no_arguments().map(|_| COMMANDS.join("\n")),
            "boardsize" => self.boardsize(args),
            "clear_board" => {
                no_arguments()?;
                self.game.reset();
                Ok(String::new())
            }
            "komi" => self.set_komi(args),
            "play" => self.play(args),
            "genmove" | "reg_genmove" | "kgs-genmove_cleanup" => {
                let mode = match name {
                    "genmove" => Genmove::Play,
                    "reg_genmove" => Genmove::Name,
                    _ => Genmove::Cleanup,
                };
                self.genmove(name, args, mode, stop)
            }
            "undo" => {
                no_arguments()?;
                self.game
                    .rollback(1)
                    .map(|_| String::new())
                    .map_err(|_| "cannot undo".into())
            }
            "showboard" => no_arguments().map(|_| format!("\n{}", render(self.game.board()).trim_end())),
            "final_score" => no_arguments().map(|_| self.final_score()),
            "final_status_list" => self.final_status_list(args),
            "time_settings" => self.clock.time_settings(args).map(|_| String::new()),
            "kgs-time_settings" => self.clock.kgs_time_settings(args).map(|_| String::new()),
            "time_left" => {
                let [color, time, stones] = arguments(name, args, ["COLOR", "TIME", "STONES"])?;
                let color = read_color(color)?;
                self.clock.time_left(color, time, stones).map(|_| String::new())
            }
            "fixed_handicap" => self.handicap(name, args, handicap::fixed_points),
            "place_free_handicap" => self.handicap(name, args, handicap::free_points),
            "set_free_handicap" => self.set_free_handicap(args),
            "loadsgf" => self.loadsgf(args),
            "printsgf" => no_arguments().map(|_| sgf_io::print(&self.game, self.komi)),
            "gogui-analyze_commands" => no_arguments().map(|_| {
                [
                    "plist/Dead stones/final_status_list dead",
                    "string/Final score/final_score",
                    "string/Show board/showboard",
                ]
                .join("\n")
            }),
            _ => Err(format!("unknown command {}", quoted(name))),
        }
    }

    fn boardsize(&mut self, args: &[String]) -> Reply {
        let [text] = arguments("boardsize", args, ["SIZE"])?;
        let whole = text.strip_prefix('-').unwrap_or(text);
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("invalid size {}: not a whole number", quoted(text)));
        }
        let unacceptable = || format!("unacceptable size {}: sizes are 1 to {MAX_SIDE}", quoted(text));
        let size = text
            .parse::<usize>()
            .ok()
            .filter(|size| (1..=MAX_SIDE).contains(size))
            .ok_or_else(unacceptable)?;
        self.game = Game::new(size, size).map_err(|_| unacceptable())?;
        self.bot.clear();
        Ok(String::new())
    }

    fn set_komi(&mut self, args: &[String]) -> Reply {
        let [text] = arguments("komi", args, ["KOMI"])?;
        match text.parse::<f64>() {
            Ok(komi) if komi.is_finite() && komi.abs() <= 10_000.0 => {
                self.komi = komi;
                Ok(String::new())
            }
            Ok(komi) if komi.is_finite() => {
                Err(format!("invalid komi {}: komi is -10000 to 10000", quoted(text)))
            }
            _ => Err(format!("invalid komi {}: not a finite number", quoted(text))),
        }
    }

    fn play(&mut self, args: &[String]) -> Reply {
        let [color, point] = arguments("play", args, ["COLOR", "VERTEX"])?;
        let color = read_color(color)?;
        let p = read_vertex(point, self.game.board())?;
        if p == PASS {
            self.game.pass_as(color);
            return Ok(String::new());
        }
        let name = vertex::name(p, self.game.board());
        self.game
            .play_as(color, p)
            .map(|_| String::new())
            .map_err(|error| match error {
                GoError::IllegalMove { reason, .. } => format!("illegal move {name} for {color}: {reason}"),
                other => format!("illegal move {name} for {color}: {other}"),
            })
    }

    /// The side `args` names, to move in a copy of the game.
    fn position_for(&self, command: &str, args: &[String]) -> Result<Game, String> {
        let [color] = arguments(command, args, ["COLOR"])?;
        let color = read_color(color)?;
        let mut position = self.game.clone();
        position.set_to_move(color);
        Ok(position)
    }

    fn genmove(
        &mut self,
        command: &str,
        args: &[String],
        mode: Genmove,
        stop: &mut dyn FnMut() -> bool,
    ) -> Reply {
        let position = self.position_for(command, args)?;
        let (decision, _) = self.decide(&position, mode == Genmove::Cleanup, stop, None);
        self.carry_out(decision, position.to_move(), mode)
    }

    /// The bot's decision for the side to move in `position`, logged to standard error
    /// (`report`: see [`Bot::genmove`]).
    pub fn decide(
        &mut self,
        position: &Game,
        cleanup: bool,
        stop: &mut dyn FnMut() -> bool,
        report: Option<Report<'_>>,
    ) -> (Decision, Vec<Candidate>) {
        let color = position.to_move();
        let mut budget = self.bot.settings().budget;
        if let Some(cap) = self.clock.move_time(color, position.board()) {
            budget = budget.capped(cap);
        }
        let started = Instant::now();
        let (decision, candidates) = self
            .bot
            .genmove_reporting(position, self.komi, budget, cleanup, stop, report);
        let shown = match decision {
            Decision::Play(p) => vertex::name(p, position.board()),
            Decision::Pass => "pass".into(),
            Decision::Resign => "resign".into(),
        };
        let search = search_summary(position, self.komi, &candidates);
        let _ = writeln!(
            self.log,
            "gokata: {color} {shown} ({search}, {:.2} s)",
            started.elapsed().as_secs_f64()
        );
        (decision, candidates)
    }

    /// Plays the decision for `color` (unless only naming it) and names it. The bot only
    /// chooses legal moves; were one refused, the reply says so and the game is unchanged.
    pub fn carry_out(&mut self, decision: Decision, color: Color, mode: Genmove) -> Reply {
        let board = self.game.board();
        match decision {
            Decision::Resign => Ok("resign".into()),
            Decision::Pass => {
                if mode != Genmove::Name {
                    self.game.pass_as(color);
                }
                Ok("pass".into())
            }
            Decision::Play(p) => {
                let name = vertex::name(p, board);
                if mode != Genmove::Name {
                    self.game
                        .play_as(color, p)
                        .map_err(|error| format!("internal error: the bot chose {name}: {error}"))?;
                }
                Ok(name)
            }
        }
    }

    /// The stones the bot judges dead.
    fn dead(&self) -> Vec<Point> {
        dead_stones(&self.game, self.bot.settings().seed)
    }

    /// `B+3.5`, `W+0.5` or `0`: the area score with the dead stones taken off.
    fn final_score(&self) -> String {
        let margin = score_without(self.game.board(), &self.dead(), self.komi).margin();
        if margin > 0.0 {
            format!("B+{margin}")
        } else if margin < 0.0 {
            format!("W+{}", -margin)
        } else {
            "0".into()
        }
    }

    fn final_status_list(&self, args: &[String]) -> Reply {
        let [status] = arguments("final_status_list", args, ["STATUS"])?;
        let status = status.to_ascii_lowercase();
        if !["dead", "alive", "seki"].contains(&status.as_str()) {
            return Err(format!(
                "invalid status {}: final_status_list takes dead, alive or seki",
                quoted(&args[0])
            ));
        }
        let board = self.game.board();
        let dead = self.dead();
        let seki = seki_stones(board);
        let stones: Vec<Point> = match status.as_str() {
            "dead" => dead,
            "alive" => board
                .points()
                .filter(|p| board.stone(*p).is_some() && !dead.contains(p) && !seki.contains(p))
                .collect(),
            _ => seki,
        };
        Ok(names(board, &stones))
    }

    /// `fixed_handicap N` and `place_free_handicap N`: black stones on an empty board, white
    /// then to move.
    fn handicap(
        &mut self,
        command: &str,
        args: &[String],
        points: fn(&Board, usize) -> Result<Vec<Point>, String>,
    ) -> Reply {
        let [text] = arguments(command, args, ["NUMBER_OF_STONES"])?;
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "invalid handicap {}: not a number of stones",
                quoted(text)
            ));
        }
        // A number too big for a usize is too many stones for every board.
        let stones: usize = text.parse().unwrap_or(usize::MAX);
        self.require_empty_board()?;
        let points = points(self.game.board(), stones)
            .map_err(|problem| format!("invalid handicap {}: {problem}", quoted(text)))?;
        self.place_handicap(&points);
        Ok(names(self.game.board(), &points))
    }

    fn set_free_handicap(&mut self, args: &[String]) -> Reply {
        if args.is_empty() {
            return Err(missing_argument("VERTEX", "set_free_handicap VERTEX VERTEX ..."));
        }
        self.require_empty_board()?;
        let board = self.game.board();
        let mut points = Vec::new();
        for text in args {
            let p = read_vertex(text, board).map_err(|problem| format!("bad vertex list: {problem}"))?;
            if p == PASS {
                return Err(format!("bad vertex list: {} is not a point", quoted(text)));
            }
            if points.contains(&p) {
                return Err(format!("bad vertex list: {} twice", vertex::name(p, board)));
            }
            points.push(p);
        }
        let most = board.height() * board.width() - 1;
        if points.len() < 2 || points.len() > most {
            let given = match points.len() {
                1 => "1 stone".to_string(),
                n => format!("{n} stones"),
            };
            return Err(format!(
                "bad vertex list: {given}; a handicap on this {}x{} board is 2 to {most} stones",
                board.height(),
                board.width()
            ));
        }
        self.place_handicap(&points);
        Ok(String::new())
    }

    fn require_empty_board(&self) -> Result<(), String> {
        let board = self.game.board();
        if board.stone_count(Color::Black) + board.stone_count(Color::White) > 0
            || self.game.turns_played() > 0
        {
            return Err("board not empty".into());
        }
        Ok(())
    }

    /// Black stones at `points` of the empty board, set up before the game, white to move.
    fn place_handicap(&mut self, points: &[Point]) {
        let board = self.game.board();
        let mut stones = vec![vec![None; board.width()]; board.height()];
        for &p in points {
            let (row, col) = board.row_col(p);
            stones[row][col] = Some(Color::Black);
        }
        let board = Board::with_stones(&stones).expect("the board's own size");
        self.game = Game::from_board(board, Color::White);
    }

    fn loadsgf(&mut self, args: &[String]) -> Reply {
        let usage = "loadsgf FILE [MOVE_NUMBER]";
        let (path, move_number) = match args {
            [] => return Err(missing_argument("FILE", usage)),
            [path] => (path, None),
            [path, number] => (path, Some(number.as_str())),
            [_, _, extra, ..] => {
                return Err(format!(
                    "syntax error: unexpected {} (usage: {usage})",
                    quoted(extra)
                ))
            }
        };
        let (game, komi) = sgf_io::load(path, move_number)?;
        self.game = game;
        if let Some(komi) = komi {
            self.komi = komi;
        }
        Ok(String::new())
    }
}

/// What the log says of a search: the best move's visits and win rate, or why there was none.
fn search_summary(position: &Game, komi: f64, candidates: &[Candidate]) -> String {
    match candidates.first() {
        Some(best) if best.visits > 0 && best.win_rate.is_finite() => {
            format!("{} visits, win rate {:.3}", best.visits, best.win_rate)
        }
        _ if position.last_turn_was_pass()
            && area_score(position.board(), komi).winner() == Some(position.to_move()) =>
        {
            "no search: the last turn was a pass, and passing now ends the game with a win".into()
        }
        _ => "no search".into(),
    }
}

/// Vertices, space-separated, row by row from the top.
fn names(board: &Board, points: &[Point]) -> String {
    points
        .iter()
        .map(|&p| vertex::name(p, board))
        .collect::<Vec<_>>()
        .join(" ")
}
