//! End to end with a real model: the `clive` binary, real tmux, and llama.cpp's server with
//! Qwen2.5-Coder-0.5B (`scripts/local-llm/start.sh`, `LOCAL_LLM_URL`). Small tasks a 0.5B model is expected to
//! finish; the assertions look at what was done, not at the wording.
//!
//! `cargo test -p clive-cli --test local_model -- --ignored` (CI runs them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Output;

use support::{World, text};

fn local_model_url() -> String {
    std::env::var("LOCAL_LLM_URL").ok().filter(|u| !u.is_empty()).unwrap_or_else(|| {
        panic!("LOCAL_LLM_URL is unset: run `export LOCAL_LLM_URL=\"$(scripts/local-llm/start.sh)\"` first")
    })
}

fn clive(world: &World, dir: &std::path::Path, args: &[&str]) -> Output {
    let base = format!("{}/v1", local_model_url().trim_end_matches('/'));
    world.command(args).current_dir(dir).env("OPENAI_BASE_URL", base).output().unwrap()
}

fn report(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)))
}

#[test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
fn creates_a_directory() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let out = clive(&world, work.path(), &["--json", "--max-tokens", "5000", "Create a directory named build."]);
    let report = report(&out);
    assert!(work.path().join("build").is_dir(), "no build directory: {report}");
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(report["tokens"]["input"].as_u64().unwrap() > 0, "{report}");
}

#[test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
fn counts_matching_files_and_answers_with_the_number() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    for name in ["a.log", "b.log", "c.txt"] {
        std::fs::write(work.path().join(name), "x\n").unwrap();
    }
    let task = "How many .log files are in this directory? Answer with the number.";
    let out = clive(&world, work.path(), &["--json", "--max-tokens", "5000", task]);
    let report = report(&out);
    // A count is claimed as checked (exit 0) only when it is right, or at least when a second script, written
    // apart, gave the same; where they differ it stands unchecked (exit 6), never claimed.
    match out.status.code() {
        Some(0) => assert_eq!(report["verified"], true, "{report}"),
        Some(6) => {
            assert_eq!(report["verified"], false, "{report}");
            assert!(report["subtasks"].to_string().contains("a second script"), "{report}");
        }
        other => panic!("exit {other:?}: {report}"),
    }
    // The router may answer with a command (its output) or a subtask (its answer). Whether the 0.5B model counts
    // right is the eval suite's question (count-files, count-log-files: docs/evals.md), not this smoke test's: with
    // the same prompt it copies `ls -A /tmp` from the classifier's examples in some runs and not in others. Here:
    // the whole path runs and answers with a number.
    let said = report["answer"].as_str().or(report["output"].as_str()).unwrap_or_default();
    assert!(said.chars().any(|c| c.is_ascii_digit()), "{report}");
    assert!(report["tokens"]["input"].as_u64().unwrap() > 0, "{report}");
}

#[test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
fn answers_a_yes_no_prompt() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let script = work.path().join("ask.sh");
    std::fs::write(&script, "#!/bin/bash\nread -p 'Delete the cache? [y/N] ' a\nprintf '%s' \"$a\" > answered.txt\n")
        .unwrap();
    assert!(std::process::Command::new("chmod").arg("+x").arg(&script).status().unwrap().success());
    // An interactive subtask, as a plan: the router is not part of this test.
    let plan = work.path().join("plan.json");
    let goal = "Run ./ask.sh and answer yes to its question.";
    let subtask = serde_json::json!({"id": "ask", "pane": "shell", "mode": "interactive", "description": goal});
    std::fs::write(&plan, serde_json::json!({"subtasks": [subtask]}).to_string()).unwrap();
    let out = clive(&world, work.path(), &["--json", "--max-tokens", "5000", "plan", "run", plan.to_str().unwrap()]);
    let report = report(&out);
    let answered = std::fs::read_to_string(work.path().join("answered.txt"));
    assert_eq!(answered.as_deref().ok(), Some("y"), "{report}");
}
