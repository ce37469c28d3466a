//! The executor with the shell runner on a real, isolated tmux server.

// Test helpers: a panic is a test failure.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use dag_sched::{
    CancelToken, DagError, Event, Executor, Mode, RunOptions, RunSummary, ShellRunner, SubtaskStatus, ValidatedPlan,
    render_summary_table,
};
use tmux_habitat::{Server, SessionOptions};

struct Habitat {
    // Dropped last: kills the server.
    _server: Server,
    runner: Arc<ShellRunner>,
    run_dir: tempfile::TempDir,
}

async fn habitat() -> Habitat {
    let server = Server::isolated().await.unwrap();
    let session = server.new_session(SessionOptions::new("dag")).await.unwrap();
    Habitat { runner: Arc::new(ShellRunner::new(session)), _server: server, run_dir: tempfile::tempdir().unwrap() }
}

impl Habitat {
    async fn run(&self, plan: &str) -> RunSummary {
        self.run_with(plan, RunOptions::new(self.run_dir.path())).await
    }

    async fn run_with(&self, plan: &str, options: RunOptions) -> RunSummary {
        let plan = ValidatedPlan::from_json(plan).unwrap();
        Executor::new().with_runner(Mode::Direct, self.runner.clone()).run(&plan, options).await.unwrap()
    }
}

fn sleeps(panes: [&str; 4]) -> String {
    let subtasks: Vec<String> = panes
        .iter()
        .enumerate()
        .map(|(i, pane)| format!(r#"{{"id":"s{i}","pane":"{pane}","command":"sleep 1"}}"#))
        .collect();
    format!(r#"{{"version":1,"subtasks":[{}]}}"#, subtasks.join(","))
}

/// Runs four `sleep 1` subtasks on the given panes and returns when each ran, as the executor recorded it:
/// `(started_ms, finished_ms)` from the start of the run. The panes are opened first, so the figures are the
/// scheduling, not the shells' start-up (which the benchmark measures as "cold").
async fn four_sleeps(panes: [&str; 4]) -> Vec<(u64, u64)> {
    let habitat = habitat().await;
    for pane in panes {
        habitat.runner.pane(pane).await.unwrap();
    }
    let summary = habitat.run(&sleeps(panes)).await;
    assert!(summary.all_succeeded(), "{}", render_summary_table(&summary));
    summary
        .results
        .iter()
        .map(|r| {
            let started = r.started_ms.unwrap();
            (started, started + r.duration_ms.unwrap())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn independent_subtasks_on_four_panes_run_in_parallel() {
    let runs = four_sleeps(["a", "b", "c", "d"]).await;
    // All four ran at once: each started before any of them finished.
    let last_start = runs.iter().map(|r| r.0).max().unwrap();
    let first_end = runs.iter().map(|r| r.1).min().unwrap();
    assert!(last_start < first_end, "four `sleep 1` on four panes did not overlap: {runs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtasks_on_one_pane_run_one_after_another() {
    let mut runs = four_sleeps(["a", "a", "a", "a"]).await;
    runs.sort();
    // One writer per pane: each started only after the one before it finished.
    assert!(runs.windows(2).all(|w| w[0].1 <= w[1].0), "runs on one pane overlapped: {runs:?}");
    assert!(runs.iter().all(|r| r.1 - r.0 >= 1000), "a `sleep 1` took less than a second: {runs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_subtask_inherits_the_panes_shell_state() {
    let habitat = habitat().await;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let plan = format!(
        r#"{{"version":1,"subtasks":[
          {{"id":"setup","pane":"work","command":"cd '{}' && export GREETING=hello"}},
          {{"id":"use","pane":"work","command":"pwd; echo $GREETING"}}
        ]}}"#,
        dir.display()
    );
    let summary = habitat.run(&plan).await;
    assert!(summary.all_succeeded(), "{}", render_summary_table(&summary));
    let output = std::fs::read_to_string(summary.result("use").unwrap().output_file.as_ref().unwrap()).unwrap();
    assert_eq!(output, format!("{}\nhello\n", dir.display()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_skips_its_dependents_transitively_and_not_its_siblings() {
    let habitat = habitat().await;
    let summary = habitat
        .run(
            r#"{"version":1,"subtasks":[
              {"id":"build","pane":"a","command":"echo compiling; sh -c 'exit 3'"},
              {"id":"test","pane":"a","command":"echo never","depends_on":["build"]},
              {"id":"deploy","pane":"b","command":"echo never","depends_on":["test"]},
              {"id":"lint","pane":"b","command":"echo clean"},
              {"id":"report","pane":"c","command":"echo done","depends_on":["lint"]}
            ]}"#,
        )
        .await;
    let result = |id: &str| summary.result(id).unwrap().clone();
    assert_eq!((result("build").status, result("build").exit_code), (SubtaskStatus::Failed, Some(3)));
    assert_eq!(result("build").summary, "compiling");
    assert_eq!(result("test").status, SubtaskStatus::Skipped);
    assert_eq!(result("deploy").status, SubtaskStatus::Skipped);
    assert_eq!(result("deploy").reason.as_deref(), Some("skipped because `build` failed (exit code 3)"));
    assert_eq!(result("lint").status, SubtaskStatus::Succeeded);
    assert_eq!(result("report").status, SubtaskStatus::Succeeded);
    let table = render_summary_table(&summary);
    assert!(table.contains("skipped because `build` failed (exit code 3)"), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_pass_through_files_in_the_run_directory() {
    let habitat = habitat().await;
    let summary = habitat
        .run(
            r#"{"version":1,"subtasks":[
              {"id":"answer","pane":"a","command":"echo 42 > \"$CLIVE_SUBTASK_DIR/answer.txt\""},
              {"id":"read","pane":"b","command":"cat \"$CLIVE_RUN_DIR/subtasks/answer/answer.txt\"","depends_on":["answer"]}
            ]}"#,
        )
        .await;
    assert!(summary.all_succeeded(), "{}", render_summary_table(&summary));
    let answer = summary.result("answer").unwrap();
    assert_eq!(answer.files, [habitat.run_dir.path().join("subtasks/answer/answer.txt")]);
    assert_eq!(summary.result("read").unwrap().summary, "42");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_interrupts_the_command_and_frees_the_pane() {
    let habitat = habitat().await;
    let summary = habitat
        .run(
            r#"{"version":1,"subtasks":[
              {"id":"slow","pane":"a","command":"sleep 30","timeout":0.5},
              {"id":"next","pane":"a","command":"echo still usable"}
            ]}"#,
        )
        .await;
    let slow = summary.result("slow").unwrap();
    assert_eq!(slow.status, SubtaskStatus::TimedOut, "{}", render_summary_table(&summary));
    assert!(slow.reason.as_deref().unwrap().contains("interrupted with C-c"), "{slow:?}");
    assert_eq!(summary.result("next").unwrap().summary, "still usable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_plans_are_refused_before_anything_runs() {
    let cases = [
        (
            r#"{"version":1,"subtasks":[{"id":"a","pane":"p","command":"x","depends_on":["b"]},{"id":"b","pane":"p","command":"x","depends_on":["a"]}]}"#,
            "cycle: `a` -> `b` -> `a`",
        ),
        (
            r#"{"version":1,"subtasks":[{"id":"a","pane":"p","command":"x","depends_on":["ghost"]}]}"#,
            "depends on `ghost`, which is not a subtask",
        ),
        (
            r#"{"version":1,"panes":["main"],"subtasks":[{"id":"a","pane":"side","command":"x"}]}"#,
            "runs in the pane `side`, which the plan's `panes` does not declare",
        ),
        ("{\"version\":1,\n\"subtasks\":[{\"id\":\"a\" \"pane\":\"p\"}]}", "line 2, column"),
    ];
    for (plan, expected) in cases {
        let error = ValidatedPlan::from_json(plan).unwrap_err();
        assert!(matches!(error, DagError::InvalidPlan { .. } | DagError::MalformedPlan { .. }));
        assert!(error.to_string().contains(expected), "{error}");
    }
}

fn count_processes(pattern: &str) -> usize {
    let out = std::process::Command::new("pgrep").args(["-f", pattern]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_interrupts_running_subtasks_and_leaves_no_orphans() {
    let habitat = habitat().await;
    // A duration unique to this test, so the process search finds only ours.
    let marker = format!("31.{}", std::process::id());
    let plan = format!(
        r#"{{"version":1,"subtasks":[
          {{"id":"quick","pane":"a","command":"echo quick"}},
          {{"id":"long1","pane":"b","command":"sleep {marker}"}},
          {{"id":"long2","pane":"c","command":"sleep {marker}"}},
          {{"id":"after","pane":"a","command":"echo never","depends_on":["long1"]}}
        ]}}"#
    );
    let cancel = CancelToken::new();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let options = RunOptions::new(habitat.run_dir.path()).events(sender).cancel(cancel.clone());
    let pattern = format!("sleep {marker}");
    let run = async { habitat.run_with(&plan, options).await };
    let watch = async {
        // Wait for `quick` to finish, then for both sleeps to be running, then cancel.
        while let Some(event) = receiver.recv().await {
            if matches!(&event, Event::Finished { id, .. } if id == "quick") {
                break;
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut backoff = Duration::from_millis(5);
        while count_processes(&pattern) < 2 {
            assert!(Instant::now() < deadline, "the sleeps never started");
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_millis(100));
        }
        cancel.cancel();
    };
    let (summary, ()) =
        tokio::time::timeout(Duration::from_secs(20), async { tokio::join!(run, watch) }).await.unwrap();
    assert!(summary.cancelled);
    let status = |id: &str| summary.result(id).unwrap().status;
    assert_eq!(status("quick"), SubtaskStatus::Succeeded);
    assert_eq!(status("long1"), SubtaskStatus::Cancelled);
    assert_eq!(status("long2"), SubtaskStatus::Cancelled);
    assert_eq!(status("after"), SubtaskStatus::Cancelled);
    assert!(
        summary.result("long1").unwrap().reason.as_deref().unwrap().contains("interrupted with C-c"),
        "{}",
        render_summary_table(&summary)
    );
    assert_eq!(count_processes(&pattern), 0, "orphan `{pattern}` processes remain");
}

#[tokio::test]
async fn output_is_reported_while_the_subtask_runs() {
    let habitat = habitat().await;
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let plan = r#"{"version":1,"subtasks":[{"id":"talk","pane":"p","command":"echo one; sleep 1.5; echo two"}]}"#;
    let summary = habitat.run_with(plan, RunOptions::new(habitat.run_dir.path()).events(sender)).await;
    assert!(summary.all_succeeded(), "{}", render_summary_table(&summary));
    let mut outputs = Vec::new();
    let mut output_before_end = false;
    while let Ok(event) = events.try_recv() {
        match event {
            Event::Output { text, .. } => outputs.push(text),
            Event::Finished { .. } => output_before_end = outputs.iter().any(|t| t.contains("one")),
            _ => {}
        }
    }
    assert!(output_before_end, "`one` must be reported before the subtask ends: {outputs:?}");
    assert_eq!(outputs.concat(), "one\ntwo\n", "reported pieces add up to the output exactly once");
}
