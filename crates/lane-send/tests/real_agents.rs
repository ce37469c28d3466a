//! lane-send against the real agents: Claude Code, Codex, Gemini CLI, Grok CLI and Qwen Code, pinned and
//! installed from npm by `scripts/agents/setup.sh`, each offline in its own HOME and tmux server against
//! `llm::testing::AgentBackend`, which records what the agent really submitted to its model.
//!
//! One test per agent; each starts its agent once and runs every case on it in turn (the agents are node
//! programs that take seconds to start). `#[ignore]`d, so a plain `cargo test` does not download agents from npm;
//! `.ci/run` runs the suite with `--ignored`, and then it fails when npm cannot install the agents.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

mod real;

use std::time::Duration;

use lane_send::frame::Recognition;
use lane_send::{Outcome, Stage};
use llm::testing::Turn;
use real::{Kind, RealAgent};
use tmux_habitat::{Key, SessionOptions};

/// How long the backend keeps a "slow" turn busy.
const SLOW: Duration = Duration::from_secs(4);
const WAIT: Duration = Duration::from_secs(30);

async fn start(kind: Kind) -> RealAgent {
    // Ignored unless asked for (`.ci/run` runs it with --ignored): asked for, it fails rather than pass having
    // done nothing when npm could not install the agents.
    if let Err(reason) = real::agents_prefix() {
        panic!("the real-agent suite needs the pinned agents from npm (scripts/agents/setup.sh): {reason}");
    }
    let agent = RealAgent::start(kind, "api").await.unwrap_or_else(|error| panic!("{error}"));
    agent.backend.when("please be slow", Turn::text("Slow reply.").after(SLOW));
    agent.backend.when("run the tool", Turn::shell("touch lane-send-was-here"));
    agent
}

/// The text the agent submits for `message`: Claude Code turns a pasted TAB into four spaces.
fn as_submitted(kind: Kind, message: &str) -> String {
    match kind {
        Kind::Claude => message.replace('\t', "    "),
        _ => message.to_string(),
    }
}

impl RealAgent {
    async fn idle(&self) {
        self.wait_for("idle, empty box", WAIT, |recognition| {
            recognition.input().is_some_and(|input| input.is_empty() && !input.busy)
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    }

    async fn keys(&self, keys: &[Key]) {
        lane_send::press_keys(&self.server.pane(&self.lane).await.unwrap(), keys).await.unwrap();
    }

    async fn type_text(&self, text: &str) {
        self.server.pane(&self.lane).await.unwrap().send_text(text).await.unwrap();
    }

    async fn wait_screen(&self, what: &str, ready: impl Fn(&str) -> bool) {
        let mut backoff = tmux_habitat::Backoff::new(WAIT);
        loop {
            let screen = self.screen().await;
            if ready(&screen) {
                return;
            }
            assert!(backoff.wait().await, "{}: no {what}:\n{screen}", self.kind.name());
        }
    }

    async fn recognition(&self) -> Recognition {
        lane_send::inspect_lane(&self.server, &self.lane).await.unwrap()
    }

    /// Asserts the agent submitted `message` (as it submits it) exactly once, and nothing that contains it.
    async fn assert_submitted_once(&self, message: &str) {
        let expected = as_submitted(self.kind, message);
        let submitted = self.wait_submitted_text(&expected).await;
        let containing: Vec<&String> = submitted.iter().filter(|text| text.contains(&expected)).collect();
        assert_eq!(containing, [&expected], "{}: {message:?} must arrive exactly once, whole", self.kind.name());
    }

    async fn wait_submitted_text(&self, expected: &str) -> Vec<String> {
        let mut backoff = tmux_habitat::Backoff::new(WAIT);
        loop {
            let submitted = self.backend.submitted();
            if submitted.iter().any(|text| text.contains(expected)) || !backoff.wait().await {
                return submitted;
            }
        }
    }

    fn assert_not_submitted(&self, fragment: &str) {
        let submitted = self.backend.submitted();
        assert!(
            submitted.iter().all(|text| !text.contains(fragment)),
            "{}: {fragment:?} must not reach the model: {submitted:?}",
            self.kind.name()
        );
    }

    /// Delivers and asserts: delivered, the agent named, the box empty afterwards.
    async fn deliver_ok(&self, message: &str) -> Outcome {
        let outcome = self.send(message).await;
        assert!(outcome.is_delivered(), "{}: {outcome:?}\n{}", self.kind.name(), self.screen().await);
        assert_eq!(outcome.details().agent, Some(self.kind.agent()), "{}", self.kind.name());
        outcome
    }

    /// Delivers into a screen that must refuse it: held not_pasted (nothing was typed: the caller checks
    /// that the box is empty once the screen is closed, and that the model never saw the message).
    async fn deliver_refused(&self, message: &str, what: &str) -> Outcome {
        let outcome = self.send(message).await;
        assert_eq!(outcome.stage(), Some(Stage::NotPasted), "{} {what}: {outcome:?}", self.kind.name());
        assert_eq!((outcome.details().enters, outcome.details().restored), (0, None));
        outcome
    }
}

async fn idle_box(agent: &RealAgent) {
    let message = "ops: please run the tests";
    // Qwen Code may queue even this one, behind a start-up task of its own: queued is delivered too.
    agent.deliver_ok(message).await;
    agent.assert_submitted_once(message).await;
    agent.idle().await;
}

async fn awkward_messages(agent: &RealAgent) {
    let special = "ops: $(rm -rf /) `ticks` ${HOME} \"double\" 'single'; semi;colon 🚀 ✅ 漢字 tab\there";
    let outcome = agent.deliver_ok(special).await;
    if agent.kind == Kind::Claude {
        assert_eq!(outcome.details().rewritten.as_deref(), Some("claude turns a pasted TAB into four spaces"));
    }
    agent.assert_submitted_once(special).await;
    agent.idle().await;
    let long: String = std::iter::once("ops: a long report follows".to_string())
        .chain((1..40).map(|n| format!("line {n:02}: the quick brown fox jumps over the lazy dog, {}", "x".repeat(22))))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(long.len() > 3000 && long.lines().count() == 40, "{}", long.len());
    agent.deliver_ok(&long).await;
    agent.assert_submitted_once(&long).await;
    agent.idle().await;
}

async fn human_draft(agent: &RealAgent) {
    agent.type_text("half a thought").await;
    agent
        .wait_for("the draft in the box", WAIT, |r| r.input().is_some_and(|input| input.text == "half a thought"))
        .await
        .unwrap();
    let outcome = agent.deliver_refused("ops: not over a draft", "draft").await;
    assert!(outcome.details().reason.contains("unsigned"), "{}", outcome.details().reason);
    assert_eq!(agent.recognition().await.input().map(|input| input.text.clone()).as_deref(), Some("half a thought"));
    agent.keys(&[Key::End, Key::CTRL_U]).await;
    agent.idle().await;
    agent.assert_not_submitted("half a thought");
    agent.assert_not_submitted("not over a draft");
}

async fn busy(agent: &RealAgent) {
    agent.deliver_ok("ops: please be slow").await;
    agent.wait_for("busy", WAIT, |r| r.input().is_some_and(|input| input.busy)).await.unwrap();
    let second = agent.deliver_ok("ops: sent while busy").await;
    eprintln!("{}: busy delivery queued={}", agent.kind.name(), second.queued());
    agent.assert_submitted_once("ops: please be slow").await;
    agent.assert_submitted_once("ops: sent while busy").await;
    agent.idle().await;
}

async fn permission_dialog(agent: &RealAgent) {
    agent.deliver_ok("ops: please run the tool").await;
    // The dialog's frame and question draw before its choices: wait for the choices too (Gemini CLI was seen
    // between the two).
    let with_menu = |r: &Recognition| r.dialog().is_some_and(|dialog| dialog.menu.is_some());
    let recognition = agent.wait_for("a permission dialog with its choices", WAIT, with_menu).await.unwrap();
    let dialog = recognition.dialog().unwrap().clone();
    let menu = dialog.menu.clone().unwrap_or_else(|| panic!("{}: no menu in {dialog:?}", agent.kind.name()));
    assert!(menu.choices.len() >= 2, "{}: {menu:?}", agent.kind.name());
    agent.deliver_refused("ops: never into a dialog", "permission dialog").await;
    // Answer it the way a program that shows the choices as buttons would: pick "No" (arrows and Enter, or
    // Escape where the dialog names it).
    let no = menu.choices.iter().find(|choice| choice.label.starts_with("No")).expect("a No choice");
    let picked = lane_send::choose(&agent.server, &agent.lane, no.number).await.unwrap();
    assert_eq!(picked.label, no.label);
    agent.idle().await;
    assert!(!agent.work.join("lane-send-was-here").exists(), "{}: the command ran", agent.kind.name());
    agent.assert_not_submitted("never into a dialog");
}

async fn slash_menu(agent: &RealAgent) {
    agent.type_text("/").await;
    agent.wait_for("the slash menu", WAIT, |r| matches!(r, Recognition::Overlay { .. })).await.unwrap();
    agent.deliver_refused("ops: not into a menu", "slash menu").await;
    agent.keys(&[Key::Backspace]).await;
    agent.idle().await;
    agent.assert_not_submitted("not into a menu");
}

async fn help_screen(agent: &RealAgent) {
    match agent.kind {
        Kind::Claude | Kind::Qwen => {
            agent.type_text("/help").await;
            agent.wait_for("/help typed", WAIT, |r| matches!(r, Recognition::Overlay { .. })).await.unwrap();
            agent.keys(&[Key::Enter]).await;
        }
        Kind::Codex | Kind::Gemini => agent.type_text("?").await,
        Kind::Grok => {
            // Grok prints its help into the history; the box stays live, so a delivery goes through. Its
            // command menu takes the first Enter (the box then shows `/help`), the second runs it.
            agent.type_text("/help").await;
            agent.wait_for("the command menu", WAIT, |r| matches!(r, Recognition::Overlay { .. })).await.unwrap();
            agent.keys(&[Key::Enter]).await;
            agent.wait_screen("the menu item gone", |screen| !screen.contains("Show help information")).await;
            agent.keys(&[Key::Enter]).await;
            agent.idle().await;
            agent.deliver_ok("ops: after the help").await;
            agent.assert_submitted_once("ops: after the help").await;
            return agent.idle().await;
        }
    }
    agent
        .wait_for(
            "the help screen",
            WAIT,
            |r| matches!(r, Recognition::Overlay { name, .. } if name.contains("help") || name.contains("shortcuts")),
        )
        .await
        .unwrap();
    agent.deliver_refused("ops: not into the help", "help screen").await;
    agent.keys(&[Key::Escape]).await;
    agent.idle().await;
    agent.assert_not_submitted("not into the help");
}

async fn concurrent_senders(agent: &RealAgent) {
    let messages: Vec<String> = (1..=4).map(|n| format!("ops: concurrent sender {n} of 4")).collect();
    let children: Vec<_> = messages
        .iter()
        .map(|message| {
            tokio::process::Command::new(env!("CARGO_BIN_EXE_lane-send"))
                .args(["--json", "--timeout", "30s", "-S"])
                .arg(agent.server.socket_path())
                .args([agent.lane.as_str(), message.as_str()])
                .env("LANE_SEND_HOME", agent.home.path().join("lane-send"))
                .env_remove("TMUX")
                .output()
        })
        .collect();
    for child in children {
        let output = child.await.unwrap();
        let outcome: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(outcome["outcome"], "delivered", "{}: {outcome}", agent.kind.name());
    }
    for message in &messages {
        agent.assert_submitted_once(message).await;
    }
    agent.idle().await;
}

async fn leftover_from_a_live_lane(agent: &RealAgent) {
    agent.server.new_session(SessionOptions::new("web").size(80, 24)).await.unwrap();
    let leftover = "web: a stale leftover from an earlier delivery";
    agent.server.pane(&agent.lane).await.unwrap().paste(leftover).await.unwrap();
    agent
        .wait_for("the leftover in the box", WAIT, |r| r.input().is_some_and(|input| input.text == leftover))
        .await
        .unwrap();
    let outcome = agent.deliver_ok("ops: fresh after the leftover").await;
    assert_eq!(outcome.details().cleared_leftover.as_deref(), Some(leftover));
    agent.assert_submitted_once("ops: fresh after the leftover").await;
    agent.assert_not_submitted("stale leftover");
    let log = std::fs::read_dir(agent.dirs.state.join("log")).unwrap().flatten().next().unwrap().path();
    let log = std::fs::read_to_string(log).unwrap();
    assert!(log.lines().any(|line| line.contains("\"cleared_leftover\"") && line.contains("stale leftover")), "{log}");
    agent.idle().await;
}

async fn every_case(kind: Kind) {
    let agent = start(kind).await;
    idle_box(&agent).await;
    awkward_messages(&agent).await;
    human_draft(&agent).await;
    busy(&agent).await;
    permission_dialog(&agent).await;
    slash_menu(&agent).await;
    help_screen(&agent).await;
    concurrent_senders(&agent).await;
    leftover_from_a_live_lane(&agent).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
async fn claude_code() {
    every_case(Kind::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
async fn codex() {
    every_case(Kind::Codex).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
async fn gemini_cli() {
    every_case(Kind::Gemini).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
async fn grok_cli() {
    every_case(Kind::Grok).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
async fn qwen_code() {
    every_case(Kind::Qwen).await;
}
