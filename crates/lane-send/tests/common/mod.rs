//! Test lab: an isolated tmux server, a private LANE_SEND_HOME, and fake agents running as real
//! programs in real panes.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use lane_send::Dirs;
use lane_send::frame::Recognition;
use lane_send::{DeliverOptions, Outcome};
use tmux_habitat::{Backoff, Server, SessionOptions};

/// The fake agent binary: cargo builds examples before integration tests, into
/// `target/<profile>/examples/`, next to the `deps/` dir the test runs from.
pub fn fake_agent() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe.parent().unwrap().join("../examples/fake-agent");
    assert!(
        path.exists(),
        "fake agent not built at {}: run `cargo build -p lane-send --example fake-agent`",
        path.display()
    );
    path
}

pub struct Lab {
    pub server: Server,
    pub home: tempfile::TempDir,
}

pub struct AgentLane {
    pub name: String,
    pub log: PathBuf,
}

impl Lab {
    pub async fn new() -> Lab {
        Lab { server: Server::isolated().await.unwrap(), home: tempfile::tempdir().unwrap() }
    }

    pub fn dirs(&self) -> Dirs {
        Dirs::under(self.home.path())
    }

    pub fn options(&self, timeout: Duration) -> DeliverOptions {
        DeliverOptions { timeout, dirs: self.dirs() }
    }

    /// Starts a fake agent in a new session and waits until its screen is recognised as `ready`.
    pub async fn agent(&self, name: &str, args: &[&str]) -> AgentLane {
        self.agent_until(name, args, |recognition| matches!(recognition, Recognition::Input(_))).await
    }

    pub async fn agent_until(&self, name: &str, args: &[&str], ready: impl Fn(&Recognition) -> bool) -> AgentLane {
        let log = self.home.path().join(format!("{name}.agent.jsonl"));
        let mut command = format!("{} --log {}", fake_agent().display(), log.display());
        for arg in args {
            command.push(' ');
            command.push_str(&shell_quote(arg));
        }
        self.server.new_session(SessionOptions::new(name).size(100, 30).command(command)).await.unwrap();
        let mut backoff = Backoff::new(Duration::from_secs(10));
        loop {
            let recognition = lane_send::inspect_lane(&self.server, name).await.unwrap();
            if ready(&recognition) {
                break;
            }
            assert!(backoff.wait().await, "fake agent {name} never showed its frame: {recognition:?}");
        }
        AgentLane { name: name.to_string(), log }
    }

    /// A plain shell session (an unknown frame).
    /// A plain shell, idle at its prompt: `wait_ready` returns once its handshake line is printed, and the prompt
    /// after it may come later (under load, after a test took its "before" screen).
    pub async fn shell(&self, name: &str) {
        let session = self.server.new_session(SessionOptions::new(name).size(100, 30)).await.unwrap();
        let pane = session.first_pane();
        pane.wait_ready(Duration::from_secs(10)).await.unwrap();
        pane.subscribe().await.unwrap().wait_for_prompt("$ ", Duration::from_secs(10)).await.unwrap();
    }

    pub async fn send(&self, lane: &str, message: &str) -> Outcome {
        lane_send::deliver(&self.server, lane, message, &self.options(Duration::from_secs(10))).await.unwrap()
    }

    pub async fn screen_text(&self, lane: &str) -> String {
        self.server.pane(lane).await.unwrap().capture_text().await.unwrap()
    }

    /// The day's delivery log lines.
    pub fn journal(&self) -> Vec<serde_json::Value> {
        let dir = self.dirs().state.join("log");
        let mut records = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            records.extend(text.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()));
        }
        records
    }
}

/// One submission the fake agent logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    pub text: String,
    pub queued: bool,
}

impl AgentLane {
    pub fn submissions(&self) -> Vec<Submission> {
        read_submissions(&self.log)
    }

    /// Waits until the agent logged at least `count` submissions (the agent writes its log as it
    /// submits; a queued message is submitted when the busy period ends).
    pub async fn wait_for_submissions(&self, count: usize, timeout: Duration) -> Vec<Submission> {
        let mut backoff = Backoff::new(timeout);
        loop {
            let submissions = self.submissions();
            if submissions.len() >= count || !backoff.wait().await {
                return submissions;
            }
        }
    }
}

pub fn read_submissions(log: &Path) -> Vec<Submission> {
    let Ok(text) = std::fs::read_to_string(log) else { return Vec::new() };
    text.lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            Submission { text: value["text"].as_str().unwrap().to_string(), queued: value["queued"].as_bool().unwrap() }
        })
        .collect()
}

pub use tmux_habitat::shell_quote;
