//! Watching games, on the hub's paused clock with a real SQLite store: `watch`, `unwatch` and
//! `sync` answered as the connections answer them (from what the hub published), the hub
//! telling each room its game's news.

use std::collections::HashMap;

use super::*;
use crate::rooms::MAX_WATCHED;
use crate::socket::StatesSent;

/// A connection as the hub sees it, and what its writer lets through.
struct Connected {
    inbox: mpsc::Receiver<Outgoing>,
    outbox: mpsc::WeakSender<Outgoing>,
    sent: StatesSent,
}

/// The hub driven by hand, a batch at a time, as its loop does: events handled, then the
/// commit, its publication and its deliveries; and the connections' own answers.
struct Direct {
    hub: Hub,
    answers: Arc<Answers>,
    connections: HashMap<ConnId, Connected>,
}

/// When, around a batch of the hub, a connection answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    BeforeTheBatch,
    /// Its events handled, nothing committed.
    Handled,
    /// Committed, not yet published.
    Committed,
    /// Published, not yet delivered.
    Published,
    Delivered,
}

const MOMENTS: [Moment; 5] = [
    Moment::BeforeTheBatch,
    Moment::Handled,
    Moment::Committed,
    Moment::Published,
    Moment::Delivered,
];

impl Direct {
    async fn new(db: &TestDb) -> Direct {
        let store = SqliteStore::open(&db.0).unwrap();
        let hub = Hub::new(Store::Sqlite(store), MOVE_TIME, 1000).await.unwrap();
        let answers = db.answers(&hub);
        Direct {
            hub,
            answers,
            connections: HashMap::new(),
        }
    }

    async fn connect(&mut self, conn: ConnId) {
        let outbox = self.open(conn);
        self.hub
            .handle(Event::Connected {
                conn,
                outbox,
                address: LOOPBACK,
            })
            .await;
    }

    /// A connection the hub has not heard of yet: its strong sender, which the event telling
    /// the hub of it would carry.
    fn open(&mut self, conn: ConnId) -> mpsc::Sender<Outgoing> {
        let (outbox, inbox) = mpsc::channel(256);
        let connected = Connected {
            inbox,
            outbox: outbox.downgrade(),
            sent: StatesSent::default(),
        };
        self.connections.insert(conn, connected);
        outbox
    }

    async fn frame(&mut self, conn: ConnId, frame: Value) {
        let frame = ClientFrame::parse(&frame.to_string());
        self.hub
            .handle(Event::Frame {
                conn,
                frame,
                reference: None,
            })
            .await;
    }

    async fn commit(&mut self) {
        self.hub.commit_and_deliver().await.unwrap();
    }

    /// Commits the batch, `answer` answering at `moment` (before the batch, after it is handled,
    /// committed, published or delivered).
    async fn batch(
        &mut self,
        frames: &[(ConnId, Value)],
        moment: Moment,
        answer: impl AsyncFnOnce(&mut Direct),
    ) {
        let mut answer = Some(answer);
        let mut committed = None;
        for now in MOMENTS {
            if now == moment {
                if let Some(answer) = answer.take() {
                    answer(self).await;
                }
            }
            // What leads to the next moment.
            match now {
                Moment::BeforeTheBatch => {
                    for (conn, frame) in frames {
                        self.frame(*conn, frame.clone()).await;
                    }
                }
                Moment::Handled => committed = self.hub.commit_batch().await.unwrap(),
                Moment::Committed => self.hub.publish(),
                Moment::Published => self.hub.deliver_committed(committed.take().unwrap()).await,
                Moment::Delivered => {}
            }
        }
    }

    fn reply(&self, conn: ConnId) -> Reply<'_> {
        Reply {
            outbox: &self.connections[&conn].outbox,
            reference: None,
        }
    }

    /// `watch` as the connection answers it; told to the hub if the game was sent as stored.
    async fn watch(&mut self, conn: ConnId, game: &str) -> Option<Watched> {
        let answers = self.answers.clone();
        let watched = self.watch_with(&answers, conn, game).await;
        if watched == Some(Watched::FromStore) {
            let told = Event::Watched {
                game: game.to_string(),
            };
            self.hub.handle(told).await;
        }
        watched
    }

    /// `watch` answered by `answers`, the hub not told.
    async fn watch_with(&mut self, answers: &Answers, conn: ConnId, game: &str) -> Option<Watched> {
        let watched = answers.watch(conn, game, &self.reply(conn)).await;
        self.answered(conn, watched)
    }

    fn unwatch(&mut self, conn: ConnId, game: &str) {
        let unwatched = self.answers.unwatch(conn, game, &self.reply(conn));
        self.answered(conn, unwatched);
    }

    async fn sync(&mut self, conn: ConnId, game: &str) {
        let synced = self.answers.sync(game, &self.reply(conn)).await;
        self.answered(conn, synced);
    }

    fn answered<T>(&self, conn: ConnId, result: Result<T, Unanswered>) -> Option<T> {
        match result {
            Ok(answer) => Some(answer),
            Err(Unanswered::Refused(refused)) => {
                let text = ServerMessage::Error(refused).to_json();
                let outbox = self.connections[&conn].outbox.upgrade().unwrap();
                outbox.try_send(Outgoing::Text(text.into())).unwrap();
                None
            }
            Err(Unanswered::TooSlow) => panic!("connection {conn} reads too slowly"),
        }
    }

    /// The messages sent to `conn` so far, as its writer sends them.
    fn taken(&mut self, conn: ConnId) -> Vec<Value> {
        let connected = self.connections.get_mut(&conn).unwrap();
        let mut messages = Vec::new();
        while let Ok(message) = connected.inbox.try_recv() {
            if let Some(text) = connected.sent.pass(message) {
                messages.push(serde_json::from_str(&text).unwrap());
            }
        }
        messages
    }

    /// The connections in the game's room.
    fn watchers_of(&self, game: &str) -> Vec<ConnId> {
        let rooms = self.hub.rooms();
        let watchers = rooms.lock();
        let mut conns: Vec<ConnId> = watchers
            .room(game)
            .map_or(Vec::new(), |room| room.keys().copied().collect());
        conns.sort_unstable();
        conns
    }

    fn games_watched(&self) -> Vec<String> {
        let mut games = self.hub.rooms().lock().games();
        games.sort();
        games
    }

    /// Alice (1, black) and Bob (2, white) in a 9x9 game; its id.
    async fn start_game(&mut self) -> String {
        for (conn, name, color) in [(1, "alice", "black"), (2, "bob", "white")] {
            self.connect(conn).await;
            self.frame(conn, json!({"type": "hello", "name": name})).await;
            self.frame(conn, json!({"type": "seek", "size": 9, "color": color}))
                .await;
        }
        self.commit().await;
        let start = self.taken(2).pop().unwrap();
        assert_eq!(start["type"], "start", "{start}");
        self.taken(1);
        start["game"]["id"].as_str().unwrap().to_string()
    }

    /// A turn of black (even plies) or white, in a batch of its own; both players see it.
    async fn play(&mut self, game: &str, ply: usize, point: Option<&str>) {
        self.frame(1 + ply as u64 % 2, turn(game, ply, point)).await;
        self.commit().await;
        for conn in [1, 2] {
            let seen = self.taken(conn);
            assert_eq!(seen.len(), 1, "{seen:?}");
            assert_eq!(
                (seen[0]["type"].as_str(), seen[0]["ply"].as_u64()),
                (Some("played"), Some(ply as u64))
            );
        }
    }
}

fn turn(game: &str, ply: usize, point: Option<&str>) -> Value {
    match point {
        Some(point) => json!({"type": "move", "game": game, "ply": ply, "point": point}),
        None => json!({"type": "pass", "game": game, "ply": ply}),
    }
}

fn kinds(messages: &[Value]) -> Vec<&str> {
    messages.iter().map(|m| m["type"].as_str().unwrap()).collect()
}

/// A client's view of one game, built from what it is sent: each `state` replaces it; each
/// `played` must be the turn after the last it has, each `chat` is added; nothing comes after
/// `over`.
#[derive(Default, Debug)]
struct Follower {
    moves: Vec<Value>,
    chat: Vec<Value>,
    over: bool,
}

impl Follower {
    fn take(&mut self, messages: &[Value]) {
        for message in messages {
            assert!(!self.over, "{message} after the end");
            match message["type"].as_str().unwrap() {
                "state" | "undone" => {
                    let game = &message["game"];
                    self.moves = game["moves"].as_array().unwrap().clone();
                    self.chat = game["chat"].as_array().unwrap().clone();
                    self.over = game["status"] == "over";
                }
                "played" => {
                    assert_eq!(
                        message["ply"],
                        self.moves.len(),
                        "{message} after {:?}",
                        self.moves
                    );
                    self.moves.push(message["point"].clone());
                }
                "chat" => self.chat.push(message["text"].clone()),
                "over" => self.over = true,
                _ => {}
            }
        }
    }

    fn chat_texts(&self) -> Vec<&str> {
        self.chat
            .iter()
            .map(|said| said.as_str().unwrap_or_else(|| said["text"].as_str().unwrap()))
            .collect()
    }
}

#[tokio::test(start_paused = true)]
async fn a_watch_at_any_moment_of_a_batch_neither_misses_nor_repeats_its_news() {
    for moment in MOMENTS {
        let db = TestDb::new(&format!("watch-moment-{moment:?}"));
        let mut direct = Direct::new(&db).await;
        let game = direct.start_game().await;
        direct.connect(3).await;
        direct.connect(4).await;
        direct.play(&game, 0, Some("5E")).await;
        // White's turn and Alice's word in one batch; a watcher joins at `moment` of it.
        let frames = [
            (2, turn(&game, 1, Some("4D"))),
            (1, json!({"type": "chat", "game": game, "text": "nice"})),
        ];
        let watch = async |direct: &mut Direct| {
            direct.watch(3, &game).await.unwrap();
        };
        direct.batch(&frames, moment, watch).await;
        let mut watcher = Follower::default();
        watcher.take(&direct.taken(3));
        assert_eq!(watcher.moves, [json!("5E"), json!("4D")], "{moment:?}");
        assert_eq!(watcher.chat_texts(), ["nice"], "{moment:?}: once");
        assert_eq!(direct.watchers_of(&game), [3]);
        direct.taken(1);
        direct.taken(2);
        // The next turn comes once.
        direct.play(&game, 2, Some("3C")).await;
        let seen = direct.taken(3);
        assert_eq!(kinds(&seen), ["played"], "{moment:?}: {seen:?}");
        watcher.take(&seen);
        // Watching again, around a turn: the state again, with each turn once after it, and
        // still one place in the room.
        let frames = [(2, turn(&game, 3, Some("6F")))];
        let watch = async |direct: &mut Direct| {
            direct.watch(3, &game).await.unwrap();
        };
        direct.batch(&frames, moment, watch).await;
        let seen = direct.taken(3);
        assert_eq!(
            seen.iter().filter(|m| m["type"] == "state").count(),
            1,
            "{seen:?}"
        );
        watcher.take(&seen);
        assert_eq!(watcher.moves.len(), 4, "{moment:?}: {seen:?}");
        assert_eq!(direct.watchers_of(&game), [3]);
        direct.taken(1);
        direct.taken(2);
        direct.play(&game, 4, None).await;
        watcher.take(&direct.taken(3));
        // The last pass, and a second watcher at `moment`: the end is its state or comes once.
        let frames = [(2, turn(&game, 5, None))];
        let watch = async |direct: &mut Direct| {
            direct.watch(4, &game).await.unwrap();
        };
        direct.batch(&frames, moment, watch).await;
        let mut late = Follower::default();
        late.take(&direct.taken(4));
        assert!(late.over, "{moment:?}: {late:?}");
        assert_eq!(late.moves.len(), 6);
        let seen = direct.taken(3);
        assert_eq!(kinds(&seen), ["played", "over"], "{moment:?}: {seen:?}");
        watcher.take(&seen);
        assert!(direct.games_watched().is_empty(), "a finished game has no room");
    }
}

#[tokio::test(start_paused = true)]
async fn a_player_s_sync_at_any_moment_of_a_batch_is_followed_by_each_later_turn_once() {
    for moment in MOMENTS {
        let db = TestDb::new(&format!("sync-moment-{moment:?}"));
        let mut direct = Direct::new(&db).await;
        let game = direct.start_game().await;
        direct.play(&game, 0, Some("5E")).await;
        let frames = [(2, turn(&game, 1, Some("4D")))];
        let sync = async |direct: &mut Direct| direct.sync(1, &game).await;
        direct.batch(&frames, moment, sync).await;
        direct.taken(2);
        let seen = direct.taken(1);
        assert_eq!(
            seen.iter().filter(|m| m["type"] == "state").count(),
            1,
            "{seen:?}"
        );
        // What comes after the state follows it: the turn it has is not told again.
        let after_state: Vec<Value> = seen
            .iter()
            .skip_while(|m| m["type"] != "state")
            .cloned()
            .collect();
        let mut alice = Follower::default();
        alice.take(&after_state);
        assert_eq!(alice.moves, [json!("5E"), json!("4D")], "{moment:?}: {seen:?}");
        direct.play(&game, 2, Some("3C")).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_watcher_the_hub_has_not_heard_of_yet_gets_the_game_s_news_all_the_same() {
    let db = TestDb::new("watch-unheard");
    let mut direct = Direct::new(&db).await;
    let game = direct.start_game().await;
    // Its `Connected` is still on its way to the hub when it watches.
    let outbox = direct.open(3);
    assert_eq!(direct.watch(3, &game).await, Some(Watched::Following));
    direct.play(&game, 0, Some("5E")).await;
    direct
        .frame(1, json!({"type": "chat", "game": game, "text": "hi"}))
        .await;
    direct.commit().await;
    direct.taken(1);
    direct.taken(2);
    let mut watcher = Follower::default();
    watcher.take(&direct.taken(3));
    assert_eq!((watcher.moves.len(), watcher.chat_texts()), (1, vec!["hi"]));
    direct
        .hub
        .handle(Event::Connected {
            conn: 3,
            outbox,
            address: LOOPBACK,
        })
        .await;
    direct.play(&game, 1, Some("4D")).await;
    watcher.take(&direct.taken(3));
    assert_eq!(watcher.moves.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_watcher_without_a_name_follows_a_game_to_its_end() {
    let db = TestDb::new("watch-follow");
    let (hub, answers) = db.served().await;
    let (mut alice, mut bob, _, game) = start_game(&hub).await;
    let mut watcher = Client::connect(&hub, 3).await;
    assert_eq!(watcher.watch(&answers, &game).await, Some(Watched::Following));
    let state = watcher.recv().await;
    assert_eq!(
        (state["type"].as_str(), state["game"]["moves"].clone()),
        (Some("state"), json!([]))
    );
    assert_eq!(state["game"]["connected"], json!({"black": true, "white": true}));
    let script = [Some("5E"), Some("4D"), None, Some("3C"), None, None];
    for (ply, point) in script.into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &alice } else { &bob };
        mover.send(turn(&game, ply, point)).await;
        let played = alice.recv().await;
        assert_eq!(bob.recv().await, played);
        assert_eq!(watcher.recv().await, played, "the watcher's copy is the players'");
        assert_eq!(played["ply"], ply);
    }
    let over = watcher.recv().await;
    assert_eq!(over["type"], "over");
    assert_eq!(alice.recv().await, over);
    watcher.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(
        watcher.recv().await["type"],
        "pong",
        "nothing more of a finished game"
    );
    // A finished game: its state, and nothing more.
    assert_eq!(watcher.watch(&answers, &game).await, Some(Watched::Finished));
    let finished = watcher.recv().await;
    assert_eq!(
        (finished["type"].as_str(), finished["game"]["status"].as_str()),
        (Some("state"), Some("over"))
    );
    watcher.send(json!({"type": "ping", "t": 2})).await;
    assert_eq!(watcher.recv().await["t"], 2);
    // An unknown game.
    assert_eq!(watcher.watch(&answers, "nosuchgame12").await, None);
    let refused = watcher.recv().await;
    assert_eq!(
        (refused["code"].as_str(), refused["game"].as_str()),
        (Some("unknown_game"), Some("nosuchgame12"))
    );
}

#[tokio::test(start_paused = true)]
async fn unwatch_stops_the_flow_and_presence_reaches_watchers() {
    let db = TestDb::new("watch-unwatch");
    let (hub, answers) = db.served().await;
    let (mut alice, bob, tokens, game) = start_game(&hub).await;
    let mut watcher = Client::connect(&hub, 3).await;
    watcher.watch(&answers, &game).await;
    assert_eq!(watcher.recv().await["type"], "state");
    bob.disconnect().await;
    let gone = watcher.recv().await;
    assert_eq!(
        gone,
        json!({"type": "presence", "game": game, "name": "bob", "color": "white", "connected": false})
    );
    assert_eq!(alice.recv().await, gone);
    let (mut bob, _) = Client::hello(&hub, 4, "bob", Some(&tokens[1])).await;
    let back = watcher.recv().await;
    assert_eq!(
        (back["type"].as_str(), back["connected"].as_bool()),
        (Some("presence"), Some(true))
    );
    watcher.unwatch(&answers, &game).await;
    assert_eq!(watcher.recv().await, json!({"type": "unwatched", "game": game}));
    alice.recv().await; // bob back
    alice.send(turn(&game, 0, Some("5E"))).await;
    assert_eq!(bob.recv().await["type"], "played");
    watcher.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(watcher.recv().await["type"], "pong", "no turn after unwatched");
    // Unwatching a game not watched is answered all the same.
    watcher.unwatch(&answers, &game).await;
    assert_eq!(watcher.recv().await["type"], "unwatched");
}

#[tokio::test(start_paused = true)]
async fn a_player_watching_its_own_game_gets_each_turn_once() {
    let db = TestDb::new("watch-own");
    let (hub, answers) = db.served().await;
    let (mut alice, bob, _, game) = start_game(&hub).await;
    alice.watch(&answers, &game).await;
    assert_eq!(alice.recv().await["type"], "state");
    for (ply, point) in ["5E", "4D"].into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &alice } else { &bob };
        mover.send(turn(&game, ply, Some(point))).await;
        assert_eq!(alice.recv().await["ply"], ply);
    }
    alice.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(alice.recv().await["type"], "pong", "each turn came once");
}

#[tokio::test(start_paused = true)]
async fn a_connection_watches_at_most_64_games_and_rooms_go_with_their_watchers() {
    let db = TestDb::new("watch-limit");
    let mut direct = Direct::new(&db).await;
    let mut games = Vec::new();
    for n in 0..MAX_WATCHED as u64 + 2 {
        let (black, white) = (10 + 2 * n, 11 + 2 * n);
        for (conn, color) in [(black, "black"), (white, "white")] {
            direct.connect(conn).await;
            direct
                .frame(conn, json!({"type": "hello", "name": format!("p{conn}")}))
                .await;
            direct
                .frame(conn, json!({"type": "seek", "size": 9, "color": color}))
                .await;
        }
        direct.commit().await;
        let start = direct.taken(black).pop().unwrap();
        games.push(start["game"]["id"].as_str().unwrap().to_string());
    }
    let (finished, extra) = (&games[MAX_WATCHED], &games[MAX_WATCHED + 1]);
    direct.connect(3).await;
    direct.connect(4).await;
    for game in &games[..MAX_WATCHED] {
        direct.watch(3, game).await;
    }
    assert_eq!(direct.watch(3, extra).await, None);
    direct.watch(4, &games[0]).await;
    let seen = direct.taken(3);
    assert_eq!(seen.len(), MAX_WATCHED + 1);
    assert!(seen[..MAX_WATCHED].iter().all(|m| m["type"] == "state"));
    let refused = &seen[MAX_WATCHED];
    assert_eq!(refused["code"], "bad_request");
    assert!(refused["message"].as_str().unwrap().contains("64"), "{refused}");
    assert_eq!(direct.games_watched().len(), MAX_WATCHED);
    // A finished game is only its state: no room, not counted, so answered at the limit too,
    // and no reason to keep a connection that has not said hello.
    direct
        .frame(
            10 + 2 * MAX_WATCHED as u64,
            json!({"type": "resign", "game": finished}),
        )
        .await;
    direct.commit().await;
    direct.connect(5).await;
    for conn in [3, 5] {
        assert_eq!(direct.watch(conn, finished).await, Some(Watched::Finished));
        let seen = direct.taken(conn);
        assert_eq!(kinds(&seen), ["state"], "{seen:?}");
        assert_eq!(seen[0]["game"]["status"], "over");
    }
    assert_eq!(direct.hub.rooms().lock().watched_by(3), MAX_WATCHED);
    assert_eq!(direct.hub.rooms().lock().watched_by(5), 0);
    // One already watched is answered again, not refused.
    direct.watch(3, &games[5]).await;
    assert_eq!(kinds(&direct.taken(3)), ["state"]);
    // An unwatch makes room for another.
    direct.unwatch(3, &games[5]);
    assert_eq!(direct.watch(3, extra).await, Some(Watched::Following));
    assert_eq!(kinds(&direct.taken(3)), ["unwatched", "state"]);
    assert!(direct.watchers_of(&games[5]).is_empty(), "nobody watches it");
    // Gone, a watcher leaves its rooms, and rooms nobody is in go.
    direct.hub.handle(Event::Disconnected { conn: 3 }).await;
    direct.commit().await;
    assert_eq!(direct.games_watched(), [games[0].clone()]);
    assert_eq!(direct.watchers_of(&games[0]), [4]);
    // As they do when the connection itself leaves first.
    direct.answers.leave(4);
    assert!(direct.games_watched().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_watcher_is_kept_without_a_hello_while_it_follows_a_game() {
    let db = TestDb::new("watch-kept");
    let (hub, answers) = db.served().await;
    let (_alice, bob, _, game) = start_game(&hub).await;
    let mut watcher = Client::connect(&hub, 3).await;
    // Following a game: the connection is kept (see `socket`), and told its state once a watch.
    assert_eq!(watcher.watch(&answers, &game).await, Some(Watched::Following));
    assert_eq!(watcher.watch(&answers, &game).await, Some(Watched::Following));
    watcher.send(json!({"type": "ping"})).await;
    for expected in ["state", "state", "pong"] {
        assert_eq!(watcher.recv().await["type"], expected);
    }
    // A finished game does not keep it.
    bob.send(json!({"type": "resign", "game": game})).await;
    assert_eq!(watcher.recv().await["type"], "over");
    assert_eq!(watcher.watch(&answers, &game).await, Some(Watched::Finished));
}

#[tokio::test(start_paused = true)]
async fn turns_another_process_stored_reach_watchers_once() {
    let db = TestDb::new("watch-remote");
    let mut direct = Direct::new(&db).await;
    let game = direct.start_game().await;
    direct.connect(3).await;
    direct.watch(3, &game).await;
    assert_eq!(kinds(&direct.taken(3)), ["state"]);
    // As the loop does: what others stored first, then this batch's events; a watcher joins
    // before the turn is published, and gets it after its state.
    direct.connect(4).await;
    let remote = |ply: usize, point: &str| {
        Event::Remote(Remote::Changes {
            from: "elsewhere".into(),
            changes: vec![Change::Turn {
                game: game.clone(),
                ply,
                point: Some(point.into()),
                clocks: None,
            }],
        })
    };
    direct.hub.handle(remote(0, "5E")).await;
    direct.hub.play_remote_turns();
    direct.watch(4, &game).await;
    direct.commit().await;
    let seen = direct.taken(3);
    assert_eq!(kinds(&seen), ["played"], "{seen:?}");
    assert_eq!(seen[0]["ply"], 0);
    let late = direct.taken(4);
    assert_eq!(kinds(&late), ["state", "played"], "{late:?}");
    assert_eq!(late[0]["game"]["moves"], json!([]));
    assert_eq!(late[1]["ply"], 0);
    // Told twice (a catch-up read it already): sent once.
    for _ in 0..2 {
        direct.hub.handle(remote(1, "4D")).await;
        direct.hub.play_remote_turns();
        direct.commit().await;
    }
    for conn in [3, 4] {
        let seen = direct.taken(conn);
        assert_eq!(kinds(&seen), ["played"], "{seen:?}");
        assert_eq!(seen[0]["ply"], 1);
    }
    assert_eq!(kinds(&direct.taken(1)), ["played", "played"]);
    // Bob is connected to another process too: leaving this one, he is still connected. When
    // the other process says he left it, the watchers hear it.
    direct
        .hub
        .handle(Event::Remote(Remote::Alive(vec!["elsewhere".into()])))
        .await;
    let told = |here| {
        Event::Remote(Remote::Changes {
            from: "elsewhere".into(),
            changes: vec![Change::Presence {
                player: "bob".into(),
                here,
            }],
        })
    };
    direct.hub.handle(told(true)).await;
    direct.hub.handle(Event::Disconnected { conn: 2 }).await;
    direct.commit().await;
    for conn in [1, 3, 4] {
        assert_eq!(
            direct.taken(conn),
            Vec::<Value>::new(),
            "bob is still connected elsewhere"
        );
    }
    direct.hub.handle(told(false)).await;
    direct.commit().await;
    for conn in [1, 3, 4] {
        let seen = direct.taken(conn);
        assert_eq!(kinds(&seen), ["presence"], "{seen:?}");
        assert_eq!(
            (seen[0]["name"].as_str(), seen[0]["connected"].as_bool()),
            (Some("bob"), Some(false))
        );
    }
}

mod from_store;
