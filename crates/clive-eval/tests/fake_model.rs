//! The suite against the scripted fake model, through the real `clive`: every task that carries a reply script
//! (`replies.toml`), and the tier-0 tasks (which must not call a model at all), pass, and every scripted reply
//! is used. This is the plumbing test of routing, runners, panes and checks that CI runs on every change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_eval::{Agent, Backend, RunOptions, Status, Suite, run_suite};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_tasks_pass_against_the_fake_model() {
    let clive = support::clive_binary();
    let suite = Suite::load(&support::repo_suite()).unwrap();
    let tasks: Vec<_> = suite.tasks.into_iter().filter(|t| t.replies_file().is_some() || t.has_tag("tier0")).collect();
    assert!(!tasks.is_empty());
    let options = RunOptions { backend: Backend::Fake, ..RunOptions::new(Agent::Clive(clive)) };
    let report = run_suite(&tasks, &options, |_, _, _| {}).await.unwrap();
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
