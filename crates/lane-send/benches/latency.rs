//! Delivery latency of the `lane-send` binary to an idle fake Claude pane, and the wall time of
//! 8 concurrent senders to one lane. Baseline in the same run: the naive
//! `tmux send-keys -l MSG ; send-keys Enter` (spawned the same way), timed until the agent
//! logged the submission (the naive way cannot tell on its own).
//!
//! Run: `cargo build --release -p lane-send --example fake-agent && cargo bench -p lane-send --bench latency`

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tmux_habitat::{Backoff, Server, SessionOptions};

const BIN: &str = env!("CARGO_BIN_EXE_lane-send");
const ROUNDS: usize = 20;
const CONCURRENT: usize = 8;
const CONCURRENT_ROUNDS: usize = 3;

fn fake_agent() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    dir.join("../examples/fake-agent")
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn percentile(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort();
    samples[(samples.len() * p / 100).min(samples.len() - 1)]
}

fn submissions(log: &Path) -> usize {
    std::fs::read_to_string(log).map(|text| text.lines().count()).unwrap_or(0)
}

async fn wait_for_submissions(log: &Path, count: usize) {
    let mut backoff = Backoff::with(Duration::from_millis(1), Duration::from_millis(5), Duration::from_secs(10));
    while submissions(log) < count {
        assert!(backoff.wait().await, "the agent never logged submission {count}");
    }
}

fn lane_send(server: &Server, home: &Path, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(BIN);
    command
        .env_remove("TMUX")
        .env("LANE_SEND_HOME", home)
        .arg("-S")
        .arg(server.socket_path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

#[tokio::main]
#[allow(
    clippy::disallowed_methods,
    reason = "a benchmark binary's main reports a missing prerequisite by its exit code"
)]
async fn main() {
    let agent = fake_agent();
    if !agent.exists() {
        eprintln!(
            "fake agent not found at {}; build it first: cargo build --release -p lane-send --example fake-agent",
            agent.display()
        );
        std::process::exit(1);
    }
    let home = tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}"));
    let server = Server::isolated().await.unwrap_or_else(|error| panic!("tmux: {error}"));
    let log = home.path().join("agent.jsonl");
    let command = format!("{} --style claude2 --placeholder --log {}", agent.display(), log.display());
    server
        .new_session(SessionOptions::new("api").size(120, 40).command(command))
        .await
        .unwrap_or_else(|error| panic!("session: {error}"));
    let mut ready = Backoff::new(Duration::from_secs(10));
    while !matches!(lane_send::inspect_lane(&server, "api").await, Ok(lane_send::frame::Recognition::Input(_))) {
        assert!(ready.wait().await, "fake agent did not start");
    }

    // Baseline: naive send-keys, timed until the agent logged the submission.
    let mut naive = Vec::new();
    for round in 0..ROUNDS {
        let before = submissions(&log);
        let started = Instant::now();
        let status = server
            .raw_command()
            .args([
                "send-keys",
                "-t",
                "api",
                "-l",
                &format!("bench: naive {round}"),
                ";",
                "send-keys",
                "-t",
                "api",
                "Enter",
            ])
            .status()
            .await
            .unwrap_or_else(|error| panic!("tmux: {error}"));
        assert!(status.success());
        wait_for_submissions(&log, before + 1).await;
        naive.push(started.elapsed());
    }

    // lane-send: from process start to outcome (process exit).
    let mut proven = Vec::new();
    for round in 0..ROUNDS {
        let started = Instant::now();
        let output = lane_send(&server, home.path(), &["api", &format!("bench: proven {round}")])
            .output()
            .await
            .unwrap_or_else(|error| panic!("lane-send: {error}"));
        proven.push(started.elapsed());
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
    }

    // 8 concurrent senders to one lane: wall time until the last one exits.
    let mut walls = Vec::new();
    for round in 0..CONCURRENT_ROUNDS {
        let before = submissions(&log);
        let started = Instant::now();
        let children: Vec<_> = (0..CONCURRENT)
            .map(|index| {
                lane_send(
                    &server,
                    home.path(),
                    &["--timeout", "60s", "api", &format!("bench: concurrent {round}.{index}")],
                )
                .spawn()
                .unwrap_or_else(|error| panic!("lane-send: {error}"))
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().await.unwrap_or_else(|error| panic!("lane-send: {error}"));
            assert_eq!(output.status.code(), Some(0));
        }
        walls.push(started.elapsed());
        assert_eq!(submissions(&log), before + CONCURRENT);
    }

    let naive_median = median(&mut naive);
    let proven_median = median(&mut proven);
    println!("lane-send latency to an idle fake Claude pane ({ROUNDS} rounds each)");
    println!(
        "  baseline naive send-keys + Enter (until logged): median {naive_median:?}, p90 {:?}",
        percentile(&mut naive, 90)
    );
    println!(
        "  lane-send (process start to outcome):           median {proven_median:?}, p90 {:?}",
        percentile(&mut proven, 90)
    );
    println!("  ratio lane-send / baseline: {:.2}", proven_median.as_secs_f64() / naive_median.as_secs_f64());
    println!(
        "  {CONCURRENT} concurrent senders, wall time: median {:?} over {CONCURRENT_ROUNDS} rounds ({:?} per message)",
        median(&mut walls),
        median(&mut walls) / CONCURRENT as u32
    );
    println!(
        "  goal: median <= 400ms: {}",
        if proven_median <= Duration::from_millis(400) { "met" } else { "NOT met" }
    );
}
