//! What only the control-mode transport offers: output streams, live screens, and surviving a server that
//! goes away under the connection.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use tmux_habitat::{Command, Error, LiveScreen, OutputEvent, Server, SessionOptions, TransportKind};

const T: Duration = Duration::from_secs(10);

async fn control_server() -> Server {
    Server::builder().transport(TransportKind::Control).start().await.unwrap()
}

#[tokio::test]
async fn subscribers_see_output_as_it_happens() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("s")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let mut output = pane.subscribe().await.unwrap();
    pane.send_line("printf 'tick-%s\\n' $((6*7))").await.unwrap();
    let mut seen = Vec::new();
    let found = tokio::time::timeout(T, async {
        while let Some(event) = output.recv().await {
            if let OutputEvent::Bytes(bytes) = event {
                seen.extend_from_slice(&bytes);
                if seen.windows(7).any(|w| w == b"tick-42") {
                    return true;
                }
            }
        }
        false
    })
    .await
    .unwrap();
    assert!(found, "{:?}", String::from_utf8_lossy(&seen));
}

#[tokio::test]
async fn a_live_screen_matches_a_capture() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("l").size(60, 12)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let mut live = LiveScreen::new(&pane).await.unwrap();
    pane.send_line("printf '\\033[1mbold\\033[0m plain\\n'").await.unwrap();
    tokio::time::timeout(T, async {
        while !live.screen().text().lines().any(|l| l == "bold plain") {
            assert!(live.update().await.unwrap(), "connection ended");
        }
    })
    .await
    .unwrap();
    let screen = live.screen();
    let row = (0..screen.height()).find(|&r| screen.row_text(r) == "bold plain").unwrap();
    assert!(screen.cell(row, 0).unwrap().style.bold);
    assert!(!screen.cell(row, 5).unwrap().style.bold);
}

#[tokio::test]
async fn a_server_killed_under_the_connection_gives_errors_not_hangs_and_a_new_one_works() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("k")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    assert_eq!(pane.run("echo before", T).await.unwrap().output, "before\n");
    // Kill the server behind the handle's back, as a crash would.
    let status = std::process::Command::new("tmux")
        .arg("-S")
        .arg(server.socket_path())
        .arg("kill-server")
        .env_remove("TMUX")
        .status()
        .unwrap();
    assert!(status.success());
    let err = tokio::time::timeout(T, pane.info()).await.expect("no hang").unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    // The same handle starts a new server and reconnects.
    let session = server.new_session(SessionOptions::new("k2")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    assert_eq!(pane.run("echo after", T).await.unwrap().output, "after\n");
}

#[tokio::test]
async fn subscribing_needs_control_mode() {
    let server = Server::builder().transport(TransportKind::Subprocess).start().await.unwrap();
    let session = server.new_session(SessionOptions::new("p")).await.unwrap();
    assert!(matches!(session.first_pane().subscribe().await, Err(Error::Unsupported { .. })));
}

#[tokio::test]
async fn a_pane_paused_while_nobody_read_it_runs_at_full_speed_again() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("p")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    // What pause-after does to a pane whose reader fell behind; nobody is subscribed now.
    server.tmux(Command::new("refresh-client").args(["-A", &format!("{}:pause", pane.id())])).await.unwrap();
    let out = pane.run("sleep 0.3; echo resumed", T).await.unwrap();
    assert_eq!(out.output, "resumed\n");
    // Without resuming, the end would only be found by the once-a-second look at the screen.
    assert!(out.duration < Duration::from_millis(900), "recorded {:?}", out.duration);
}
