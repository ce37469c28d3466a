//! `cargo bench -p tmux-habitat`: medians of the pane layer's main operations, each beside the naive way
//! measured in the same run (a fixed sleep for readiness, `capture-pane` polled every 50 ms for completion).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tmux_habitat::{Pane, Server, SessionOptions};

const T: Duration = Duration::from_secs(20);

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn percentile(mut samples: Vec<f64>, p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let idx = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[idx]
}

fn now_epoch() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

async fn ready_pane() -> (Server, Pane) {
    let server = Server::isolated().await.expect("server");
    let session = server.new_session(SessionOptions::new("bench")).await.expect("session");
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.expect("ready");
    (server, pane)
}

#[tokio::main]
async fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let n = if quick { 20 } else { 200 };

    // Server start + first pane ready.
    let mut ready = Vec::new();
    for _ in 0..(n / 10).max(5) {
        let t0 = Instant::now();
        let (_server, _pane) = ready_pane().await;
        ready.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let mut naive_ready = Vec::new();
    for _ in 0..if quick { 1 } else { 3 } {
        let t0 = Instant::now();
        let server = Server::isolated().await.expect("server");
        server.new_session(SessionOptions::new("naive")).await.expect("session");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        naive_ready.push(t0.elapsed().as_secs_f64() * 1e3);
    }

    let (_server, pane) = ready_pane().await;

    // Round trip of `true`.
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

    // Baseline: type the command, then poll capture-pane every 50 ms until its end line appears.
    let mut naive_lag = Vec::new();
    for i in 0..(n / 5).max(10) {
        let tag = format!("naive{i}");
        pane.send_line(&format!("sleep 0.02; echo {tag}=$EPOCHREALTIME")).await.expect("send");
        let ended = loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let screen = pane.capture_text().await.expect("capture");
            if let Some(v) = screen.lines().find_map(|l| l.strip_prefix(&format!("{tag}="))) {
                break v.trim().parse::<f64>().expect("epoch");
            }
        };
        naive_lag.push((now_epoch() - ended) * 1e3);
    }

    let mut capture = Vec::new();
    for _ in 0..n {
        let t0 = Instant::now();
        pane.capture_text().await.expect("capture");
        capture.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let mut send = Vec::new();
    for _ in 0..n {
        let t0 = Instant::now();
        pane.send_text(":").await.expect("send");
        send.push(t0.elapsed().as_secs_f64() * 1e3);
    }

    let (ready_m, naive_ready_m) = (median(ready), median(naive_ready));
    let (lag_m, lag_p99, naive_lag_m) = (median(lag.clone()), percentile(lag, 0.99), median(naive_lag));
    println!("tmux-habitat, subprocess transport (n = {n}; medians in ms)");
    println!("  server start + first pane ready   {ready_m:8.2}   naive fixed sleep {naive_ready_m:8.2}   ratio {:6.1}x", naive_ready_m / ready_m);
    println!("  command round trip (`true`)       {:8.2}", median(round));
    println!("  completion lag p50 / p99          {lag_m:8.2} / {lag_p99:.2}   naive 50 ms polling {naive_lag_m:8.2}   ratio {:6.1}x", naive_lag_m / lag_m);
    println!("  capture-pane (visible)            {:8.2}", median(capture));
    println!("  send literal text                 {:8.2}", median(send));
}
