//! Wall time of `clive "echo hi"` from process start to exit, cold (no tmux server) and warm (a server
//! running), beside the floor measured in the same run: the same job done with bare `tmux` commands.
//!
//! `cargo bench -p clive-cli --bench front_door` (set `CLIVE_BENCH_RUNS` to change the 40 runs per row;
//! `CLIVE_TMUX` to measure another tmux binary, for clive and the floor alike).

#![allow(clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let runs: usize = std::env::var("CLIVE_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("floor.conf");
    std::fs::write(&config, "set -g remain-on-exit on\nset -g exit-empty on\n").expect("config");

    let mut floor = Vec::new();
    let mut cold = Vec::new();
    let mut cold_left_behind = Vec::new();
    let mut cold_subprocess = Vec::new();
    let mut warm = Vec::new();
    let warm_socket = dir.path().join("warm.sock");
    start_holder(&warm_socket, &config);
    for i in 0..runs {
        floor.push(bare_tmux(&dir.path().join(format!("floor{i}.sock")), &config));
        cold.push(clive(dir.path(), &dir.path().join(format!("cold{i}.sock")), None));
        // One socket for every run: from the second on, the file the last run's server left behind (a user's
        // every run after the first).
        cold_left_behind.push(clive(dir.path(), &dir.path().join("left-behind.sock"), None));
        cold_subprocess.push(clive(dir.path(), &dir.path().join(format!("sub{i}.sock")), Some("subprocess")));
        warm.push(clive(dir.path(), &warm_socket, None));
    }
    tmux(&warm_socket, &config, &["kill-server"]);

    let floor_median = median(&mut floor);
    let version = Command::new(tmux_program()).arg("-V").output().expect("tmux -V");
    let version = String::from_utf8_lossy(&version.stdout);
    println!("clive \"echo hi\" on {}, {runs} runs each, medians:", version.trim());
    println!("  floor (bare tmux: new-session, wait-for, capture-pane, kill-server) {:>7.1} ms", ms(floor_median));
    for (name, samples) in [
        ("clive cold (no server running; control mode, clive's default)", &mut cold),
        ("clive cold, the socket file of the last run's server left behind", &mut cold_left_behind),
        ("clive cold, TMUX_HABITAT_TRANSPORT=subprocess", &mut cold_subprocess),
        ("clive warm (server running; control mode)", &mut warm),
    ] {
        let m = median(samples);
        println!("  {name:<66} {:>7.1} ms  {:.2}x floor", ms(m), m.as_secs_f64() / floor_median.as_secs_f64());
    }
}

/// The floor: start a server and a session whose command signals a channel, wait on it, capture, kill.
fn bare_tmux(socket: &Path, config: &Path) -> Duration {
    let started = Instant::now();
    let command = format!("echo hi; {} -S {} wait-for -S done", tmux_program(), socket.display());
    tmux(socket, config, &["new-session", "-d", "-s", "floor", &command]);
    tmux(socket, config, &["wait-for", "done"]);
    let screen = tmux(socket, config, &["capture-pane", "-p", "-t", "floor"]);
    tmux(socket, config, &["kill-server"]);
    let elapsed = started.elapsed();
    assert!(!screen.is_empty(), "the floor's capture-pane returned nothing");
    elapsed
}

/// The tmux binary: `CLIVE_TMUX`, else `tmux` on PATH (clive reads the same variable).
fn tmux_program() -> String {
    std::env::var("CLIVE_TMUX").unwrap_or_else(|_| "tmux".to_owned())
}

fn start_holder(socket: &Path, config: &Path) {
    tmux(socket, config, &["new-session", "-d", "-s", "holder"]);
}

fn tmux(socket: &Path, config: &Path, args: &[&str]) -> String {
    let out = Command::new(tmux_program())
        .arg("-S")
        .arg(socket)
        .arg("-f")
        .arg(config)
        .args(args)
        .env_remove("TMUX")
        .stdin(Stdio::null())
        .output()
        .expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn clive(dir: &Path, socket: &Path, transport: Option<&str>) -> Duration {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clive"));
    command
        .arg("echo hi")
        .env("CLIVE_TMUX_SOCKET", socket)
        .env("CLIVE_HOME", dir.join("home"))
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("TMUX_HABITAT_TRANSPORT")
        .stdin(Stdio::null());
    if let Some(kind) = transport {
        command.env("TMUX_HABITAT_TRANSPORT", kind);
    }
    let started = Instant::now();
    let out = command.output().expect("clive runs");
    let elapsed = started.elapsed();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi\n", "{}", String::from_utf8_lossy(&out.stderr));
    elapsed
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
