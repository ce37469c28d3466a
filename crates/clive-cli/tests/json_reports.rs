//! The shapes `clive --json` prints, as insta snapshots: a task report, the sessions list, a plan report, a gc
//! report. Built from the library's own types, so a changed field shows up in review.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use clive_core::TaskReport;
use clive_core::archive::ArchivedSession;
use clive_core::plan_run::{PlanReport, SubtaskReport};
use clive_core::session_record::{SessionRecord, SessionState};
use dag_sched::SubtaskStatus;

#[test]
fn task_report() {
    let route = router::route("ls -la | wc -l");
    let routed = router::Routed {
        route: route.clone(),
        tier: router::Tier::Direct,
        steps: vec![router::TierStep::new(router::Tier::Direct, std::time::Duration::from_micros(3))],
    };
    let report = TaskReport {
        task: "ls -la | wc -l".into(),
        route,
        routing: (&routed).into(),
        model_calls: 0,
        tokens: Default::default(),
        command: "ls -la | wc -l".into(),
        exit_code: 0,
        output: "12\n".into(),
        duration_ms: 7,
        session: "clive-ab12cd34".into(),
        kept: false,
        truncated: false,
        sandboxed: false,
        network: toolbox::Network::On,
        modes: vec![dag_sched::Mode::Direct],
        claimed_success: true,
        wall_ms: 31,
        model_ms: 0,
        command_ms: 7,
        overhead_ms: 24,
    };
    insta::assert_json_snapshot!(report);
}

#[test]
fn sessions() {
    let records = vec![SessionRecord {
        id: "ab12cd34".into(),
        session: "clive-ab12cd34".into(),
        task: "sh -c 'exit 3'".into(),
        state: SessionState::Finished,
        started: 1_700_000_000,
        exit_code: Some(3),
        expires: Some(1_700_001_800),
    }];
    insta::assert_json_snapshot!(records);
}

#[test]
fn plan_report() {
    let subtask = |id: &str, status, exit_code: Option<i32>, reason: Option<&str>| SubtaskReport {
        id: id.into(),
        status,
        exit_code,
        duration_ms: exit_code.map(|_| 12),
        reason: reason.map(str::to_owned),
        output_excerpt: exit_code.map(|_| format!("{id} output\n")).unwrap_or_default(),
        mode: dag_sched::Mode::Direct,
        turns: 0,
        model_calls: 0,
        tokens: agent::Tokens::default(),
    };
    let report = PlanReport {
        plan: PathBuf::from("plan.json"),
        session: Some("clive-0f0f0f0f".into()),
        run_dir: PathBuf::from("/state/runs/clive-0f0f0f0f"),
        succeeded: false,
        cancelled: false,
        duration_ms: 40,
        subtasks: vec![
            subtask("build", SubtaskStatus::Succeeded, Some(0), None),
            subtask("test", SubtaskStatus::Failed, Some(1), None),
            subtask("deploy", SubtaskStatus::Skipped, None, Some("a dependency did not succeed: test")),
        ],
    };
    insta::assert_json_snapshot!(report);
}

#[test]
fn gc_report() {
    let removed = vec![ArchivedSession {
        session: "clive-ab12cd34".into(),
        task: "false".into(),
        log: PathBuf::from("/state/logs/clive-ab12cd34.log"),
    }];
    insta::assert_json_snapshot!(removed);
}
