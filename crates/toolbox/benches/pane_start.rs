//! `cargo bench -p toolbox --bench pane_start [-- --quick]`: the time to open a pane until its shell reads
//! input, with and without the bubblewrap sandbox, interleaved in one run (goal: the sandbox adds ≤ 10 ms).
//! Also `bwrap … true` alone against `/bin/true`, to show what the sandbox itself costs.

#![allow(clippy::expect_used, clippy::cast_precision_loss)]

use std::time::Instant;

use tmux_habitat::{Server, SessionOptions};
use toolbox::{Confinement, Launcher, Sandbox, SandboxPolicy};

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

#[tokio::main(flavor = "current_thread")]
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
    println!("process start alone:");
    println!("  /bin/true        {b:6.2} ms");
    println!("  bwrap /bin/true  {w:6.2} ms   (+{:.2} ms)", w - b);
}
