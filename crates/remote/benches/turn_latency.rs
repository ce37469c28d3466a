//! From the inner's `TURN: done` to the outer acting on it: the model-free driver ([`clive_remote::AgentSession`])
//! following an agent pane over a real ssh connection (sshd on loopback), against the same inner in a local
//! pane (the baseline, measured in the same run). The inner is a small emitter (python3) that speaks the turn
//! protocol with the nonce and stamps the time just before its `TURN: done`.
//!
//! `cargo bench -p clive-remote --features testing --bench turn_latency` (needs sshd: apt-get install openssh-server).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clive_remote::testing::Sshd;
use clive_remote::{AgentHost, AgentSession, SshCommand, Update, open_agent_pane};
use tmux_habitat::{Pane, Server, Session, SessionOptions, WindowOptions};
use turn_protocol::{NONCE_ENV_VAR, Nonce};

const ROUNDS: usize = 15;

/// The inner: `TURN: waiting`, reads the task, thinks 0.3 s, stamps the time, `CONTEXT` + `TURN: done`.
const EMITTER: &str = r#"
import hashlib, hmac, os, sys, time
key = bytes.fromhex(os.environ["CLIVE_TURN_NONCE"]); seq = [0]
def say(body):
    seq[0] += 1
    tag = hmac.new(key, ("clive-turn/1\n%d\n%s" % (seq[0], body)).encode(), hashlib.sha256).hexdigest()[:8]
    sys.stdout.write("%s [%d %s]\n" % (body, seq[0], tag)); sys.stdout.flush()
say("TURN: waiting"); sys.stdin.readline(); say("TURN: thinking"); time.sleep(0.3)
say('CONTEXT: {"result":"%.6f"}' % time.time()); say("TURN: done"); sys.stdin.readline()
"#;

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// One conversation on `pane`: the milliseconds from the inner's stamp to `next()` returning `Done`, and the
/// captures the driver read.
async fn converse(pane: Pane, nonce: Nonce) -> (f64, u64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut session = AgentSession::follow(pane, nonce, Duration::from_secs(60)).await.unwrap();
    loop {
        match session.next(deadline).await.unwrap() {
            Update::NeedsAnswer { .. } => session.send_line("go").await.unwrap(),
            Update::Done { context } => {
                let acted = now();
                let stamped: f64 = context.unwrap().result().unwrap().parse().unwrap();
                let _ = session.pane().kill().await;
                return ((acted - stamped) * 1000.0, session.stats().captures);
            }
            Update::Progress(_) => {}
            other => panic!("unexpected {other:?}\n{}", session.screen()),
        }
    }
}

async fn local_round(session: &Session, index: usize) -> (f64, u64) {
    let nonce = Nonce::generate();
    let window = WindowOptions::new(format!("local-{index}"))
        .env(NONCE_ENV_VAR, nonce.to_hex())
        .program(["python3", "-c", EMITTER]);
    let pane = session.open_window(window).await.unwrap();
    converse(pane, nonce).await
}

async fn ssh_round(session: &Session, ssh: &SshCommand, index: usize) -> (f64, u64) {
    let nonce = Nonce::generate();
    let env = [(NONCE_ENV_VAR.to_owned(), nonce.to_hex())];
    let pane = open_agent_pane(session, &format!("ssh-{index}"), ssh, &env).await.unwrap();
    converse(pane, nonce).await
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if let Err(why) = clive_remote::testing::available() {
        eprintln!("turn_latency: skipped: {why}");
        return;
    }
    let sshd = Sshd::builder().accept_env([NONCE_ENV_VAR]).start().await.unwrap();
    let control = tempfile::tempdir().unwrap();
    let settings = sshd.agent_settings();
    let agent = AgentHost {
        alias: "bench".into(),
        destination: "127.0.0.1".into(),
        port: settings.port,
        identity: settings.identity.clone(),
        options: settings.options.clone().into_iter().collect(),
        command: vec!["python3".into()],
        toolset: None,
        connect_timeout: Duration::from_secs(5),
        source: clive_remote::Source::Registry,
    };
    let ssh =
        SshCommand::new(&agent, std::iter::empty()).control_dir(control.path()).remote(["python3", "-c", EMITTER]);
    let server = Server::isolated().await.unwrap();
    let session = server.new_session(SessionOptions::new("bench")).await.unwrap();
    let (mut local, mut over_ssh, mut captures) = (Vec::new(), Vec::new(), Vec::new());
    for index in 0..ROUNDS {
        local.push(local_round(&session, index).await.0);
        let (ms, reads) = ssh_round(&session, &ssh, index).await;
        over_ssh.push(ms);
        captures.push(reads as f64);
    }
    let (local, over_ssh) = (median(local), median(over_ssh));
    println!("turn_latency ({ROUNDS} rounds each, medians)");
    println!("  TURN: done → outer acts, local pane (baseline): {local:7.2} ms");
    println!("  TURN: done → outer acts, over ssh (loopback):   {over_ssh:7.2} ms   ratio {:.2}×", over_ssh / local);
    println!("  captures read per conversation over ssh:       {:7.0}", median(captures));
}
