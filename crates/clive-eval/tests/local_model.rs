//! The smoke set against the real local model (llama.cpp + Qwen2.5-Coder-0.5B, `scripts/local-llm`), through
//! the real `clive`. A 0.5B model is not expected to pass everything: the assertions are loose (every run is
//! carried out and accounted for); the figures are printed for docs/evals.md. CI runs it with `--ignored`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use clive_eval::{Agent, Backend, Filter, RunOptions, Status, Suite, run_suite};

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn the_smoke_set_runs_against_the_local_model() {
    let url =
        std::env::var("LOCAL_LLM_URL").expect("LOCAL_LLM_URL: export LOCAL_LLM_URL=\"$(scripts/local-llm/start.sh)\"");
    let clive = support::clive_binary();
    let suite = Suite::load(&support::repo_suite()).unwrap();
    let tasks = suite.select(&Filter { names: vec![], tags: vec!["smoke".into()] }).unwrap();
    let options = RunOptions {
        backend: Backend::Local(url),
        // One request at a time is all the local server does; a short limit keeps CI's worst case bounded.
        jobs: 1,
        timeout: Some(Duration::from_secs(60)),
        ..RunOptions::new(Agent::Clive(clive))
    };
    let report = run_suite(&tasks, &options, |run, done, total| {
        eprintln!("[{done}/{total}] {} {}", run.task, run.status.as_str());
    })
    .await
    .unwrap();
    eprintln!("{}", clive_eval::table::render(&report));
    assert_eq!(report.runs.len(), tasks.len());
    for run in &report.runs {
        assert_ne!(run.status, Status::Error, "{}: {:?}", run.task, run.reasons);
        assert!(run.check_passed.is_some(), "{}: the check did not run", run.task);
    }
}
