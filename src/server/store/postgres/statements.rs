//! The statements the store prepares on its writing connection, once per connection.

use tokio_postgres::{Client, Statement};

use crate::store::StoreError;

use super::{ALIVE_WITHIN, CHANNEL};

pub(super) struct Statements {
    pub(super) lock_sizes: Statement,
    pub(super) withdraw_seek: Statement,
    pub(super) withdraw_dead_seeks: Statement,
    pub(super) oldest_fitting_seek: Statement,
    pub(super) add_seek: Statement,
    pub(super) take_seek: Statement,
    pub(super) turns: Statement,
    pub(super) finish: Statement,
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
        oldest_fitting_seek: client
            .prepare(
                "SELECT id, player, color, coalesce(sizes, ARRAY[size]), opponent, bot FROM seeks
                 WHERE coalesce(sizes, ARRAY[size]) && $1::int4[]
                   AND ($2 = 'any' OR color = 'any' OR color <> $2)
                   AND CASE $3 WHEN 'human' THEN NOT bot WHEN 'computer' THEN bot ELSE true END
                   AND CASE opponent WHEN 'human' THEN NOT $4 WHEN 'computer' THEN $4 ELSE true END
                 ORDER BY id LIMIT 1 FOR UPDATE",
            )
            .await?,
        add_seek: client
            .prepare(
                "INSERT INTO seeks (player, size, sizes, color, opponent, bot, instance)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .await?,
        take_seek: client.prepare("DELETE FROM seeks WHERE id = $1").await?,
        turns: client
            .prepare(
                "WITH claimed AS (
                     UPDATE games g SET plies = g.plies + 1, written_by = pg_current_xact_id(),
                         deadline = clock_timestamp() + g.move_time_ms::float8 * interval '1 millisecond'
                     FROM unnest($1::text[], $2::int4[], $3::text[]) AS k(id, ply, point)
                     WHERE g.id = k.id AND g.plies = k.ply AND g.status <> 'over'
                       AND g.deadline > clock_timestamp()
                       AND (NOT $4::bool OR g.written_by = pg_current_xact_id())
                     RETURNING g.id, k.ply, k.point)
                 INSERT INTO turns (game, ply, point) SELECT id, ply, point FROM claimed
                 RETURNING game",
            )
            .await?,
        finish: client
            .prepare(
                "WITH ended AS (
                     UPDATE games SET status = 'over', winner = $2, reason = $3, score_black = $4,
                         score_white = $5, written_by = pg_current_xact_id()
                     WHERE id = $1 AND status <> 'over'
                       AND (NOT $6::bool OR written_by = pg_current_xact_id())
                       AND ($3 <> 'timeout' OR (plies = $7 AND deadline <= clock_timestamp()))
                     RETURNING black, white, plies),
                 won AS (
                     UPDATE players SET wins = wins + 1 FROM ended
                     WHERE players.name = CASE WHEN $2 = 'black' THEN ended.black ELSE ended.white END
                     RETURNING players.name, players.wins, players.losses, players.bot),
                 lost AS (
                     UPDATE players SET losses = losses + 1 FROM ended
                     WHERE players.name = CASE WHEN $2 = 'black' THEN ended.white ELSE ended.black END
                     RETURNING players.name, players.wins, players.losses, players.bot)
                 SELECT won.name, won.wins, won.losses, won.bot, lost.name, lost.wins, lost.losses, lost.bot,
                        ended.plies
                 FROM won, lost, ended",
            )
            .await?,
        new_game: client
            .prepare(
                "INSERT INTO games (id, size, black, white, komi, move_time_ms, status, deadline)
                 VALUES ($1, $2, $3, $4, $5, $6, 'playing',
                         clock_timestamp() + $6::int8::float8 * interval '1 millisecond')",
            )
            .await?,
        notify: client
            .prepare(&format!(
                "SELECT pg_notify('{CHANNEL}', payload) FROM unnest($1::text[]) AS payload"
            ))
            .await?,
    })
}
