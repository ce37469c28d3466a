//! The driver against real tmux servers (one private server per test).

mod support;

use std::time::Duration;

use support::{TmuxServer, next_matching, type_line};
use tmux_control::{Command, ConnectionEvent, ConnectionOptions, Error, OutputSubscription, PaneEvent};

const DEADLINE: Duration = Duration::from_secs(10);

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

/// Collects a pane's output until `needle` appears (failing after [`DEADLINE`]).
async fn output_until(subscription: &mut OutputSubscription, needle: &[u8]) -> Vec<u8> {
    let mut seen = Vec::new();
    let collect = async {
        loop {
            match subscription.recv().await {
                Some(PaneEvent::Output(bytes)) => {
                    // Search only where the needle can newly appear: the flood tests
                    // collect megabytes.
                    let from = seen.len().saturating_sub(needle.len());
                    seen.extend_from_slice(&bytes);
                    if contains(&seen[from..], needle) {
                        break;
                    }
                }
                Some(other) => panic!("unexpected {other:?}"),
                None => panic!("connection closed before {needle:?}"),
            }
        }
    };
    if tokio::time::timeout(DEADLINE, collect).await.is_err() {
        let tail = &seen[seen.len().saturating_sub(300)..];
        panic!(
            "no {:?} within {DEADLINE:?}; saw {} bytes ending {:?}",
            String::from_utf8_lossy(needle),
            seen.len(),
            String::from_utf8_lossy(tail)
        );
    }
    seen
}

#[tokio::test]
async fn commands_round_trip_and_pipeline() {
    let server = TmuxServer::start().await;
    let (connection, _events) = server.connect();

    let reply = connection.command("display-message -p '#{session_name}'").await.unwrap();
    assert!(reply.ok);
    assert_eq!(reply.text(), support::SESSION);

    // Many commands in flight at once each get their own reply.
    let replies = (0..200).map(|i| {
        let connection = connection.clone();
        async move { (i, connection.command(format!("display-message -p {i}")).await) }
    });
    let handles: Vec<_> = replies.map(tokio::spawn).collect();
    for handle in handles {
        let (i, reply) = handle.await.unwrap();
        assert_eq!(reply.unwrap().text(), i.to_string());
    }

    let failed = connection.command("no-such-command").await.unwrap();
    assert!(!failed.ok);
    let error = failed.into_result().unwrap_err();
    assert!(error.to_string().contains("unknown command"), "{error}");

    for refused in ["", "wait-for channel", "display a ; display b", "display 'a\nb'"] {
        let error = connection.command(refused).await.unwrap_err();
        assert!(matches!(error, Error::BadCommand { .. }), "{refused:?}: {error}");
    }
    // Still in step after the refusals and the %error reply.
    assert_eq!(connection.command("display-message -p after").await.unwrap().text(), "after");
}

#[tokio::test]
async fn awkward_arguments_reach_tmux_literally() {
    let server = TmuxServer::start().await;
    let (connection, _events) = server.connect();
    let awkward = [
        "plain",
        "",
        " leading and trailing ",
        "it's",
        "''",
        "\"double\"",
        "$HOME $(echo x) `echo y`",
        "~ ~/x",
        "a;b ; c \\;",
        "#{pane_id} # not a comment ##",
        "{ braces } {",
        "back\\slash \\\\ \\' \\n",
        "%1 %if %endif",
        "%if",
        "%0:continue",
        "%",
        "unicode ✓ héllo",
        "tab\tinside",
    ];
    for text in awkward {
        let set = Command::new("set-option").args(["-g", "@quoted", text]);
        connection.command(set).await.unwrap().into_result().unwrap();
        let shown = connection.command("show-options -gv @quoted").await.unwrap().into_result().unwrap();
        assert_eq!(shown.text(), text, "round trip of {text:?}");
    }
    let error = connection.command(Command::new("set-buffer").arg("two\nlines")).await.unwrap_err();
    assert!(matches!(error, Error::UnquotableArgument { .. }), "{error}");
}

#[tokio::test]
async fn pane_output_arrives_as_decoded_bytes() {
    let server = TmuxServer::start().await;
    let (connection, _events) = server.connect();
    let pane = server.first_pane(&connection).await;
    let mut output = connection.subscribe_output(pane);
    type_line(&connection, pane, r"printf 'h\303\251llo \\ tab\t bell\a \342\234\223 %s\n' $((6*7))").await;
    let seen = output_until(&mut output, b"42\r\n").await;
    assert!(contains(&seen, "héllo \\ tab\t bell\x07 ✓ 42\r\n".as_bytes()), "{:?}", String::from_utf8_lossy(&seen));
}

#[tokio::test]
async fn killing_the_server_fails_commands_fast_and_a_new_connection_works() {
    let server = TmuxServer::start().await;
    let (connection, mut events) = server.connect();
    let pane = server.first_pane(&connection).await;
    let mut output = connection.subscribe_output(pane);

    // `run-shell` without -b is answered at once but holds the client's
    // queue until the shell command ends, so the next command stays pending.
    let held = connection.command("run-shell 'sleep 30'").await.unwrap();
    assert!(held.ok);
    let pending = tokio::spawn({
        let connection = connection.clone();
        async move { connection.command("display-message -p never").await }
    });
    // The server dies without a word (SIGKILL): no %exit, no reply, only end of file.
    server.kill_abruptly().await;

    let pending = tokio::time::timeout(DEADLINE, pending).await.expect("pending command hung").unwrap();
    let Err(Error::ConnectionClosed { reason }) = pending else { panic!("{pending:?}") };
    assert!(!reason.is_empty());
    let reason = tokio::time::timeout(DEADLINE, connection.closed()).await.expect("closed() hung");
    assert!(connection.is_closed(), "{reason}");

    // Failing fast is in the variant: waiting for a reply that never comes would end in `Timeout`.
    let later = connection.command("display-message -p x").await.unwrap_err();
    assert!(matches!(later, Error::ConnectionClosed { .. }), "{later}");
    assert!(later.to_string().contains("reconnect"), "{later}");

    // The subscription hands out what was queued, then ends.
    while let Some(event) = tokio::time::timeout(DEADLINE, output.recv()).await.unwrap() {
        assert!(matches!(event, PaneEvent::Output(_)), "{event:?}");
    }
    let mut last = None;
    while let Some(event) = tokio::time::timeout(DEADLINE, events.recv()).await.unwrap() {
        last = Some(event);
    }
    assert!(matches!(last, Some(ConnectionEvent::Closed { .. })), "{last:?}");

    let mut late_events = connection.events();
    let closed_again = late_events.recv().await;
    assert!(matches!(closed_again, Some(ConnectionEvent::Closed { .. })), "{closed_again:?}");
    assert_eq!(late_events.recv().await, None);

    server.new_session().await;
    let (connection, _events) = server.connect();
    assert_eq!(connection.command("display-message -p again").await.unwrap().text(), "again");
}

#[tokio::test]
async fn dropping_the_connection_ends_the_control_client() {
    let server = TmuxServer::start().await;
    let (connection, mut events) = server.connect();
    connection.command("display-message -p ready").await.unwrap();
    let clients = |output: std::process::Output| String::from_utf8_lossy(&output.stdout).lines().count();
    assert_eq!(clients(server.tmux(&["list-clients"]).await), 1);
    let clone = connection.clone();
    drop(connection);
    assert!(!clone.is_closed(), "a clone keeps the connection open");
    drop(clone);
    // The last handle gone closes tmux's stdin; the client exits and its output ends.
    let closed =
        next_matching(&mut events, "a Closed event", |event| matches!(event, ConnectionEvent::Closed { .. })).await;
    let ConnectionEvent::Closed { reason } = closed else { unreachable!() };
    assert!(!reason.is_empty());
    assert_eq!(clients(server.try_tmux(&["list-clients"]).await), 0);
}

#[tokio::test]
async fn a_stalled_subscriber_is_bounded_and_told_it_lagged() {
    let server = TmuxServer::start().await;
    let budget = 256 * 1024;
    let (connection, _events) =
        server.connect_with(ConnectionOptions { output_budget_bytes: budget, ..ConnectionOptions::default() });
    let pane = server.first_pane(&connection).await;
    let mut stalled = connection.subscribe_output(pane);
    let mut active = connection.subscribe_output(pane);
    // About 4 MB through the pane; the marker is computed so the echoed command line does not match. The shell
    // then waits in `read`, printing nothing more, so both subscribers have had the same bytes once the active
    // one has seen the marker's line end (a prompt after it reached the stalled one first, now and then).
    type_line(
        &connection,
        pane,
        "head -c 4000000 /dev/zero | tr '\\0' a | fold -w 199; echo FLOOD-$((40+2)); read -r _",
    )
    .await;
    let seen = output_until(&mut active, b"FLOOD-42\r\n").await;
    assert!(seen.len() > 4_000_000, "the active subscriber saw everything: {}", seen.len());

    assert!(stalled.queued_bytes() <= budget, "{} queued", stalled.queued_bytes());
    let mut received = 0usize;
    let mut lagged = 0u64;
    while let Some(Some(event)) = stalled.try_recv() {
        match event {
            PaneEvent::Output(bytes) => received += bytes.len(),
            PaneEvent::Lagged { missed_bytes } => lagged += missed_bytes,
            other => panic!("{other:?}"),
        }
    }
    assert!(received <= budget, "{received}");
    assert!(lagged > 0, "the stalled subscriber must learn it missed output");
    assert_eq!(received as u64 + lagged, seen.len() as u64, "every byte is either delivered or counted");
}

#[tokio::test]
async fn a_timed_out_command_does_not_put_later_replies_off() {
    let server = TmuxServer::start().await;
    let (connection, _events) = server.connect();
    // Holds the client's queue for a second (see the kill test).
    connection.command("run-shell 'sleep 1'").await.unwrap();
    let late = connection.command_with_timeout("display-message -p late", Duration::from_millis(50)).await.unwrap_err();
    assert!(matches!(late, Error::Timeout { .. }), "{late}");
    // The late reply still arrives first and is matched to the abandoned command.
    assert_eq!(connection.command("display-message -p next").await.unwrap().text(), "next");
}
