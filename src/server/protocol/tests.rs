use super::*;

fn refused(text: &str) -> String {
    match ClientFrame::parse(text) {
        Err(refused) => {
            assert_eq!(refused.code, ErrorCode::BadRequest);
            refused.message
        }
        Ok(frame) => panic!("{text} parsed as {frame:?}"),
    }
}

#[test]
fn frames_parse() {
    assert_eq!(
        ClientFrame::parse(r#"{"type":"hello","name":"alice","extra":1}"#),
        Ok(ClientFrame::Hello {
            name: "alice".into(),
            token: None,
            bot: false
        })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"seek","size":13}"#),
        Ok(ClientFrame::Seek {
            sizes: vec![13],
            color: SeekColor::Any,
            opponent: Opponent::Human,
            terms: AskedTerms::default(),
        })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"hello","name":"robot","bot":true}"#),
        Ok(ClientFrame::Hello {
            name: "robot".into(),
            token: None,
            bot: true
        })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"seek","size":[19,9],"opponent":"computer","color":"white"}"#),
        Ok(ClientFrame::Seek {
            sizes: vec![19, 9],
            color: SeekColor::White,
            opponent: Opponent::Computer,
            terms: AskedTerms::default(),
        })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"move","game":"g","ply":3,"point":"5E"}"#),
        Ok(ClientFrame::Move {
            game: "g".into(),
            ply: 3,
            point: "5E".into()
        })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"ping"}"#),
        Ok(ClientFrame::Ping { t: Value::Null })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"watch","game":"g"}"#),
        Ok(ClientFrame::Watch { game: "g".into() })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"unwatch","game":"g"}"#),
        Ok(ClientFrame::Unwatch { game: "g".into() })
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"watch_lobby"}"#),
        Ok(ClientFrame::WatchLobby)
    );
    assert_eq!(
        ClientFrame::parse(r#"{"type":"unwatch_lobby"}"#),
        Ok(ClientFrame::UnwatchLobby)
    );
}

#[test]
fn bad_frames_name_the_problem() {
    assert!(refused("{").contains("not JSON"));
    assert!(refused("[1]").contains("not an array"));
    assert!(refused(r#"{"type":"dance"}"#).contains("\"dance\""));
    assert!(refused(r#"{"name":"x"}"#).contains("'type'"));
    assert!(refused(r#"{"type":"seek","size":10}"#).contains("not 10"));
    assert!(refused(r#"{"type":"seek","size":"9"}"#).contains("'size'"));
    assert!(refused(r#"{"type":"seek","size":9,"color":"red"}"#).contains("\"red\""));
    assert!(refused(r#"{"type":"seek","size":9,"opponent":"robot"}"#).contains("\"robot\""));
    assert!(refused(r#"{"type":"seek","size":[]}"#).contains("empty"));
    assert!(refused(r#"{"type":"seek","size":[9,9]}"#).contains("9 twice"));
    assert!(refused(r#"{"type":"seek","size":[9,10]}"#).contains("not 10"));
    assert!(refused(r#"{"type":"seek","size":[9,"13"]}"#).contains("\"13\""));
    assert!(refused(r#"{"type":"hello","name":"a","bot":"yes"}"#).contains("'bot'"));
    assert!(refused(r#"{"type":"move","game":"g","ply":-1,"point":"5E"}"#).contains("-1"));
    assert!(refused(r#"{"type":"move","game":"g","ply":1.5,"point":"5E"}"#).contains("1.5"));
    assert!(refused(r#"{"type":"move","game":7,"ply":1,"point":"5E"}"#).contains("'game'"));
    assert!(refused(r#"{"type":"pass","game":"g"}"#).contains("'ply'"));
    assert!(refused(r#"{"type":"watch"}"#).contains("'game'"));
    assert!(refused(r#"{"type":"unwatch","game":1}"#).contains("'game'"));
    assert!(refused(r#"{"type":"pass","game":"g","ply":1e400}"#).contains("not JSON"));
    assert_eq!(
        ClientFrame::parse(r#"{"type":"pass","game":"g","ply":99999999999999999999}"#),
        Ok(ClientFrame::Pass {
            game: "g".into(),
            ply: usize::MAX
        }),
        "a ply too large for any game is stale, not malformed"
    );
    assert!(refused(&format!(
        r#"{{"type":"ping","t":"{}"}}"#,
        "x".repeat(MAX_FRAME_BYTES)
    ))
    .contains("bytes"));
}
