//! The engine embedded in another program: a task runs against the scripted fake model on a private tmux server,
//! the caller receives its events, and the engine writes nothing to stdout or stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use clive_core::{Config, Event, Task, TaskOutcome};
use dag_sched::SubtaskStatus;
use llm::ProviderKind;
use llm::testing::{FakeServer, Reply, Tokens, wire};
use tmux_habitat::{Server, SocketSpec, TransportKind};

/// The inner test's name, run in a process of its own by [`an_embedded_run_writes_nothing_of_its_own`].
const INNER: &str = "a_task_in_words_drives_a_pane_and_reports_its_events";

fn reply(server: &FakeServer, text: &str) {
    server.push(Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(100, 10))));
}

#[tokio::test]
#[ignore = "run in a process of its own by an_embedded_run_writes_nothing_of_its_own (needs tmux)"]
async fn a_task_in_words_drives_a_pane_and_reports_its_events() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), "a\nb\nc\n").unwrap();
    let socket = dir.path().join("tmux.sock");
    // Killed on drop: whatever the run leaves on the test's server goes with it.
    let _server =
        Server::builder().socket_path(&socket).keep_on_drop(false).transport(TransportKind::Subprocess).start().await;
    let model = FakeServer::start().await.unwrap();
    // The classifier chooses one interactive subtask; the runner runs a command, says done; the final look agrees.
    reply(&model, r#"{"kind":"drive","text":""}"#);
    reply(&model, &serde_json::json!({"action": "run", "command": "wc -l < notes.txt > count.txt"}).to_string());
    reply(&model, &serde_json::json!({"action": "done", "summary": "notes.txt has 3 lines"}).to_string());
    reply(&model, &serde_json::json!({"answer": "yes", "reason": "it counted the lines"}).to_string());
    let config = Config::builder()
        .state_dir(dir.path().join("state"))
        .socket(SocketSpec::Path(socket))
        .provider(model.config(ProviderKind::OpenAi))
        // Unconfined: this test is about the engine's seams, tests/sandbox.rs of clive-cli about the sandbox.
        .sandbox(None)
        .cwd(work.path())
        .build()
        .unwrap();
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let outcome = clive_core::run(&config, Task::new("write the line count of notes.txt to count.txt").events(sender))
        .await
        .unwrap();

    let TaskOutcome::Plan(report) = outcome else { panic!("{outcome:?}") };
    assert_eq!(report.answer, "notes.txt has 3 lines");
    assert_eq!(report.exit_code, clive_core::exit_code::SUCCESS);
    assert!(report.verified && report.claimed_success, "{report:?}");
    let mut received = Vec::new();
    while let Ok(event) = events.try_recv() {
        received.push(event);
    }
    assert!(matches!(received.first(), Some(Event::Routed { route: "plan", .. })), "{received:?}");
    assert!(received.iter().any(|e| matches!(e, Event::PlanStarted { .. })), "{received:?}");
    let turns = received.iter().filter(|e| matches!(e, Event::Subtask(dag_sched::Event::Progress { .. }))).count();
    assert!(turns >= 1, "{received:?}");
    let finished = received
        .iter()
        .any(|e| matches!(e, Event::Subtask(dag_sched::Event::Finished { status: SubtaskStatus::Succeeded, .. })));
    assert!(finished, "{received:?}");
    let changed = received.iter().any(|e| {
        matches!(e, Event::Changes { changes, .. } if changes.iter().any(|c| c.path == std::path::Path::new("count.txt")))
    });
    assert!(changed, "{received:?}");
    assert_eq!(std::fs::read_to_string(work.path().join("count.txt")).unwrap().trim(), "3");
}

#[test]
fn an_embedded_run_writes_nothing_of_its_own() {
    if !test_support::require_or_skip("tmux") {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([INNER, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env_remove("TMUX")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // Only the test harness speaks: its lines about running one test and its result.
    let own: Vec<&str> = stdout
        .lines()
        .filter(|line| !line.is_empty())
        .filter(|line| !line.starts_with("running 1 test") && !line.starts_with("test result: ok"))
        .filter(|line| *line != format!("test {INNER} ... ok"))
        .collect();
    assert!(own.is_empty(), "the engine wrote to stdout: {own:?}");
    assert!(stderr.trim().is_empty(), "the engine wrote to stderr: {stderr}");
}
