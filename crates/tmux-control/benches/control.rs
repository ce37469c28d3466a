//! Benchmarks of tmux-control (run with `cargo bench -p tmux-control`).
//!
//! 1. `%output` parsing and decoding throughput in MB/s of control-mode input
//!    (goal: ≥ 40 MB/s).
//! 2. Command round trip over a live control connection versus a `tmux`
//!    subprocess running the same command against the same server, measured
//!    in the same run, alternating sample by sample so background load hits
//!    both alike (goals: control p50 ≤ 0.15 ms and ≥ 10× faster).
//! 3. Pipelined commands: cost per command when many are in flight.
//! 4. Live pane output: bytes per second a pane's flood reaches a subscriber.

// A benchmark binary stops at the first failed setup step; that is its error handling.
#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use support::{TmuxServer, type_line};
use tmux_control::{Connection, ConnectionOptions, Event, PaneEvent, Parser, encode_output};

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    println!("tmux-control benchmarks (medians of repeated runs)\n");
    decode_throughput();
    runtime.block_on(live_benchmarks());
}

/// A realistic `%output` stream: shell-like text lines with CR LF, colour
/// escapes, a backslash and UTF-8, in tmux-sized chunks for a few panes.
fn sample_stream(target_bytes: usize) -> (Vec<u8>, usize) {
    let mut raw = Vec::new();
    let mut line = 0;
    while raw.len() < 4096 {
        raw.extend_from_slice(
            format!("\x1b[1;32m{line:>5}\x1b[0m build step ✓ src/path\\file.rs: compiling crate number {line}\r\n")
                .as_bytes(),
        );
        line += 1;
    }
    let mut stream = Vec::with_capacity(target_bytes + 8192);
    let mut decoded = 0;
    let mut pane = 0;
    while stream.len() < target_bytes {
        for chunk in raw.chunks(1024) {
            stream.extend_from_slice(format!("%output %{pane} ").as_bytes());
            stream.extend_from_slice(&encode_output(chunk));
            stream.push(b'\n');
            decoded += chunk.len();
        }
        pane = (pane + 1) % 4;
    }
    (stream, decoded)
}

fn median(samples: &mut [f64]) -> f64 {
    percentile(samples, 0.5)
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let index = ((samples.len() - 1) as f64 * p).round() as usize;
    samples[index]
}

fn decode_throughput() {
    let (stream, decoded) = sample_stream(32 << 20);
    let mut parser_rates = Vec::new();
    let mut decode_rates = Vec::new();
    for _ in 0..7 {
        let started = Instant::now();
        let mut parser = Parser::new();
        let mut out = 0usize;
        // 64 KiB reads, as the driver does.
        for chunk in stream.chunks(64 * 1024) {
            parser.push(chunk);
            while let Some(event) = parser.next_event() {
                if let Event::Output { data, .. } = event {
                    out += data.len();
                }
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        assert_eq!(out, decoded);
        parser_rates.push(stream.len() as f64 / elapsed / 1e6);

        let started = Instant::now();
        let mut buffer = Vec::with_capacity(2048);
        let mut total = 0;
        for line in stream.split(|&b| b == b'\n') {
            if let Some(at) = line.iter().skip(9).position(|&b| b == b' ') {
                buffer.clear();
                tmux_control::decode_output_into(&line[9 + at + 1..], &mut buffer);
                total += buffer.len();
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        assert_eq!(total, decoded);
        decode_rates.push(stream.len() as f64 / elapsed / 1e6);
    }
    println!("%output throughput over {:.1} MB of control-mode input:", stream.len() as f64 / 1e6);
    println!("  Parser (lines + events + decode): median {:8.1} MB/s  (goal >= 40)", median(&mut parser_rates));
    println!("  decode_output_into alone:         median {:8.1} MB/s\n", median(&mut decode_rates));
}

async fn live_benchmarks() {
    let server = TmuxServer::start().await;
    let (connection, _events) =
        server.connect_with(ConnectionOptions { output_budget_bytes: 256 << 20, ..ConnectionOptions::default() });
    let pane = server.first_pane(&connection).await;
    round_trips(&server, &connection).await;
    pipelined(&connection).await;
    pane_flood(&connection, pane).await;
}

async fn round_trips(server: &TmuxServer, connection: &Connection) {
    const COMMAND: &str = "display-message -p '#{pane_id}'";
    const SAMPLES: usize = 500;
    const WARM_UP: usize = 20;
    let mut control = Vec::with_capacity(SAMPLES);
    let mut subprocess = Vec::with_capacity(SAMPLES);
    for round in 0..SAMPLES + WARM_UP {
        let started = Instant::now();
        let reply = connection.command(COMMAND).await.expect("control command");
        let control_ms = started.elapsed().as_secs_f64() * 1e3;
        assert!(reply.ok);

        let started = Instant::now();
        let output = server.tmux(&["display-message", "-p", "#{pane_id}"]).await;
        let subprocess_ms = started.elapsed().as_secs_f64() * 1e3;
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), reply.text());

        if round >= WARM_UP {
            control.push(control_ms);
            subprocess.push(subprocess_ms);
        }
    }
    let (control_p50, control_p99) = (median(&mut control), percentile(&mut control, 0.99));
    let (sub_p50, sub_p99) = (median(&mut subprocess), percentile(&mut subprocess, 0.99));
    println!("command round trip `{COMMAND}`, n = {SAMPLES} each, alternating:");
    println!("  control connection:  p50 {control_p50:7.3} ms  p99 {control_p99:7.3} ms  (goal p50 <= 0.15)");
    println!("  tmux subprocess:     p50 {sub_p50:7.3} ms  p99 {sub_p99:7.3} ms");
    println!("  subprocess / control (p50): {:.1}x  (goal >= 10x)\n", sub_p50 / control_p50);
}

async fn pipelined(connection: &Connection) {
    const BATCH: usize = 100;
    let mut per_command = Vec::new();
    for _ in 0..30 {
        let started = Instant::now();
        let replies = (0..BATCH).map(|i| {
            let connection = connection.clone();
            tokio::spawn(async move { connection.command(format!("display-message -p {i}")).await })
        });
        let handles: Vec<_> = replies.collect();
        for handle in handles {
            assert!(handle.await.expect("task").expect("reply").ok);
        }
        per_command.push(started.elapsed().as_secs_f64() * 1e3 / BATCH as f64);
    }
    println!("pipelined: {BATCH} commands in flight, 30 batches:");
    println!("  per command: median {:.4} ms\n", median(&mut per_command));
}

/// How long one 40 MB flood may take before the benchmark gives up.
const FLOOD_DEADLINE: Duration = Duration::from_secs(180);

/// The pane text of one flood run and the marker that ends it (computed by
/// the shell so the echoed command line does not contain it).
fn flood_command(bytes: usize, run: usize) -> (String, Vec<u8>) {
    let marker = format!("FLOOD-END-{run}-");
    let command = format!("head -c {bytes} /dev/zero | tr '\\0' a | fold -w 199; echo {marker}$((6*7))");
    (command, format!("{marker}42").into_bytes())
}

/// Keeps the last bytes of a stream to find a marker split across chunks.
struct MarkerScan {
    needle: Vec<u8>,
    tail: Vec<u8>,
}

impl MarkerScan {
    fn found_in(&mut self, chunk: &[u8]) -> bool {
        self.tail.extend_from_slice(chunk);
        if self.tail.windows(self.needle.len()).any(|w| w == self.needle) {
            return true;
        }
        let keep = self.tail.len().saturating_sub(self.needle.len());
        self.tail.drain(..keep);
        false
    }
}

/// Pane text per second through the driver to a subscriber, against a raw
/// control client on its own server whose output is read and discarded
/// unparsed (the floor set by tmux itself), alternating run by run.
async fn pane_flood(connection: &Connection, pane: tmux_control::PaneId) {
    use tokio::io::AsyncReadExt;
    const BYTES: usize = 40_000_000;
    let raw_server = TmuxServer::start().await;
    let mut raw_client = raw_server.spawn_control_client();
    let mut raw_stdout = raw_client.stdout.take().expect("piped stdout");
    let mut driver_rates = Vec::new();
    let mut raw_rates = Vec::new();
    for run in 0..3 {
        let (command, needle) = flood_command(BYTES, run);
        let mut output = connection.subscribe_output(pane);
        let mut scan = MarkerScan { needle: needle.clone(), tail: Vec::new() };
        let started = Instant::now();
        type_line(connection, pane, &command).await;
        let finished = tokio::time::timeout(FLOOD_DEADLINE, async {
            while let Some(event) = output.recv().await {
                if let PaneEvent::Output(bytes) = event
                    && scan.found_in(&bytes)
                {
                    return;
                }
            }
        })
        .await;
        assert!(finished.is_ok(), "driver flood did not finish within {FLOOD_DEADLINE:?}");
        driver_rates.push(BYTES as f64 / started.elapsed().as_secs_f64() / 1e6);

        let mut scan = MarkerScan { needle, tail: Vec::new() };
        let started = Instant::now();
        raw_server.tmux(&["send-keys", "-t", support::SESSION, "-l", &command]).await;
        raw_server.tmux(&["send-keys", "-t", support::SESSION, "Enter"]).await;
        let mut buffer = vec![0u8; 64 * 1024];
        let finished = tokio::time::timeout(FLOOD_DEADLINE, async {
            loop {
                let read = raw_stdout.read(&mut buffer).await.expect("read tmux -C");
                assert!(read > 0, "raw control client ended");
                if scan.found_in(&buffer[..read]) {
                    return;
                }
            }
        })
        .await;
        assert!(finished.is_ok(), "raw flood did not finish within {FLOOD_DEADLINE:?}");
        raw_rates.push(BYTES as f64 / started.elapsed().as_secs_f64() / 1e6);
    }
    let (driver, raw) = (median(&mut driver_rates), median(&mut raw_rates));
    println!("live pane flood: 40 MB of text printed in a pane (3 runs each, alternating):");
    println!("  through Connection to a subscriber:     median {driver:6.1} MB/s");
    println!("  raw tmux -C client, output discarded:   median {raw:6.1} MB/s (tmux's floor)");
    println!("  driver / raw: {:.2}", driver / raw);
}
