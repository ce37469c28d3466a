//! tmux's own flow control (`pause-after`) with a connection whose reader
//! stalls: tmux pauses the pane instead of queueing without bound or
//! disconnecting the client as `too far behind`.
//!
//! A second, healthy control client stays attached meanwhile. Without one,
//! tmux 3.3a stops reading a pane whose only clients are all full (the
//! program in it blocks), and the pause only comes if output is still queued
//! when the reader resumes, which is a race; with a healthy viewer the pane
//! keeps flowing and the stalled client is paused deterministically.

mod support;

use std::time::Duration;

use support::{TmuxServer, next_matching, type_line};
use tmux_control::{Connection, ConnectionEvent, PaneEvent};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;

/// Deadline of the pump task's end.
const DEADLINE: Duration = Duration::from_secs(20);
/// How long the reader stalls: comfortably over `pause-after=1`.
const STALL: Duration = Duration::from_millis(2500);

fn vm_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_stalled_reader_degrades_to_a_pause_and_continues() {
    let server = TmuxServer::start().await;
    let server_pid = server.server_pid().await;
    let mut child = server.spawn_control_client();
    let mut tmux_stdout = child.stdout.take().unwrap();
    let tmux_stdin = child.stdin.take().unwrap();

    // A pump between tmux and the connection that the test can stall: the
    // connection's reader then stops taking bytes, as a slow consumer would.
    let (flowing_tx, mut flowing) = watch::channel(true);
    let (pump_in, pump_out) = tokio::io::duplex(64 * 1024);
    let pump = tokio::spawn(async move {
        let mut pump_in = pump_in;
        let mut buffer = vec![0u8; 64 * 1024];
        let mut pumped = 0u64;
        loop {
            if flowing.wait_for(|flowing| *flowing).await.is_err() {
                break;
            }
            let read = tmux_stdout.read(&mut buffer).await.unwrap_or(0);
            if read == 0 || pump_in.write_all(&buffer[..read]).await.is_err() {
                break;
            }
            pumped += read as u64;
        }
        pumped
    });
    let (connection, mut events) = Connection::new(pump_out, tmux_stdin);
    let (_viewer, _viewer_events) = server.connect();

    connection.set_pause_after(1).await.unwrap();
    let pane = server.first_pane(&connection).await;
    let mut output = connection.subscribe_output(pane);
    let rss_before = vm_rss_kib(server_pid);
    type_line(&connection, pane, "yes flood").await;

    flowing_tx.send_replace(false);
    // The scenario itself: a consumer that reads nothing for a while.
    tokio::time::sleep(STALL).await;
    let rss_stalled = vm_rss_kib(server_pid);
    flowing_tx.send_replace(true);

    next_matching(&mut output, "%pause", |event| *event == PaneEvent::Paused).await;
    next_matching(&mut events, "a Pause event", |event| *event == ConnectionEvent::Pause { pane }).await;

    // Stop the flood before continuing, then resume the pane.
    connection.command(format!("send-keys -t {pane} C-c")).await.unwrap();
    connection.continue_pane(pane).await.unwrap();
    next_matching(&mut output, "%continue", |event| *event == PaneEvent::Continued).await;
    assert!(!connection.is_closed(), "tmux must not disconnect a paused client");
    assert_eq!(connection.command("display-message -p alive").await.unwrap().text(), "alive");
    assert!(output.queued_bytes() <= tmux_control::ConnectionOptions::default().output_budget_bytes);

    let growth_mib = rss_stalled.saturating_sub(rss_before) / 1024;
    eprintln!("tmux server RSS: {rss_before} KiB before, {rss_stalled} KiB after a {STALL:?} stall");
    // The flood is endless; with pause-after=1 tmux holds about a second of output at most.
    assert!(growth_mib < 64, "tmux server grew by {growth_mib} MiB while the reader stalled");

    drop(connection);
    drop(flowing_tx);
    let _ = tokio::time::timeout(DEADLINE, pump).await;
}
