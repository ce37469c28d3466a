//! clive's own time per model turn (`cargo bench -p clive-agent`): everything but the model's reply and the command's
//! runtime, with the fake model answering at once.
//!
//! One interactive subtask of 20 turns (19 × `run :`, then `done`) on a real tmux server (each transport), against
//! baselines measured in the same run: one bare HTTP call to the fake server (what the model call costs at
//! least), and one bare `Pane::run(":")` (what typing a command and seeing its signalled end costs at least).
//! clive's own time per turn is the turn's median minus both.
//!
//! Then the tokens of a typical turn's prompt: counted by the local model's tokenizer when `LOCAL_LLM_URL` is
//! set (scripts/local-llm/start.sh), else estimated at 4 characters per token.
//!
//! `AGENT_BENCH_QUICK=1` runs fewer iterations.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use clive_agent::observe::Observation;
use clive_agent::prompt::{
    Exchange, FirstTurn, INTERACTIVE_SYSTEM, Next, Prompt, Step, Workplace, interactive_conversation, interactive_first,
};
use clive_agent::{Agent, PaneProfile};
use dag_sched::{PanePool, RunOptions, ValidatedPlan};
use llm::testing::{FakeServer, Reply, Tokens, wire};
use llm::{ChatRequest, ProviderKind};
use tmux_habitat::{Server, SessionOptions, TransportKind};

const TURNS: usize = 20;

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = std::env::var_os("AGENT_BENCH_QUICK").is_some();
    let runs = if quick { 3 } else { 15 };
    for transport in [TransportKind::Control, TransportKind::Subprocess] {
        measure(transport, runs).await;
    }
    tokens_of_a_typical_turn().await;
}

async fn measure(transport: TransportKind, runs: usize) {
    let fake = FakeServer::start().await.expect("fake server");
    let model = llm::connect(fake.config(ProviderKind::OpenAiCompatible)).expect("client");
    let server = Server::builder().transport(transport).start().await.expect("tmux");
    let work = tempfile::tempdir().expect("tempdir");
    let session = server.new_session(SessionOptions::new("bench").cwd(work.path())).await.expect("session");
    let pane = session.first_pane().clone();
    pane.wait_ready(Duration::from_secs(10)).await.expect("ready");

    // Baseline 1: a bare model call.
    let mut calls = Vec::new();
    for _ in 0..runs * TURNS {
        fake.push(Reply::json(200, wire::openai::completion("{}", "stop", Tokens::new(10, 1))));
        let started = Instant::now();
        model.chat(&ChatRequest::new("hi").max_tokens(5)).await.expect("call");
        calls.push(started.elapsed());
    }
    // Baseline 2: a bare typed command with its signalled end.
    let mut commands = Vec::new();
    for _ in 0..runs * TURNS {
        let started = Instant::now();
        pane.run(":", Duration::from_secs(5)).await.expect("run");
        commands.push(started.elapsed());
    }

    // The agent: one subtask of TURNS turns, each pane shared through one pool.
    let pool = Arc::new(PanePool::new(session.clone()));
    pool.insert("shell", pane.clone()).await;
    let agent = Agent::builder(model.clone()).pool(pool).build();
    let plan = ValidatedPlan::from_json(
        r#"{"version":1,"subtasks":[{"id":"t","pane":"shell","mode":"interactive","description":"do nothing, twenty times"}]}"#,
    )
    .expect("plan");
    let run = serde_json::json!({"action": "run", "command": ":"}).to_string();
    let done = serde_json::json!({"action": "done", "summary": "did nothing"}).to_string();
    let mut turns = Vec::new();
    for _ in 0..runs {
        for _ in 0..TURNS - 1 {
            fake.push(Reply::json(200, wire::openai::completion(&run, "stop", Tokens::new(300, 12))));
        }
        fake.push(Reply::json(200, wire::openai::completion(&done, "stop", Tokens::new(300, 12))));
        let config = clive_agent::AgentConfig { max_turns: TURNS as u32, ..clive_agent::AgentConfig::default() };
        let agent = Agent::builder(model.clone()).pool(agent.pool().expect("pool").clone()).config(config).build();
        let run_dir = tempfile::tempdir().expect("run dir");
        let started = Instant::now();
        let summary = agent.executor().run(&plan, RunOptions::new(run_dir.path())).await.expect("run");
        let elapsed = started.elapsed();
        assert!(summary.all_succeeded(), "{summary:?}");
        assert_eq!(agent.ledger().get("t").expect("stats").turns as usize, TURNS);
        turns.push(elapsed / TURNS as u32);
    }
    let call = percentile(&mut calls, 0.5);
    let command = percentile(&mut commands, 0.5);
    let turn50 = percentile(&mut turns, 0.5);
    let turn90 = percentile(&mut turns, 0.9);
    let own50 = turn50.saturating_sub(call + command);
    let own90 = turn90.saturating_sub(call + command);
    println!("turn overhead ({runs} subtasks of {TURNS} turns, fake model answering at once, {transport:?} transport)");
    println!("  baseline: bare model call (HTTP to the fake)     p50 {:7.2} ms", ms(call));
    println!("  baseline: bare Pane::run(\":\") (typed, signalled) p50 {:7.2} ms", ms(command));
    println!("  one interactive turn (run `:`)                   p50 {:7.2} ms  p90 {:7.2} ms", ms(turn50), ms(turn90));
    println!(
        "  clive's own time per turn (turn - call - command) p50 {:7.2} ms  p90 {:7.2} ms  (turn / baselines = {:.2})",
        ms(own50),
        ms(own90),
        turn50.as_secs_f64() / (call + command).as_secs_f64()
    );
    drop(server);
}

/// The prompt of a typical second turn: the model ran `wc -l` and sees its output.
async fn tokens_of_a_typical_turn() {
    let profile = PaneProfile::shell();
    let screen = Observation::Start { screen: "$\n".into() }.render(2000);
    let goal = "Count the lines in notes.txt and write just the number to lines.txt.";
    let workplace = Workplace { goal, pane: "shell", profile: &profile, cwd: "/home/ana/work", inputs: &[] };
    let first = interactive_first(&FirstTurn { workplace, observation: &screen, max_turns: 8 });
    let observation = Observation::Finished {
        command: "wc -l < notes.txt".into(),
        exit_code: 0,
        output: "12\n".into(),
        continued: false,
    }
    .render(2000);
    let exchange = Exchange {
        reply: serde_json::json!({"action": "run", "command": "wc -l < notes.txt"}).to_string(),
        observation,
        step: Step { action: "run `wc -l < notes.txt`".into(), outcome: "exit 0: \"12\"".into() },
        next: Next::Done,
    };
    let prompt =
        Prompt { system: INTERACTIVE_SYSTEM.into(), messages: interactive_conversation(&first, &[exchange], 8) };
    let chars: usize = prompt.system.len() + prompt.messages.iter().map(|m| m.content.len()).sum::<usize>();
    let schema = clive_agent::action_schema().to_string();
    println!(
        "tokens of a typical second turn ({chars} characters of prompt; the schema adds {} characters where sent)",
        schema.len()
    );
    match std::env::var("LOCAL_LLM_URL").ok().filter(|u| !u.is_empty()) {
        Some(url) => {
            let config = llm::ProviderConfig::new(ProviderKind::OpenAiCompatible)
                .base_url(&format!("{}/v1", url.trim_end_matches('/')))
                .expect("url");
            let model = llm::connect(config).expect("client");
            let request = ChatRequest::from_messages(prompt.messages.clone())
                .system(prompt.system.clone())
                .max_tokens(1)
                .temperature(0.0);
            let reply = model.chat(&request).await.expect("local model");
            println!("  prompt tokens (Qwen2.5 tokenizer, chat template included): {}", reply.usage.input_tokens);
        }
        None => println!("  about {} tokens (4 characters per token; set LOCAL_LLM_URL to count)", chars / 4),
    }
}
