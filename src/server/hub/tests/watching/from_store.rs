//! Watchers sent a game as stored (as for a game this process does not hold yet): the hub,
//! told of them, brings them up to the game as it holds it, then they follow it. The answers
//! here find nothing published, so every game is read from the store.

use super::*;
use crate::snapshot::Snapshot;

/// Answers that find no game published (every game is read from the store), and Alice and
/// Bob connected.
fn from_the_store(db: &TestDb, direct: &Direct) -> Answers {
    let reader = Reader::open(db.0.to_str().unwrap()).unwrap();
    let published = Snapshot::default();
    published.publish_connected(["alice".to_string(), "bob".to_string()].into());
    Answers::new(Arc::new(Reads::new(published, reader)), direct.hub.rooms())
}

fn said(game: &str, text: &str) -> Value {
    json!({"type": "chat", "game": game, "text": text})
}

impl Direct {
    /// Tells the hub that a connection was sent the game as stored, and commits.
    async fn told_of_watcher(&mut self, game: &str) {
        let game = game.to_string();
        self.hub.handle(Event::Watched { game }).await;
        self.commit().await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_watcher_sent_a_game_as_stored_gets_what_changed_since_once_then_follows_it() {
    let db = TestDb::new("from-store");
    let mut direct = Direct::new(&db).await;
    let stored = from_the_store(&db, &direct);
    let game = direct.start_game().await;
    direct.play(&game, 0, Some("5E")).await;
    direct.play(&game, 1, Some("4D")).await;
    direct.connect(3).await;
    let watched = direct.watch_with(&stored, 3, &game).await;
    assert_eq!(watched, Some(Watched::FromStore));
    let mut watcher = Follower::default();
    watcher.take(&direct.taken(3));
    assert_eq!(watcher.moves, [json!("5E"), json!("4D")]);
    // Before the hub hears of the watcher: a turn, a word, and Alice gone. None of it comes.
    direct.play(&game, 2, Some("3C")).await;
    direct.frame(1, said(&game, "hi")).await;
    direct.commit().await;
    direct.hub.handle(Event::Disconnected { conn: 1 }).await;
    direct.commit().await;
    assert_eq!(direct.taken(3), Vec::<Value>::new());
    // Told, the hub brings it up to the game as it holds it: each change once.
    direct.told_of_watcher(&game).await;
    let seen = direct.taken(3);
    assert_eq!(kinds(&seen), ["played", "chat", "presence"], "{seen:?}");
    watcher.take(&seen);
    assert_eq!(watcher.moves.len(), 3);
    assert_eq!(watcher.chat_texts(), ["hi"]);
    assert_eq!(
        (seen[2]["name"].as_str(), seen[2]["connected"].as_bool()),
        (Some("alice"), Some(false))
    );
    // Then it follows the game as any watcher: each turn once, and told again, nothing.
    direct.frame(2, turn(&game, 3, Some("6F"))).await;
    direct.commit().await;
    let seen = direct.taken(3);
    assert_eq!(kinds(&seen), ["played"], "{seen:?}");
    watcher.take(&seen);
    direct.told_of_watcher(&game).await;
    assert_eq!(direct.taken(3), Vec::<Value>::new());
}

#[tokio::test(start_paused = true)]
async fn a_watcher_sent_turns_taken_back_since_gets_the_game_whole() {
    let db = TestDb::new("from-store-undo");
    let mut direct = Direct::new(&db).await;
    let stored = from_the_store(&db, &direct);
    let game = direct.start_game().await;
    direct.play(&game, 0, Some("5E")).await;
    direct.play(&game, 1, Some("4D")).await;
    direct.connect(3).await;
    direct.watch_with(&stored, 3, &game).await;
    let mut watcher = Follower::default();
    watcher.take(&direct.taken(3));
    // Bob takes his turn back and plays another; Alice plays on.
    direct
        .frame(2, json!({"type": "undo", "game": game, "ply": 2}))
        .await;
    direct.commit().await;
    direct
        .frame(
            1,
            json!({"type": "undo_answer", "game": game, "ply": 2, "accept": true}),
        )
        .await;
    direct.commit().await;
    direct.frame(2, turn(&game, 1, Some("6F"))).await;
    direct.commit().await;
    direct.frame(1, turn(&game, 2, Some("3C"))).await;
    direct.commit().await;
    direct.taken(1);
    direct.taken(2);
    assert_eq!(direct.taken(3), Vec::<Value>::new());
    direct.told_of_watcher(&game).await;
    let seen = direct.taken(3);
    assert_eq!(kinds(&seen), ["undone"], "{seen:?}");
    watcher.take(&seen);
    assert_eq!(watcher.moves, [json!("5E"), json!("6F"), json!("3C")]);
    direct.frame(2, turn(&game, 3, None)).await;
    direct.commit().await;
    let seen = direct.taken(3);
    assert_eq!(kinds(&seen), ["played"], "{seen:?}");
    watcher.take(&seen);
}

#[tokio::test(start_paused = true)]
async fn a_watcher_sent_a_game_as_stored_that_ends_first_gets_its_last_turns_then_its_end() {
    let db = TestDb::new("from-store-end");
    let mut direct = Direct::new(&db).await;
    let stored = from_the_store(&db, &direct);
    let game = direct.start_game().await;
    direct.play(&game, 0, Some("5E")).await;
    direct.connect(3).await;
    direct.watch_with(&stored, 3, &game).await;
    let mut watcher = Follower::default();
    watcher.take(&direct.taken(3));
    direct.play(&game, 1, Some("4D")).await;
    direct.frame(2, json!({"type": "resign", "game": game})).await;
    direct.commit().await;
    let seen = direct.taken(3);
    assert_eq!(kinds(&seen), ["played", "over"], "{seen:?}");
    watcher.take(&seen);
    assert!(watcher.over);
    assert!(direct.games_watched().is_empty(), "the room closed with the game");
    direct.told_of_watcher(&game).await;
    assert_eq!(direct.taken(3), Vec::<Value>::new(), "nothing after the end");
}
