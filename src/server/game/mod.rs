//! One game on the server: the engine's game, the players, the turns as played, the result.
//! No clock and no I/O here: the hub decides when, this decides what.

use serde::{Deserialize, Serialize};

use gokata_engine::sgf::{game_tree, write_tree, GameInfo, Property};
use gokata_engine::{area_score, coord, Color, Game, GoError, Score};

use super::store::StoredGame;
use super::terms::{GameTerms, Scoring};
use super::time_control::{Clock, TimeControl};
use gokata_engine::bot::{dead_stones, score_without};

mod point_name;
pub use point_name::{same_moves, PointName};
/// The board sizes a seek may ask for.
pub const BOARD_SIZES: [usize; 3] = [9, 13, 19];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Passes,
    Timeout,
    Resign,
    /// Scored once the players agreed on the dead stones (or by the server's proposal when
    /// they did not in time).
    Score,
}

impl EndReason {
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Passes => "passes",
            EndReason::Timeout => "timeout",
            EndReason::Resign => "resign",
            EndReason::Score => "score",
        }
    }

    pub fn from_name(name: &str) -> Option<EndReason> {
        [
            EndReason::Passes,
            EndReason::Timeout,
            EndReason::Resign,
            EndReason::Score,
        ]
        .into_iter()
        .find(|reason| reason.name() == name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameResult {
    /// `None`: a draw (jigo), after two passes with a whole-number komi.
    pub winner: Option<Color>,
    pub reason: EndReason,
    /// The area score, after two passes only.
    pub score: Option<Score>,
}

/// A turn that was played.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub ply: usize,
    pub color: Color,
    pub point: Option<String>,
    pub captured: Vec<String>,
    /// The result, if this turn ended the game (a second pass in a row).
    pub result: Option<GameResult>,
}

/// The scoring phase of a game scored by agreement: the stones marked dead, and who accepted
/// them (black first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoringPhase {
    /// Kata coordinates, in board order.
    pub dead: Vec<String>,
    pub accepted: [bool; 2],
}

/// Why a turn was not played.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The game is over, or the turn was asked for at another ply: send the full state.
    Stale,
    NotYourTurn,
    /// The point is not a coordinate at all.
    Malformed(String),
    /// The game is being scored: turns wait for a `resume`.
    Scoring,
    /// Off the board, occupied, suicide or ko.
    Illegal {
        reason: &'static str,
        message: String,
    },
}

/// The time the players have to agree on the dead stones (unless a move's time is shorter).
pub const SCORING_TIME_MS: u64 = 5 * 60 * 1000;

/// The chat messages a game keeps at hand (and a STATE carries): the last ones.
pub const CHAT_KEPT: usize = 100;

/// A chat message of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatMessage {
    pub from: String,
    pub text: String,
    /// The turns played when it was said.
    pub ply: usize,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// Said by a watcher while the game was on: for the watchers only.
    pub watchers: bool,
}

/// The most undo requests a player may make in one game.
pub const MAX_UNDO_REQUESTS: u32 = 3;

/// Undo in a game: the request waiting for the opponent's answer, and how many each player
/// has made (black first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UndoState {
    pub pending: Option<UndoRequest>,
    pub asked: [u32; 2],
}

/// A request to take back the last turn, `ply` turns into the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UndoRequest {
    pub by: Color,
    pub ply: usize,
}

#[derive(Clone)]
pub struct ServerGame {
    pub id: String,
    pub black: String,
    pub white: String,
    /// Whether black and white are programs (bots).
    pub bots: [bool; 2],
    pub terms: GameTerms,
    /// Each player's clock, black first: for the player to move, as it stood when the turn
    /// began (the hub measures the turn).
    clocks: [Clock; 2],
    /// Both clocks after each turn, in the order of `moves` (what an undo goes back to).
    clock_history: Vec<[Clock; 2]>,
    pub undo: UndoState,
    /// The last [`CHAT_KEPT`] chat messages, oldest first.
    pub chat: Vec<ChatMessage>,
    /// Under agreement, after two passes: the stones marked dead until both accept.
    pub scoring: Option<ScoringPhase>,
    /// The turns played when play last resumed from a scoring phase: two passes after it start
    /// the next one (a pass right after a resume is not a second pass).
    resumed_at: usize,
    /// A finished rated game's rating changes (`over`'s `ratings`).
    pub ratings: Option<serde_json::Value>,
    /// Whether a scoring phase starts with the server's estimate of the dead stones (not while
    /// a stored game is replayed: its phase, if any, is stored).
    estimates_dead: bool,
    game: Game,
    moves: Vec<Option<PointName>>,
    result: Option<GameResult>,
}

impl ServerGame {
    /// A new game under `terms`: with handicap stones on the board and white to move first.
    pub fn new(id: String, size: usize, black: String, white: String, terms: GameTerms) -> ServerGame {
        let mut game = Game::new(size, size).expect("server board sizes are valid");
        if terms.handicap > 0 {
            game.place_handicap(i64::from(terms.handicap))
                .expect("pairing gives a handicap the board takes");
            game.set_to_move(Color::White);
        }
        let clock = terms.time.new_clock();
        ServerGame {
            id,
            black,
            white,
            bots: [false; 2],
            clocks: [clock; 2],
            clock_history: Vec::new(),
            undo: UndoState::default(),
            chat: Vec::new(),
            scoring: None,
            ratings: None,
            estimates_dead: true,
            resumed_at: 0,
            terms,
            game,
            moves: Vec::new(),
            result: None,
        }
    }

    /// Rebuilds a stored game by replaying its turns.
    pub fn from_stored(stored: &StoredGame) -> Result<ServerGame, String> {
        if !BOARD_SIZES.contains(&stored.size) {
            return Err(format!("game {} has board size {}", stored.id, stored.size));
        }
        let handicap_fits = match stored.terms.handicap {
            0 => true,
            stones => stones >= 2 && stones <= if stored.size == 9 { 5 } else { 9 },
        };
        if !handicap_fits {
            return Err(format!(
                "game {} has {} handicap stones",
                stored.id, stored.terms.handicap
            ));
        }
        let mut game = ServerGame::new(
            stored.id.clone(),
            stored.size,
            stored.black.clone(),
            stored.white.clone(),
            stored.terms.clone(),
        )
        .with_bots(stored.bots);
        game.estimates_dead = false;
        for (ply, point) in stored.moves.iter().enumerate() {
            let color = game.to_move();
            game.play(color, ply, point.as_deref())
                .map_err(|refusal| format!("game {} turn {ply}: {refusal:?}", stored.id))?;
            // A scoring phase the turns went on from was resumed; the one under way is stored.
            if game.scoring.take().is_some() {
                game.resumed_at = game.moves.len();
            }
            // Turns stored before clocks were: the clocks as at the start.
            if let Some(Some(clocks)) = stored.turn_clocks.get(ply) {
                game.set_clocks(*clocks);
            }
        }
        // A stored result stands even where replay would end otherwise (a timeout, say).
        if stored.result.is_some() {
            game.result = stored.result;
        }
        game.set_clocks(stored.clocks);
        game.undo = stored.undo;
        game.estimates_dead = true;
        game.chat = stored.chat.clone();
        game.ratings = stored.ratings.clone();
        game.scoring = if game.is_over() {
            None
        } else {
            stored.scoring.clone()
        };
        Ok(game)
    }

    /// Replays the turns from ply `from` on, as they were played: `each` gets the game after
    /// each turn (its clocks as stored with it) and the turn.
    pub fn replay_since(&self, from: usize, mut each: impl FnMut(&ServerGame, &Turn)) -> Result<(), String> {
        let mut before = self.stored();
        before.moves.truncate(from);
        before.turn_clocks.truncate(from);
        before.clocks = match from.checked_sub(1) {
            Some(last) => self.clock_history[last],
            None => [self.terms.time.new_clock(); 2],
        };
        before.result = None;
        before.scoring = None;
        before.undo = UndoState::default();
        let mut game = ServerGame::from_stored(&before)?;
        game.estimates_dead = false;
        for (ply, point) in self.moves.iter().enumerate().skip(from) {
            let color = game.to_move();
            let turn = game
                .play(color, ply, point.as_deref())
                .map_err(|refusal| format!("game {} turn {ply}: {refusal:?}", self.id))?;
            if let Some(clocks) = self.clock_history.get(ply) {
                game.set_clocks(*clocks);
            }
            each(&game, &turn);
            // A scoring phase the turns went on from was resumed.
            if game.scoring.take().is_some() {
                game.resumed_at = game.moves.len();
            }
        }
        Ok(())
    }

    /// The game with whether black and white are programs.
    pub fn with_bots(mut self, bots: [bool; 2]) -> ServerGame {
        self.bots = bots;
        self
    }

    pub fn stored(&self) -> StoredGame {
        StoredGame {
            id: self.id.clone(),
            size: self.size(),
            black: self.black.clone(),
            white: self.white.clone(),
            bots: self.bots,
            terms: self.terms.clone(),
            clocks: self.clocks,
            turn_clocks: self.clock_history.iter().copied().map(Some).collect(),
            undo: self.undo,
            chat: self.chat.clone(),
            scoring: self.scoring.clone(),
            ratings: self.ratings.clone(),
            moves: self
                .moves
                .iter()
                .map(|point| point.map(|name| name.to_string()))
                .collect(),
            result: self.result,
        }
    }

    pub fn size(&self) -> usize {
        self.game.board().height()
    }

    pub fn to_move(&self) -> Color {
        self.game.to_move()
    }

    pub fn moves(&self) -> &[Option<PointName>] {
        &self.moves
    }

    /// The position, for the server's own bot to think about.
    pub fn position(&self) -> &Game {
        &self.game
    }

    /// `color`'s clock: for the player to move, as it stood when the turn began.
    pub fn clock(&self, color: Color) -> Clock {
        self.clocks[color_index(color)]
    }

    pub fn clocks(&self) -> [Clock; 2] {
        self.clocks
    }

    /// The time the player to move had when its turn began; in the scoring phase, the time the
    /// players have to agree.
    pub fn turn_time_ms(&self) -> u64 {
        if self.scoring.is_some() {
            return self.scoring_time_ms();
        }
        self.terms.time.time_left(&self.clock(self.to_move()))
    }

    /// The time to agree on the dead stones: five minutes, or the game's move time if shorter.
    pub fn scoring_time_ms(&self) -> u64 {
        match self.terms.time {
            TimeControl::PerMove { move_ms } => move_ms.min(SCORING_TIME_MS),
            _ => SCORING_TIME_MS,
        }
    }

    /// `color`'s clock after a turn that took `elapsed_ms`; `None` if it ran out of time first.
    pub fn clock_after(&self, color: Color, elapsed_ms: u64) -> Option<Clock> {
        self.terms.time.after_turn(&self.clock(color), elapsed_ms)
    }

    /// `color`'s clock after its turn (the turn just played).
    pub fn set_clock(&mut self, color: Color, clock: Clock) {
        self.clocks[color_index(color)] = clock;
        if let Some(last) = self.clock_history.last_mut() {
            *last = self.clocks;
        }
    }

    /// Takes the clocks that the store has (after a turn another process played).
    pub fn set_clocks(&mut self, clocks: [Clock; 2]) {
        self.clocks = clocks;
        if let Some(last) = self.clock_history.last_mut() {
            *last = clocks;
        }
    }

    /// The dead stones the server proposes: the bot's own estimate, from a seed of the game's,
    /// so that every process proposes the same.
    pub fn proposed_dead(&self) -> Vec<String> {
        let seed = self.id.bytes().fold(self.moves.len() as u64, |seed, byte| {
            seed.wrapping_mul(31).wrapping_add(u64::from(byte))
        });
        let board = self.game.board();
        let size = self.size();
        let mut dead: Vec<(usize, usize)> = dead_stones(&self.game, seed)
            .into_iter()
            .map(|p| board.row_col(p))
            .collect();
        dead.sort_unstable();
        dead.into_iter().map(|(r, c)| coord::format(r, c, size)).collect()
    }

    /// The area score with the stones marked dead taken off.
    pub fn score_with_dead(&self, dead: &[String]) -> Score {
        let board = self.game.board();
        let size = self.size();
        let points: Vec<_> = dead
            .iter()
            .filter_map(|text| coord::parse(text, size, size).ok())
            .map(|(r, c)| board.point(r, c))
            .collect();
        score_without(board, &points, self.terms.komi)
    }

    /// Marks the whole chain at `point` dead or alive, and clears both acceptances.
    pub fn mark(&mut self, point: &str, dead: bool) -> Result<(), String> {
        let size = self.size();
        let (row, col) = coord::parse(point, size, size).map_err(|error| error.to_string())?;
        let board = self.game.board();
        let p = board.point(row, col);
        if board.stone(p).is_none() {
            return Err(format!("field 'point': {point} has no stone"));
        }
        let mut chain: Vec<(usize, usize)> = board.chain(p).into_iter().map(|q| board.row_col(q)).collect();
        chain.sort_unstable();
        let Some(phase) = self.scoring.as_mut() else {
            return Err("the game is not being scored".into());
        };
        let mut marked: Vec<(usize, usize)> = phase
            .dead
            .iter()
            .filter_map(|text| coord::parse(text, size, size).ok())
            .filter(|point| !chain.contains(point))
            .collect();
        if dead {
            marked.extend(chain);
        }
        marked.sort_unstable();
        phase.dead = marked
            .into_iter()
            .map(|(r, c)| coord::format(r, c, size))
            .collect();
        phase.accepted = [false; 2];
        Ok(())
    }

    /// `color` accepts `dead` as the dead stones; it must be the set marked now (in any order).
    /// Whether both have accepted now (then [`ServerGame::finish_scoring`] ends the game).
    pub fn accept(&mut self, color: Color, dead: &[String]) -> Result<bool, String> {
        let size = self.size();
        let Some(phase) = self.scoring.as_mut() else {
            return Err("the game is not being scored".into());
        };
        let mut asked: Vec<(usize, usize)> = Vec::with_capacity(dead.len());
        for text in dead {
            asked.push(coord::parse(text, size, size).map_err(|error| format!("field 'dead': {error}"))?);
        }
        asked.sort_unstable();
        asked.dedup();
        let asked: Vec<String> = asked
            .into_iter()
            .map(|(r, c)| coord::format(r, c, size))
            .collect();
        if asked != phase.dead {
            return Err(format!(
                "field 'dead' is not the set marked now ({}): accept what is marked, or mark first",
                if phase.dead.is_empty() {
                    "none".to_string()
                } else {
                    phase.dead.join(" ")
                }
            ));
        }
        phase.accepted[color_index(color)] = true;
        Ok(phase.accepted == [true; 2])
    }

    /// Back to play: the player who passed first is to move, clocks as they were.
    pub fn resume(&mut self) -> Result<(), String> {
        self.scoring.take().ok_or("the game is not being scored")?;
        self.resumed_at = self.moves.len();
        Ok(())
    }

    /// Ends the scoring phase: the stones marked dead taken off, the area score decides.
    pub fn finish_scoring(&mut self) -> GameResult {
        let dead = self.scoring.take().map(|phase| phase.dead).unwrap_or_default();
        let score = self.score_with_dead(&dead);
        let result = GameResult {
            winner: score.winner(),
            reason: EndReason::Score,
            score: Some(score),
        };
        self.result = Some(result);
        result
    }

    /// Keeps `message`, forgetting the oldest beyond [`CHAT_KEPT`].
    pub fn add_chat(&mut self, message: ChatMessage) {
        self.chat.push(message);
        if self.chat.len() > CHAT_KEPT {
            self.chat.remove(0);
        }
    }

    /// Takes back the last turn (captures restored), its player to move again with the clocks
    /// as they stood before it; the colour that played it. `None` if no turn was played.
    pub fn undo_last_turn(&mut self) -> Option<Color> {
        if self.is_over() || self.moves.is_empty() {
            return None;
        }
        self.game.rollback(1).ok()?;
        self.moves.pop();
        self.clock_history.pop();
        self.clocks = match self.clock_history.last() {
            Some(clocks) => *clocks,
            None => [self.terms.time.new_clock(); 2],
        };
        self.undo.pending = None;
        Some(self.to_move())
    }

    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// The player's colour in this game, if `name` plays in it.
    pub fn color_of(&self, name: &str) -> Option<Color> {
        if self.black.eq_ignore_ascii_case(name) {
            Some(Color::Black)
        } else if self.white.eq_ignore_ascii_case(name) {
            Some(Color::White)
        } else {
            None
        }
    }

    pub fn player(&self, color: Color) -> &str {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// Rows top first, of `.`, `x` and `o`.
    pub fn board_rows(&self) -> Vec<String> {
        let board = self.game.board();
        (0..board.height())
            .map(|row| {
                (0..board.width())
                    .map(|col| board.stone(board.point(row, col)).map_or('.', Color::symbol))
                    .collect()
            })
            .collect()
    }

    /// The game as an SGF record: players, komi, every turn, and the result once it is over
    /// (`B+R`, `W+T`, `B+3.5`).
    pub fn sgf(&self) -> String {
        let result = self.result.map(|result| {
            let winner = match result.winner {
                Some(Color::Black) => "B",
                Some(Color::White) => "W",
                None => return "0".to_string(),
            };
            match (result.reason, result.score) {
                (EndReason::Resign, _) => format!("{winner}+R"),
                (EndReason::Timeout, _) => format!("{winner}+T"),
                (EndReason::Passes | EndReason::Score, Some(score)) => {
                    format!("{winner}+{}", score.margin().abs())
                }
                (EndReason::Passes | EndReason::Score, None) => format!("{winner}+"),
            }
        });
        let info = GameInfo {
            black: Some(self.black.clone()),
            white: Some(self.white.clone()),
            komi: Some(self.terms.komi),
            result,
            rules: Some("gokata: area scoring, simple ko, no suicide".into()),
            ..GameInfo::default()
        };
        let mut tree = game_tree(&self.game.record(), &info.properties());
        // Each message a comment on the node of its turn; the watchers' only once the game is over.
        let main_line = tree.main_line();
        let mut comments: Vec<Vec<String>> = vec![Vec::new(); main_line.len()];
        for message in self.visible_chat(self.is_over()) {
            let node = message.ply.min(main_line.len() - 1);
            comments[node].push(format!("{}: {}", message.from, message.text));
        }
        for (node, lines) in main_line.into_iter().zip(comments) {
            if !lines.is_empty() {
                tree.nodes[node]
                    .properties
                    .push(Property::new("C", &[&lines.join("\n")]));
            }
        }
        write_tree(&tree)
    }

    /// The chat messages everyone may read (`with_watchers`: the watchers' too).
    pub fn visible_chat(&self, with_watchers: bool) -> impl Iterator<Item = &ChatMessage> {
        self.chat
            .iter()
            .filter(move |message| with_watchers || !message.watchers)
    }

    /// `color` plays at `point` (`None`: passes) as turn `ply`.
    pub fn play(&mut self, color: Color, ply: usize, point: Option<&str>) -> Result<Turn, Refusal> {
        if self.is_over() || ply != self.moves.len() {
            return Err(Refusal::Stale);
        }
        if self.scoring.is_some() {
            return Err(Refusal::Scoring);
        }
        if color != self.to_move() {
            return Err(Refusal::NotYourTurn);
        }
        let Some(text) = point else {
            self.game.pass();
            self.moves.push(None);
            self.clock_history.push(self.clocks);
            self.undo.pending = None;
            let second_pass =
                self.moves.len() >= self.resumed_at + 2 && self.moves[self.moves.len() - 2].is_none();
            if second_pass && self.terms.scoring == Scoring::Agreement {
                let dead = if self.estimates_dead {
                    self.proposed_dead()
                } else {
                    Vec::new()
                };
                self.scoring = Some(ScoringPhase {
                    dead,
                    accepted: [false; 2],
                });
            } else if second_pass {
                let score = area_score(self.game.board(), self.terms.komi);
                self.result = Some(GameResult {
                    winner: score.winner(),
                    reason: EndReason::Passes,
                    score: Some(score),
                });
            }
            return Ok(Turn {
                ply,
                color,
                point: None,
                captured: Vec::new(),
                result: self.result,
            });
        };
        let size = self.size();
        let (row, col) = coord::parse(text, size, size).map_err(|error| match error {
            GoError::OffBoard { .. } => Refusal::Illegal {
                reason: "off-board",
                message: error.to_string(),
            },
            _ => Refusal::Malformed(error.to_string()),
        })?;
        let board = self.game.board();
        let p = board.point(row, col);
        if let Err(error) = self.game.check_move(color, p) {
            let reason = match &error {
                GoError::IllegalMove { reason, .. } => reason.name(),
                _ => "illegal",
            };
            return Err(Refusal::Illegal {
                reason,
                message: error.to_string(),
            });
        }
        let mut captured: Vec<(usize, usize)> = board
            .captures(p, color)
            .iter()
            .map(|&q| board.row_col(q))
            .collect();
        captured.sort_unstable();
        self.game.play_as(color, p).expect("checked legal above");
        let name = coord::format(row, col, size);
        self.moves.push(Some(
            PointName::new(&name).expect("a point's name is at most three characters"),
        ));
        self.clock_history.push(self.clocks);
        self.undo.pending = None;
        Ok(Turn {
            ply,
            color,
            point: Some(name),
            captured: captured
                .into_iter()
                .map(|(r, c)| coord::format(r, c, size))
                .collect(),
            result: None,
        })
    }

    /// Takes the result that the store has (decided by another process).
    pub fn set_result(&mut self, result: GameResult) {
        self.result = Some(result);
    }

    /// Ends the game: `loser` resigned or ran out of time. Nothing if it is already over.
    pub fn end(&mut self, loser: Color, reason: EndReason) -> Option<GameResult> {
        if self.is_over() {
            return None;
        }
        self.result = Some(GameResult {
            winner: Some(loser.opponent()),
            reason,
            score: None,
        });
        self.result
    }
}

fn color_index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

#[cfg(test)]
mod tests;
