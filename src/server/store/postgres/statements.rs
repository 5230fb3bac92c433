//! The statements the store prepares on its writing connection, once per connection.

use tokio_postgres::{Client, Statement};

use crate::store::StoreError;

use super::rows::STANDING;
use super::{ALIVE_WITHIN, CHANNEL};
use crate::game::MAX_UNDO_REQUESTS;

pub(super) struct Statements {
    pub(super) lock_sizes: Statement,
    pub(super) withdraw_seek: Statement,
    pub(super) withdraw_dead_seeks: Statement,
    pub(super) seeks_of_sizes: Statement,
    pub(super) add_seek: Statement,
    pub(super) take_seek: Statement,
    pub(super) turns: Statement,
    pub(super) finish: Statement,
    pub(super) lock_players: Statement,
    pub(super) write_players: Statement,
    pub(super) write_ratings: Statement,
    pub(super) ask_undo: Statement,
    pub(super) decline_undo: Statement,
    pub(super) accept_undo: Statement,
    pub(super) new_game: Statement,
    pub(super) notify: Statement,
}

/// The writes test a game's status with `<> 'over'` (the only other value), not `= 'playing'`:
/// that would let the planner scan the partial index of live games, whose size it guesses at
/// 0.5% of the table until the table is analyzed, and a plan cached on that guess would walk
/// every live game for each turn of a batch.
pub(super) async fn prepare(client: &Client) -> Result<Statements, StoreError> {
    Ok(Statements {
        lock_sizes: client
            .prepare("SELECT size FROM seek_sizes WHERE size = ANY($1::int4[]) ORDER BY size FOR UPDATE")
            .await?,
        withdraw_seek: client.prepare("DELETE FROM seeks WHERE player = $1").await?,
        withdraw_dead_seeks: client
            .prepare(&format!(
                "DELETE FROM seeks WHERE coalesce(sizes, ARRAY[size]) && $1::int4[] AND instance NOT IN (
                     SELECT id FROM instances WHERE seen >= clock_timestamp() - interval '{ALIVE_WITHIN}')"
            ))
            .await?,
        seeks_of_sizes: client
            .prepare(
                "SELECT id, player, color, coalesce(sizes, ARRAY[size]) AS sizes, opponent, bot, terms
                 FROM seeks WHERE coalesce(sizes, ARRAY[size]) && $1::int4[] AND terms IS NOT NULL
                 ORDER BY id FOR UPDATE",
            )
            .await?,
        add_seek: client
            .prepare(
                "INSERT INTO seeks (player, size, sizes, color, opponent, bot, instance, terms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .await?,
        take_seek: client.prepare("DELETE FROM seeks WHERE id = $1").await?,
        turns: client
            .prepare(
                "WITH claimed AS (
                     UPDATE games g SET plies = g.plies + 1, written_by = pg_current_xact_id(),
                         move_time_ms = k.turn_ms, clocks = k.clocks, undo_by = NULL, undo_ply = NULL,
                         deadline = clock_timestamp() + k.turn_ms::float8 * interval '1 millisecond'
                     FROM unnest($1::text[], $2::int4[], $3::text[], $5::int8[], $6::text[])
                         AS k(id, ply, point, turn_ms, clocks)
                     WHERE g.id = k.id AND g.plies = k.ply AND g.status <> 'over'
                       AND g.deadline > clock_timestamp()
                       AND (NOT $4::bool OR g.written_by = pg_current_xact_id())
                     RETURNING g.id, k.ply, k.point, k.clocks)
                 INSERT INTO turns (game, ply, point, clocks) SELECT id, ply, point, clocks FROM claimed
                 RETURNING game",
            )
            .await?,
        finish: client
            .prepare(
                "UPDATE games SET status = 'over', winner = $2, reason = $3, score_black = $4,
                     score_white = $5, written_by = pg_current_xact_id(), scoring = NULL
                 WHERE id = $1 AND status <> 'over'
                   AND (NOT $6::bool OR written_by = pg_current_xact_id())
                   AND ($3 <> 'timeout' OR (plies = $7 AND deadline <= clock_timestamp()))
                   AND ($3 <> 'score' OR (plies = $7 AND scoring IS NOT NULL
                       AND ($6::bool OR (deadline <= clock_timestamp() AND scoring = $8::text))))
                 RETURNING black, white, plies, size, komi, move_time_ms, terms",
            )
            .await?,
        // In the order of names, so that two processes settling games of the same players
        // lock them in one order.
        lock_players: client
            .prepare(&format!(
                "SELECT {STANDING} FROM players WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE"
            ))
            .await?,
        write_players: client
            .prepare(
                "UPDATE players p SET wins = k.wins, losses = k.losses, rating = k.rating,
                     deviation = k.deviation, volatility = k.volatility, rated_games = k.rated_games
                 FROM unnest($1::text[], $2::int4[], $3::int4[], $4::float8[], $5::float8[],
                             $6::float8[], $7::int4[])
                     AS k(name, wins, losses, rating, deviation, volatility, rated_games)
                 WHERE p.name = k.name",
            )
            .await?,
        ask_undo: client
            .prepare(&format!(
                "UPDATE games SET undo_by = $3, undo_ply = $2, written_by = pg_current_xact_id(),
                     undo_asked_black = undo_asked_black + (CASE WHEN $3 = 'black' THEN 1 ELSE 0 END),
                     undo_asked_white = undo_asked_white + (CASE WHEN $3 = 'white' THEN 1 ELSE 0 END)
                 WHERE id = $1 AND plies = $2 AND status <> 'over' AND undo_by IS NULL
                   AND (CASE WHEN $3 = 'black' THEN undo_asked_black ELSE undo_asked_white END)
                       < {MAX_UNDO_REQUESTS}
                   AND (NOT $4::bool OR written_by = pg_current_xact_id())"
            ))
            .await?,
        decline_undo: client
            .prepare(
                "UPDATE games SET undo_by = NULL, undo_ply = NULL, written_by = pg_current_xact_id()
                 WHERE id = $1 AND undo_ply = $2 AND status <> 'over'
                   AND (NOT $3::bool OR written_by = pg_current_xact_id())",
            )
            .await?,
        accept_undo: client
            .prepare(
                "WITH taken AS (
                     UPDATE games SET undo_by = NULL, undo_ply = NULL, plies = plies - 1,
                         written_by = pg_current_xact_id(), clocks = $3, move_time_ms = $4::int8,
                         deadline = clock_timestamp() + $4::int8::float8 * interval '1 millisecond'
                     WHERE id = $1 AND plies = $2 AND undo_ply = $2 AND status <> 'over'
                       AND (NOT $5::bool OR written_by = pg_current_xact_id())
                     RETURNING id, plies)
                 DELETE FROM turns t USING taken WHERE t.game = taken.id AND t.ply = taken.plies
                 RETURNING t.game",
            )
            .await?,
        write_ratings: client
            .prepare("UPDATE games SET ratings = $2 WHERE id = $1")
            .await?,
        new_game: client
            .prepare(
                "INSERT INTO games (id, size, black, white, komi, move_time_ms, status, deadline, terms, clocks,
                                    written_by)
                 VALUES ($1, $2, $3, $4, $5, $6, 'playing',
                         clock_timestamp() + $6::int8::float8 * interval '1 millisecond', $7, $8,
                         pg_current_xact_id())",
            )
            .await?,
        notify: client
            .prepare(&format!(
                "SELECT pg_notify('{CHANNEL}', payload) FROM unnest($1::text[]) AS payload"
            ))
            .await?,
    })
}
