//! The whole suite against the scripted fake model, through the real `clive`: every task carries a reply script
//! (`replies.toml`: what a good model answers) except the tier-0 tasks (which must not call a model at all);
//! every task passes its real check, and every scripted reply is used. This is the plumbing test of routing,
//! runners, panes and checks that CI runs on every change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_eval::{Agent, Backend, RunOptions, Status, Suite, run_suite};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_suite_passes_against_the_fake_model() {
    let clive = support::clive_binary();
    let suite = Suite::load(&support::repo_suite()).unwrap();
    let tasks = suite.tasks;
    for task in &tasks {
        assert!(
            task.replies_file().is_some() || task.has_tag("tier0"),
            "{}: no replies.toml; write what a good model answers (docs/evals.md)",
            task.name
        );
    }
    let options = RunOptions { backend: Backend::Fake, ..RunOptions::new(Agent::Clive(clive)) };
    let report = run_suite(&tasks, &options, |_, _, _| {}).await.unwrap();
    assert_eq!(report.runs.len(), tasks.len());
    // A held-out task that fails is counted, not named: its name and its check's complaint would tell whoever changed
    // clive what it gets wrong there, and the batch would no longer be held out (docs/evals.md). `clive-eval run
    // --backend fake --tag heldout --show-heldout` shows them (and so retires the batch).
    let held_out: Vec<&str> = tasks.iter().filter(|t| t.is_held_out()).map(|t| t.name.as_str()).collect();
    let mut held_out_failures = 0;
    for run in &report.runs {
        let fake = run.fake.expect("the fake backend reports its use");
        if held_out.contains(&run.task.as_str()) {
            let fine = run.status == Status::Pass && fake.unserved == 0 && !run.false_completion;
            held_out_failures += usize::from(!fine);
            continue;
        }
        assert_eq!(run.status, Status::Pass, "{}: {:?}", run.task, run.reasons);
        assert_eq!(fake.unserved, 0, "{}: scripted replies left over", run.task);
        if run.task.starts_with("tier0-") {
            assert_eq!(fake.requests, 0, "{}: a tier-0 task called the model", run.task);
        }
        assert!(!run.false_completion, "{}", run.task);
    }
    assert_eq!(
        held_out_failures, 0,
        "{held_out_failures} held-out task(s) failed against the fake model (not named: see the comment above)"
    );
}
