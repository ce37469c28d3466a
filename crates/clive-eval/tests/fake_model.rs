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
    for run in &report.runs {
        assert_eq!(run.status, Status::Pass, "{}: {:?}", run.task, run.reasons);
        let fake = run.fake.expect("the fake backend reports its use");
        assert_eq!(fake.unserved, 0, "{}: scripted replies left over", run.task);
        if run.task.starts_with("tier0-") {
            assert_eq!(fake.requests, 0, "{}: a tier-0 task called the model", run.task);
        }
        assert!(!run.false_completion, "{}", run.task);
    }
    eprintln!("{}", clive_eval::table::render(&report));
}
