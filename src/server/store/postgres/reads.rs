//! Reads on any connection: the store's own, or a reader's (see [`crate::store::Reader`]).

use std::collections::HashMap;

use tokio_postgres::Client;

use super::rows::{chat_of, finished_game, game_now, listed_game, seek_of, standing_of, GAME_NOW, STANDING};
use super::ALIVE_WITHIN;
use crate::game::{ChatMessage, CHAT_KEPT};
use crate::lobby::Seek;
use crate::store::{
    finished_games_sql, FinishedGame, GameNow, ListedGame, PlayerRecord, Standing, StoreError, StoredGame,
    GAMES_PAGE, LEADERBOARD_SQL,
};
use crate::time_control::Clock;

pub(crate) async fn player(client: &Client, name: &str) -> Result<Option<PlayerRecord>, StoreError> {
    let row = client
        .query_opt(
            &format!("SELECT token_hash, {STANDING} FROM players WHERE lower(name) = lower($1)"),
            &[&name],
        )
        .await?;
    row.map(|row| {
        let standing = standing_of(&row, "")?;
        let token_hash = row
            .try_get::<_, Vec<u8>>("token_hash")?
            .try_into()
            .map_err(|_| StoreError::Corrupt(format!("player {}: token hash", standing.name)))?;
        Ok(PlayerRecord {
            token_hash,
            name: standing.name,
            wins: standing.wins,
            losses: standing.losses,
            bot: standing.bot,
            rating: standing.rating,
            rated_games: standing.rated_games,
        })
    })
    .transpose()
}

/// The seeks of live processes, oldest first.
pub(crate) async fn waiting_seeks(client: &Client) -> Result<Vec<Seek>, StoreError> {
    let rows = client
        .query(
            &format!(
                "SELECT id, player, color, coalesce(sizes, ARRAY[size]) AS sizes, opponent, bot, terms
                 FROM seeks WHERE terms IS NOT NULL AND instance IN (
                     SELECT id FROM instances WHERE seen >= clock_timestamp() - interval '{ALIVE_WITHIN}')
                 ORDER BY id"
            ),
            &[],
        )
        .await?;
    rows.iter()
        .map(|row| seek_of(row).map(|(_, seek)| seek))
        .collect()
}

pub(crate) async fn game(client: &Client, id: &str) -> Result<Option<StoredGame>, StoreError> {
    let now = games_now(client, &[(id.to_string(), 0)]).await?;
    Ok(now.into_iter().next().map(|now| now.game))
}

pub(crate) async fn finished_games(
    client: &Client,
    name: &str,
    before: Option<&str>,
) -> Result<Vec<FinishedGame>, StoreError> {
    let limit = GAMES_PAGE as i64;
    let rows = client
        .query(
            &finished_games_sql("created", "g.plies"),
            &[&name, &before, &limit],
        )
        .await?;
    rows.iter().map(finished_game).collect()
}

pub(crate) async fn leaderboard(client: &Client) -> Result<Vec<Standing>, StoreError> {
    let rows = client.query(LEADERBOARD_SQL, &[]).await?;
    rows.iter().map(|row| standing_of(row, "")).collect()
}

/// One statement, so the games and their turns are read as of one moment. A game named
/// twice is read once, from the earlier ply.
pub(crate) async fn games_now(
    client: &Client,
    games: &[(String, usize)],
) -> Result<Vec<GameNow>, StoreError> {
    let mut firsts_by_id: HashMap<&str, usize> = HashMap::new();
    for (id, first) in games {
        let earliest = firsts_by_id.entry(id.as_str()).or_insert(*first);
        *earliest = (*earliest).min(*first);
    }
    let (ids, firsts): (Vec<&str>, Vec<i32>) = firsts_by_id
        .into_iter()
        .map(|(id, first)| (id, i32::try_from(first).unwrap_or(i32::MAX)))
        .unzip();
    let rows = client
        .query(
            &format!(
                "SELECT {GAME_NOW}, t.ply, t.point, t.clocks AS turn_clocks
             FROM unnest($1::text[], $2::int4[]) AS k(id, first)
             JOIN games g ON g.id = k.id
             JOIN players b ON b.name = g.black
             JOIN players w ON w.name = g.white
             LEFT JOIN turns t ON t.game = g.id AND t.ply >= k.first
             ORDER BY g.id, t.ply"
            ),
            &[&ids, &firsts],
        )
        .await?;
    let chat_rows = client
        .query(
            &format!(
                "SELECT game, sender, text, ply, at_ms, watchers FROM (
                     SELECT c.*, row_number() OVER (PARTITION BY game ORDER BY id DESC) AS age
                     FROM chat c WHERE game = ANY($1::text[])) AS last
                 WHERE age <= {CHAT_KEPT} ORDER BY game, id"
            ),
            &[&ids],
        )
        .await?;
    let mut chats: HashMap<String, Vec<ChatMessage>> = HashMap::new();
    for row in &chat_rows {
        chats.entry(row.try_get("game")?).or_default().push(chat_of(row)?);
    }
    let mut now: Vec<GameNow> = Vec::new();
    for row in rows {
        let id: String = row.get(0);
        if now.last().is_none_or(|last| last.game.id != id) {
            let mut game = game_now(&row)?;
            game.game.chat = chats.remove(&id).unwrap_or_default();
            now.push(game);
        }
        let current = now.last_mut().expect("pushed above");
        if let Some(ply) = row.try_get::<_, Option<i32>>("ply")? {
            if usize::try_from(ply).ok() != Some(current.first_ply + current.game.moves.len()) {
                return Err(StoreError::Corrupt(format!("game {id}: turns out of sequence")));
            }
            current.game.moves.push(row.try_get("point")?);
            let clocks: Option<String> = row.try_get("turn_clocks")?;
            let clocks = clocks
                .map(|text| {
                    Clock::pair_from_text(&text)
                        .map_err(|why| StoreError::Corrupt(format!("game {id}: turn clocks: {why}")))
                })
                .transpose()?;
            current.game.turn_clocks.push(clocks);
        }
    }
    Ok(now)
}

pub(crate) async fn live_games_of(client: &Client, names: &[String]) -> Result<Vec<String>, StoreError> {
    let rows = client
        .query(
            "SELECT id FROM games WHERE status = 'playing' AND (black = ANY($1) OR white = ANY($1))",
            &[&names],
        )
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// The games being played, newest first (at most `limit`), and how many there are.
pub(crate) async fn live_games_listed(
    client: &Client,
    limit: usize,
) -> Result<(Vec<ListedGame>, usize), StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = client
        .query(
            "SELECT g.id, g.size, g.black, g.white, g.komi, g.move_time_ms, g.terms, g.plies,
                    b.bot AS black_bot, w.bot AS white_bot
             FROM games g JOIN players b ON b.name = g.black JOIN players w ON w.name = g.white
             WHERE g.status = 'playing' ORDER BY g.created DESC LIMIT $1",
            &[&limit],
        )
        .await?;
    let total: i64 = client
        .query_one("SELECT count(*) FROM games WHERE status = 'playing'", &[])
        .await?
        .try_get(0)?;
    let games = rows.iter().map(listed_game).collect::<Result<_, _>>()?;
    Ok((games, usize::try_from(total).unwrap_or(0)))
}
