//! Delivery latency of the `lane-send` binary into each pinned real agent (Claude Code, Codex, Gemini CLI,
//! Grok, Qwen Code), offline against `llm::testing::AgentBackend`, beside the naive baseline measured in the
//! same run: `tmux send-keys -l MSG ; send-keys Enter` in one tmux call, timed until the backend received the
//! message (the naive way cannot tell on its own, and may not arrive at all). Then 4 concurrent `lane-send`
//! processes into real Claude Code: each one's time from process start to its outcome.
//!
//! One agent at a time, each in its own HOME and tmux server; the box is idle and empty before every round.
//! Run: `cargo bench -p lane-send --bench real_agents` (`REAL_AGENTS=claude,codex` for a subset,
//! `REAL_AGENT_ROUNDS` for the rounds, default 10). Needs the agents (`scripts/agents/setup.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark: a panic is the report

#[path = "../tests/real/mod.rs"]
mod real;

use std::process::Stdio;
use std::time::{Duration, Instant};

use real::{Kind, RealAgent};
use tmux_habitat::{Backoff, Key};

const BIN: &str = env!("CARGO_BIN_EXE_lane-send");
const CONCURRENT: usize = 4;
const CONCURRENT_ROUNDS: usize = 3;
/// How long the naive way is given to reach the model before the round counts as lost.
const NAIVE_PATIENCE: Duration = Duration::from_secs(5);

fn median(samples: &[Duration]) -> Option<Duration> {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied()
}

fn ms(duration: Option<Duration>) -> String {
    duration.map_or("-".to_string(), |d| format!("{} ms", d.as_millis()))
}

async fn idle(agent: &RealAgent) {
    agent
        .wait_for("idle, empty box", Duration::from_secs(30), |recognition| {
            recognition.input().is_some_and(|input| input.is_empty() && !input.busy)
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
}

async fn submitted(agent: &RealAgent, message: &str, patience: Duration) -> bool {
    let mut backoff = Backoff::with(Duration::from_millis(1), Duration::from_millis(5), patience);
    loop {
        if agent.backend.submitted().iter().any(|text| text == message) {
            return true;
        }
        if !backoff.wait().await {
            return false;
        }
    }
}

fn lane_send(agent: &RealAgent, message: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(BIN);
    command
        .env_remove("TMUX")
        .env("LANE_SEND_HOME", agent.home.path().join("lane-send"))
        .args(["--timeout", "30s", "-S"])
        .arg(agent.server.socket_path())
        .args([agent.lane.as_str(), message])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

struct Row {
    kind: Kind,
    naive: Vec<Duration>,
    naive_lost: usize,
    proven: Vec<Duration>,
    held: usize,
}

async fn measure(kind: Kind, rounds: usize) -> Row {
    let agent = RealAgent::start(kind, "api").await.unwrap_or_else(|error| panic!("{error}"));
    let mut row = Row { kind, naive: Vec::new(), naive_lost: 0, proven: Vec::new(), held: 0 };
    for round in 0..rounds {
        // Interleaved: one naive round, one lane-send round, each into an idle, empty box.
        idle(&agent).await;
        let message = format!("bench: naive {round}");
        let started = Instant::now();
        let status = agent
            .server
            .raw_command()
            .args(["send-keys", "-t", "api", "-l", &message, ";", "send-keys", "-t", "api", "Enter"])
            .status()
            .await
            .unwrap();
        assert!(status.success());
        if submitted(&agent, &message, NAIVE_PATIENCE).await {
            row.naive.push(started.elapsed());
        } else {
            row.naive_lost += 1;
            // Left in the box as a draft or a newline: clear it for the next round.
            let pane = agent.server.pane("api").await.unwrap();
            for _ in 0..3 {
                lane_send::press_keys(&pane, &[Key::End, Key::CTRL_U, Key::Backspace]).await.unwrap();
            }
        }
        idle(&agent).await;
        let message = format!("bench: proven {round}");
        let started = Instant::now();
        let output = lane_send(&agent, &message).output().await.unwrap();
        let elapsed = started.elapsed();
        if output.status.code() == Some(0) {
            row.proven.push(elapsed);
        } else {
            row.held += 1;
            eprintln!("{}: held: {}", kind.name(), String::from_utf8_lossy(&output.stdout).trim());
        }
        assert!(submitted(&agent, &message, Duration::from_secs(10)).await || output.status.code() != Some(0));
    }
    row
}

/// 4 `lane-send` processes into one real Claude at once: each one's time from its start to its outcome.
async fn concurrent_into_claude() -> Vec<Duration> {
    let agent = RealAgent::start(Kind::Claude, "api").await.unwrap_or_else(|error| panic!("{error}"));
    let mut each = Vec::new();
    for round in 0..CONCURRENT_ROUNDS {
        idle(&agent).await;
        let children: Vec<_> = (0..CONCURRENT)
            .map(|index| {
                let started = Instant::now();
                let child = lane_send(&agent, &format!("bench: concurrent {round}.{index}")).spawn().unwrap();
                (started, child)
            })
            .collect();
        for (started, child) in children {
            let output = child.wait_with_output().await.unwrap();
            assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
            each.push(started.elapsed());
        }
        for index in 0..CONCURRENT {
            assert!(submitted(&agent, &format!("bench: concurrent {round}.{index}"), Duration::from_secs(10)).await);
        }
    }
    each
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if let Err(reason) = real::agents_prefix() {
        eprintln!("SKIPPED: the real agents are not installed: {reason}");
        return;
    }
    let rounds: usize = std::env::var("REAL_AGENT_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(10);
    let wanted = std::env::var("REAL_AGENTS").unwrap_or_default();
    let kinds: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|kind| wanted.is_empty() || wanted.split(',').any(|name| name == kind.name()))
        .collect();
    println!("lane-send into real agents, idle box, {rounds} rounds each (process start to outcome)");
    println!("| agent | naive send-keys + Enter (until the model got it) | lane-send | goal ≤ 400 ms |");
    println!("|---|---|---|---|");
    for kind in kinds {
        let row = measure(kind, rounds).await;
        let naive = format!("{} ({} of {rounds} never arrived)", ms(median(&row.naive)), row.naive_lost);
        let proven = median(&row.proven);
        let held = if row.held > 0 { format!(" ({} held)", row.held) } else { String::new() };
        let goal = proven.is_some_and(|p| p <= Duration::from_millis(400));
        println!("| {} | {naive} | {}{held} | {} |", row.kind.name(), ms(proven), if goal { "met" } else { "NOT met" });
    }
    if wanted.is_empty() || wanted.split(',').any(|name| name == "claude") {
        let each = concurrent_into_claude().await;
        let slowest = each.iter().max().copied();
        println!(
            "{CONCURRENT} concurrent lane-send processes into Claude Code, {CONCURRENT_ROUNDS} rounds: median {}, slowest {} (goal: each within 1.5 s: {})",
            ms(median(&each)),
            ms(slowest),
            if slowest.is_some_and(|s| s <= Duration::from_millis(1500)) { "met" } else { "NOT met" }
        );
    }
}
