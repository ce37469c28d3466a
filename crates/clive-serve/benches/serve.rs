//! `cargo bench -p clive-serve --bench serve [-- --quick]`: what `clive serve` costs.
//!
//! 1. Latency from a byte printed in a pane to the text in the browser's DOM (headless Chromium, xterm.js),
//!    beside the same bytes reaching a control-mode subscriber and a WebSocket client in the same run.
//! 2. 20 viewers of a pane printing 1 MB/s: every byte reaches every viewer in order (no second snapshot,
//!    no gap), and the server's CPU, beside 1 viewer and none.
//! 3. 50 idle sessions with a page connected: the server's CPU, beside no sessions.
//!
//! The server runs as a child process (this binary, re-executed) on a current-thread runtime, as the
//! `clive` binary runs it, so its CPU time is its own (`/proc/<pid>/stat`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clive_serve::testing::{Browser, chromium_path};
use clive_serve::{AccessToken, Catalog, ServeConfig, TmuxCatalog};
use futures_util::StreamExt;
use serde_json::Value;
use tmux_habitat::{OutputEvent, Server, SessionOptions, SocketSpec};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const CHILD: &str = "CLIVE_SERVE_BENCH_SOCKET";
const T: Duration = Duration::from_secs(30);

fn main() {
    if let Ok(socket) = std::env::var(CHILD) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(child_server(PathBuf::from(socket)));
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        latency(if quick { 20 } else { 60 }).await;
        viewers(if quick { Duration::from_secs(4) } else { Duration::from_secs(10) }).await;
        idle(if quick { Duration::from_secs(4) } else { Duration::from_secs(10) }).await;
    });
}

/// The server under test: every session on `socket`, read-only, on a free port; prints its URL.
async fn child_server(socket: PathBuf) {
    let catalog: Arc<dyn Catalog> = Arc::new(TmuxCatalog::socket(SocketSpec::Path(socket), "").await.unwrap());
    let mut config = ServeConfig::new(AccessToken::generate());
    config.addr = "127.0.0.1:0".parse().unwrap();
    let server = clive_serve::serve(config, vec![catalog]).await.unwrap();
    println!("{}", server.url());
    std::io::stdout().flush().unwrap();
    server.wait().await.unwrap();
}

/// A server child process and how to reach it.
struct Child {
    process: tokio::process::Child,
    addr: String,
    token: String,
}

impl Child {
    async fn start(socket: &Path) -> Child {
        let mut process = tokio::process::Command::new(std::env::current_exe().unwrap())
            .env(CHILD, socket)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(process.stdout.take().unwrap()).lines();
        let url = tokio::time::timeout(T, lines.next_line()).await.unwrap().unwrap().unwrap();
        let rest = url.trim_start_matches("http://");
        let (addr, token) = rest.split_once("/?token=").unwrap();
        Child { process, addr: addr.to_owned(), token: token.to_owned() }
    }

    fn pid(&self) -> u32 {
        self.process.id().unwrap()
    }

    async fn listing(&self) -> Value {
        reqwest::Client::new()
            .get(format!("http://{}/api/sessions", self.addr))
            .bearer_auth(&self.token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Waits until the server lists `count` panes; returns the listing.
    async fn until_listed(&self, count: usize) -> Value {
        let mut backoff = tmux_habitat::Backoff::new(T);
        loop {
            let listing = self.listing().await;
            if listing["panes"].as_array().unwrap().len() >= count {
                return listing;
            }
            assert!(backoff.wait().await, "the server never listed {count} panes");
        }
    }

    async fn key(&self, session: &str) -> String {
        let mut backoff = tmux_habitat::Backoff::new(T);
        loop {
            let listing = self.listing().await;
            if let Some(pane) = listing["panes"].as_array().unwrap().iter().find(|p| p["session"] == session) {
                return pane["key"].as_str().unwrap().to_owned();
            }
            assert!(backoff.wait().await, "{session} never listed");
        }
    }

    async fn socket(&self, path: &str) -> Socket {
        let mut request = format!("ws://{}{path}", self.addr).into_client_request().unwrap();
        request.headers_mut().insert("authorization", format!("Bearer {}", self.token).parse().unwrap());
        tokio_tungstenite::connect_async(request).await.unwrap().0
    }
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// user + system CPU seconds of a process (clock ticks of 10 ms).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Resident memory of a process, in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn wall_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0
}

/// A tmux server with a session whose pane copies a FIFO to the terminal, and the FIFO's write end.
struct Fifo {
    writer: std::fs::File,
}

async fn fifo_pane(server: &Server, dir: &Path, name: &str) -> Fifo {
    let path = dir.join(format!("{name}.fifo"));
    let status = std::process::Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(status.success());
    let command = format!("stty -echo; exec cat {}", path.display());
    server.new_session(SessionOptions::new(name).size(120, 40).command(command)).await.unwrap();
    // Opening the write end waits for `cat` to open the read end.
    let writer =
        tokio::task::spawn_blocking(move || std::fs::OpenOptions::new().write(true).open(path)).await.unwrap().unwrap();
    Fifo { writer }
}

impl Fifo {
    fn write(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
    }
}

/// Reads a pane socket until `needle` has arrived; returns when, and checks offsets stay contiguous.
async fn read_until(socket: &mut Socket, needle: &[u8], seen: &mut Vec<u8>, offset: &mut u64) -> Instant {
    loop {
        match tokio::time::timeout(T, socket.next()).await.unwrap().unwrap().unwrap() {
            Message::Binary(bytes) => {
                let at = u64::from_be_bytes(bytes[..8].try_into().unwrap());
                assert_eq!(at, *offset, "output is contiguous");
                *offset += (bytes.len() - 8) as u64;
                seen.extend_from_slice(&bytes[8..]);
                if seen.windows(needle.len()).any(|w| w == needle) {
                    seen.clear();
                    return Instant::now();
                }
                let keep = seen.len().saturating_sub(needle.len());
                seen.drain(..keep);
            }
            Message::Text(text) => {
                let value: Value = serde_json::from_str(text.as_str()).unwrap();
                if value["type"] == "snapshot" {
                    *offset = value["offset"].as_u64().unwrap();
                }
            }
            _ => {}
        }
    }
}

async fn latency(samples: usize) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::builder().socket_path(dir.path().join("tmux.sock")).start().await.unwrap();
    let mut fifo = fifo_pane(&server, dir.path(), "latency").await;
    let pane = server.pane("latency").await.unwrap();
    let child = Child::start(server.socket_path()).await;
    let key = child.key("latency").await;

    let mut subscriber = pane.subscribe().await.unwrap();
    let mut socket = child.socket(&format!("/ws/pane/{key}")).await;
    let (mut seen, mut offset) = (Vec::new(), 0u64);
    let mut browser = match chromium_path() {
        Some(_) => Some(Browser::launch(1200, 900).await.unwrap()),
        None => None,
    };
    if let Some(browser) = browser.as_mut() {
        browser.goto(&format!("http://{}/?token={}#/pane/{key}", child.addr, child.token)).await.unwrap();
        browser.wait_for("window.clive.view && clive.view.snapshots > 0", T).await.unwrap();
    }

    let (mut to_subscriber, mut to_socket, mut to_dom) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..samples {
        let marker = format!("mark-{i:04}-end");
        if let Some(browser) = browser.as_mut() {
            let install = format!(
                "window.__mark = new Promise(resolve => {{ const rows = document.querySelector('.xterm-rows'); \
                 const check = () => {{ if (rows.textContent.includes('{marker}')) {{ observer.disconnect(); \
                 resolve(performance.timeOrigin + performance.now()); }} }}; \
                 const observer = new MutationObserver(check); \
                 observer.observe(rows, {{ subtree: true, childList: true, characterData: true }}); check(); }}); 0"
            );
            browser.eval(&install).await.unwrap();
        }
        let (t0, wall0) = (Instant::now(), wall_ms());
        fifo.write(format!("{marker}\n").as_bytes());
        let mut window = Vec::new();
        loop {
            match tokio::time::timeout(T, subscriber.recv()).await.unwrap().unwrap() {
                OutputEvent::Bytes(bytes) => window.extend_from_slice(&bytes),
                OutputEvent::Lost => panic!("the subscriber lost output"),
            }
            if window.windows(marker.len()).any(|w| w == marker.as_bytes()) {
                to_subscriber.push(t0.elapsed().as_secs_f64() * 1000.0);
                break;
            }
        }
        let at = read_until(&mut socket, marker.as_bytes(), &mut seen, &mut offset).await;
        to_socket.push((at - t0).as_secs_f64() * 1000.0);
        if let Some(browser) = browser.as_mut() {
            let shown = browser.eval("window.__mark").await.unwrap().as_f64().unwrap();
            to_dom.push(shown - wall0);
        }
    }
    println!("latency, byte printed in a pane -> seen ({samples} samples, ms)");
    let base = percentile(&to_subscriber, 0.5);
    for (name, values) in [
        ("control-mode subscriber (baseline)", &to_subscriber),
        ("WebSocket client of clive serve", &to_socket),
        ("browser DOM (xterm.js, headless Chromium)", &to_dom),
    ] {
        if values.is_empty() {
            println!("  {name:<44} skipped: no chromium on PATH");
            continue;
        }
        let (p50, p90) = (percentile(values, 0.5), percentile(values, 0.9));
        println!("  {name:<44} p50 {p50:7.2}  p90 {p90:7.2}  ({:.1}x baseline p50)", p50 / base);
    }
    if !to_dom.is_empty() {
        println!("  goal: DOM p50 <= 30 ms -> {}", if percentile(&to_dom, 0.5) <= 30.0 { "met" } else { "MISSED" });
    }
    server.kill().await.unwrap();
}

/// `viewers` clients follow a pane printing `rate` bytes a second for `duration`; returns the server's CPU
/// share of one core and the bytes each viewer got.
async fn flood(viewers: usize, duration: Duration) -> (f64, f64, f64, Vec<u64>) {
    const RATE: usize = 1 << 20;
    let dir = tempfile::tempdir().unwrap();
    let server = Server::builder().socket_path(dir.path().join("tmux.sock")).start().await.unwrap();
    let mut fifo = fifo_pane(&server, dir.path(), "flood").await;
    let tmux_pid: u32 = server
        .tmux(tmux_habitat::Command::new("display-message").args(["-p", "#{pid}"]))
        .await
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let child = Child::start(server.socket_path()).await;
    let key = child.key("flood").await;

    let mut tasks = Vec::new();
    for _ in 0..viewers {
        let mut socket = child.socket(&format!("/ws/pane/{key}")).await;
        tasks.push(tokio::spawn(async move {
            let (mut offset, mut snapshots, mut bytes) = (0u64, 0, 0u64);
            let mut tail: Vec<u8> = Vec::new();
            loop {
                match tokio::time::timeout(T, socket.next()).await.unwrap().unwrap().unwrap() {
                    Message::Binary(chunk) => {
                        let at = u64::from_be_bytes(chunk[..8].try_into().unwrap());
                        assert_eq!(at, offset, "a viewer's output is contiguous");
                        offset += (chunk.len() - 8) as u64;
                        bytes += (chunk.len() - 8) as u64;
                        tail.extend_from_slice(&chunk[8..]);
                        if tail.windows(9).any(|w| w == b"flood-end") {
                            break;
                        }
                        let keep = tail.len().saturating_sub(9);
                        tail.drain(..keep);
                    }
                    Message::Text(text) => {
                        let value: Value = serde_json::from_str(text.as_str()).unwrap();
                        if value["type"] == "snapshot" {
                            snapshots += 1;
                            offset = value["offset"].as_u64().unwrap();
                        }
                    }
                    _ => {}
                }
            }
            assert_eq!(snapshots, 1, "a viewer that keeps up never needs a second snapshot");
            bytes
        }));
    }
    // Printable lines, as an agent's output would be; paced in 16 steps a second.
    let line =
        "flood 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 the quick brown fox\n";
    let chunk: String = line.repeat(RATE / 16 / line.len());
    let (cpu0, tmux0, t0) = (cpu_seconds(child.pid()), cpu_seconds(tmux_pid), Instant::now());
    let mut tick = tokio::time::interval(Duration::from_millis(1000 / 16));
    while t0.elapsed() < duration {
        tick.tick().await;
        fifo.write(chunk.as_bytes());
    }
    fifo.write(b"flood-end\n");
    let mut got = Vec::new();
    for task in tasks {
        got.push(tokio::time::timeout(T, task).await.unwrap().unwrap());
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu = (cpu_seconds(child.pid()) - cpu0) / elapsed;
    let tmux_cpu = (cpu_seconds(tmux_pid) - tmux0) / elapsed;
    let rss = rss_mib(child.pid());
    server.kill().await.unwrap();
    (cpu, tmux_cpu, rss, got)
}

async fn viewers(duration: Duration) {
    println!("a pane printing 1 MB/s for {}s (server CPU, share of one core)", duration.as_secs());
    let mut base = None;
    for count in [0usize, 1, 20] {
        let (cpu, tmux_cpu, rss, got) = flood(count, duration).await;
        let mb_s = got.iter().map(|b| *b as f64).sum::<f64>() / got.len().max(1) as f64 / duration.as_secs_f64() / 1e6;
        let all_same = got.windows(2).all(|w| w[0] == w[1]);
        let ratio = base.map_or(String::new(), |b: f64| format!("  ({:.1}x no viewers)", cpu / b.max(0.001)));
        let delivered = if count == 0 {
            "no viewers".to_owned()
        } else {
            format!("{mb_s:.2} MB/s to each, in order, nothing dropped, all equal: {all_same}")
        };
        println!(
            "  {count:>2} viewers: clive-serve {:5.1}% (RSS {rss:.0} MiB)  tmux {:5.1}%{ratio}  {delivered}",
            cpu * 100.0,
            tmux_cpu * 100.0
        );
        base.get_or_insert(cpu);
    }
}

async fn idle_cpu(sessions: usize, duration: Duration) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::builder().socket_path(dir.path().join("tmux.sock")).start().await.unwrap();
    for i in 0..sessions {
        let session = server.new_session(SessionOptions::new(format!("idle-{i:02}")).size(100, 30)).await.unwrap();
        session.first_pane().wait_ready(T).await.unwrap();
    }
    let keep = server.new_session(SessionOptions::new("viewed").size(100, 30)).await.unwrap();
    keep.first_pane().wait_ready(T).await.unwrap();
    let child = Child::start(server.socket_path()).await;
    child.until_listed(sessions + 1).await;
    let key = child.key("viewed").await;
    // A page: the list and one pane open.
    let _list = child.socket("/ws/sessions").await;
    let _pane = child.socket(&format!("/ws/pane/{key}")).await;
    // Let start-up work (following every pane, first looks) finish before measuring.
    let settle = Instant::now() + Duration::from_secs(3);
    tokio::time::sleep_until(settle.into()).await;
    let (cpu0, t0) = (cpu_seconds(child.pid()), Instant::now());
    tokio::time::sleep(duration).await;
    let cpu = (cpu_seconds(child.pid()) - cpu0) / t0.elapsed().as_secs_f64();
    let rss = rss_mib(child.pid());
    server.kill().await.unwrap();
    (cpu, rss)
}

async fn idle(duration: Duration) {
    println!(
        "idle sessions, a page connected (list + one pane), {}s (server CPU, share of one core)",
        duration.as_secs()
    );
    let (none, none_rss) = idle_cpu(0, duration).await;
    let (fifty, fifty_rss) = idle_cpu(50, duration).await;
    println!("   1 session  (baseline): {:.2}%  RSS {none_rss:.1} MiB", none * 100.0);
    let verdict = if fifty < 0.01 { "met" } else { "MISSED" };
    println!("  51 sessions:            {:.2}%  RSS {fifty_rss:.1} MiB  (goal < 1%: {verdict})", fifty * 100.0);
}
