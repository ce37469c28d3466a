//! Measures which reply format a model handles best for interactive actions: JSON constrained by the action
//! schema, or free text read by the lenient parser. Runs a few small tasks with each and prints a table.
//!
//! ```sh
//! export LOCAL_LLM_URL="$(scripts/local-llm/start.sh)"
//! cargo run -p clive-agent --example reply_formats -- 3      # repeats per task and format
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use clive_agent::{Agent, AgentConfig, ReplyFormat};
use dag_sched::{PanePool, RunOptions, ValidatedPlan};
use llm::{ProviderConfig, ProviderKind, Timeouts};
use tmux_habitat::{Server, SessionOptions};

/// A task, how to set up its directory, and how to check it.
struct Case {
    goal: &'static str,
    setup: fn(&std::path::Path),
    check: fn(&std::path::Path, &str) -> bool,
}

fn cases() -> Vec<Case> {
    vec![
        Case { goal: "Create a directory named build.", setup: |_| {}, check: |dir, _| dir.join("build").is_dir() },
        Case {
            goal: "Count the lines in notes.txt and write just the number to lines.txt.",
            setup: |dir| std::fs::write(dir.join("notes.txt"), "a\nb\nc\nd\n").unwrap(),
            check: |dir, _| std::fs::read_to_string(dir.join("lines.txt")).is_ok_and(|t| t.trim() == "4"),
        },
        Case {
            goal: "Write the word hello into a file named greeting.txt.",
            setup: |_| {},
            check: |dir, _| std::fs::read_to_string(dir.join("greeting.txt")).is_ok_and(|t| t.trim() == "hello"),
        },
        Case {
            goal: "How many .log files are in this directory? Answer with the number.",
            setup: |dir| {
                for name in ["a.log", "b.log", "c.txt"] {
                    std::fs::write(dir.join(name), "x\n").unwrap();
                }
            },
            check: |_, summary| summary.contains('2'),
        },
        Case {
            goal: "Run ./ask.sh and answer yes to its question.",
            setup: |dir| {
                let script = "#!/bin/bash\nread -p 'Delete the cache? [y/N] ' a\nprintf '%s' \"$a\" > answered.txt\n";
                std::fs::write(dir.join("ask.sh"), script).unwrap();
                std::process::Command::new("chmod").arg("+x").arg(dir.join("ask.sh")).status().unwrap();
            },
            check: |dir, _| std::fs::read_to_string(dir.join("answered.txt")).is_ok_and(|t| t == "y"),
        },
        Case {
            goal: "Find the largest file in this directory and write its name to largest.txt.",
            setup: |dir| {
                for (name, size) in [("small.bin", 10), ("big.bin", 5000), ("mid.bin", 700)] {
                    std::fs::write(dir.join(name), vec![b'x'; size]).unwrap();
                }
            },
            check: |dir, _| {
                std::fs::read_to_string(dir.join("largest.txt"))
                    .is_ok_and(|t| t.trim().trim_start_matches("./") == "big.bin")
            },
        },
        Case {
            goal: "How many lines of app.log contain ERROR? Answer with the number.",
            setup: |dir| {
                let log =
                    "INFO start\nERROR disk full\nINFO retry after error\nERROR timeout\nERROR disk full\nINFO done\n";
                std::fs::write(dir.join("app.log"), log).unwrap();
            },
            check: |_, summary| summary.contains('3'),
        },
        Case {
            goal: "Copy config.json to backup/config.json.",
            setup: |dir| std::fs::write(dir.join("config.json"), "{\"a\": 1}\n").unwrap(),
            check: |dir, _| std::fs::read_to_string(dir.join("backup/config.json")).is_ok_and(|t| t.contains("\"a\"")),
        },
    ]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let url = std::env::var("LOCAL_LLM_URL").expect("set LOCAL_LLM_URL (scripts/local-llm/start.sh)");
    let repeats: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(1);
    let config = ProviderConfig::new(ProviderKind::OpenAiCompatible)
        .base_url(&format!("{}/v1", url.trim_end_matches('/')))
        .unwrap()
        .timeouts(Timeouts {
            connect: Duration::from_secs(5),
            request: Duration::from_secs(180),
            stream_idle: Duration::from_secs(60),
        });
    let model = llm::connect(config).unwrap();
    println!("| format | task | passed | tokens (median) | turns (median) | seconds (median) |");
    println!("|---|---|---|---|---|---|");
    let only: Option<usize> = std::env::var("ONLY").ok().and_then(|n| n.parse().ok());
    let formats: Vec<ReplyFormat> = match std::env::var("FORMAT").as_deref() {
        Ok("text") => vec![ReplyFormat::Text],
        Ok("schema") => vec![ReplyFormat::Schema],
        _ => vec![ReplyFormat::Schema, ReplyFormat::Text],
    };
    for format in formats {
        for (index, case) in cases().iter().enumerate() {
            if only.is_some_and(|n| n != index + 1) {
                continue;
            }
            let mut passed = 0;
            let mut tokens = Vec::new();
            let mut turns = Vec::new();
            let mut seconds = Vec::new();
            for _ in 0..repeats {
                let (ok, used, took, time) = run_case(&model, format, case).await;
                passed += usize::from(ok);
                tokens.push(used);
                turns.push(took);
                seconds.push(time);
            }
            println!(
                "| {format:?} | {} | {passed}/{repeats} | {} | {} | {:.1} |",
                index + 1,
                median(&mut tokens),
                median(&mut turns),
                median_f(&mut seconds)
            );
        }
    }
}

async fn run_case(model: &Arc<dyn llm::ChatModel>, format: ReplyFormat, case: &Case) -> (bool, u64, u64, f64) {
    let server = Server::isolated().await.unwrap();
    let work = tempfile::tempdir().unwrap();
    (case.setup)(work.path());
    let session = server.new_session(SessionOptions::new("m").cwd(work.path())).await.unwrap();
    let pool = Arc::new(PanePool::new(session));
    let config = AgentConfig { reply_format: format, temperature: Some(0.0), ..AgentConfig::default() };
    let agent = Agent::builder(model.clone()).pool(pool).config(config).build();
    let plan = serde_json::json!({"version": 1, "subtasks": [
        {"id": "t", "pane": "shell", "mode": "interactive", "description": case.goal}]});
    let plan = ValidatedPlan::from_json(&plan.to_string()).unwrap();
    let run_dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let summary = agent.executor().run(&plan, RunOptions::new(run_dir.path())).await.unwrap();
    let result = summary.result("t").unwrap();
    let stats = agent.ledger().get("t").unwrap_or_default();
    let ok = result.status == dag_sched::SubtaskStatus::Succeeded && (case.check)(work.path(), &result.summary);
    if std::env::var_os("SHOW").is_some() {
        // The model's replies and what each turn saw, for a person reading why a case failed.
        let transcript =
            std::fs::read_to_string(run_dir.path().join("subtasks/t/.runner/transcript.jsonl")).unwrap_or_default();
        eprintln!(
            "=== {} [{format:?}] {} — {:?} {}",
            case.goal,
            if ok { "PASS" } else { "FAIL" },
            result.status,
            result.summary
        );
        for line in transcript.lines() {
            let entry: serde_json::Value = serde_json::from_str(line).unwrap();
            let last = entry["messages"]
                .as_array()
                .and_then(|m| m.last())
                .map(|m| m["content"].as_str().unwrap_or("").to_owned())
                .unwrap_or_default();
            eprintln!("  saw: {}", last.lines().take(6).collect::<Vec<_>>().join(" | "));
            eprintln!("  reply: {}", entry["reply"]);
        }
    }
    (ok, stats.tokens.total(), u64::from(stats.turns), started.elapsed().as_secs_f64())
}

fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

fn median_f(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}
