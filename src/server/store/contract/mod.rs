//! The store's contract, as the hub relies on it: one suite, written once and run on both
//! backends, SQLite in a temporary file and PostgreSQL on a throwaway cluster ([`cluster`]),
//! a fresh database for each test.
//!
//! Each test is an async function taking a [`TestDb`]; [`contract_tests!`] makes a
//! `#[tokio::test]` of it for `sqlite` and for `postgres`, and one for `postgres` alone where a
//! promise is a shared database's only (several processes writing, which SQLite never has).

mod batches;
pub(crate) mod cluster;
mod fixtures;
mod games;
mod play;
mod players;
mod seeks;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{PostgresStore, SqliteStore, Store};

/// Makes the tests: `both: [...]` on each backend, `postgres_only: [...]` on PostgreSQL alone.
macro_rules! contract_tests {
    (both: [$($both:ident),* $(,)?], postgres_only: [$($shared:ident),* $(,)?] $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $both() {
                    super::$both(crate::store::contract::TestDb::sqlite()).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $both() {
                    super::$both(crate::store::contract::TestDb::postgres().await).await
                }
            )*
            $(
                #[tokio::test]
                async fn $shared() {
                    super::$shared(crate::store::contract::TestDb::postgres().await).await
                }
            )*
        }
    };
}
use contract_tests;

/// Where a test's database is.
enum Database {
    Sqlite(PathBuf),
    Postgres(String),
}

/// A test's fresh database and its first store handle.
pub(super) struct TestDb {
    pub store: Store,
    database: Database,
}

impl TestDb {
    fn sqlite() -> TestDb {
        static FILES: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "gokata-contract-{}-{}.sqlite3",
            std::process::id(),
            FILES.fetch_add(1, Ordering::Relaxed)
        ));
        for stale in [
            path.clone(),
            path.with_extension("sqlite3-wal"),
            path.with_extension("sqlite3-shm"),
        ] {
            let _ = std::fs::remove_file(stale);
        }
        let store = SqliteStore::open(&path).unwrap();
        TestDb {
            store: Store::Sqlite(store),
            database: Database::Sqlite(path),
        }
    }

    async fn postgres() -> TestDb {
        let address = cluster::fresh_database().await;
        let store = PostgresStore::open(&address).await.unwrap();
        TestDb {
            store: Store::Postgres(Box::new(store)),
            database: Database::Postgres(address),
        }
    }

    /// Another handle on the same database: on PostgreSQL, as another server process has.
    pub async fn another(&self) -> Store {
        match &self.database {
            Database::Sqlite(path) => Store::Sqlite(SqliteStore::open(path).unwrap()),
            Database::Postgres(address) => {
                Store::Postgres(Box::new(PostgresStore::open(address).await.unwrap()))
            }
        }
    }

    /// The store closed and opened again, as a restarted server opens it.
    pub async fn reopen(&mut self) {
        self.store = self.another().await;
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Database::Sqlite(path) = &self.database {
            for file in [
                path.clone(),
                path.with_extension("sqlite3-wal"),
                path.with_extension("sqlite3-shm"),
            ] {
                let _ = std::fs::remove_file(file);
            }
        }
    }
}
