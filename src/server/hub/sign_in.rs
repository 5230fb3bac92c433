//! Signing in: names, tokens and new accounts, and the server's own bot.

use crate::auth;
use crate::protocol::{ErrorCode, Refused};
use crate::rating::Rating;
use crate::store::{PlayerRecord, StoreError};

use super::{ConnId, Delivery, Hub, Player};

impl Hub {
    pub(super) async fn hello(
        &mut self,
        conn: ConnId,
        name: &str,
        token: Option<String>,
        bot: bool,
    ) -> Result<(), Refused> {
        auth::check_name(name).map_err(Refused::bad_request)?;
        let key = auth::name_key(name);
        let known = match self.players.get(&key) {
            Some(player) => Some(player.record.clone()),
            None => self.store.player(name).await.map_err(|error| self.lost(error))?,
        };
        // A new account has no games to read, and its token goes out only in its welcome.
        let registering = known.is_none();
        let token = match (known, token) {
            (None, None) => {
                self.may_register(conn)?;
                let token = auth::new_token();
                let hash = auth::token_hash(&token);
                let added = self
                    .store
                    .add_player(name, &hash, bot)
                    .await
                    .map_err(|error| self.lost(error))?;
                if !added {
                    return Err(name_taken(name));
                }
                let record = PlayerRecord {
                    name: name.to_string(),
                    token_hash: hash,
                    wins: 0,
                    losses: 0,
                    bot,
                    rating: Rating::NEW,
                    rated_games: 0,
                };
                self.players.insert(
                    key.clone(),
                    Player {
                        record,
                        connections: Vec::new(),
                    },
                );
                token
            }
            (None, Some(_)) => {
                return Err(Refused::new(
                    ErrorCode::BadToken,
                    format!("no player is named {name:?}: say hello without a token to register the name"),
                ))
            }
            (Some(_), None) => return Err(name_taken(name)),
            (Some(mut record), Some(token)) => {
                if !auth::token_matches(&token, &record.token_hash) {
                    return Err(Refused::new(
                        ErrorCode::BadToken,
                        format!("wrong token for {:?}", record.name),
                    ));
                }
                if bot && !record.bot {
                    self.store
                        .mark_bot(&record.name)
                        .await
                        .map_err(|error| self.lost(error))?;
                    record.bot = true;
                }
                let player = self.players.entry(key.clone()).or_insert(Player {
                    record: record.clone(),
                    connections: Vec::new(),
                });
                player.record.bot = record.bot;
                token
            }
        };
        if !registering {
            self.hold_games_of_player(&key).await?;
        }
        self.signed_in(conn, key, name, token);
        Ok(())
    }

    /// The connection `conn` is the player `key`'s (held in `players`): welcomed after the batch.
    pub(super) fn signed_in(&mut self, conn: ConnId, key: String, name: &str, token: String) {
        let connections = &mut self.players.get_mut(&key).expect("a player held").connections;
        connections.push(conn);
        if connections.len() == 1 {
            self.arrived_here(&key, name);
        }
        if let Some(connection) = self.connections.get_mut(&conn) {
            connection.player = Some(key);
        }
        self.deliver_later(None, Delivery::Welcome { conn, token });
    }

    /// Registers the server's own computer player as a bot, or checks that the name is a
    /// bot's already: a person's account is never taken over. Called once, at start.
    pub async fn claim_resident(&mut self, name: &str) -> Result<Result<(), String>, StoreError> {
        if let Err(message) = auth::check_name(name) {
            return Ok(Err(format!("the bot's name: {message}")));
        }
        match self.store.player(name).await? {
            Some(record) if !record.bot => Ok(Err(format!(
                "{:?} is the name of a person's account: give the bot another name",
                record.name
            ))),
            Some(_) => Ok(Ok(())),
            None => {
                // Nobody needs its token: it signs in from inside the server.
                let hash = auth::token_hash(&auth::new_token());
                self.store.add_player(name, &hash, true).await?;
                Ok(Ok(()))
            }
        }
    }

    pub(super) async fn sign_in_resident(&mut self, conn: ConnId, name: &str) -> Result<(), Refused> {
        let key = auth::name_key(name);
        if !self.players.contains_key(&key) {
            let record = self.store.player(name).await.map_err(|error| self.lost(error))?;
            let Some(record) = record.filter(|record| record.bot) else {
                return Err(Refused::bad_request(format!("{name:?} is not the server's bot")));
            };
            self.players.insert(
                key.clone(),
                Player {
                    record,
                    connections: Vec::new(),
                },
            );
        }
        self.hold_games_of_player(&key).await?;
        self.signed_in(conn, key, name, String::new());
        Ok(())
    }

    /// Reads the games of the player `key` (held in `players`, its name as registered) before
    /// it is signed in here; if the store fails, the player is not left held without a
    /// connection.
    async fn hold_games_of_player(&mut self, key: &str) -> Result<(), Refused> {
        let registered = self.players[key].record.name.clone();
        if let Err(error) = self.hold_games_of(&registered).await {
            if self
                .players
                .get(key)
                .is_some_and(|player| player.connections.is_empty())
            {
                self.players.remove(key);
                self.may_release();
            }
            return Err(self.lost(error));
        }
        Ok(())
    }

    /// Spends one of the connection's address's new names, or refuses.
    pub(super) fn may_register(&mut self, conn: ConnId) -> Result<(), Refused> {
        let Some(address) = self.connections.get(&conn).map(|c| c.address) else {
            return Ok(());
        };
        self.registrations.spend(address).map_err(|wait| {
            Refused::new(
                ErrorCode::RateLimited,
                format!(
                    "too many new names from {address}: try again in {} s, or sign in with a token",
                    wait.as_secs() + 1
                ),
            )
        })
    }
}

pub(super) fn name_taken(name: &str) -> Refused {
    Refused::new(
        ErrorCode::NameTaken,
        format!("the name {name:?} is taken: sign in with its token, or choose another name"),
    )
}
