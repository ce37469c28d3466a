//! `clive plan run|check|show`: plan files through crates/dag-sched.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use dag_sched::{
    CancelToken, Event, Executor, Mode, RunOptions, RunSummary, ShellRunner, SubtaskStatus, ValidatedPlan,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use tmux_habitat::SessionOptions;

use crate::error::CliError;
use crate::session_record::{self, SESSION_PREFIX};
use crate::settings::Settings;

/// How much of each subtask's output `--json` carries (its end).
const EXCERPT_CHARS: usize = 2000;

/// Reads and validates a plan file.
pub fn load_plan(path: &Path) -> Result<ValidatedPlan, CliError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| CliError::UnreadablePlan { path: path.to_owned(), source })?;
    ValidatedPlan::from_json(&text)
        .map_err(|source| CliError::InvalidPlan { path: path.to_owned(), source: Box::new(source) })
}

/// The plan rendered as Graphviz `dot` or Mermaid.
pub fn render(plan: &ValidatedPlan, format: PlanFormat) -> String {
    match format {
        PlanFormat::Dot => dag_sched::render_dot(plan),
        PlanFormat::Mermaid => dag_sched::render_mermaid(plan),
    }
}

/// Output formats of `clive plan show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// Graphviz dot.
    Dot,
    /// Mermaid flowchart.
    Mermaid,
}

/// One subtask in `clive plan run --json`.
#[derive(Debug, Clone, Serialize)]
pub struct SubtaskReport {
    /// The subtask id.
    pub id: String,
    /// succeeded, failed, timed_out, skipped or cancelled.
    pub status: SubtaskStatus,
    /// Its exit code, when it ran to the end.
    pub exit_code: Option<i32>,
    /// How long it ran.
    pub duration_ms: Option<u64>,
    /// Why it did not succeed, when it did not.
    pub reason: Option<String>,
    /// The end of its output.
    pub output_excerpt: String,
}

/// `clive plan run --json`.
#[derive(Debug, Clone, Serialize)]
pub struct PlanReport {
    /// The plan file.
    pub plan: PathBuf,
    /// The tmux session its panes live in.
    pub session: String,
    /// Where results and outputs were written.
    pub run_dir: PathBuf,
    /// Whether every subtask succeeded.
    pub succeeded: bool,
    /// Whether the run was cancelled (Ctrl-C).
    pub cancelled: bool,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// Every subtask, in plan order.
    pub subtasks: Vec<SubtaskReport>,
}

/// How to run a plan file.
#[derive(Debug, Clone)]
pub struct PlanRunOptions {
    /// How long the session stays after a run that did not fully succeed.
    pub retention: Duration,
    /// No progress on stderr.
    pub quiet: bool,
    /// Let the safety gate pass destructive commands.
    pub allow_destructive: bool,
    /// The directory every pane starts in (default: the current directory).
    pub cwd: Option<PathBuf>,
}

/// Runs a plan file in a fresh session `clive-<id>` (one window per plan pane, each starting in the run's
/// directory), with live progress on stderr unless `quiet`. Ctrl-C cancels the run. The session is removed
/// after a full success and kept for `retention` otherwise. A destructive command anywhere in the plan
/// refuses the whole run, unless `allow_destructive`.
pub async fn run_plan(
    settings: &Settings,
    path: &Path,
    options: &PlanRunOptions,
) -> Result<(RunSummary, PlanReport), CliError> {
    let PlanRunOptions { retention, quiet, allow_destructive, .. } = *options;
    let plan = load_plan(path)?;
    // Every command passes the same safety gate as a task, before anything is started.
    for subtask in plan.subtasks() {
        if let Some(command) = &subtask.command {
            router::safety::check(command, router::safety::GatePolicy { allow_destructive })?;
        }
    }
    let server = settings.run_server().await?;
    let id = session_record::new_session_id();
    let session_name = format!("{SESSION_PREFIX}{id}");
    let mut session_options = SessionOptions::new(&session_name);
    if let Some(dir) = &options.cwd {
        session_options = session_options.cwd(dir);
    }
    let session = server.new_session(session_options).await?;
    let task = format!("plan run {}", path.display());
    session_record::record_start(&server, &session_name, &task, Duration::from_secs(24 * 3600) + retention).await?;

    let run_dir = settings.state_dir.join("runs").join(&session_name);
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancelToken::new();
    let executor = Executor::new().with_runner(Mode::Direct, Arc::new(ShellRunner::new(session.clone())));
    let options = RunOptions::new(&run_dir).events(sender).cancel(cancel.clone());

    let progress = progress_bar(plan.subtasks().len(), quiet);
    let run = executor.run(&plan, options);
    tokio::pin!(run);
    let mut interrupted = false;
    let summary = loop {
        tokio::select! {
            result = &mut run => break result.map_err(|e| CliError::PlanRun(Box::new(e)))?,
            Some(event) = events.recv() => show_event(&progress, &event),
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                progress.println("clive: cancelling (Ctrl-C)…");
                cancel.cancel();
            }
        }
    };
    while let Ok(event) = events.try_recv() {
        show_event(&progress, &event);
    }
    progress.finish_and_clear();

    if summary.all_succeeded() {
        session.kill().await?;
    } else {
        session_record::record_end(&server, &session_name, Some(i32::from(!summary.all_succeeded())), retention)
            .await?;
    }
    let report = PlanReport {
        plan: path.to_owned(),
        session: session_name,
        run_dir: summary.run_dir.clone(),
        succeeded: summary.all_succeeded(),
        cancelled: summary.cancelled,
        duration_ms: summary.duration_ms,
        subtasks: summary
            .results
            .iter()
            .map(|r| SubtaskReport {
                id: r.id.clone(),
                status: r.status,
                exit_code: r.exit_code,
                duration_ms: r.duration_ms,
                reason: r.reason.clone(),
                output_excerpt: r.output_file.as_deref().map(excerpt).unwrap_or_else(|| r.summary.clone()),
            })
            .collect(),
    };
    server.close().await;
    Ok((summary, report))
}

fn progress_bar(len: usize, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len as u64),
        if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() },
    );
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed}] {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn show_event(bar: &ProgressBar, event: &Event) {
    match event {
        Event::Started { id, pane, .. } => bar.set_message(format!("{id} started in pane {pane}")),
        Event::Finished { id, status, duration_ms, .. } => {
            bar.inc(1);
            bar.println(format!("{status:>9}  {id} ({:.2}s)", *duration_ms as f64 / 1000.0));
        }
        Event::Skipped { id, reason } | Event::Cancelled { id, reason } => {
            bar.inc(1);
            bar.println(format!(
                "{:>9}  {id}: {reason}",
                if matches!(event, Event::Skipped { .. }) { "skipped" } else { "cancelled" }
            ));
        }
        _ => {}
    }
}

/// The last [`EXCERPT_CHARS`] characters of a file (empty when it cannot be read).
fn excerpt(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let skip = text.chars().count().saturating_sub(EXCERPT_CHARS);
    text.chars().skip(skip).collect()
}
