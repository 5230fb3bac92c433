//! The state a GTP session plays on (the game, komi, time control, the bot) and every command
//! but the analysis ones, which stream their answers ([`super::session`]).

use std::io::Write;
use std::time::Instant;

use super::clock::Clock;
use super::handicap;
use super::sgf_io;
use super::vertex::{self, color as read_color, vertex as read_vertex};
use crate::bot::{dead_stones, score_without, seki_stones, Bot, Candidate, Decision, Report, PASS};
use crate::{render, Board, Color, Game, Point, MAX_SIDE};

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

    /// Runs one command (not `quit` or the analysis ones, which the session handles).
    pub fn execute(&mut self, name: &str, args: &[String], stop: &mut dyn FnMut() -> bool) -> Reply {
        match name {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("gokata".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "known_command" => Ok(args
                .first()
                .is_some_and(|c| COMMANDS.contains(&c.as_str()))
                .to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "boardsize" => self.boardsize(args),
            "clear_board" => {
                self.game.reset();
                Ok(String::new())
            }
            "komi" => self.set_komi(args),
            "play" => self.play(args),
            "genmove" => self.genmove(args, Genmove::Play, stop),
            "reg_genmove" => self.genmove(args, Genmove::Name, stop),
            "kgs-genmove_cleanup" => self.genmove(args, Genmove::Cleanup, stop),
            "undo" => self
                .game
                .rollback(1)
                .map(|_| String::new())
                .map_err(|_| "cannot undo".into()),
            "showboard" => Ok(format!("\n{}", render(self.game.board()).trim_end())),
            "final_score" => Ok(self.final_score()),
            "final_status_list" => self.final_status_list(args),
            "time_settings" => self.clock.time_settings(args).map(|_| String::new()),
            "kgs-time_settings" => self.clock.kgs_time_settings(args).map(|_| String::new()),
            "time_left" => {
                let color = read_color(args.first().map_or("", String::as_str))?;
                self.clock.time_left(color, &args[1..]).map(|_| String::new())
            }
            "fixed_handicap" => self.handicap(args, handicap::fixed_points),
            "place_free_handicap" => self.handicap(args, handicap::free_points),
            "set_free_handicap" => self.set_free_handicap(args),
            "loadsgf" => self.loadsgf(args),
            "printsgf" => Ok(sgf_io::print(&self.game, self.komi)),
            "gogui-analyze_commands" => Ok([
                "plist/Dead stones/final_status_list dead",
                "string/Final score/final_score",
                "string/Show board/showboard",
            ]
            .join("\n")),
            _ => Err("unknown command".into()),
        }
    }

    fn boardsize(&mut self, args: &[String]) -> Reply {
        let [size] = args else {
            return Err("boardsize takes one size".into());
        };
        let size: i64 = size.parse().map_err(|_| "boardsize not an integer".to_string())?;
        let size = usize::try_from(size)
            .ok()
            .filter(|size| (1..=MAX_SIDE).contains(size))
            .ok_or("unacceptable size")?;
        self.game = Game::new(size, size).map_err(|_| "unacceptable size".to_string())?;
        self.bot.clear();
        Ok(String::new())
    }

    fn set_komi(&mut self, args: &[String]) -> Reply {
        match args {
            [komi] => match komi.parse::<f64>() {
                Ok(komi) if komi.is_finite() && komi.abs() <= 10_000.0 => {
                    self.komi = komi;
                    Ok(String::new())
                }
                _ => Err("komi not a float".into()),
            },
            _ => Err("komi takes one number".into()),
        }
    }

    fn play(&mut self, args: &[String]) -> Reply {
        let [color, point] = args else {
            return Err("invalid color or coordinate".into());
        };
        let color = read_color(color).map_err(|_| "invalid color or coordinate".to_string())?;
        let p =
            read_vertex(point, self.game.board()).map_err(|_| "invalid color or coordinate".to_string())?;
        if p == PASS {
            self.game.pass_as(color);
            return Ok(String::new());
        }
        self.game
            .play_as(color, p)
            .map(|_| String::new())
            .map_err(|_| "illegal move".into())
    }

    /// The side `args` names, to move in a copy of the game.
    fn position_for(&self, args: &[String]) -> Result<Game, String> {
        let [color] = args else {
            return Err("genmove takes a color".into());
        };
        let color = read_color(color)?;
        let mut position = self.game.clone();
        position.set_to_move(color);
        Ok(position)
    }

    fn genmove(&mut self, args: &[String], mode: Genmove, stop: &mut dyn FnMut() -> bool) -> Reply {
        let position = self.position_for(args)?;
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
        let (visits, win_rate) = candidates
            .first()
            .map_or((0, f64::NAN), |c| (c.visits, c.win_rate));
        let _ = writeln!(
            self.log,
            "gokata: {color} {shown} ({visits} visits, win rate {win_rate:.3}, {:.2} s)",
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
        let board = self.game.board();
        let status = args.first().map(|s| s.to_ascii_lowercase());
        let dead = self.dead();
        let seki = seki_stones(board);
        let stones: Vec<Point> = match status.as_deref() {
            Some("dead") if args.len() == 1 => dead,
            Some("alive") if args.len() == 1 => board
                .points()
                .filter(|p| board.stone(*p).is_some() && !dead.contains(p) && !seki.contains(p))
                .collect(),
            Some("seki") if args.len() == 1 => seki,
            _ => return Err("final_status_list takes dead, alive or seki".into()),
        };
        Ok(names(board, &stones))
    }

    /// `fixed_handicap N` and `place_free_handicap N`: black stones on an empty board, white
    /// then to move.
    fn handicap(
        &mut self,
        args: &[String],
        points: fn(&Board, usize) -> Result<Vec<Point>, String>,
    ) -> Reply {
        let [stones] = args else {
            return Err("invalid handicap: give a number of stones".into());
        };
        let stones: usize = stones
            .parse()
            .map_err(|_| "invalid handicap: not a number".to_string())?;
        self.require_empty_board()?;
        let points = points(self.game.board(), stones)?;
        self.place_handicap(&points);
        Ok(names(self.game.board(), &points))
    }

    fn set_free_handicap(&mut self, args: &[String]) -> Reply {
        self.require_empty_board()?;
        let board = self.game.board();
        let mut points = Vec::new();
        for text in args {
            let p = read_vertex(text, board).map_err(|_| "bad vertex list".to_string())?;
            if p == PASS || points.contains(&p) {
                return Err("bad vertex list".into());
            }
            points.push(p);
        }
        if points.len() < 2 || points.len() >= board.height() * board.width() {
            return Err("bad vertex list".into());
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
        let (path, move_number) = match args {
            [path] => (path, None),
            [path, number] => (path, Some(number.as_str())),
            _ => return Err("loadsgf takes a file name and an optional move number".into()),
        };
        let (game, komi) = sgf_io::load(path, move_number)?;
        self.game = game;
        if let Some(komi) = komi {
            self.komi = komi;
        }
        Ok(String::new())
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
