//! The address parser, the rounds of a batch and the listener, without a database (and one
//! refused connection).

use super::connection::targets;
use super::*;
use crate::store::Remote;

#[test]
fn addresses_are_told_from_file_names() {
    for address in [
        "postgresql://gokata@127.0.0.1:5432/gokata",
        "postgres://localhost/db",
        "host=/tmp/sockets port=5433 dbname=gokata user=postgres",
        "  dbname=gokata",
    ] {
        assert!(is_postgres_address(address), "{address}");
    }
    for path in [
        "gokata.sqlite3",
        "/var/lib/gokata/games.db",
        "./postgres",
        "a b=c",
        "=x",
    ] {
        assert!(!is_postgres_address(path), "{path}");
    }
}

#[test]
fn a_connection_refused_says_so_and_names_the_address_tried() {
    // Nothing listens on port 1 of the loopback: the connection is refused at once.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let error = match runtime.block_on(PostgresStore::open("postgresql://nobody@127.0.0.1:1/nodb")) {
        Err(error) => error,
        Ok(_) => panic!("something answered on 127.0.0.1:1"),
    };
    assert!(error.is_connection_lost());
    let message = error.to_string();
    assert!(
        message.starts_with(
            "PostgreSQL: cannot connect to 127.0.0.1:1: error connecting to server: Connection refused"
        ),
        "{message}"
    );
}

#[test]
fn the_addresses_tried_pair_hosts_and_ports_as_tokio_postgres_does() {
    let targets = |address: &str| targets(&parse_address(address).unwrap());
    assert_eq!(targets("postgresql://u@db.example:5433/x"), "db.example:5433");
    assert_eq!(targets("postgresql://u@db.example/x"), "db.example:5432");
    assert_eq!(targets("host=a,b port=1 dbname=x"), "a:1, b:1");
    assert_eq!(targets("host=a,b port=1,2 dbname=x"), "a:1, b:2");
    assert_eq!(targets("host=/run/postgresql dbname=x"), "/run/postgresql:5432");
    assert_eq!(targets("hostaddr=::1 port=7 dbname=x"), "[::1]:7");
    assert_eq!(targets("dbname=x"), "no host (give a host or hostaddr)");
}

#[test]
fn a_batch_goes_in_rounds_of_distinct_games_in_order() {
    let clock = crate::time_control::TimeControl::PerMove { move_ms: 1000 }.new_clock();
    let turn = |game: &str, ply| Write::Turn {
        game: game.into(),
        ply,
        point: None,
        clocks: [clock; 2],
        turn_ms: 1000,
    };
    let writes = [
        turn("b", 4),
        turn("a", 0),
        turn("b", 5),
        turn("c", 9),
        turn("b", 6),
        turn("a", 1),
    ];
    assert_eq!(rounds(&writes), vec![vec![1, 0, 3], vec![5, 2], vec![4]]);
    assert!(rounds(&[]).is_empty());
}

#[test]
fn a_batch_s_chats_go_in_the_first_round_and_move_no_other_write_to_a_later_one() {
    let clock = crate::time_control::TimeControl::PerMove { move_ms: 1000 }.new_clock();
    let turn = |ply| Write::Turn {
        game: "a".into(),
        ply,
        point: None,
        clocks: [clock; 2],
        turn_ms: 1000,
    };
    let chat = |game: &str| Write::Chat {
        game: game.into(),
        message: crate::game::ChatMessage {
            from: "ann".into(),
            text: "hi".into(),
            ply: 0,
            at_ms: 0,
            watchers: false,
        },
    };
    let writes = [chat("a"), turn(0), chat("a"), turn(1), chat("b")];
    assert_eq!(rounds(&writes), vec![vec![0, 1, 2, 4], vec![3]]);
}

#[test]
fn the_listener_skips_its_own_notifications() {
    let listener = Listener {
        config: Config::new(),
        instance: "me".into(),
    };
    assert_eq!(listener.parse("me g:a t:b:0:5E"), None);
    assert_eq!(
        listener.parse("other g:a"),
        Some(Remote::Changes {
            from: "other".into(),
            changes: vec![Change::Game("a".into())]
        })
    );
}
