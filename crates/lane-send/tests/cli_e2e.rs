//! The `lane-send` binary: output lines, exit codes, concurrency across processes, and the
//! subcommands around sending (ls, note/notes, mail/inbox).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

mod common;

use std::process::Output;
use std::time::Duration;

use common::Lab;

const BIN: &str = env!("CARGO_BIN_EXE_lane-send");

impl Lab {
    fn cli(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(BIN);
        command.env_remove("TMUX").env_remove("TMUX_PANE").env("LANE_SEND_HOME", self.home.path());
        command.arg("-S").arg(self.server.socket_path());
        command
    }

    async fn run(&self, args: &[&str]) -> Output {
        self.cli().args(args).output().await.unwrap()
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn json(output: &Output) -> serde_json::Value {
    let text = stdout(output);
    assert_eq!(text.lines().count(), 1, "exactly one line: {text:?}");
    serde_json::from_str(text.trim()).unwrap()
}

#[tokio::test]
async fn delivered_prints_one_logfmt_line_and_exits_zero() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2", "--placeholder"]).await;
    let output = lab.run(&["api", "web: hello from the cli"]).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let line = stdout(&output);
    assert_eq!(line.lines().count(), 1);
    assert!(line.starts_with("outcome=delivered lane=api pane=%"), "{line}");
    assert!(line.contains(" agent=claude queued=false "), "{line}");
    assert_eq!(lane.wait_for_submissions(1, Duration::from_secs(5)).await[0].text, "web: hello from the cli");
}

#[tokio::test]
async fn json_output_has_the_documented_fields_and_held_exits_three() {
    let lab = Lab::new().await;
    lab.agent("api", &["--style", "codex", "--draft", "a human is typing"]).await;
    let output = lab.run(&["--json", "api", "web: hello"]).await;
    assert_eq!(output.status.code(), Some(3));
    let value = json(&output);
    assert_eq!(value["lane"], "api");
    assert!(value["pane"].as_str().unwrap().starts_with('%'));
    assert_eq!(value["outcome"], "held");
    assert_eq!(value["stage"], "not_pasted");
    assert_eq!(value["agent"], "codex");
    assert_eq!(value["queued"], false);
    assert!(value["reason"].as_str().unwrap().contains("unsigned"));

    let delivered = Lab::new().await;
    delivered.agent("api", &["--style", "grok"]).await;
    let value = json(&delivered.run(&["--json", "send", "api", "web: explicit form"]).await);
    assert_eq!(value["outcome"], "delivered");
    assert_eq!(value["stage"], serde_json::Value::Null);
}

#[tokio::test]
async fn usage_errors_exit_two_with_one_line() {
    let lab = Lab::new().await;
    let output = lab.run(&["api", "not signed"]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).starts_with("outcome=usage_error lane=api "));
    let output = lab.run(&["--json", "ls", "extra"]).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(json(&output)["outcome"], "usage_error");
    let output = lab.run(&["--timeout", "-1", "api", "web: x"]).await;
    assert_eq!(output.status.code(), Some(2));
}

#[tokio::test]
async fn a_lane_named_like_a_subcommand_is_reached_with_send() {
    let lab = Lab::new().await;
    let lane = lab.agent("ls", &["--style", "claude2"]).await;
    let output = lab.run(&["send", "ls", "web: to the lane called ls"]).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let output = lab.run(&["--", "ls", "web: again, after --"]).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let texts: Vec<String> =
        lane.wait_for_submissions(2, Duration::from_secs(5)).await.into_iter().map(|s| s.text).collect();
    assert_eq!(texts, vec!["web: to the lane called ls", "web: again, after --"]);
}

#[tokio::test]
async fn eight_concurrent_senders_submit_each_message_exactly_once() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2"]).await;
    let messages: Vec<String> =
        (0..8).map(|index| format!("web: concurrent message number {index} {}", "x".repeat(index * 7))).collect();
    let children: Vec<_> = messages
        .iter()
        .map(|message| {
            lab.cli().args(["--timeout", "60s", "api", message]).stdout(std::process::Stdio::piped()).spawn().unwrap()
        })
        .collect();
    let mut outputs = Vec::new();
    for child in children {
        outputs.push(child.wait_with_output().await.unwrap());
    }
    for output in &outputs {
        assert_eq!(output.status.code(), Some(0), "{}", stdout(output));
    }
    let submissions = lane.wait_for_submissions(8, Duration::from_secs(10)).await;
    let mut texts: Vec<String> = submissions.into_iter().map(|s| s.text).collect();
    texts.sort();
    let mut expected = messages.clone();
    expected.sort();
    assert_eq!(texts, expected, "each message exactly once, none interleaved");
}

#[tokio::test]
async fn ls_joins_live_lanes_with_the_registry() {
    let lab = Lab::new().await;
    lab.agent("api", &["--style", "gemini"]).await;
    lab.shell("scratch").await;
    let config = lab.dirs().config;
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("lanes.yaml"),
        "lanes:\n  - name: api\n    purpose: API refactor\n    agent: gemini\n    model: gemini-2.5-pro\n  - name: retired\n    purpose: old work\n",
    )
    .unwrap();
    let output = lab.run(&["ls"]).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = stdout(&output);
    assert!(text.starts_with("# snapshot, not proof"), "{text}");
    let line = |name: &str| text.lines().find(|line| line.starts_with(&format!("{name} "))).unwrap().to_string();
    assert!(line("api").contains("gemini-1 box") && line("api").contains("API refactor"), "{text}");
    assert!(line("retired").contains("no-sess"), "{text}");
    assert!(line("scratch").contains("no known input frame"), "{text}");
    let value = json(&lab.run(&["--json", "ls"]).await);
    assert_eq!(value["lanes"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn notes_are_appended_and_printed() {
    let lab = Lab::new().await;
    assert_eq!(lab.run(&["note", "web", "schema v3 is in docs/schema.md"]).await.status.code(), Some(0));
    assert_eq!(lab.run(&["note", "api", "migrations done"]).await.status.code(), Some(0));
    let notes = stdout(&lab.run(&["notes"]).await);
    let lines: Vec<&str> = notes.lines().collect();
    assert_eq!(lines.len(), 2, "{notes}");
    assert!(lines[0].ends_with(" web: schema v3 is in docs/schema.md"));
    assert!(lines[1].ends_with(" api: migrations done"));
    assert_eq!(stdout(&lab.run(&["notes", "--date", "2001-01-01"]).await), "");
}

#[tokio::test]
async fn mail_is_stored_first_and_only_a_wake_line_is_typed() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2"]).await;
    let body = "web: a long briefing\nwith several lines\nthat should not go through the box";
    let output = lab.run(&["mail", "api", body]).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(stdout(&output).contains(" mail_id=1"), "{}", stdout(&output));
    let submissions = lane.wait_for_submissions(1, Duration::from_secs(5)).await;
    assert!(submissions[0].text.starts_with("web: you have mail #1"), "{submissions:?}");
    let inbox = stdout(&lab.run(&["inbox", "api", "--mark-read"]).await);
    assert!(inbox.contains("#1 ") && inbox.contains("web: a long briefing"), "{inbox}");
    assert!(stdout(&lab.run(&["inbox", "api"]).await).starts_with("no unread mail"));

    // Held wake line: the mail is still stored.
    let held = Lab::new().await;
    held.agent("api", &["--style", "claude2", "--draft", "human typing"]).await;
    let output = held.run(&["--json", "mail", "api", "web: stored anyway"]).await;
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(json(&output)["mail_id"], 1);
    let value: serde_json::Value =
        serde_json::from_str(stdout(&held.run(&["--json", "inbox", "api"]).await).trim()).unwrap();
    assert_eq!(value[0]["message"], "web: stored anyway");
}

#[tokio::test]
async fn a_closed_stdout_ends_quietly() {
    let lab = Lab::new().await;
    assert_eq!(lab.run(&["note", "web", "first"]).await.status.code(), Some(0));
    // Today's notes, grown past a pipe's buffer, so lane-send is still writing when the reader goes away.
    let notes_dir = lab.dirs().state.join("notes");
    let today = std::fs::read_dir(&notes_dir).unwrap().next().unwrap().unwrap().path();
    let filler: String = (0..4000).map(|i| format!("- 2026-01-01T00:00:00Z web: filler line {i}\n")).collect();
    std::fs::write(&today, filler).unwrap();
    let mut child = lab
        .cli()
        .arg("notes")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[tokio::test]
async fn a_failed_write_to_stdout_is_said_on_stderr_and_fails() {
    let lab = Lab::new().await;
    assert_eq!(lab.run(&["note", "web", "first"]).await.status.code(), Some(0));
    for args in [&["notes"][..], &["--json", "web", "unsigned"][..]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let child = lab.cli().args(args).stdout(full).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let output = child.wait_with_output().await.unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("writing to stdout failed") && stderr.contains("No space left"), "{args:?}: {stderr}");
    }
}
