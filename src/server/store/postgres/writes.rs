//! A batch's writes in one transaction: in rounds of distinct games, each write conditional on
//! the game as its writer saw it, and what they changed for the other processes.

use std::collections::HashSet;

use futures_util::future::{join, join_all};
use tokio_postgres::{Client, Statement};

use crate::store::notification::Change;
use crate::store::{Outcome, Records, Standing, StoreError, Write};
use gokata_engine::Color;

use super::rows::count;
use super::statements::Statements;

/// Ends the transaction open on `client` after `error`, which it returns.
pub(super) async fn roll_back(client: &Client, error: StoreError) -> StoreError {
    // A failed statement leaves the transaction aborted, still to be ended; a lost connection
    // ended it already, and then this fails without harm.
    let _ = client.batch_execute("ROLLBACK").await;
    error
}

/// Sends the payloads, in one statement, in the transaction: delivered once it commits.
pub(super) async fn notify(
    client: &Client,
    statement: &Statement,
    payloads: &[String],
) -> Result<(), StoreError> {
    if !payloads.is_empty() {
        client.execute(statement, &[&payloads]).await?;
    }
    Ok(())
}

/// The indices of `writes` in rounds: each game's first write in the first, its second in the
/// second, and so on; each round in the order of the games.
pub(super) fn rounds(writes: &[Write]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..writes.len()).collect();
    order.sort_by(|&a, &b| writes[a].game().cmp(writes[b].game()));
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    let mut round = 0;
    for (at, &index) in order.iter().enumerate() {
        let same_game = at > 0 && writes[order[at - 1]].game() == writes[index].game();
        round = if same_game { round + 1 } else { 0 };
        if rounds.len() == round {
            rounds.push(Vec::new());
        }
        rounds[round].push(index);
    }
    rounds
}

/// One round's writes, sent at once; their outcomes, in the order of `indices`. `chained`: each
/// game was written in an earlier round, which must have applied.
pub(super) async fn commit_round(
    client: &Client,
    statements: &Statements,
    writes: &[Write],
    indices: &[usize],
    chained: bool,
) -> Result<Vec<Outcome>, StoreError> {
    let (turns, others): (Vec<usize>, Vec<usize>) = indices
        .iter()
        .partition(|&&index| matches!(writes[index], Write::Turn { .. }));
    let turns_applied = apply_turns(client, &statements.turns, writes, &turns, chained);
    let others_applied = join_all(
        others
            .iter()
            .map(|&index| apply(client, statements, &writes[index], chained)),
    );
    let (turns_applied, others_applied) = join(turns_applied, others_applied).await;
    let turns_applied = turns_applied?;
    let mut others_applied = others.iter().zip(others_applied);
    let mut outcomes = Vec::with_capacity(indices.len());
    for &index in indices {
        outcomes.push(match &writes[index] {
            Write::Turn { game, .. } if turns_applied.contains(game.as_str()) => Outcome::Done,
            Write::Turn { .. } => Outcome::Rejected,
            _ => {
                let (_, outcome) = others_applied.next().expect("one outcome per other write");
                outcome?
            }
        });
    }
    Ok(outcomes)
}

/// Turns of distinct games in one statement; the games whose turn applied.
pub(super) async fn apply_turns(
    client: &Client,
    statement: &Statement,
    writes: &[Write],
    turns: &[usize],
    chained: bool,
) -> Result<HashSet<String>, StoreError> {
    if turns.is_empty() {
        return Ok(HashSet::new());
    }
    let mut games = Vec::with_capacity(turns.len());
    let mut plies = Vec::with_capacity(turns.len());
    let mut points = Vec::with_capacity(turns.len());
    for &index in turns {
        if let Write::Turn { game, ply, point } = &writes[index] {
            games.push(game.as_str());
            plies.push(i32::try_from(*ply).unwrap_or(i32::MAX));
            points.push(point.as_deref());
        }
    }
    let rows = client
        .query(statement, &[&games, &plies, &points, &chained])
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// What the applied writes changed, in their order, for the other processes.
pub(super) fn changes(writes: &[Write], outcomes: &[Outcome]) -> Vec<Change> {
    writes
        .iter()
        .zip(outcomes)
        .filter(|(_, outcome)| **outcome != Outcome::Rejected)
        .map(|(write, _)| match write {
            Write::Turn { game, ply, point } => Change::Turn {
                game: game.clone(),
                ply: *ply,
                point: point.clone(),
            },
            write => Change::Game(write.game().to_string()),
        })
        .collect()
}

/// One write, conditional on the game as its writer saw it; `chained` when an earlier write of
/// the same batch touched the game, which must then have applied.
pub(super) async fn apply(
    client: &Client,
    statements: &Statements,
    write: &Write,
    chained: bool,
) -> Result<Outcome, StoreError> {
    match write {
        Write::NewGame(game) => {
            let size = i32::try_from(game.size).unwrap_or(0);
            let move_time = i64::try_from(game.move_time_ms).unwrap_or(i64::MAX);
            client
                .execute(
                    &statements.new_game,
                    &[&game.id, &size, &game.black, &game.white, &game.komi, &move_time],
                )
                .await?;
            Ok(Outcome::Done)
        }
        Write::Turn { game, .. } => {
            let applied = apply_turns(
                client,
                &statements.turns,
                std::slice::from_ref(write),
                &[0],
                chained,
            )
            .await?;
            Ok(if applied.contains(game.as_str()) {
                Outcome::Done
            } else {
                Outcome::Rejected
            })
        }
        Write::Finish { game, result, plies } => {
            let (score_black, score_white) = match result.score {
                Some(score) => (i32::try_from(score.black).ok(), i32::try_from(score.white).ok()),
                None => (None, None),
            };
            let plies = i32::try_from(*plies).unwrap_or(i32::MAX);
            let rows = client
                .query(
                    &statements.finish,
                    &[
                        game,
                        &result.winner.name(),
                        &result.reason.name(),
                        &score_black,
                        &score_white,
                        &chained,
                        &plies,
                    ],
                )
                .await?;
            let Some(row) = rows.first() else {
                return Ok(Outcome::Rejected);
            };
            let standing = |at: usize| -> Result<Standing, StoreError> {
                Ok(Standing {
                    name: row.get(at),
                    wins: count(row, at + 1)?,
                    losses: count(row, at + 2)?,
                    bot: row.get(at + 3),
                })
            };
            let (winner, loser) = (standing(0)?, standing(4)?);
            let (black, white) = match result.winner {
                Color::Black => (winner, loser),
                Color::White => (loser, winner),
            };
            let plies = usize::try_from(row.get::<_, i32>(8))
                .map_err(|_| StoreError::Corrupt(format!("game {game}: a negative turn count")))?;
            Ok(Outcome::Finished {
                records: Records { black, white },
                plies,
            })
        }
    }
}
