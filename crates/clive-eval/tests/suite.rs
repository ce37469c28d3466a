//! The repository's eval suite is sound: it covers what the issue asks, every check fails on its untouched
//! fixtures, and every check passes after the task's known-good solution.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_eval::{Agent, Filter, RunOptions, Status, Suite, run_suite};

#[test]
fn the_suite_is_large_enough_and_covers_the_issue() {
    let suite = Suite::load(&support::repo_suite()).unwrap();
    assert!(suite.tasks.len() >= 30, "{} tasks", suite.tasks.len());
    let smoke = suite.tasks.iter().filter(|t| t.has_tag("smoke")).count();
    assert!((4..=6).contains(&smoke), "{smoke} smoke tasks");
    for tag in [
        "count",
        "find",
        "log",
        "trap",
        "csv",
        "json",
        "exact-path",
        "fix",
        "prompt",
        "pager",
        "parallel",
        "answer",
        "empty",
        "missing",
        "tier0",
    ] {
        assert!(suite.tasks.iter().any(|t| t.has_tag(tag)), "no task tagged {tag}");
    }
    // Tier-0 tasks expect no model at all: a command runs directly, arithmetic is answered.
    for task in suite.tasks.iter().filter(|t| t.has_tag("tier0")) {
        let expected = if task.has_tag("answer") { "answer" } else { "direct" };
        assert_eq!(task.spec.expect.route, [expected], "{}", task.name);
        assert_eq!(task.spec.limits.max_tokens, Some(0), "{}", task.name);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_check_fails_on_its_fixtures_and_passes_after_its_solution() {
    let suite = Suite::load(&support::repo_suite()).unwrap();
    let tasks = suite.select(&Filter::default()).unwrap();

    let untouched = run_suite(&tasks, &RunOptions::new(Agent::Nothing), |_, _, _| {}).await.unwrap();
    assert_eq!(untouched.runs.len(), tasks.len());
    for run in &untouched.runs {
        assert_eq!(run.check_passed, Some(false), "{}: the check passes on the untouched fixtures", run.task);
        assert_eq!(run.status, Status::Fail, "{}", run.task);
        // A failing check says why.
        assert!(
            run.reasons.iter().any(|r| r.starts_with("check: ") && r.len() > 10),
            "{}: {:?}",
            run.task,
            run.reasons
        );
    }

    let solved = run_suite(&tasks, &RunOptions::new(Agent::Reference), |_, _, _| {}).await.unwrap();
    for run in &solved.runs {
        assert_eq!(run.status, Status::Pass, "{} after solution.sh: {:?}", run.task, run.reasons);
    }
    assert_eq!(solved.summary.passed, tasks.len());
    assert_eq!(solved.summary.false_completions, 0);
}
