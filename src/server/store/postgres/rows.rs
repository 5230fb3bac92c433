//! Rows read back into the store's values.

use tokio_postgres::error::SqlState;
use tokio_postgres::Row;

use crate::lobby::Seek;
use crate::protocol::{Opponent, SeekColor};
use crate::store::{stored_result, GameNow, Records, Standing, StoreError, StoredGame};

/// A seek and its id from a row of `id, player, color, sizes, opponent, bot`.
pub(super) fn seek_of(row: &Row) -> Result<(i64, Seek), StoreError> {
    let name: String = row.get(1);
    let corrupt = |what: String| StoreError::Corrupt(format!("the seek of {name}: {what}"));
    let color: String = row.get(2);
    let opponent: String = row.get(4);
    let sizes = row
        .get::<_, Vec<i32>>(3)
        .into_iter()
        .map(|size| usize::try_from(size).map_err(|_| corrupt(format!("size {size}"))))
        .collect::<Result<Vec<usize>, StoreError>>()?;
    if sizes.is_empty() {
        return Err(corrupt("no size".into()));
    }
    let seek = Seek {
        color: SeekColor::from_name(&color).ok_or_else(|| corrupt(format!("colour {color:?}")))?,
        opponent: Opponent::from_name(&opponent).ok_or_else(|| corrupt(format!("opponent {opponent:?}")))?,
        bot: row.get(5),
        sizes,
        name,
    };
    Ok((row.get(0), seek))
}

pub(super) fn game_now(row: &Row) -> Result<GameNow, StoreError> {
    let id: String = row.get(0);
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    let komi: f64 = row.get(4);
    let result = stored_result(
        &id,
        komi,
        row.get(6),
        row.get(7),
        row.get::<_, Option<i32>>(8).and_then(|n| u32::try_from(n).ok()),
        row.get::<_, Option<i32>>(9).and_then(|n| u32::try_from(n).ok()),
    )?;
    let (black, white): (String, String) = (row.get(2), row.get(3));
    let bots: [bool; 2] = [row.get(18), row.get(19)];
    let records = match result {
        Some(_) => Some(Records {
            black: Standing {
                wins: count(row, 14)?,
                losses: count(row, 15)?,
                name: black.clone(),
                bot: bots[0],
            },
            white: Standing {
                wins: count(row, 16)?,
                losses: count(row, 17)?,
                name: white.clone(),
                bot: bots[1],
            },
        }),
        None => None,
    };
    Ok(GameNow {
        first_ply: usize::try_from(row.get::<_, i32>(10)).map_err(|_| corrupt("ply"))?,
        remaining_ms: Some(u64::try_from(row.get::<_, i64>(11)).unwrap_or(0)),
        records,
        game: StoredGame {
            size: usize::try_from(row.get::<_, i32>(1)).map_err(|_| corrupt("size"))?,
            black,
            white,
            bots,
            komi,
            move_time_ms: u64::try_from(row.get::<_, i64>(5)).map_err(|_| corrupt("move time"))?,
            moves: Vec::new(),
            result,
            id,
        },
    })
}

/// A deadlock broken, or a serialization failure: the transaction was aborted whole.
pub(super) fn is_retryable(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&SqlState::T_R_DEADLOCK_DETECTED)
        || error.code() == Some(&SqlState::T_R_SERIALIZATION_FAILURE)
}

pub(super) fn count(row: &Row, at: usize) -> Result<u32, StoreError> {
    u32::try_from(row.get::<_, i32>(at)).map_err(|_| StoreError::Corrupt("a negative count".into()))
}
