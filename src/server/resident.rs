//! The server's own computer player (`gokata serve --bot`), so that a lone player always has
//! an opponent. It is a player like any other, on a connection the hub sees as any other and in
//! the protocol's own frames: it keeps a seek open (every size, for people who ask for the
//! computer) while it plays fewer than its limit of games, and answers each turn with the tree
//! search of [`gokata_engine::bot`] on a blocking thread, a few searches at a time.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{mpsc, Semaphore};

use super::game::{PointName, ServerGame, BOARD_SIZES};
use super::hub::{ConnId, Event, Outgoing};
use super::lobby_feed::{LobbyFeed, LobbyWatch};
use super::protocol::{
    AskedTerms, ClientFrame, GameState, GameStatus, Opponent, SeekColor, SeekView, ServerFrame,
};
use super::socket::new_connection_id;
use super::terms::{GameTerms, HandicapAsk, Scoring};
use super::time_control::{Clock, TimeControl};
use gokata_engine::bot::{Bot, Budget, Decision, Settings};
use gokata_engine::{coord, Color};

/// The bot's name unless the operator gives one.
pub const DEFAULT_NAME: &str = "gokata-bot";
/// Simulations a move: on 9x9 a fraction of a second on one core.
const PLAYOUTS: u64 = 10_000;
/// How often a refused seek is tried again.
const RETRY_SEEK: Duration = Duration::from_secs(1);
/// The longest a move is thought about, whatever the board (and never over a third of the
/// move time).
const THINK_TIME: Duration = Duration::from_secs(3);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resident {
    pub name: String,
    /// Games played at once; while it plays this many it does not seek.
    pub max_games: usize,
}

impl Resident {
    pub fn named(name: &str) -> Resident {
        Resident {
            name: name.to_string(),
            max_games: 32,
        }
    }
}

/// A turn decided: the frame that plays it, for the game at this many turns.
struct Decided {
    game: String,
    ply: usize,
    /// The turns of the position thought about (a turn taken back since may have changed it).
    moves: Vec<Option<PointName>>,
    frame: ClientFrame,
}

struct Player {
    conn: ConnId,
    name: String,
    max_games: usize,
    events: mpsc::Sender<Event>,
    games: HashMap<String, Tracked>,
    /// A seek is waiting (or sent).
    seeking: bool,
    /// The person's seek that the waiting one answers (its name and terms), if it is not the
    /// bot's own default seek.
    answering: Option<String>,
    /// Searches at once: one a core.
    searches: Arc<Semaphore>,
    budget: Budget,
    decided: mpsc::Sender<Decided>,
}

/// One of its games, replayed as the server announces it.
struct Tracked {
    game: ServerGame,
    color: Color,
    /// The ply being thought about.
    thinking: Option<usize>,
    /// The most to think about a turn, from the bot's clock as the server last told it.
    think_time: Duration,
}

/// Plays on the hub `events` until the server stops.
pub async fn play(resident: Resident, events: mpsc::Sender<Event>, lobby: LobbyFeed, move_time: Duration) {
    let conn = new_connection_id();
    let (outbox, mut inbox) = mpsc::channel(256);
    let address = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let (decided, mut decisions) = mpsc::channel(64);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut player = Player {
        conn,
        name: resident.name.clone(),
        max_games: resident.max_games,
        events: events.clone(),
        games: HashMap::new(),
        seeking: false,
        answering: None,
        searches: Arc::new(Semaphore::new(cores)),
        budget: Budget::playouts(PLAYOUTS).capped(THINK_TIME.min(move_time / 3)),
        decided,
    };
    let connected = Event::Connected {
        conn,
        outbox,
        address,
    };
    let signed_in = Event::Resident {
        conn,
        name: resident.name,
    };
    for event in [connected, signed_in] {
        if events.send(event).await.is_err() {
            return;
        }
    }
    // The lobby, to answer people who ask for the computer on terms of their own.
    let mut watching: Option<LobbyWatch> = None;
    // A seek refused (the database away, say) is sought again on the next tick, not at once.
    let mut retry = tokio::time::interval(RETRY_SEEK);
    loop {
        tokio::select! {
            _ = retry.tick() => {
                if watching.is_none() {
                    if let Ok((now, watch)) = lobby.watch().await {
                        watching = Some(watch);
                        player.on_message(&now).await;
                    }
                }
                player.seek_if_room().await;
            }
            Some(now) = async { Some(watching.as_mut()?.next().await) } => {
                player.on_message(&now).await;
            }
            message = inbox.recv() => match message {
                Some(Outgoing::Close(..)) | None => break,
                Some(message) => {
                    if let Some(text) = message.text() {
                        if !player.on_message(text).await {
                            break;
                        }
                    }
                }
            },
            Some(decided) = decisions.recv() => player.on_decided(decided).await,
        }
    }
}

impl Player {
    /// Handles one message from the server; `false` when the server says goodbye.
    async fn on_message(&mut self, text: &str) -> bool {
        let message = match serde_json::from_str::<ServerFrame>(text) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("gokata serve: the bot cannot read {text}: {error}");
                return true;
            }
        };
        match message {
            ServerFrame::Welcome { games, .. } => {
                for state in &games {
                    self.track(state);
                }
            }
            ServerFrame::Start { game } => {
                self.seeking = false;
                self.answering = None;
                self.track(&game);
            }
            ServerFrame::State { game } => self.track(&game),
            ServerFrame::Undone { game } => {
                self.games.remove(game.id.as_ref());
                self.track(&game);
            }
            ServerFrame::UndoRequested { game, ply, by } => self.answer_undo(&game, ply, by).await,
            ServerFrame::Played {
                game,
                ply,
                point,
                clocks,
                ..
            } => self.on_played(&game, ply, point.as_deref(), &clocks).await,
            ServerFrame::Over { game, .. } => {
                self.games.remove(game.as_ref());
            }
            ServerFrame::Seeking { .. } => self.seeking = true,
            ServerFrame::Lobby { seeks, .. } => self.answer_lobby(&seeks).await,
            ServerFrame::Error(refused) => {
                eprintln!("gokata serve: the bot was refused: {:?}", refused.message);
                if let Some(game) = refused.game {
                    self.send(ClientFrame::Sync { game }).await;
                } else {
                    self.seeking = false; // sought again on the next tick
                    return true;
                }
            }
            ServerFrame::Goodbye { .. } => return false,
            _ => {}
        }
        self.seek_if_room().await;
        self.think_where_to_move();
        true
    }

    /// Follows a game from its STATE (replacing what was known of it).
    fn track(&mut self, state: &GameState) {
        let Some(game) = game_of(state) else { return };
        let Some(color) = game.color_of(&self.name) else {
            return;
        };
        if game.is_over() {
            self.games.remove(&game.id);
            return;
        }
        let thinking = self.games.get(&game.id).and_then(|tracked| tracked.thinking);
        let think_time = think_time(&game.terms.time, &state.clocks, color);
        self.games.insert(
            game.id.clone(),
            Tracked {
                game,
                color,
                thinking,
                think_time,
            },
        );
    }

    async fn on_played(&mut self, id: &str, ply: usize, point: Option<&str>, clocks: &Value) {
        let Some(tracked) = self.games.get_mut(id) else {
            return;
        };
        let known = tracked.game.moves().len();
        if ply < known {
            return; // known already (from a STATE)
        }
        tracked.think_time = think_time(&tracked.game.terms.time, clocks, tracked.color);
        let color = tracked.game.to_move();
        if ply > known || tracked.game.play(color, ply, point).is_err() {
            let game = id.to_string();
            self.send(ClientFrame::Sync { game }).await; // a turn was missed: read the game again
        }
    }

    /// Seeks what the oldest person asking for the computer asks (any time control, rated or
    /// not, handicap and komi), so that it is paired at once; back to the default seek when
    /// nobody asks any more.
    async fn answer_lobby(&mut self, seeks: &Value) {
        if self.games.len() >= self.max_games {
            return;
        }
        let Ok(seeks) = Vec::<SeekView>::deserialize(seeks) else {
            eprintln!("gokata serve: the bot cannot read the lobby's seeks: {seeks}");
            return;
        };
        let asking = seeks.iter().find_map(|seek| {
            let wants_computer = matches!(seek.opponent, Opponent::Computer | Opponent::Any);
            (wants_computer && !seek.bot && seek.name != self.name)
                .then(|| answer_to(seek))
                .flatten()
        });
        match asking {
            Some((key, frame)) if self.answering.as_ref() != Some(&key) => {
                self.answering = Some(key);
                self.seeking = true;
                self.send(frame).await;
            }
            Some(_) => {}
            None if self.answering.is_some() => {
                self.answering = None;
                self.seeking = false; // the default seek again, below
            }
            None => {}
        }
    }

    /// Programs accept taking back a turn in unrated games only.
    async fn answer_undo(&mut self, id: &str, ply: usize, by: Color) {
        let Some(tracked) = self.games.get(id) else {
            return;
        };
        if by == tracked.color {
            return;
        }
        let answer = ClientFrame::UndoAnswer {
            game: id.to_string(),
            ply,
            accept: !tracked.game.terms.rated,
        };
        self.send(answer).await;
    }

    async fn seek_if_room(&mut self) {
        if self.seeking || self.games.len() >= self.max_games {
            return;
        }
        self.seeking = true;
        let seek = ClientFrame::Seek {
            sizes: BOARD_SIZES.to_vec(),
            color: SeekColor::Any,
            opponent: Opponent::Human,
            terms: AskedTerms::default(),
        };
        self.send(seek).await;
    }

    /// Starts a search in each game where it is to move and is not thinking yet.
    fn think_where_to_move(&mut self) {
        for (id, tracked) in &mut self.games {
            let ply = tracked.game.moves().len();
            if tracked.game.to_move() != tracked.color || tracked.thinking == Some(ply) {
                continue;
            }
            tracked.thinking = Some(ply);
            let position = tracked.game.position().clone();
            let moves = tracked.game.moves().to_vec();
            let (game, budget) = (id.clone(), self.budget.capped(tracked.think_time));
            let komi = tracked.game.terms.komi;
            let (searches, decided) = (self.searches.clone(), self.decided.clone());
            tokio::spawn(async move {
                let Ok(_permit) = searches.acquire_owned().await else {
                    return;
                };
                let seed = super::auth::random_seed();
                let game_id = game.clone();
                let frame = tokio::task::spawn_blocking(move || {
                    let settings = Settings {
                        budget,
                        threads: 1,
                        seed,
                        resign: true,
                    };
                    let (decision, _) =
                        Bot::new(settings).genmove(&position, komi, budget, false, &mut || false);
                    turn_frame(&game, ply, decision, &position)
                })
                .await;
                if let Ok(frame) = frame {
                    let _ = decided
                        .send(Decided {
                            game: game_id,
                            ply,
                            moves,
                            frame,
                        })
                        .await;
                }
            });
        }
    }

    /// Sends a decided turn if the game is still where it was.
    async fn on_decided(&mut self, decided: Decided) {
        let Some(tracked) = self.games.get_mut(&decided.game) else {
            return;
        };
        if tracked.thinking == Some(decided.ply) {
            tracked.thinking = None;
        }
        if tracked.game.moves() == decided.moves.as_slice() && !tracked.game.is_over() {
            self.send(decided.frame).await;
        }
    }

    async fn send(&self, frame: ClientFrame) {
        let _ = self
            .events
            .send(Event::Frame {
                conn: self.conn,
                frame: Ok(frame),
                reference: None,
            })
            .await;
    }
}

/// The seek that fits a person's waiting seek (as the lobby lists it), and a key naming it.
fn answer_to(seek: &SeekView) -> Option<(String, ClientFrame)> {
    let size = match &seek.size {
        Value::Array(sizes) => sizes.first()?.as_u64()?,
        size => size.as_u64()?,
    };
    let size = BOARD_SIZES.into_iter().find(|&s| s as u64 == size)?;
    let color = match seek.color {
        SeekColor::Black => SeekColor::White,
        SeekColor::White => SeekColor::Black,
        SeekColor::Any => SeekColor::Any,
    };
    let handicap = match &seek.handicap {
        Value::String(auto) if auto == "auto" => HandicapAsk::Auto,
        stones => HandicapAsk::Stones(u32::try_from(stones.as_u64()?).ok()?),
    };
    let terms = AskedTerms {
        rated: seek.rated,
        handicap,
        komi: seek.komi,
        time: Some(TimeControl::parse(&seek.time).ok()?),
        scoring: Scoring::AllAlive,
    };
    // Games with a program count every stone as alive.
    if seek.scoring != Scoring::AllAlive {
        return None;
    }
    let key = format!("{} {}", seek.name, serde_json::to_string(seek).ok()?);
    let frame = ClientFrame::Seek {
        sizes: vec![size],
        color,
        opponent: Opponent::Human,
        terms,
    };
    Some((key, frame))
}

/// The game a STATE describes, replayed.
fn game_of(state: &GameState) -> Option<ServerGame> {
    if !BOARD_SIZES.contains(&state.size) {
        return None;
    }
    let terms = GameTerms {
        rated: state.rated,
        handicap: state.handicap,
        komi: state.komi,
        ..GameTerms::plain(TimeControl::parse(&state.time).ok()?)
    };
    if terms.handicap == 1 || terms.handicap > 9 {
        return None;
    }
    let (id, black, white) = (&state.id, &state.black, &state.white);
    let mut game = ServerGame::new(
        id.to_string(),
        state.size,
        black.to_string(),
        white.to_string(),
        terms,
    );
    for (ply, point) in state.moves.iter().enumerate() {
        let color = game.to_move();
        game.play(color, ply, point.as_deref()).ok()?;
    }
    if state.status == GameStatus::Over {
        game.end(Color::Black, super::game::EndReason::Resign);
    }
    Some(game)
}

/// The most to think about a turn with the clock the server told (`clocks` of STATE or
/// `played`); a tenth of a second where it told none.
fn think_time(time: &TimeControl, clocks: &Value, color: Color) -> Duration {
    let clock = Clock::from_json(&clocks[color.name()]);
    Duration::from_millis(clock.map_or(100, |clock| time.comfortable_ms(&clock)))
}

fn turn_frame(game: &str, ply: usize, decision: Decision, position: &gokata_engine::Game) -> ClientFrame {
    let game = game.to_string();
    match decision {
        Decision::Play(point) => {
            let board = position.board();
            let (row, col) = board.row_col(point);
            ClientFrame::Move {
                game,
                ply,
                point: coord::format(row, col, board.height()),
            }
        }
        Decision::Pass => ClientFrame::Pass { game, ply },
        Decision::Resign => ClientFrame::Resign { game },
    }
}
