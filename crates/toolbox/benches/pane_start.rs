//! `cargo bench -p clive-toolbox --bench pane_start [-- --quick]`: the time to open a pane until its shell reads
//! input, with and without the bubblewrap sandbox, interleaved in one run (goal: the sandbox adds ≤ 10 ms);
//! then a sandboxed pane with clive's network proxy and bridge against the same pane without them (goal: ≤ 5
//! ms more), and one HTTP request through bridge and proxy against the same request made directly (goal: ≤ 1
//! ms more). Also `bwrap … true` alone against `/bin/true`, to show what the sandbox itself costs.

#![allow(clippy::expect_used, clippy::cast_precision_loss)]

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

use clive_toolbox::{Confinement, Launcher, Network, NetworkProxy, Sandbox, SandboxPolicy};
use tmux_habitat::{Server, SessionOptions};

const BRIDGE: &str = env!("CARGO_BIN_EXE_clive-net-bridge");

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// One HTTP/1.1 request on a new connection (`target` as the request line has it), read to the end.
fn request(addr: std::net::SocketAddr, target: &str) -> f64 {
    let t0 = Instant::now();
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    write!(stream, "GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").expect("send");
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).expect("read");
    assert!(reply.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&reply));
    millis(t0)
}

/// A loopback HTTP server that answers every request with a short page.
fn http_server() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut byte) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&byte[..n]),
                    }
                }
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n");
            });
        }
    });
    addr
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let n = if quick { 10 } else { 60 };
    let sandbox = match Sandbox::locate(SandboxPolicy::default()).await {
        Ok(sandbox) => sandbox,
        Err(e) => {
            eprintln!("pane_start: no sandbox here, nothing to compare: {e}");
            return;
        }
    };
    let work = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("work dir");
    let server = Server::isolated().await.expect("server");
    let session = server.new_session(SessionOptions::new("bench").cwd(work.path())).await.expect("session");
    let plain = Launcher::new(work.path());
    let confined = Launcher::new(work.path()).sandbox(Some(sandbox.clone()));

    let (mut plain_ms, mut confined_ms) = (Vec::new(), Vec::new());
    for i in 0..n + 2 {
        for (launcher, samples) in [(&plain, &mut plain_ms), (&confined, &mut confined_ms)] {
            let t0 = Instant::now();
            let pane = launcher.open(&session, &format!("p{i}")).await.expect("pane");
            let elapsed = millis(t0);
            pane.kill().await.expect("kill");
            if i >= 2 {
                samples.push(elapsed); // The first two warm caches.
            }
        }
    }

    // The network proxy: a sandboxed pane (network off) with the bridge and its proxy socket, against the same
    // pane with nothing but its own loopback.
    let bare_net = Launcher::new(work.path()).sandbox(Some(sandbox.clone()));
    let proxied =
        bare_net.clone().bridge(Some(BRIDGE.into())).pane_network("web", Network::hosts(vec!["127.0.0.1".into()]));
    let (mut unproxied_ms, mut proxied_ms) = (Vec::new(), Vec::new());
    for i in 0..n + 2 {
        for (launcher, samples) in [(&bare_net, &mut unproxied_ms), (&proxied, &mut proxied_ms)] {
            let t0 = Instant::now();
            let pane = launcher.open(&session, "web").await.expect("pane");
            let elapsed = millis(t0);
            pane.kill().await.expect("kill");
            if i >= 2 {
                samples.push(elapsed);
            }
        }
    }

    // One request: straight to the server, against through the bridge (outside a sandbox here, the same code)
    // and the proxy.
    let server_addr = http_server();
    let proxy = NetworkProxy::start(None).expect("proxy");
    let socket = proxy.listen("bench", Network::hosts(vec!["127.0.0.1".into()])).expect("proxy socket");
    let port = TcpListener::bind("127.0.0.1:0").expect("free port").local_addr().expect("port").port();
    let mut bridge = std::process::Command::new(BRIDGE)
        .args([
            clive_toolbox::bridge::BRIDGE_FLAG,
            &socket.display().to_string(),
            &port.to_string(),
            "--",
            "sleep",
            "600",
        ])
        .spawn()
        .expect("bridge");
    let bridge_addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    let ready = Instant::now();
    while TcpStream::connect(bridge_addr).is_err() {
        assert!(ready.elapsed().as_secs() < 10, "the bridge did not listen");
        std::thread::yield_now();
    }
    let target = format!("http://{server_addr}/");
    let requests = n * 10;
    let (direct, through) = tokio::task::spawn_blocking(move || {
        let (mut direct, mut through) = (Vec::new(), Vec::new());
        for i in 0..requests + 20 {
            let (d, t) = (request(server_addr, "/"), request(bridge_addr, &target));
            if i >= 20 {
                direct.push(d);
                through.push(t);
            }
        }
        (direct, through)
    })
    .await
    .expect("requests");
    let _ = bridge.kill();
    let _ = bridge.wait();

    // The sandbox alone: bwrap with the same mounts running `true`, against `true` itself.
    let argv =
        sandbox.command(&Confinement::new(work.path()), &[], &["/bin/true".to_owned()]).expect("sandbox command");
    let spawn = |argv: &[String]| {
        let t0 = Instant::now();
        let status = std::process::Command::new(&argv[0]).args(&argv[1..]).status().expect("spawn");
        assert!(status.success());
        millis(t0)
    };
    let (mut bare, mut wrapped) = (Vec::new(), Vec::new());
    for _ in 0..n {
        bare.push(spawn(&["/bin/true".to_owned()]));
        wrapped.push(spawn(&argv));
    }

    let (p, c) = (median(plain_ms), median(confined_ms));
    let (b, w) = (median(bare), median(wrapped));
    println!("pane start until the shell reads input, n = {n}, interleaved:");
    println!("  plain      {p:7.2} ms");
    println!("  sandboxed  {c:7.2} ms   (+{:.2} ms, {:.2}x; goal: at most +10 ms)", c - p, c / p);
    let (u, x) = (median(unproxied_ms), median(proxied_ms));
    println!("sandboxed pane start, network off, n = {n}, interleaved:");
    println!("  no proxy         {u:7.2} ms");
    println!("  proxy + bridge   {x:7.2} ms   (+{:.2} ms, {:.2}x; goal: at most +5 ms)", x - u, x / u);
    let (d, t) = (median(direct), median(through));
    println!("one HTTP request on loopback, new connection each, n = {requests}, interleaved:");
    println!("  direct           {d:7.3} ms");
    println!("  bridge + proxy   {t:7.3} ms   (+{:.3} ms, {:.2}x; goal: at most +1 ms)", t - d, t / d);
    println!("process start alone:");
    println!("  /bin/true        {b:6.2} ms");
    println!("  bwrap /bin/true  {w:6.2} ms   (+{:.2} ms)", w - b);
}
