//! End to end: `clive plan check|show|run` with the real binary and a real tmux server per test.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use support::{World, text};

const PLAN: &str = r#"{"version": 1, "subtasks": [
  {"id": "a", "pane": "one", "command": "echo alpha"},
  {"id": "b", "pane": "two", "command": "echo beta"},
  {"id": "c", "pane": "one", "command": "echo gamma; false", "depends_on": ["a", "b"]},
  {"id": "d", "pane": "two", "command": "echo never", "depends_on": ["c"]}
]}"#;

fn write(world: &World, name: &str, body: &str) -> String {
    let path = world.dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    path.display().to_string()
}

#[test]
fn check_accepts_a_valid_plan_and_names_what_is_wrong_with_a_bad_one() {
    let world = World::new();
    let good = write(&world, "good.json", PLAN);
    let out = world.run(&["plan", "check", &good]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("valid plan, 4 subtasks"), "{}", text(&out.stdout));

    let bad = write(
        &world,
        "bad.json",
        r#"{"version":1,"subtasks":[{"id":"x","pane":"p","command":"ls","depends_on":["y"]}]}"#,
    );
    let out = world.run(&["plan", "check", &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`y`"), "{}", text(&out.stderr));
    let missing = world.run(&["plan", "check", "/nonexistent/plan.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("/nonexistent/plan.json"), "{}", text(&missing.stderr));
}

#[test]
fn show_renders_dot_and_mermaid() {
    let world = World::new();
    let plan = write(&world, "plan.json", PLAN);
    let dot = text(&world.run(&["plan", "show", &plan, "--format", "dot"]).stdout);
    assert!(dot.starts_with("digraph") && dot.contains("->"), "{dot}");
    let mermaid = text(&world.run(&["plan", "show", &plan, "--format", "mermaid"]).stdout);
    assert!(mermaid.starts_with("flowchart") && mermaid.contains("-->"), "{mermaid}");
}

#[test]
fn run_prints_a_summary_and_json_and_exits_by_the_outcome() {
    let world = World::new();
    let plan = write(&world, "plan.json", PLAN);
    let out = world.run(&["plan", "run", &plan]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.contains("succeeded") && table.contains("failed") && table.contains("skipped"), "{table}");

    let out = world.run(&["plan", "run", "--json", &plan]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let subtasks = report["subtasks"].as_array().unwrap();
    let status: Vec<&str> = subtasks.iter().map(|s| s["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["succeeded", "succeeded", "failed", "skipped"]);
    assert_eq!(subtasks[2]["exit_code"], 1);
    assert!(subtasks[2]["output_excerpt"].as_str().unwrap().contains("gamma"));
    assert!(subtasks[0]["duration_ms"].is_u64());

    let good = write(&world, "good.json", r#"{"version":1,"subtasks":[{"id":"x","pane":"p","command":"echo ok"}]}"#);
    let out = world.run(&["plan", "run", "--json", &good]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The two failed runs are kept; the successful one left nothing.
    assert_eq!(world.sessions().len(), 2);
}

#[test]
fn ctrl_c_cancels_the_run() {
    let world = World::new();
    // The slow subtask announces its start through a FIFO: opening it for reading blocks until the
    // subtask opens it for writing, so the test waits on that signal (with a deadline), not on a sleep.
    let started = world.dir.path().join("started");
    let made = std::process::Command::new("mkfifo").arg(&started).status().unwrap();
    assert!(made.success());
    let body = format!(
        r#"{{"version":1,"subtasks":[{{"id":"slow","pane":"p","command":"echo go > {}; sleep 30"}},{{"id":"after","pane":"p","command":"echo x","depends_on":["slow"]}}]}}"#,
        started.display()
    );
    let plan = write(&world, "slow.json", &body);
    let child = world.command(&["plan", "run", "--json", &plan]).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::read_to_string(&started));
    });
    let signal = rx.recv_timeout(Duration::from_secs(20)).expect("the slow subtask never started");
    assert_eq!(signal.unwrap().trim(), "go");
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["cancelled"], true);
    assert_ne!(report["subtasks"][0]["status"], "succeeded");
    // The run's own record shows the `sleep 30` was cut short, not waited out.
    let slow = report["subtasks"][0]["duration_ms"].as_u64().unwrap_or(0);
    assert!(report["duration_ms"].as_u64().unwrap() < 30_000 && slow < 30_000, "{report}");
}

#[test]
fn a_destructive_command_in_a_plan_refuses_the_whole_run_before_anything_starts() {
    let world = World::new();
    let marker = world.dir.path().join("ran");
    let plan = write(
        &world,
        "plan.json",
        &format!(
            r#"{{"version": 1, "subtasks": [
  {{"id": "harmless", "pane": "one", "command": "touch {}"}},
  {{"id": "wipe", "pane": "two", "command": "rm -rf ~"}}
]}}"#,
            marker.display()
        ),
    );
    let out = world.run(&["plan", "run", &plan]);
    assert_eq!(out.status.code(), Some(77), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("rm -rf ~"), "{}", text(&out.stderr));
    assert!(!marker.exists(), "nothing may run when the plan is refused");
}

#[test]
fn dash_c_runs_every_pane_of_a_plan_in_that_directory() {
    let world = World::new();
    let elsewhere = world.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let plan = write(
        &world,
        "plan.json",
        r#"{"version":1,"subtasks":[{"id":"a","pane":"one","command":"pwd -P"},{"id":"b","pane":"two","command":"pwd -P"}]}"#,
    );
    // The plan path is read as given (relative to where clive was started); the panes run in -C's directory.
    let out = world.run(&["-C", &elsewhere.display().to_string(), "--json", "plan", "run", &plan]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = elsewhere.canonicalize().unwrap().display().to_string();
    for subtask in report["subtasks"].as_array().unwrap() {
        assert_eq!(subtask["output_excerpt"].as_str().unwrap().trim(), want, "{subtask}");
    }
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let world = World::new();
    // A plan big enough that its graph overflows a pipe's buffer, so clive is still writing when the reader
    // goes away.
    let subtasks: Vec<String> =
        (0..3000).map(|i| format!(r#"{{"id":"subtask-number-{i}","pane":"p","command":"true"}}"#)).collect();
    let plan = write(&world, "big.json", &format!(r#"{{"version":1,"subtasks":[{}]}}"#, subtasks.join(",")));
    let out = world.run_with_closed_stdout(&["plan", "show", &plan]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("panicked"), "{}", text(&out.stderr));
}
