//! `cargo bench -p tmux-habitat --bench habitat [-- --quick]`: medians of the pane layer's main operations
//! over both transports, each beside the naive way measured in the same run (a fixed sleep for readiness,
//! `capture-pane` polled every 50 ms for completion), with ratios.

#![allow(clippy::expect_used, clippy::cast_precision_loss)]

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tmux_habitat::{Pane, Server, SessionOptions, TransportKind};

const T: Duration = Duration::from_secs(20);

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn percentile(mut samples: Vec<f64>, p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn now_epoch() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// user + system CPU seconds of this process, from /proc/self/stat (clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

async fn server(kind: TransportKind) -> Server {
    Server::builder().transport(kind).start().await.expect("server")
}

async fn ready_pane(kind: TransportKind) -> (Server, Pane) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("bench")).await.expect("session");
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.expect("ready");
    (server, pane)
}

struct Figures {
    ready: f64,
    ready_running: f64,
    round_trip: f64,
    lag_p50: f64,
    lag_p99: f64,
    capture: f64,
    send: f64,
}

async fn measure(kind: TransportKind, n: usize) -> Figures {
    let mut ready = Vec::new();
    for _ in 0..(n / 10).max(5) {
        let t0 = Instant::now();
        let (_server, _pane) = ready_pane(kind).await;
        ready.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let (server, pane) = ready_pane(kind).await;
    // A new session's pane on a server that is running already.
    let mut ready_running = Vec::new();
    for i in 0..(n / 10).max(5) {
        let t0 = Instant::now();
        let session = server.new_session(SessionOptions::new(format!("more{i}"))).await.expect("session");
        session.first_pane().wait_ready(T).await.expect("ready");
        ready_running.push(t0.elapsed().as_secs_f64() * 1e3);
        session.kill().await.expect("kill");
    }
    let mut round = Vec::new();
    for _ in 0..n {
        let t0 = Instant::now();
        pane.run("true", T).await.expect("run");
        round.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    // Completion lag: the command prints its own end time; lag = when run() returned minus that.
    let mut lag = Vec::new();
    for _ in 0..n {
        let out = pane.run("sleep 0.02; echo $EPOCHREALTIME", T).await.expect("run");
        let returned = now_epoch();
        let ended: f64 = out.output.trim().parse().expect("epoch");
        lag.push((returned - ended) * 1e3);
    }
    let mut capture = Vec::new();
    let mut send = Vec::new();
    for _ in 0..n {
        let t0 = Instant::now();
        pane.capture_text().await.expect("capture");
        capture.push(t0.elapsed().as_secs_f64() * 1e3);
        let t0 = Instant::now();
        pane.send_text(":").await.expect("send");
        send.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    Figures {
        ready: median(ready),
        ready_running: median(ready_running),
        round_trip: median(round),
        lag_p50: median(lag.clone()),
        lag_p99: percentile(lag, 0.99),
        capture: median(capture),
        send: median(send),
    }
}

/// The floor of a first pane: bare `tmux new-session -d` starting a server (until its client exits; the shell
/// in the pane may not have started yet), on a fresh socket each time, with the config of the other rows.
fn bare_server_start(n: usize) -> f64 {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("tmux.conf");
    std::fs::write(&config, "set -g remain-on-exit on\nset -g exit-empty on\n").expect("config");
    let tmux = |socket: &std::path::Path, args: &[&str]| {
        let status = std::process::Command::new("tmux")
            .arg("-S")
            .arg(socket)
            .arg("-f")
            .arg(&config)
            .args(args)
            .env_remove("TMUX")
            .stdin(std::process::Stdio::null())
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux {args:?}");
    };
    let mut started = Vec::new();
    for i in 0..(n / 10).max(5) {
        let socket = dir.path().join(format!("bare{i}.sock"));
        let t0 = Instant::now();
        tmux(&socket, &["new-session", "-d", "-s", "bare"]);
        started.push(t0.elapsed().as_secs_f64() * 1e3);
        tmux(&socket, &["kill-server"]);
    }
    median(started)
}

/// The naive ways: a fixed 1.5 s sleep for readiness; polling capture-pane every 50 ms for completion.
async fn naive(n: usize, quick: bool) -> (f64, f64) {
    let mut ready = Vec::new();
    for _ in 0..if quick { 1 } else { 3 } {
        let t0 = Instant::now();
        let server = server(TransportKind::Subprocess).await;
        server.new_session(SessionOptions::new("naive")).await.expect("session");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        ready.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let (_server, pane) = ready_pane(TransportKind::Subprocess).await;
    let mut lag = Vec::new();
    for i in 0..(n / 5).max(10) {
        let tag = format!("naive{i}=");
        pane.send_line(&format!("sleep 0.02; echo {tag}$EPOCHREALTIME")).await.expect("send");
        let ended = loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let screen = pane.capture_text().await.expect("capture");
            if let Some(v) = screen.lines().find_map(|l| l.strip_prefix(&tag)) {
                break v.trim().parse::<f64>().expect("epoch");
            }
        };
        lag.push((now_epoch() - ended) * 1e3);
    }
    (median(ready), median(lag))
}

/// CPU used by this process while following 50 idle panes for `secs` seconds (control mode: no polling).
async fn idle_watch_cpu(secs: u64) -> f64 {
    let server = server(TransportKind::Control).await;
    let session = server.new_session(SessionOptions::new("idle")).await.expect("session");
    let mut panes = vec![session.first_pane().clone()];
    for i in 1..50 {
        panes.push(session.new_window(&format!("w{i}")).await.expect("window"));
    }
    let mut streams = Vec::new();
    for pane in &panes {
        pane.wait_ready(T).await.expect("ready");
        streams.push(pane.subscribe().await.expect("subscribe"));
    }
    let before = cpu_seconds();
    let watch = async {
        let mut tasks = Vec::new();
        for mut stream in streams {
            tasks.push(tokio::spawn(async move { while stream.recv().await.is_some() {} }));
        }
        tokio::time::sleep(Duration::from_secs(secs)).await;
        for task in tasks {
            task.abort();
        }
    };
    watch.await;
    (cpu_seconds() - before) / secs as f64 * 100.0
}

#[tokio::main]
async fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let n = if quick { 20 } else { 200 };
    let control = measure(TransportKind::Control, n).await;
    let subprocess = measure(TransportKind::Subprocess, n).await;
    let bare_start = bare_server_start(n);
    let (naive_ready, naive_lag) = naive(n, quick).await;
    let idle = idle_watch_cpu(if quick { 2 } else { 10 }).await;

    println!("tmux-habitat (n = {n}; medians in ms; ratio = subprocess / control)");
    println!("  {:<34} {:>10} {:>11} {:>7}", "", "control", "subprocess", "ratio");
    let row = |name: &str, c: f64, s: f64| println!("  {name:<34} {c:>10.3} {s:>11.3} {:>6.1}x", s / c);
    row("server start + first pane ready", control.ready, subprocess.ready);
    row("first pane ready, server running", control.ready_running, subprocess.ready_running);
    row("command round trip (`true`)", control.round_trip, subprocess.round_trip);
    row("completion lag p50", control.lag_p50, subprocess.lag_p50);
    row("completion lag p99", control.lag_p99, subprocess.lag_p99);
    row("capture-pane (visible)", control.capture, subprocess.capture);
    row("send literal text", control.send, subprocess.send);
    println!("  floor, same run: bare `tmux new-session -d` starting a server {bare_start:9.3}");
    println!("  naive baselines, same run:");
    println!(
        "    readiness by fixed sleep 1.5 s      {naive_ready:9.1}   vs control {:.1}x slower",
        naive_ready / control.ready
    );
    println!(
        "    completion by 50 ms capture polling {naive_lag:9.1}   vs control lag {:.1}x slower",
        naive_lag / control.lag_p50
    );
    println!("  CPU (user+sys) watching 50 idle panes: {idle:.2} % of one core");
}
