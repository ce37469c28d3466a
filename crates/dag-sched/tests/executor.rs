//! Executor behaviour with the recording runner (no tmux): failures, skips, context files,
//! events, cancellation, missing runners.

use std::sync::Arc;
use std::time::Duration;

use dag_sched::{
    CancelToken, DagError, Event, Executor, Mode, RecordingRunner, RunOptions, SubtaskContext, SubtaskStatus,
    ValidatedPlan, render_summary_table,
};

#[allow(clippy::unwrap_used)] // a test helper: a panic is a test failure
fn plan(json: &str) -> ValidatedPlan {
    ValidatedPlan::from_json(json).unwrap()
}

const CHAIN_AND_SIBLING: &str = r#"{"version":1,"subtasks":[
  {"id":"build","pane":"a","command":"make"},
  {"id":"test","pane":"a","command":"make test","depends_on":["build"]},
  {"id":"package","pane":"b","command":"make dist","depends_on":["test"]},
  {"id":"docs","pane":"c","command":"make docs"},
  {"id":"publish","pane":"c","command":"make publish","depends_on":["docs"]}
]}"#;

#[tokio::test]
async fn failure_skips_dependents_transitively_and_not_siblings() {
    let runner = Arc::new(RecordingRunner::new().failing("build"));
    let dir = tempfile::tempdir().unwrap();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let summary = Executor::new()
        .with_runner(Mode::Direct, runner.clone())
        .run(&plan(CHAIN_AND_SIBLING), RunOptions::new(dir.path()).events(sender))
        .await
        .unwrap();
    let status = |id: &str| summary.result(id).unwrap().status;
    assert_eq!(status("build"), SubtaskStatus::Failed);
    assert_eq!(status("test"), SubtaskStatus::Skipped);
    assert_eq!(status("package"), SubtaskStatus::Skipped);
    assert_eq!(status("docs"), SubtaskStatus::Succeeded);
    assert_eq!(status("publish"), SubtaskStatus::Succeeded);
    assert_eq!(
        summary.result("package").unwrap().reason.as_deref(),
        Some("skipped because `build` failed (exit code 1)")
    );
    assert!(!summary.all_succeeded());

    let table = render_summary_table(&summary);
    assert!(table.contains("skipped because `build` failed (exit code 1)"), "{table}");
    assert!(table.contains("2 succeeded, 1 failed, 0 timed out, 2 skipped, 0 cancelled"), "{table}");

    let mut events = Vec::new();
    while let Ok(event) = receiver.try_recv() {
        events.push(event);
    }
    assert!(matches!(events.first(), Some(Event::RunStarted { subtasks: 5, .. })));
    assert!(matches!(events.last(), Some(Event::RunFinished { succeeded: 2, failed: 1, skipped: 2, .. })));
    let skipped: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Skipped { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(skipped, ["test", "package"]);
    for event in &events {
        let line = event.to_json_line();
        assert!(!line.contains('\n'));
        assert_eq!(&serde_json::from_str::<Event>(&line).unwrap(), event);
    }
}

#[tokio::test]
async fn results_pass_to_dependents_through_files() {
    let runner = Arc::new(RecordingRunner::new());
    let dir = tempfile::tempdir().unwrap();
    let summary = Executor::new()
        .with_runner(Mode::Direct, runner)
        .run(&plan(CHAIN_AND_SIBLING), RunOptions::new(dir.path()))
        .await
        .unwrap();
    assert!(summary.all_succeeded());
    let root = dir.path();
    assert!(root.join("plan.json").is_file());
    assert!(root.join("summary.json").is_file());
    let context: SubtaskContext =
        serde_json::from_str(&std::fs::read_to_string(root.join("subtasks/test/context.json")).unwrap()).unwrap();
    assert_eq!(context.subtask_dir, root.join("subtasks/test"));
    assert_eq!(context.dependencies.len(), 1);
    let build = &context.dependencies[0];
    assert_eq!((build.id.as_str(), build.status, build.exit_code), ("build", SubtaskStatus::Succeeded, Some(0)));
    assert_eq!(build.summary, "build done");
    let output = build.output_file.as_ref().unwrap();
    assert_eq!(std::fs::read_to_string(output).unwrap(), "build done\n");
    // The output file is the result's own record (`output_file`), not a file the subtask made.
    assert!(build.files.is_empty(), "{:?}", build.files);
    assert!(root.join("subtasks/build/result.json").is_file());
}

#[tokio::test]
async fn cancellation_stops_running_and_pending_and_reports_partial_results() {
    let runner = Arc::new(
        RecordingRunner::new().with_delay("slow", Duration::from_secs(30)).with_delay("after", Duration::from_secs(30)),
    );
    let plan = plan(
        r#"{"version":1,"subtasks":[
          {"id":"quick","pane":"a","command":"true"},
          {"id":"slow","pane":"b","command":"sleep 30"},
          {"id":"after","pane":"b","command":"sleep 30","depends_on":["slow"]},
          {"id":"later","pane":"a","command":"true","depends_on":["slow"]}
        ]}"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancelToken::new();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let executor = Executor::new().with_runner(Mode::Direct, runner);
    let options = RunOptions::new(dir.path()).events(sender).cancel(cancel.clone());
    let run = tokio::spawn(async move { executor.run(&plan, options).await });
    // Cancel once `quick` finished (and `slow` is running).
    while let Some(event) = receiver.recv().await {
        if matches!(&event, Event::Finished { id, .. } if id == "quick") {
            cancel.cancel();
            break;
        }
    }
    let summary = tokio::time::timeout(Duration::from_secs(5), run).await.unwrap().unwrap().unwrap();
    assert!(summary.cancelled);
    let status = |id: &str| summary.result(id).unwrap().status;
    assert_eq!(status("quick"), SubtaskStatus::Succeeded);
    assert_eq!(status("slow"), SubtaskStatus::Cancelled);
    assert_eq!(status("after"), SubtaskStatus::Cancelled);
    assert_eq!(status("later"), SubtaskStatus::Cancelled);
    assert_eq!(summary.result("after").unwrap().reason.as_deref(), Some("the run was cancelled before it started"));
}

#[tokio::test]
async fn a_mode_without_runner_runs_nothing() {
    let runner = Arc::new(RecordingRunner::new());
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(
        r#"{"version":1,"subtasks":[
          {"id":"a","pane":"p","command":"true"},
          {"id":"think","pane":"p","mode":"llm","description":"summarise"}
        ]}"#,
    );
    let error = Executor::new()
        .with_runner(Mode::Direct, runner.clone())
        .run(&plan, RunOptions::new(dir.path()))
        .await
        .unwrap_err();
    assert!(matches!(&error, DagError::NoRunner { mode: Mode::Llm, .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "no runner for mode `llm` (used by `think`); this build cannot run such subtasks yet"
    );
    assert!(runner.records().is_empty());
}
