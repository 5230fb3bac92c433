//! The game player: a random game checked against the engine, and its turns re-read at the end.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gokata_engine::{area_score, coord, Color, Game, Rng};
use gokata_server::game::{same_moves, EndReason};
use gokata_server::protocol::{
    AskedTerms, ClientFrame, GameState, GameStatus, Opponent, SeekColor, ServerFrame,
};

use crate::driver::{Moment, Out, Role, Sent, Turns};
use crate::watchers::{Feed, Feeds};
use crate::{KOMI, SIZE, STRANDED_AFTER, TURN_CAP, VERIFY_PER_PLAYER};

struct GameLog {
    id: String,
    moves: Vec<Option<String>>,
    over: bool,
    black: bool,
}

struct Current {
    log: GameLog,
    me: Color,
    engine: Game,
}

impl Current {
    /// Plays the next turn, `point` (`None`: a pass), on the engine and logs it; with
    /// `captured`, the number of stones the server says it took, which must be the engine's.
    fn apply(&mut self, point: Option<&str>, captured: Option<usize>) -> Result<(), String> {
        let (id, ply) = (&self.log.id, self.log.moves.len());
        let color = self.engine.to_move();
        let taken = match point {
            None => {
                self.engine.pass();
                0
            }
            Some(text) => {
                let (row, col) =
                    coord::parse(text, SIZE, SIZE).map_err(|e| format!("game {id} ply {ply}: {e}"))?;
                let p = self.engine.board().point(row, col);
                let before = self.engine.board().stone_count(color.opponent());
                self.engine
                    .play_as(color, p)
                    .map_err(|e| format!("game {id} ply {ply}: the engine refuses {text}: {e}"))?;
                before - self.engine.board().stone_count(color.opponent())
            }
        };
        if captured.is_some_and(|captured| captured != taken) {
            return Err(format!(
                "game {id} ply {ply}: {point:?} captures {taken} stones, the server says {captured:?}"
            ));
        }
        self.log.moves.push(point.map(str::to_string));
        Ok(())
    }

    fn two_passes(&self) -> bool {
        let moves = &self.log.moves;
        moves.len() >= 2 && moves[moves.len() - 2..].iter().all(Option::is_none)
    }
}

/// The stamps of every game, by id, shared by its two players.
type Registry = Arc<Mutex<HashMap<String, Arc<Sent>>>>;

pub(crate) struct Player {
    name: String,
    rng: Rng,
    /// The server processes players are spread over; player `i` is on process `i % processes`.
    processes: usize,
    first_game: bool,
    /// When the player sought the game it waits for, if it waits for one.
    seeking_since: Option<Instant>,
    registry: Registry,
    current: Option<Current>,
    done: Vec<GameLog>,
    /// Games asked for by `sync`, not yet answered.
    syncing: HashSet<String>,
    /// Of the current game; of none before the first.
    turns: Turns,
    /// Where games are announced to watchers, and the current game's feed there.
    feeds: Option<Arc<Feeds>>,
    feed: Option<Arc<Feed>>,
}

impl Player {
    fn new(index: usize, processes: usize, registry: Registry, feeds: Option<Arc<Feeds>>) -> Player {
        Player {
            name: format!("load{index}"),
            rng: Rng::new(0x5EED_0000 + index as u64),
            processes,
            first_game: true,
            seeking_since: None,
            registry,
            current: None,
            done: Vec::new(),
            syncing: HashSet::new(),
            turns: Turns::new(Arc::default()),
            feeds,
            feed: None,
        }
    }

    /// The server process of the player named `name`.
    fn process_of(&self, name: &str) -> Option<usize> {
        let index: usize = name.strip_prefix("load")?.parse().ok()?;
        Some(index % self.processes)
    }

    fn seek(&mut self, at: &mut Moment) {
        self.seeking_since = Some(at.now);
        let seek = ClientFrame::Seek {
            sizes: vec![SIZE],
            color: SeekColor::Any,
            opponent: Opponent::Human,
            terms: AskedTerms::default(),
        };
        at.out.push(Out {
            text: seek.to_json(),
            stamp: None,
            not_before: None,
        });
    }

    /// The player to move sends a random light move, or a pass, when it is due.
    fn play_turn(&mut self, at: &mut Moment, first: bool) {
        let current = self.current.as_mut().expect("a game");
        let ply = current.log.moves.len();
        let not_before = at
            .shared
            .not_before(&self.turns.sent, ply, at.now, first, &mut self.rng);
        let board = current.engine.board();
        let me = current.me;
        let point = if ply >= TURN_CAP {
            None
        } else {
            let candidates: Vec<_> = board
                .legal_moves(me)
                .filter(|&p| !board.is_simple_eye(p, me))
                .collect();
            (!candidates.is_empty()).then(|| {
                let (row, col) = board.row_col(candidates[self.rng.below(candidates.len())]);
                coord::format(row, col, SIZE)
            })
        };
        let game = current.log.id.clone();
        let text = match point {
            Some(point) => ClientFrame::Move { game, ply, point },
            None => ClientFrame::Pass { game, ply },
        }
        .to_json();
        self.turns.send(ply, text, not_before, at.out);
    }

    fn start(&mut self, state: GameState, at: &mut Moment) -> Result<(), String> {
        if let Some(current) = &self.current {
            return Err(format!("a start while game {} goes on", current.log.id));
        }
        let id = state.id.to_string();
        let me = if state.black == self.name {
            Color::Black
        } else if state.white == self.name {
            Color::White
        } else {
            return Err(format!("a start of game {id} that is not mine: {state:?}"));
        };
        if state.size != SIZE {
            return Err(format!("game {id} does not start as a 9x9 game: {state:?}"));
        }
        let carried = &state.moves;
        // Only the opponent's first turn can be played before this player hears of the game.
        if !carried.is_empty() && (carried.len() > 1 || me == Color::Black) {
            return Err(format!(
                "game {id} starts with turns I could not have seen: {state:?}"
            ));
        }
        self.turns.sent = self
            .registry
            .lock()
            .unwrap()
            .entry(id.clone())
            .or_default()
            .clone();
        if let Some(since) = self.seeking_since.take() {
            self.turns.stats.note_wait(at.now - since);
        }
        at.shared.in_game.fetch_add(1, Ordering::SeqCst);
        let opponent: &str = if me == Color::Black {
            &state.white
        } else {
            &state.black
        };
        let processes =
            [self.process_of(&self.name), self.process_of(opponent)].map(Option::unwrap_or_default);
        if me == Color::Black {
            self.turns.stats.games_started += 1;
            if processes[0] != processes[1] {
                self.turns.stats.games_across += 1;
            }
        }
        self.feed = self.feeds.as_ref().map(|feeds| {
            let feed = feeds.of(&id, processes);
            if me == Color::Black {
                feeds.announce(&feed);
            }
            feed
        });
        let mut current = Current {
            log: GameLog {
                id,
                moves: Vec::new(),
                over: false,
                black: me == Color::Black,
            },
            me,
            engine: Game::new(SIZE, SIZE).expect("a 9x9 board"),
        };
        // On several processes, the opponent's process may store the first turn before this
        // player's process announces the game: `start` then carries it, and no `played` does.
        for point in carried.iter() {
            current.apply(point.as_deref(), None)?;
        }
        let my_turn = current.engine.to_move() == me;
        let id = current.log.id.clone();
        self.current = Some(current);
        if !carried.is_empty() {
            self.turns.stats.late_starts += 1;
            if !self.turns.on_opponent_turn(0, at.now, at.shared) {
                return Err(format!(
                    "game {id}: start carries ply 0, which the opponent did not stamp"
                ));
            }
        }
        if at.running && my_turn {
            self.play_turn(at, self.first_game);
        }
        self.first_game = false;
        Ok(())
    }

    /// A `played` (`frame`, as text, for the errors).
    fn played(&mut self, frame: &str, turn: PlayedTurn, at: &mut Moment) -> Result<(), String> {
        let current = self
            .current
            .as_mut()
            .ok_or_else(|| format!("played outside a game: {frame}"))?;
        let id = &current.log.id;
        if turn.game != *id {
            return Err(format!("played of another game than {id}: {frame}"));
        }
        let ply = current.log.moves.len();
        if turn.ply != ply {
            return Err(format!("game {id}: expected played of ply {ply}, got {frame}"));
        }
        let color = current.engine.to_move();
        if turn.color != color || turn.to_move != color.opponent() {
            return Err(format!(
                "game {id} ply {ply}: {} was to move, got {frame}",
                color.name()
            ));
        }
        current.apply(turn.point.as_deref(), Some(turn.captured))?;
        let id = &current.log.id;
        if color == current.me {
            if !self.turns.on_my_turn_acknowledged(ply, at.now, at.shared) {
                return Err(format!("game {id}: played of my ply {ply}, which I did not send"));
            }
            if let Some(feed) = &self.feed {
                feed.acked(ply, turn.point.as_deref(), at.now);
            }
            return Ok(());
        }
        if !self.turns.on_opponent_turn(ply, at.now, at.shared) {
            return Err(format!(
                "game {id}: played of ply {ply}, which the opponent did not stamp"
            ));
        }
        if at.running && !current.two_passes() {
            self.play_turn(at, false);
        }
        Ok(())
    }

    /// An `over` (`frame`, as text, for the errors).
    fn over(&mut self, frame: &str, over: Over, at: &mut Moment) -> Result<(), String> {
        let mut current = self
            .current
            .take()
            .ok_or_else(|| format!("over outside a game: {frame}"))?;
        let id = &current.log.id;
        if over.game != *id {
            return Err(format!("over of another game than {id}: {frame}"));
        }
        if over.reason != EndReason::Passes || !current.two_passes() || self.turns.awaiting.is_some() {
            return Err(format!(
                "game {id} is over unexpectedly after {} turns: {frame}",
                current.log.moves.len()
            ));
        }
        let score = area_score(current.engine.board(), KOMI);
        let told = over.score.map(|told| (told.black, told.white));
        if over.winner != score.winner() || told != Some((score.black, score.white)) {
            return Err(format!(
                "game {id}: the engine scores {score:?}, the server says {frame}"
            ));
        }
        current.log.over = true;
        if let Some(feed) = self.feed.take() {
            feed.finished();
        }
        at.shared.in_game.fetch_sub(1, Ordering::SeqCst);
        if current.me == Color::Black {
            self.turns.stats.games_finished += 1;
        }
        self.done.push(current.log);
        if at.running {
            self.seek(at);
        }
        Ok(())
    }

    fn state(&mut self, frame: &str, state: GameState) -> Result<(), String> {
        let id = state.id.as_ref();
        if !self.syncing.remove(id) {
            return Err(format!("a state I did not ask for: {frame}"));
        }
        // Every `played` of the game came before this answer, so the log is complete.
        let log = match &self.current {
            Some(current) if current.log.id == id => &current.log,
            _ => self.done.iter().find(|log| log.id == id).expect("a game of mine"),
        };
        let status = if log.over {
            GameStatus::Over
        } else {
            GameStatus::Playing
        };
        if !same_moves(&state.moves, &log.moves) || state.status != status {
            return Err(format!(
                "game {id}: {} turns acknowledged ({status:?}), the server has {} ({:?}): lost or extra turns",
                log.moves.len(),
                state.moves.len(),
                state.status
            ));
        }
        self.turns.stats.verified_games += 1;
        self.turns.stats.verified_turns += state.moves.len() as u64;
        Ok(())
    }
}

/// What a player checks of a `played`.
struct PlayedTurn {
    game: String,
    ply: usize,
    color: Color,
    point: Option<String>,
    /// How many stones it took.
    captured: usize,
    to_move: Color,
}

/// What a player checks of an `over`.
struct Over {
    game: String,
    winner: Option<Color>,
    reason: EndReason,
    score: Option<gokata_server::protocol::ScoreView>,
}

/// A frame from the server, read as the protocol's own type.
pub(crate) fn read(text: &str) -> Result<ServerFrame, String> {
    serde_json::from_str(text).map_err(|e| format!("not a server frame ({e}): {text}"))
}

impl Role for Player {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn hello(&self) -> String {
        ClientFrame::Hello {
            name: self.name.clone(),
            token: None,
            bot: false,
        }
        .to_json()
    }

    fn welcomed(&mut self, frame: &str) -> Result<(), String> {
        match read(frame)? {
            ServerFrame::Welcome { name, .. } if name == self.name => Ok(()),
            _ => Err(format!("hello was answered by {frame}")),
        }
    }

    fn run(&mut self, at: &mut Moment) {
        self.seek(at);
    }

    fn frame(&mut self, text: &str, at: &mut Moment) -> Result<(), String> {
        match read(text)? {
            ServerFrame::Seeking { .. } => Ok(()),
            ServerFrame::Start { game } => self.start(game, at),
            ServerFrame::Played {
                game,
                ply,
                color,
                point,
                captured,
                to_move,
                ..
            } => {
                let turn = PlayedTurn {
                    game: game.into_owned(),
                    ply,
                    color,
                    point: point.map(|point| point.into_owned()),
                    captured: captured.len(),
                    to_move,
                };
                self.played(text, turn, at)
            }
            ServerFrame::Over {
                game,
                winner,
                reason,
                score,
                ..
            } => {
                let over = Over {
                    game: game.into_owned(),
                    winner,
                    reason,
                    score,
                };
                self.over(text, over, at)
            }
            ServerFrame::State { game } => self.state(text, game),
            ServerFrame::Error(_)
            | ServerFrame::Goodbye { .. }
            | ServerFrame::Welcome { .. }
            | ServerFrame::Pong { .. }
            | ServerFrame::Cancelled => Err(format!("unexpected: {text}")),
            _ => Ok(()),
        }
    }

    fn started(&self) -> bool {
        !self.first_game
    }

    fn verify(&mut self, out: &mut Vec<Out>) {
        if let Some(since) = self.seeking_since {
            let waited = since.elapsed();
            self.turns.stats.note_wait(waited);
            if waited > STRANDED_AFTER {
                self.turns.stats.stranded += 1;
            }
        }
        let logs = self.done.iter().chain(self.current.as_ref().map(|c| &c.log));
        let mine: Vec<&GameLog> = logs.filter(|log| log.black).collect();
        let skip = mine.len().saturating_sub(VERIFY_PER_PLAYER);
        for log in mine.into_iter().skip(skip) {
            out.push(Out {
                text: ClientFrame::Sync { game: log.id.clone() }.to_json(),
                stamp: None,
                not_before: None,
            });
            self.syncing.insert(log.id.clone());
        }
    }

    fn is_verified(&self) -> bool {
        self.syncing.is_empty()
    }

    fn turns(&mut self) -> &mut Turns {
        &mut self.turns
    }
}
/// The players of `games` games, spread over `processes`; announcing their games on `feeds`.
pub(crate) fn players(games: usize, processes: usize, feeds: Option<&Arc<Feeds>>) -> Vec<Player> {
    let registry: Registry = Arc::default();
    (0..games * 2)
        .map(|i| Player::new(i, processes, registry.clone(), feeds.cloned()))
        .collect()
}
