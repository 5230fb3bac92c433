//! A batch's writes in one transaction: in rounds of distinct games, each write conditional on
//! the game as its writer saw it, and what they changed for the other processes.

use std::collections::HashSet;

use futures_util::future::{join, join_all};
use tokio_postgres::{Client, Statement};

use crate::store::notification::Change;
use crate::store::{
    scoring_to_text, settle, stored_terms, turn_time_ms, Outcome, Standing, StoreError, UndoStep, Write,
};
use crate::time_control::Clock;
use gokata_engine::Color;

use super::rows::standing_of;
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
/// second, and so on; each round in the order of the games. Chats, which are stored whatever
/// else and condition nothing, all go in the first round, in their order: a game's write after a
/// chat is no later link of a chain (which would find the game unwritten by the batch).
pub(super) fn rounds(writes: &[Write]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..writes.len()).collect();
    order.sort_by(|&a, &b| writes[a].game().cmp(writes[b].game()));
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    let mut next_round = 0;
    for (at, &index) in order.iter().enumerate() {
        if at == 0 || writes[order[at - 1]].game() != writes[index].game() {
            next_round = 0;
        }
        let round = if matches!(writes[index], Write::Chat { .. }) {
            0
        } else {
            next_round += 1;
            next_round - 1
        };
        if rounds.len() == round {
            rounds.push(Vec::new());
        }
        rounds[round].push(index);
    }
    rounds
}

/// One round's writes but its results, sent at once; their outcomes, in the order of `indices`
/// (results are [`Outcome::Rejected`] here: [`settle_results`] writes them once every round is
/// in). `chained`: each game was written in an earlier round, which must have applied.
pub(super) async fn commit_round(
    client: &Client,
    statements: &Statements,
    writes: &[Write],
    indices: &[usize],
    chained: bool,
) -> Result<Vec<Outcome>, StoreError> {
    let (turns, others): (Vec<usize>, Vec<usize>) = indices
        .iter()
        .filter(|&&index| !matches!(writes[index], Write::Finish { .. }))
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
            Write::Turn { .. } | Write::Finish { .. } => Outcome::Rejected,
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
    let mut turn_times = Vec::with_capacity(turns.len());
    let mut all_clocks = Vec::with_capacity(turns.len());
    for &index in turns {
        if let Write::Turn {
            game,
            ply,
            point,
            clocks,
            turn_ms,
        } = &writes[index]
        {
            games.push(game.as_str());
            plies.push(i32::try_from(*ply).unwrap_or(i32::MAX));
            points.push(point.as_deref());
            turn_times.push(i64::try_from(*turn_ms).unwrap_or(i64::MAX));
            all_clocks.push(Clock::pair_to_text(clocks));
        }
    }
    let rows = client
        .query(
            statement,
            &[&games, &plies, &points, &chained, &turn_times, &all_clocks],
        )
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// What the applied writes changed, in their order, for the other processes.
pub(super) fn changes(writes: &[Write], outcomes: &[Outcome]) -> Vec<Change> {
    writes
        .iter()
        .zip(outcomes)
        .filter(|(_, outcome)| **outcome != Outcome::Rejected)
        .map(|(write, outcome)| match (write, outcome) {
            (Write::Chat { game, .. }, Outcome::Chatted(id)) => Change::Chat {
                game: game.clone(),
                id: *id,
            },
            (write, _) => match write {
                Write::Turn {
                    game,
                    ply,
                    point,
                    clocks,
                    ..
                } => Change::Turn {
                    game: game.clone(),
                    ply: *ply,
                    point: point.clone(),
                    clocks: Some(*clocks),
                },
                write => Change::Game(write.game().to_string()),
            },
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
            let turn_time = i64::try_from(turn_time_ms(game)).unwrap_or(i64::MAX);
            client
                .execute(
                    &statements.new_game,
                    &[
                        &game.id,
                        &size,
                        &game.black,
                        &game.white,
                        &game.terms.komi,
                        &turn_time,
                        &game.terms.to_json(),
                        &Clock::pair_to_text(&game.clocks),
                    ],
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
        Write::Scoring {
            game,
            plies,
            scoring,
            turn_ms,
            seen,
        } => {
            let plies = i32::try_from(*plies).unwrap_or(i32::MAX);
            let turn_ms = i64::try_from(*turn_ms).unwrap_or(i64::MAX);
            let changed = client
                .execute(
                    "UPDATE games SET scoring = $3, written_by = pg_current_xact_id(),
                         move_time_ms = $4::int8,
                         deadline = clock_timestamp() + $4::int8::float8 * interval '1 millisecond'
                     WHERE id = $1 AND plies = $2 AND status <> 'over'
                       AND (NOT $5::bool OR written_by = pg_current_xact_id())
                       AND scoring IS NOT DISTINCT FROM $6",
                    &[
                        game,
                        &plies,
                        &scoring.as_ref().map(scoring_to_text),
                        &turn_ms,
                        &chained,
                        &seen.as_ref().map(scoring_to_text),
                    ],
                )
                .await?;
            Ok(if changed > 0 {
                Outcome::Done
            } else {
                Outcome::Rejected
            })
        }
        Write::Chat { game, message } => {
            let row = client
                .query_one(
                    "INSERT INTO chat (game, ply, sender, text, at_ms, watchers)
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                    &[
                        game,
                        &i32::try_from(message.ply).unwrap_or(i32::MAX),
                        &message.from,
                        &message.text,
                        &i64::try_from(message.at_ms).unwrap_or(i64::MAX),
                        &message.watchers,
                    ],
                )
                .await?;
            Ok(Outcome::Chatted(row.try_get(0)?))
        }
        Write::Undo { game, plies, step } => {
            let plies = i32::try_from(*plies).unwrap_or(i32::MAX);
            let changed = match step {
                UndoStep::Ask(by) => {
                    client
                        .execute(&statements.ask_undo, &[game, &plies, &by.name(), &chained])
                        .await?
                }
                UndoStep::Decline => {
                    client
                        .execute(&statements.decline_undo, &[game, &plies, &chained])
                        .await?
                }
                UndoStep::Accept { clocks, turn_ms } => {
                    let turn_ms = i64::try_from(*turn_ms).unwrap_or(i64::MAX);
                    client
                        .execute(
                            &statements.accept_undo,
                            &[game, &plies, &Clock::pair_to_text(clocks), &turn_ms, &chained],
                        )
                        .await?
                }
            };
            Ok(if changed > 0 {
                Outcome::Done
            } else {
                Outcome::Rejected
            })
        }
        Write::Finish { .. } => Ok(Outcome::Rejected),
    }
}

/// The batch's results, one at a time once every round is in, in the order of the games (so
/// that processes lock players in one order): each applies if the game is as its writer saw it,
/// then its players are locked, settled and written back. One at a time, since two results of
/// one batch may share a player.
pub(super) async fn settle_results(
    client: &Client,
    statements: &Statements,
    writes: &[Write],
    chained: &[bool],
    outcomes: &mut [Outcome],
) -> Result<(), StoreError> {
    let mut finishes: Vec<usize> = (0..writes.len())
        .filter(|&index| matches!(writes[index], Write::Finish { .. }))
        .collect();
    finishes.sort_by(|&a, &b| writes[a].game().cmp(writes[b].game()));
    for index in finishes {
        outcomes[index] = settle_result(client, statements, &writes[index], chained[index]).await?;
    }
    Ok(())
}

async fn settle_result(
    client: &Client,
    statements: &Statements,
    write: &Write,
    chained: bool,
) -> Result<Outcome, StoreError> {
    let Write::Finish {
        game,
        result,
        plies,
        marks,
    } = write
    else {
        return Ok(Outcome::Rejected);
    };
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
                &result.winner.map(Color::name),
                &result.reason.name(),
                &score_black,
                &score_white,
                &chained,
                &plies,
                &marks.as_ref().map(scoring_to_text),
            ],
        )
        .await?;
    let Some(row) = rows.first() else {
        return Ok(Outcome::Rejected);
    };
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {game}: {what}"));
    let (black, white): (String, String) = (row.try_get("black")?, row.try_get("white")?);
    let komi: f64 = row.try_get("komi")?;
    let move_time_ms =
        u64::try_from(row.try_get::<_, i64>("move_time_ms")?).map_err(|_| corrupt("move time"))?;
    let terms: Option<String> = row.try_get("terms")?;
    let (terms, _) = stored_terms(game, terms.as_deref(), None, komi, move_time_ms)?;
    let size = usize::try_from(row.try_get::<_, i32>("size")?).map_err(|_| corrupt("size"))?;
    let plies =
        usize::try_from(row.try_get::<_, i32>("plies")?).map_err(|_| corrupt("a negative turn count"))?;
    let names = [black.as_str(), white.as_str()];
    let players = client.query(&statements.lock_players, &[&&names[..]]).await?;
    let standing = |name: &str| -> Result<Standing, StoreError> {
        let row = players
            .iter()
            .find(|row| row.try_get::<_, &str>("name").ok() == Some(name))
            .ok_or_else(|| corrupt(&format!("no player {name}")))?;
        standing_of(row, "")
    };
    let (records, ratings) = settle(result, &terms, size, standing(&black)?, standing(&white)?);
    let both = [&records.black, &records.white];
    let count = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    let names: Vec<&str> = both.iter().map(|s| s.name.as_str()).collect();
    let wins: Vec<i32> = both.iter().map(|s| count(s.wins)).collect();
    let losses: Vec<i32> = both.iter().map(|s| count(s.losses)).collect();
    let rated_games: Vec<i32> = both.iter().map(|s| count(s.rated_games)).collect();
    let values: Vec<f64> = both.iter().map(|s| s.rating.rating).collect();
    let deviations: Vec<f64> = both.iter().map(|s| s.rating.deviation).collect();
    let volatilities: Vec<f64> = both.iter().map(|s| s.rating.volatility).collect();
    let parameters: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
        &names,
        &wins,
        &losses,
        &values,
        &deviations,
        &volatilities,
        &rated_games,
    ];
    let written = client.execute(&statements.write_players, &parameters);
    match &ratings {
        Some(ratings) => {
            let (written, rated) = join(
                written,
                client.execute(&statements.write_ratings, &[game, &ratings.to_string()]),
            )
            .await;
            written?;
            rated?;
        }
        None => {
            written.await?;
        }
    }
    Ok(Outcome::Finished {
        records,
        plies,
        ratings,
    })
}
