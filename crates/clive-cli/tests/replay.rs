//! `clive replay`: a pane recorded into clive's recordings directory plays back byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

mod support;

use std::time::Duration;

use clive_serve::{RecordOptions, Recording};
use support::{World, text};
use tmux_habitat::SessionOptions;

const WAIT: Duration = Duration::from_secs(15);

#[test]
fn a_recording_replays_exactly_and_describes_itself() {
    let world = World::new();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let recorded = runtime.block_on(async {
        let tmux = world.control_server().await;
        let session = tmux.new_session(SessionOptions::new("clive-5eed0001").size(70, 12)).await.unwrap();
        let pane = session.first_pane().clone();
        pane.wait_ready(WAIT).await.unwrap();
        // Where clive keeps recordings: `$CLIVE_HOME/state/recordings/<session>.cast`.
        let path = world.home.join("state/recordings/clive-5eed0001.cast");
        let options = RecordOptions { title: Some("clive-5eed0001: colours".into()), current_screen: false };
        let recording = Recording::start(&pane, &path, options).await.unwrap();
        pane.run("printf '\\033[34mblue\\033[0m ünïcödé\\n'; seq 1 50", WAIT).await.unwrap();
        session.kill().await.unwrap();
        recording.finished().await.unwrap();
        clive_serve::read_cast(&path).unwrap().output()
    });
    assert!(recorded.contains("\u{1b}[34mblue\u{1b}[0m ünïcödé\r\n") && recorded.contains("50\r\n"));

    let out = world.run(&["replay", "5eed", "--instant"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), recorded, "the replay is the recorded bytes, unchanged");

    let out = world.run(&["replay", "clive-5eed0001", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["id"], "clive-5eed0001");
    assert_eq!((report["width"].as_u64(), report["height"].as_u64()), (Some(70), Some(12)));
    assert_eq!(report["title"], "clive-5eed0001: colours");
    assert_eq!(report["output"], recorded.as_str());

    let out = world.run(&["replay", "nothing-here"]);
    assert_eq!(out.status.code(), Some(1), "no such recording is exit code 1");
    assert!(text(&out.stderr).contains("no recording matches `nothing-here`"), "{}", text(&out.stderr));
}

#[test]
fn every_task_run_is_recorded() {
    let world = World::new();
    let out = world.run(&["--json", "printf 'recorded %s\\n' from-a-task"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let session = report["session"].as_str().unwrap();
    let path = world.home.join(format!("state/recordings/{session}.cast"));
    let cast = clive_serve::read_cast(&path).unwrap();
    assert!(cast.header.title.as_deref().unwrap().starts_with(session), "{:?}", cast.header.title);
    assert!(cast.output().contains("recorded from-a-task\r\n"), "{:?}", cast.output());

    let out = world.run(&["replay", session, "--instant"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), cast.output());
}

#[test]
fn every_pane_of_a_plan_is_recorded() {
    let world = World::new();
    let plan = world.dir.path().join("plan.json");
    std::fs::write(
        &plan,
        r#"{"version":1,"subtasks":[{"id":"a","pane":"one","command":"echo from-one"},{"id":"b","pane":"two","command":"echo from-two"}]}"#,
    )
    .unwrap();
    let out = world.run(&["--json", "plan", "run", &plan.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let session = report["session"].as_str().unwrap();
    for pane in ["one", "two"] {
        let path = world.home.join(format!("state/recordings/{session}.{pane}.cast"));
        let cast = clive_serve::read_cast(&path).unwrap();
        assert!(cast.output().contains(&format!("from-{pane}\r\n")), "{pane}: {:?}", cast.output());
        assert_eq!(cast.header.title.as_deref(), Some(format!("{session} ({pane})").as_str()));
        // Found by its full name.
        let out = world.run(&["replay", &format!("{session}.{pane}"), "--instant"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), cast.output());
    }
    // The session's first pane keeps the session's own name.
    assert!(world.home.join(format!("state/recordings/{session}.cast")).exists());
}
