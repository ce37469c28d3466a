//! What the outer clive spends while a remote clive works: `clive "clive@devbox …"` through a real sshd on
//! loopback, the inner's model (the scripted fake) thinking `CLIVE_BENCH_THINK_SECS` (default 5 s; the issue's
//! figure is 30 s: the outer's cost does not depend on it) before it answers. Counted: the outer's model calls
//! and tokens (its own fake server's requests) and wall time, beside the baseline measured in the same run: the
//! same task run by the inner clive directly on the host (no ssh, no outer).
//!
//! `cargo bench -p clive-cli --bench remote` (needs sshd: apt-get install openssh-server).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use llm::testing::{FakeServer, Reply, Tokens, wire};
use remote::testing::Sshd;

const ROUNDS: usize = 3;

fn main() {
    if let Err(why) = remote::testing::available() {
        eprintln!("remote bench: skipped: {why}");
        return;
    }
    let think =
        Duration::from_secs(std::env::var("CLIVE_BENCH_THINK_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(5));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let outer_model = runtime.block_on(FakeServer::start()).unwrap();
    let inner_model = runtime.block_on(FakeServer::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let inner_home = dir.path().join("inner-home");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let inner_url = format!("{}/v1", inner_model.url());
    let mut names = vec![remote::NONCE_ENV_VAR];
    names.extend(llm::PROVIDER_VARIABLES.iter().map(|(name, _)| *name));
    let sshd = runtime
        .block_on(
            Sshd::builder()
                .accept_env(names)
                .set_env("CLIVE_HOME", inner_home.display().to_string())
                .set_env("CLIVE_TMUX_SOCKET", dir.path().join("inner.sock").display().to_string())
                .set_env("OPENAI_BASE_URL", &inner_url)
                .start(),
        )
        .unwrap();
    let clive = env!("CARGO_BIN_EXE_clive");
    let config = dir.path().join("config.yaml");
    let work_arg = work.display().to_string();
    std::fs::write(&config, format!("agents:\n{}", sshd.registry_yaml("devbox", &[clive, "-C", &work_arg]))).unwrap();
    let thinking = |server: &FakeServer| {
        let body =
            wire::openai::completion(r#"{"kind":"answer","text":"thought it through"}"#, "stop", Tokens::new(100, 10));
        server.push(Reply::json(200, body).headers_delay(think));
    };
    let (mut remote_walls, mut local_walls, mut outer_calls, mut outer_tokens) = (Vec::new(), Vec::new(), 0, 0);
    for round in 0..ROUNDS {
        thinking(&inner_model);
        let before = outer_model.requests().len();
        let started = Instant::now();
        let out = run(
            clive,
            dir.path(),
            &config,
            &["--json", "clive@devbox think it through"],
            &format!("{}/v1", outer_model.url()),
            round,
        );
        remote_walls.push(started.elapsed());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["answer"], "thought it through");
        outer_calls += outer_model.requests().len() - before;
        outer_tokens += report["tokens"].as_u64().unwrap_or(0);
        // The baseline: the same task by the inner clive itself, on the host, with the same slow model.
        thinking(&inner_model);
        let started = Instant::now();
        let out = run(clive, &work, &config, &["--json", "think it through"], &inner_url, round + 100);
        local_walls.push(started.elapsed());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (remote_wall, local_wall) = (median(remote_walls), median(local_walls));
    println!("remote ({ROUNDS} rounds, inner thinks {} s, medians)", think.as_secs());
    println!(
        "  outer model calls per task: {} (hand-off by rule, none while thinking, result read without a model)",
        outer_calls / ROUNDS
    );
    println!("  outer tokens per task:      {}", outer_tokens / ROUNDS as u64);
    println!("  wall, clive@devbox over ssh: {:6.2} s", remote_wall.as_secs_f64());
    println!(
        "  wall, same task on the host: {:6.2} s (baseline)   ratio {:.2}×, overhead {:.2} s",
        local_wall.as_secs_f64(),
        remote_wall.as_secs_f64() / local_wall.as_secs_f64(),
        remote_wall.as_secs_f64() - local_wall.as_secs_f64()
    );
    drop(sshd);
}

fn run(clive: &str, cwd: &Path, config: &Path, args: &[&str], base_url: &str, round: usize) -> std::process::Output {
    let dir = cwd.parent().unwrap_or(cwd);
    Command::new(clive)
        .args(args)
        .current_dir(cwd)
        .env("CLIVE_CONFIG", config)
        .env("CLIVE_HOME", dir.join(format!("outer-home-{round}")))
        .env("CLIVE_TMUX_SOCKET", dir.join(format!("outer-{round}.sock")))
        .env("XDG_RUNTIME_DIR", dir)
        .env("OPENAI_API_KEY", "sk-bench")
        .env("OPENAI_BASE_URL", base_url)
        .env_remove("TMUX")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap()
}
