//! Reads of the public records, on any connection to the file: the store's own, or a reader's
//! (see [`crate::store::Reader`]), which WAL lets read while the store writes.

use rusqlite::{params, Connection, OptionalExtension};

use super::{standing_of, GameRow, STANDING};
use crate::store::{
    finished_games_sql, stored_result, stored_terms, FinishedGame, PlayerRecord, Standing, StoreError,
    GAMES_PAGE, LEADERBOARD_SQL,
};

pub(crate) fn player(connection: &Connection, name: &str) -> Result<Option<PlayerRecord>, StoreError> {
    let row = connection
        .query_row(
            &format!("SELECT token_hash, {STANDING} FROM players WHERE name = ?1"),
            [name],
            |row| Ok((row.get::<_, Vec<u8>>(0)?, standing_of(row)?)),
        )
        .optional()?;
    row.map(|(hash, standing)| {
        let token_hash = hash
            .try_into()
            .map_err(|_| StoreError::Corrupt(format!("player {}: token hash", standing.name)))?;
        Ok(PlayerRecord {
            name: standing.name,
            token_hash,
            wins: standing.wins,
            losses: standing.losses,
            bot: standing.bot,
            rating: standing.rating,
            rated_games: standing.rated_games,
        })
    })
    .transpose()
}

pub(crate) fn finished_games(
    connection: &Connection,
    name: &str,
    before: Option<&str>,
) -> Result<Vec<FinishedGame>, StoreError> {
    let sql = finished_games_sql("rowid", "(SELECT count(*) FROM turns t WHERE t.game = g.id)");
    let mut statement = connection.prepare_cached(&sql)?;
    let rows = statement.query_map(params![name, before, GAMES_PAGE as i64], |row| {
        Ok((GameRow::read(row)?, row.get::<_, i64>("plies")?))
    })?;
    let mut games = Vec::new();
    for row in rows {
        let (row, plies) = row?;
        let ratings = row.ratings.clone();
        let corrupt = |what: &str| StoreError::Corrupt(format!("game {}: {what}", row.id));
        let result = stored_result(
            &row.id,
            row.komi,
            row.winner,
            row.reason,
            row.score.0,
            row.score.1,
        )?
        .ok_or_else(|| corrupt("over without a result"))?;
        let move_time_ms = u64::try_from(row.move_time_ms).map_err(|_| corrupt("move time"))?;
        let (terms, _) = stored_terms(&row.id, row.terms.as_deref(), None, row.komi, move_time_ms)?;
        games.push(FinishedGame {
            size: usize::try_from(row.size).map_err(|_| corrupt("size"))?,
            black: row.black,
            white: row.white,
            result,
            terms,
            plies: usize::try_from(plies).unwrap_or(0),
            ratings: ratings
                .map(|text| serde_json::from_str(&text).map_err(|_| corrupt("ratings")))
                .transpose()?,
            id: row.id,
        });
    }
    Ok(games)
}

pub(crate) fn leaderboard(connection: &Connection) -> Result<Vec<Standing>, StoreError> {
    let mut statement = connection.prepare_cached(LEADERBOARD_SQL)?;
    let rows = statement.query_map([], standing_of)?;
    Ok(rows.collect::<Result<_, _>>()?)
}
