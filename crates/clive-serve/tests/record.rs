//! Recording a real pane: the file is what the pane printed, byte for byte, it reads back and replays
//! identically, and the asciinema tool reads it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

mod support;

use clive_serve::{RecordOptions, Recording, ReplayOptions, read_cast, replay};
use support::TIMEOUT;
use tmux_habitat::{OutputEvent, Server, SessionOptions};

#[tokio::test]
async fn a_recording_is_the_panes_output_and_replays_byte_identically() {
    let tmux = Server::isolated().await.unwrap();
    let session = tmux.new_session(SessionOptions::new("rec").size(90, 20)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(TIMEOUT).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recordings/rec.cast");

    // The reference stream and the recording must cover the same span: both begin with the shell idle.
    let mut truth = pane.subscribe().await.unwrap();
    truth.wait_for_prompt("$ ", TIMEOUT).await.unwrap();
    let recording =
        Recording::start(&pane, &path, RecordOptions { title: Some("rec: a demo".into()), current_screen: false })
            .await
            .unwrap();
    pane.run("printf 'héllo \\033[1;32mgreen\\033[0m ✓\\n'; seq 1 300", TIMEOUT).await.unwrap();
    pane.run("printf '漢字 and a tab\\there\\n'", TIMEOUT).await.unwrap();
    session.kill().await.unwrap();
    let summary = tokio::time::timeout(TIMEOUT, recording.finished()).await.unwrap().unwrap();

    let mut printed = Vec::new();
    while let Some(event) = tokio::time::timeout(TIMEOUT, truth.recv()).await.unwrap() {
        match event {
            OutputEvent::Bytes(bytes) => printed.extend_from_slice(&bytes),
            OutputEvent::Lost => panic!("the reference stream lost output"),
        }
    }
    let printed = String::from_utf8(printed).unwrap();
    assert!(printed.contains("300") && printed.contains("漢字"));
    assert_eq!(summary.bytes, printed.len() as u64);
    assert_eq!(summary.redraws, 0);

    let cast = read_cast(&path).unwrap();
    assert_eq!((cast.header.width, cast.header.height), (90, 20));
    assert_eq!(cast.header.title.as_deref(), Some("rec: a demo"));
    assert_eq!(cast.output(), printed, "the recording holds exactly what the pane printed");
    assert!(cast.events.windows(2).all(|w| w[0].time <= w[1].time), "timestamps never go back");
    let mut played = Vec::new();
    replay(&cast, &mut played, ReplayOptions { speed: None, ..ReplayOptions::default() }).await.unwrap();
    assert_eq!(played, printed.as_bytes(), "replay writes the recorded bytes unchanged");

    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);

    // The asciinema tool reads it: `asciinema cat` prints the output it holds.
    let out = tokio::process::Command::new(asciinema())
        .arg("cat")
        .arg(&path)
        .output()
        .await
        .unwrap_or_else(|e| panic!("running asciinema ({e}): install it with scripts/asciinema/setup.sh"));
    assert!(out.status.success(), "asciinema cat failed: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), printed, "asciinema reads the same output");
}

#[tokio::test]
async fn a_stopped_recording_keeps_what_arrived_and_can_start_from_the_screen() {
    let tmux = Server::isolated().await.unwrap();
    let session = tmux.new_session(SessionOptions::new("rec2").size(60, 10)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(TIMEOUT).await.unwrap();
    pane.run("echo before-recording", TIMEOUT).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec2.cast");
    let recording = Recording::start(&pane, &path, RecordOptions { title: None, current_screen: true }).await.unwrap();
    pane.run("echo during-recording", TIMEOUT).await.unwrap();
    let mut live = clive_serve::read_cast(&path);
    // The file is flushed as output arrives: a reader sees it before the recording ends.
    let mut backoff = tmux_habitat::Backoff::new(TIMEOUT);
    while !live.as_ref().is_ok_and(|c| c.output().contains("during-recording\r\n")) {
        assert!(backoff.wait().await, "the recording was not written while it ran: {live:?}");
        live = clive_serve::read_cast(&path);
    }
    let summary = recording.stop().await.unwrap();
    assert!(summary.events > 0);
    let cast = read_cast(&path).unwrap();
    let first = &cast.events[0];
    assert_eq!(first.time, 0.0);
    assert!(first.text.contains("before-recording"), "the first event draws the screen as it was");
    assert!(cast.output().contains("during-recording"));
}

/// The asciinema tool: `$CLIVE_ASCIINEMA`, or the pinned one `scripts/asciinema/setup.sh` installs.
fn asciinema() -> std::path::PathBuf {
    if let Some(path) = std::env::var_os("CLIVE_ASCIINEMA") {
        return path.into();
    }
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/asciinema/bin/asciinema");
    assert!(venv.exists(), "asciinema 2.4 is not installed: run scripts/asciinema/setup.sh (CI does)");
    venv
}
