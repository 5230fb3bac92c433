//! Rows read back into the store's values.

use tokio_postgres::error::SqlState;
use tokio_postgres::Row;

use crate::game::{ChatMessage, GameResult};
use crate::lobby::Seek;
use crate::protocol::{Opponent, SeekColor};
use crate::rating::Rating;
use crate::store::{
    stored_result, stored_scoring, stored_terms, stored_undo, FinishedGame, GameNow, ListedGame, Records,
    Standing, StoreError, StoredGame,
};

/// The columns of a player's public record, as [`standing_of`] reads them.
pub(super) const STANDING: &str = "name, wins, losses, bot, rating, deviation, volatility, rated_games";

/// A player's public record from a row with the [`STANDING`] columns, each name prefixed with
/// `prefix` (`""`, or `"black_"` where a row holds two players).
pub(super) fn standing_of(row: &Row, prefix: &str) -> Result<Standing, StoreError> {
    let column = |name: &str| format!("{prefix}{name}");
    Ok(Standing {
        name: row.try_get(column("name").as_str())?,
        wins: count(row, &column("wins"))?,
        losses: count(row, &column("losses"))?,
        bot: row.try_get(column("bot").as_str())?,
        rating: Rating {
            rating: row.try_get(column("rating").as_str())?,
            deviation: row.try_get(column("deviation").as_str())?,
            volatility: row.try_get(column("volatility").as_str())?,
        },
        rated_games: count(row, &column("rated_games"))?,
    })
}

/// A seek and its id from a row of `id, player, color, sizes, opponent, bot, terms`.
pub(super) fn seek_of(row: &Row) -> Result<(i64, Seek), StoreError> {
    let name: String = row.try_get("player")?;
    let corrupt = |what: String| StoreError::Corrupt(format!("the seek of {name}: {what}"));
    let color: String = row.try_get("color")?;
    let opponent: String = row.try_get("opponent")?;
    let sizes = row
        .try_get::<_, Vec<i32>>("sizes")?
        .into_iter()
        .map(|size| usize::try_from(size).map_err(|_| corrupt(format!("size {size}"))))
        .collect::<Result<Vec<usize>, StoreError>>()?;
    if sizes.is_empty() {
        return Err(corrupt("no size".into()));
    }
    let terms: String = row.try_get("terms")?;
    let (terms, rating) = Seek::terms_from_text(&terms).map_err(corrupt)?;
    let seek = Seek {
        color: SeekColor::from_name(&color).ok_or_else(|| corrupt(format!("colour {color:?}")))?,
        opponent: Opponent::from_name(&opponent).ok_or_else(|| corrupt(format!("opponent {opponent:?}")))?,
        bot: row.try_get("bot")?,
        sizes,
        terms,
        rating,
        name,
    };
    Ok((row.try_get("id")?, seek))
}

/// A game as it is now, from a row of [`GAME_NOW`]'s columns (its turns are read apart).
pub(super) fn game_now(row: &Row) -> Result<GameNow, StoreError> {
    let id: String = row.try_get("id")?;
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    let komi: f64 = row.try_get("komi")?;
    let result = result_of(row, &id, komi)?;
    let move_time_ms =
        u64::try_from(row.try_get::<_, i64>("move_time_ms")?).map_err(|_| corrupt("move time"))?;
    let terms: Option<String> = row.try_get("terms")?;
    let clocks: Option<String> = row.try_get("clocks")?;
    let (terms, clocks) = stored_terms(&id, terms.as_deref(), clocks.as_deref(), komi, move_time_ms)?;
    let black = standing_of(row, "black_")?;
    let white = standing_of(row, "white_")?;
    let bots = [black.bot, white.bot];
    let ratings = ratings_of(row, &id)?;
    let undo = stored_undo(
        &id,
        row.try_get("undo_by")?,
        row.try_get::<_, Option<i32>>("undo_ply")?.map(i64::from),
        [
            i64::from(row.try_get::<_, i32>("undo_asked_black")?),
            i64::from(row.try_get::<_, i32>("undo_asked_white")?),
        ],
    )?;
    let stored_plies =
        usize::try_from(row.try_get::<_, i32>("stored_plies")?).map_err(|_| corrupt("plies"))?;
    Ok(GameNow {
        first_ply: usize::try_from(row.try_get::<_, i32>("first")?).map_err(|_| corrupt("ply"))?,
        remaining_ms: Some(u64::try_from(row.try_get::<_, i64>("remaining_ms")?).unwrap_or(0)),
        game: StoredGame {
            size: usize::try_from(row.try_get::<_, i32>("size")?).map_err(|_| corrupt("size"))?,
            black: black.name.clone(),
            white: white.name.clone(),
            bots,
            terms,
            clocks,
            turn_clocks: Vec::new(),
            undo,
            chat: Vec::new(),
            scoring: stored_scoring(&id, row.try_get::<_, Option<String>>("scoring")?.as_deref())?,
            ratings: ratings.clone(),
            moves: Vec::new(),
            result,
            id,
        },
        records: result.map(|_| Records { black, white }),
        stored_plies: Some(stored_plies),
        ratings,
    })
}

/// The columns [`game_now`] reads, of `games g` with its players `b` and `w` and the first ply
/// wanted `k.first`.
pub(super) const GAME_NOW: &str = "g.id, g.size, g.komi, g.move_time_ms, g.winner, g.reason,
    g.score_black, g.score_white, g.terms, g.clocks, g.ratings, k.first, g.plies AS stored_plies,
    g.undo_by, g.undo_ply, g.undo_asked_black, g.undo_asked_white, g.scoring,
    greatest(0, ceil(extract(epoch FROM g.deadline - clock_timestamp()) * 1000))::int8 AS remaining_ms,
    b.name AS black_name, b.wins AS black_wins, b.losses AS black_losses, b.bot AS black_bot,
    b.rating AS black_rating, b.deviation AS black_deviation, b.volatility AS black_volatility,
    b.rated_games AS black_rated_games,
    w.name AS white_name, w.wins AS white_wins, w.losses AS white_losses, w.bot AS white_bot,
    w.rating AS white_rating, w.deviation AS white_deviation, w.volatility AS white_volatility,
    w.rated_games AS white_rated_games";

/// A finished game from a row of [`crate::store::finished_games_sql`]'s columns.
pub(super) fn finished_game(row: &Row) -> Result<FinishedGame, StoreError> {
    let id: String = row.try_get("id")?;
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    let komi: f64 = row.try_get("komi")?;
    let result = result_of(row, &id, komi)?.ok_or_else(|| corrupt("over without a result"))?;
    let move_time_ms =
        u64::try_from(row.try_get::<_, i64>("move_time_ms")?).map_err(|_| corrupt("move time"))?;
    let terms: Option<String> = row.try_get("terms")?;
    let (terms, _) = stored_terms(&id, terms.as_deref(), None, komi, move_time_ms)?;
    let ratings = ratings_of(row, &id)?;
    Ok(FinishedGame {
        size: usize::try_from(row.try_get::<_, i32>("size")?).map_err(|_| corrupt("size"))?,
        black: row.try_get("black")?,
        white: row.try_get("white")?,
        result,
        terms,
        plies: usize::try_from(row.try_get::<_, i32>("plies")?).map_err(|_| corrupt("plies"))?,
        ratings,
        id,
    })
}

/// A game being played, from a row of `id, size, black, white, komi, move_time_ms, terms,
/// plies, black_bot, white_bot`.
pub(super) fn listed_game(row: &Row) -> Result<ListedGame, StoreError> {
    let id: String = row.try_get("id")?;
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    let move_time_ms =
        u64::try_from(row.try_get::<_, i64>("move_time_ms")?).map_err(|_| corrupt("move time"))?;
    let terms: Option<String> = row.try_get("terms")?;
    let (terms, _) = stored_terms(&id, terms.as_deref(), None, row.try_get("komi")?, move_time_ms)?;
    Ok(ListedGame {
        size: usize::try_from(row.try_get::<_, i32>("size")?).map_err(|_| corrupt("size"))?,
        black: row.try_get("black")?,
        white: row.try_get("white")?,
        bots: [row.try_get("black_bot")?, row.try_get("white_bot")?],
        terms,
        plies: usize::try_from(row.try_get::<_, i32>("plies")?).map_err(|_| corrupt("plies"))?,
        id,
    })
}

/// A chat message from a row of `sender, text, ply, at_ms, watchers`.
pub(super) fn chat_of(row: &Row) -> Result<ChatMessage, StoreError> {
    Ok(ChatMessage {
        from: row.try_get("sender")?,
        text: row.try_get("text")?,
        ply: usize::try_from(row.try_get::<_, i32>("ply")?).unwrap_or(0),
        at_ms: u64::try_from(row.try_get::<_, i64>("at_ms")?).unwrap_or(0),
        watchers: row.try_get("watchers")?,
    })
}

/// A game's result from its columns `winner`, `reason`, `score_black` and `score_white`.
fn result_of(row: &Row, id: &str, komi: f64) -> Result<Option<GameResult>, StoreError> {
    let number = |name: &str| {
        row.try_get::<_, Option<i32>>(name)
            .map(|n| n.and_then(|n| u32::try_from(n).ok()))
    };
    stored_result(
        id,
        komi,
        row.try_get("winner")?,
        row.try_get("reason")?,
        number("score_black")?,
        number("score_white")?,
    )
}

/// A rated game's rating changes from its `ratings` column.
fn ratings_of(row: &Row, id: &str) -> Result<Option<serde_json::Value>, StoreError> {
    row.try_get::<_, Option<String>>("ratings")?
        .map(|text| {
            serde_json::from_str(&text).map_err(|_| StoreError::Corrupt(format!("game {id}: ratings")))
        })
        .transpose()
}

/// A deadlock broken, or a serialization failure: the transaction was aborted whole.
pub(super) fn is_retryable(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&SqlState::T_R_DEADLOCK_DETECTED)
        || error.code() == Some(&SqlState::T_R_SERIALIZATION_FAILURE)
}

pub(super) fn count(row: &Row, column: &str) -> Result<u32, StoreError> {
    u32::try_from(row.try_get::<_, i32>(column)?)
        .map_err(|_| StoreError::Corrupt(format!("a negative {column}")))
}
