//! The game player: a random game checked against the engine, and its turns re-read at the end.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gokata_engine::{area_score, coord, Color, Game, Rng};
use serde_json::{json, Value};

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
    /// Plays the next turn, `point` (a JSON point or null), on the engine and logs it; with
    /// `captured`, the number of stones the server says it took, which must be the engine's.
    fn apply(&mut self, point: &Value, captured: Option<usize>) -> Result<(), String> {
        let (id, ply) = (&self.log.id, self.log.moves.len());
        let color = self.engine.to_move();
        let taken = match point {
            Value::Null => {
                self.engine.pass();
                0
            }
            Value::String(text) => {
                let (row, col) =
                    coord::parse(text, SIZE, SIZE).map_err(|e| format!("game {id} ply {ply}: {e}"))?;
                let p = self.engine.board().point(row, col);
                let before = self.engine.board().stone_count(color.opponent());
                self.engine
                    .play_as(color, p)
                    .map_err(|e| format!("game {id} ply {ply}: the engine refuses {text}: {e}"))?;
                before - self.engine.board().stone_count(color.opponent())
            }
            _ => return Err(format!("game {id} ply {ply}: a bad point {point}")),
        };
        if captured.is_some_and(|captured| captured != taken) {
            return Err(format!(
                "game {id} ply {ply}: {point} captures {taken} stones, the server says {captured:?}"
            ));
        }
        self.log.moves.push(point.as_str().map(str::to_string));
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
        at.out.push(Out {
            text: r#"{"type":"seek","size":9,"color":"any"}"#.into(),
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
        let id = &current.log.id;
        let text = match point {
            Some(point) => json!({"type": "move", "game": id, "ply": ply, "point": point}),
            None => json!({"type": "pass", "game": id, "ply": ply}),
        }
        .to_string();
        self.turns.send(ply, text, not_before, at.out);
    }

    fn start(&mut self, frame: &Value, at: &mut Moment) -> Result<(), String> {
        if let Some(current) = &self.current {
            return Err(format!("a start while game {} goes on", current.log.id));
        }
        let state = &frame["game"];
        let id = state["id"]
            .as_str()
            .ok_or("a start without a game id")?
            .to_string();
        let me = if state["black"] == self.name.as_str() {
            Color::Black
        } else if state["white"] == self.name.as_str() {
            Color::White
        } else {
            return Err(format!("a start of game {id} that is not mine: {state}"));
        };
        let carried = match state["moves"].as_array() {
            Some(moves) if state["size"] == SIZE => moves,
            _ => return Err(format!("game {id} does not start as a 9x9 game: {state}")),
        };
        // Only the opponent's first turn can be played before this player hears of the game.
        if !carried.is_empty() && (carried.len() > 1 || me == Color::Black) {
            return Err(format!(
                "game {id} starts with turns I could not have seen: {state}"
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
        let opponent = state[if me == Color::Black { "white" } else { "black" }]
            .as_str()
            .unwrap_or_default();
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
        for point in carried {
            current.apply(point, None)?;
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

    fn played(&mut self, frame: &Value, at: &mut Moment) -> Result<(), String> {
        let current = self
            .current
            .as_mut()
            .ok_or_else(|| format!("played outside a game: {frame}"))?;
        let id = &current.log.id;
        if frame["game"] != id.as_str() {
            return Err(format!("played of another game than {id}: {frame}"));
        }
        let ply = current.log.moves.len();
        if frame["ply"] != ply {
            return Err(format!("game {id}: expected played of ply {ply}, got {frame}"));
        }
        let color = current.engine.to_move();
        if frame["color"] != color.name() || frame["to_move"] != color.opponent().name() {
            return Err(format!(
                "game {id} ply {ply}: {} was to move, got {frame}",
                color.name()
            ));
        }
        let captured = frame["captured"].as_array().map_or(usize::MAX, Vec::len);
        current.apply(&frame["point"], Some(captured))?;
        let id = &current.log.id;
        if color == current.me {
            if !self.turns.on_my_turn_acknowledged(ply, at.now, at.shared) {
                return Err(format!("game {id}: played of my ply {ply}, which I did not send"));
            }
            if let Some(feed) = &self.feed {
                feed.acked(ply, &frame["point"], at.now);
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

    fn over(&mut self, frame: &Value, at: &mut Moment) -> Result<(), String> {
        let mut current = self
            .current
            .take()
            .ok_or_else(|| format!("over outside a game: {frame}"))?;
        let id = &current.log.id;
        if frame["game"] != id.as_str() {
            return Err(format!("over of another game than {id}: {frame}"));
        }
        if frame["reason"] != "passes" || !current.two_passes() || self.turns.awaiting.is_some() {
            return Err(format!(
                "game {id} is over unexpectedly after {} turns: {frame}",
                current.log.moves.len()
            ));
        }
        let score = area_score(current.engine.board(), KOMI);
        let winner = score.winner().map(Color::name);
        if frame["winner"].as_str() != winner
            || frame["score"]["black"] != score.black
            || frame["score"]["white"] != score.white
        {
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

    fn state(&mut self, frame: &Value) -> Result<(), String> {
        let state = &frame["game"];
        let id = state["id"].as_str().unwrap_or_default();
        if !self.syncing.remove(id) {
            return Err(format!("a state I did not ask for: {frame}"));
        }
        // Every `played` of the game came before this answer, so the log is complete.
        let log = match &self.current {
            Some(current) if current.log.id == id => &current.log,
            _ => self.done.iter().find(|log| log.id == id).expect("a game of mine"),
        };
        let moves: Vec<Option<String>> = state["moves"]
            .as_array()
            .ok_or_else(|| format!("a state without moves: {frame}"))?
            .iter()
            .map(|m| m.as_str().map(str::to_string))
            .collect();
        let status = if log.over { "over" } else { "playing" };
        if moves != log.moves || state["status"] != status {
            return Err(format!(
                "game {id}: {} turns acknowledged ({status}), the server has {} ({}): lost or extra turns",
                log.moves.len(),
                moves.len(),
                state["status"]
            ));
        }
        self.turns.stats.verified_games += 1;
        self.turns.stats.verified_turns += moves.len() as u64;
        Ok(())
    }
}

impl Role for Player {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn hello(&self) -> String {
        json!({"type": "hello", "name": self.name}).to_string()
    }

    fn welcomed(&mut self, frame: &Value) -> Result<(), String> {
        if frame["type"] != "welcome" || frame["name"] != self.name.as_str() {
            return Err(format!("hello was answered by {frame}"));
        }
        Ok(())
    }

    fn run(&mut self, at: &mut Moment) {
        self.seek(at);
    }

    fn frame(&mut self, frame: Value, at: &mut Moment) -> Result<(), String> {
        match frame["type"].as_str().unwrap_or_default() {
            "seeking" => Ok(()),
            "start" => self.start(&frame, at),
            "played" => self.played(&frame, at),
            "over" => self.over(&frame, at),
            "state" => self.state(&frame),
            "error" | "goodbye" | "welcome" | "pong" | "cancelled" => Err(format!("unexpected: {frame}")),
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
                text: json!({"type": "sync", "game": log.id}).to_string(),
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
