//! The executor: runs a [`ValidatedPlan`] as a DAG over panes.
//!
//! Scheduling rules:
//! - a subtask starts once every dependency has succeeded;
//! - subtasks on different panes run in parallel; a pane runs one subtask at a time (the
//!   executor holds each pane until its subtask returns), so later subtasks on a pane inherit
//!   its shell state; among ready subtasks for a free pane, plan order decides;
//! - a subtask that fails, times out or is cancelled while running marks every subtask that
//!   depends on it, transitively, skipped with the reason; unrelated branches go on;
//! - cancelling stops starting subtasks, marks the pending ones cancelled, lets runners
//!   interrupt the running ones and returns what finished.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinSet;

use crate::cancel::CancelToken;
use crate::error::DagError;
use crate::events::{Event, EventSink};
use crate::plan::Mode;
use crate::result::{RunSummary, SubtaskResult, SubtaskStatus};
use crate::run_dir::{RunDir, SubtaskContext};
use crate::runner::{RunOutcome, RunRequest, Runner};
use crate::validate::ValidatedPlan;

/// How long the executor waits past a subtask's timeout for its runner to return. Longer than
/// the shell runner's interrupt (two C-c, up to 3 s each), so a runner that is cleaning up is
/// not abandoned half-way.
const RUNNER_GRACE: Duration = Duration::from_secs(10);
/// How long the executor waits, after cancellation, for running subtasks to stop (see
/// [`RUNNER_GRACE`]).
const CANCEL_GRACE: Duration = Duration::from_secs(10);
/// How many trailing output lines make the default summary.
const SUMMARY_LINES: usize = 3;
/// The longest default summary, in characters.
const SUMMARY_CHARS: usize = 300;

/// Runs plans with one runner per mode.
#[derive(Clone)]
pub struct Executor {
    runners: HashMap<Mode, Arc<dyn Runner>>,
    default_timeout: Duration,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut modes: Vec<&Mode> = self.runners.keys().collect();
        modes.sort();
        f.debug_struct("Executor").field("modes", &modes).field("default_timeout", &self.default_timeout).finish()
    }
}

impl Default for Executor {
    fn default() -> Self {
        Executor::new()
    }
}

/// Where a run writes and whom it tells.
#[derive(Debug, Clone)]
pub struct RunOptions {
    run_dir: PathBuf,
    events: Option<UnboundedSender<Event>>,
    cancel: CancelToken,
}

impl RunOptions {
    /// A run writing into `run_dir`, without events and never cancelled. Use a fresh (or empty)
    /// directory per run: files left in `subtasks/<id>/` by an earlier run would be listed as
    /// produced by this one.
    pub fn new(run_dir: impl Into<PathBuf>) -> RunOptions {
        RunOptions { run_dir: run_dir.into(), events: None, cancel: CancelToken::new() }
    }

    /// Sends progress events to `sender`.
    pub fn events(mut self, sender: UnboundedSender<Event>) -> RunOptions {
        self.events = Some(sender);
        self
    }

    /// Cancels the run when `token` is cancelled.
    pub fn cancel(mut self, token: CancelToken) -> RunOptions {
        self.cancel = token;
        self
    }
}

impl Executor {
    /// An executor with no runners and a 10-minute default timeout.
    pub fn new() -> Executor {
        Executor { runners: HashMap::new(), default_timeout: Duration::from_secs(600) }
    }

    /// Runs subtasks of `mode` with `runner`.
    pub fn with_runner(mut self, mode: Mode, runner: Arc<dyn Runner>) -> Executor {
        self.runners.insert(mode, runner);
        self
    }

    /// The time limit of subtasks whose plan gives none.
    pub fn with_default_timeout(mut self, timeout: Duration) -> Executor {
        self.default_timeout = timeout;
        self
    }

    /// Runs `plan` to its end (or cancellation) and returns every subtask's result.
    ///
    /// Fails before running anything when a mode has no runner or the run directory cannot be
    /// created; failures of subtasks are results, not errors.
    pub async fn run(&self, plan: &ValidatedPlan, options: RunOptions) -> Result<RunSummary, DagError> {
        for (mode, subtasks) in plan.modes() {
            if !self.runners.contains_key(&mode) {
                return Err(DagError::NoRunner { mode, subtasks });
            }
        }
        let run_dir = RunDir::create(&options.run_dir)?;
        run_dir.write_json(&run_dir.root().join("plan.json"), plan.plan())?;
        let events = EventSink::new(options.events);
        events.send(Event::RunStarted { run_dir: run_dir.root().to_path_buf(), subtasks: plan.subtasks().len() });
        let started = Instant::now();
        let mut run = Run::new(self, plan, run_dir, events, options.cancel);
        run.drive().await?;
        let summary = RunSummary {
            run_dir: run.run_dir.root().to_path_buf(),
            cancelled: run.cancel.is_cancelled(),
            duration_ms: millis(started.elapsed()),
            results: run.finish(),
        };
        run.run_dir.write_json(&run.run_dir.root().join("summary.json"), &summary)?;
        run.events.send(Event::RunFinished {
            at_ms: run.events.elapsed_ms(),
            succeeded: summary.count(SubtaskStatus::Succeeded),
            failed: summary.count(SubtaskStatus::Failed),
            timed_out: summary.count(SubtaskStatus::TimedOut),
            skipped: summary.count(SubtaskStatus::Skipped),
            cancelled: summary.count(SubtaskStatus::Cancelled),
        });
        Ok(summary)
    }
}

/// What a spawned subtask job returns to the executor: its position and its recorded result.
type Completion = (usize, Result<SubtaskResult, DagError>);

/// The state of one run.
struct Run<'a> {
    executor: &'a Executor,
    plan: &'a ValidatedPlan,
    run_dir: RunDir,
    events: EventSink,
    cancel: CancelToken,
    results: Vec<Option<SubtaskResult>>,
    unmet: Vec<usize>,
    ready: BTreeSet<usize>,
    busy_panes: HashSet<String>,
    running: JoinSet<Completion>,
    running_ids: HashMap<tokio::task::Id, usize>,
}

impl<'a> Run<'a> {
    fn new(
        executor: &'a Executor,
        plan: &'a ValidatedPlan,
        run_dir: RunDir,
        events: EventSink,
        cancel: CancelToken,
    ) -> Self {
        let count = plan.subtasks().len();
        let unmet: Vec<usize> = (0..count).map(|i| plan.dependencies(i).len()).collect();
        let ready = (0..count).filter(|&i| unmet[i] == 0).collect();
        Run {
            executor,
            plan,
            run_dir,
            events,
            cancel,
            results: vec![None; count],
            unmet,
            ready,
            busy_panes: HashSet::new(),
            running: JoinSet::new(),
            running_ids: HashMap::new(),
        }
    }

    async fn drive(&mut self) -> Result<(), DagError> {
        let mut cancel_deadline: Option<tokio::time::Instant> = None;
        loop {
            if self.cancel.is_cancelled() && cancel_deadline.is_none() {
                self.cancel_pending();
                cancel_deadline = Some(tokio::time::Instant::now() + CANCEL_GRACE);
            }
            if cancel_deadline.is_none() {
                self.start_ready()?;
            }
            if self.running.is_empty() {
                return Ok(());
            }
            let cancel = self.cancel.clone();
            tokio::select! {
                joined = self.running.join_next_with_id() => {
                    if let Some(joined) = joined {
                        self.complete(joined)?;
                    }
                }
                () = cancel.cancelled(), if cancel_deadline.is_none() => {}
                () = sleep_until(cancel_deadline), if cancel_deadline.is_some() => {
                    self.abandon_running();
                    return Ok(());
                }
            }
        }
    }

    /// Starts every ready subtask whose pane is free, in plan order.
    fn start_ready(&mut self) -> Result<(), DagError> {
        let startable: Vec<usize> = {
            let mut claimed: HashSet<&str> = HashSet::new();
            self.ready
                .iter()
                .copied()
                .filter(|&i| {
                    let pane = self.plan.subtasks()[i].pane.as_str();
                    !self.busy_panes.contains(pane) && claimed.insert(pane)
                })
                .collect()
        };
        for index in startable {
            self.ready.remove(&index);
            self.start(index)?;
        }
        Ok(())
    }

    /// Spawns the job of subtask `index`: prepare its directory, run it, record its result.
    /// The file work happens in the job, so the scheduler never waits on the disk.
    fn start(&mut self, index: usize) -> Result<(), DagError> {
        let subtask = self.plan.subtasks()[index].clone();
        let Some(runner) = self.executor.runners.get(&subtask.mode).cloned() else {
            return Err(DagError::NoRunner { mode: subtask.mode, subtasks: vec![subtask.id] });
        };
        let dependencies = self.plan.dependencies(index).into_iter().filter_map(|d| self.results[d].clone()).collect();
        let context = SubtaskContext {
            run_dir: self.run_dir.root().to_path_buf(),
            subtask_dir: self.run_dir.subtask_dir(&subtask.id),
            dependencies,
        };
        let timeout = subtask.timeout().unwrap_or(self.executor.default_timeout);
        let at_ms = self.events.elapsed_ms();
        self.events.send(Event::Started { id: subtask.id.clone(), pane: subtask.pane.clone(), at_ms });
        tracing::debug!(id = %subtask.id, pane = %subtask.pane, "starting subtask");
        self.busy_panes.insert(subtask.pane.clone());
        let request =
            RunRequest { subtask, timeout, context, cancel: self.cancel.clone(), events: self.events.clone() };
        let run_dir = self.run_dir.clone();
        let handle = self.running.spawn(async move { (index, run_job(run_dir, runner, request, at_ms).await) });
        self.running_ids.insert(handle.id(), index);
        Ok(())
    }

    fn complete(
        &mut self,
        joined: Result<(tokio::task::Id, Completion), tokio::task::JoinError>,
    ) -> Result<(), DagError> {
        let (index, result) = match joined {
            Ok((id, (index, result))) => {
                self.running_ids.remove(&id);
                (index, result?)
            }
            Err(error) => {
                let Some(index) = self.running_ids.remove(&error.id()) else { return Ok(()) };
                let reason = format!("the runner stopped abnormally: {error}");
                (index, SubtaskResult::not_run(&self.plan.subtasks()[index], SubtaskStatus::Failed, reason))
            }
        };
        self.busy_panes.remove(&result.pane);
        self.events.send(Event::Finished {
            id: result.id.clone(),
            status: result.status,
            exit_code: result.exit_code,
            duration_ms: result.duration_ms.unwrap_or(0),
            summary: result.summary.clone(),
        });
        let status = result.status;
        let cause = describe_failure(&result);
        self.results[index] = Some(result);
        if status == SubtaskStatus::Succeeded {
            for dependent in self.plan.dependents(index) {
                self.unmet[dependent] -= 1;
                if self.unmet[dependent] == 0 && self.results[dependent].is_none() {
                    self.ready.insert(dependent);
                }
            }
        } else if !self.cancel.is_cancelled() {
            // After cancellation the dependents are cancelled, not skipped (see `drive`).
            self.skip_dependents(index, &cause);
        }
        Ok(())
    }

    /// Marks every transitive dependent of `index` that has no result yet as skipped.
    fn skip_dependents(&mut self, index: usize, cause: &str) {
        let mut queue: VecDeque<usize> = self.plan.dependents(index).into();
        while let Some(dependent) = queue.pop_front() {
            if self.results[dependent].is_some() {
                continue;
            }
            self.ready.remove(&dependent);
            let subtask = &self.plan.subtasks()[dependent];
            let reason = format!("skipped because {cause}");
            self.events.send(Event::Skipped { id: subtask.id.clone(), reason: reason.clone() });
            self.results[dependent] = Some(SubtaskResult::not_run(subtask, SubtaskStatus::Skipped, reason));
            queue.extend(self.plan.dependents(dependent));
        }
    }

    /// Marks every subtask that has not started as cancelled.
    fn cancel_pending(&mut self) {
        let running: HashSet<usize> = self.running_ids.values().copied().collect();
        for index in 0..self.results.len() {
            if self.results[index].is_none() && !running.contains(&index) {
                self.cancel_one(index, "the run was cancelled before it started".to_string());
            }
        }
        self.ready.clear();
    }

    /// Gives up on runners that did not stop after cancellation.
    fn abandon_running(&mut self) {
        self.running.abort_all();
        let indices: Vec<usize> = self.running_ids.drain().map(|(_, i)| i).collect();
        for index in indices {
            let reason =
                format!("the run was cancelled and its runner did not stop within {}s", CANCEL_GRACE.as_secs());
            self.cancel_one(index, reason);
        }
    }

    fn cancel_one(&mut self, index: usize, reason: String) {
        let subtask = &self.plan.subtasks()[index];
        self.events.send(Event::Cancelled { id: subtask.id.clone(), reason: reason.clone() });
        self.results[index] = Some(SubtaskResult::not_run(subtask, SubtaskStatus::Cancelled, reason));
    }

    fn finish(&mut self) -> Vec<SubtaskResult> {
        let subtasks = self.plan.subtasks();
        std::mem::take(&mut self.results)
            .into_iter()
            .enumerate()
            .map(|(i, result)| {
                result.unwrap_or_else(|| {
                    SubtaskResult::not_run(
                        &subtasks[i],
                        SubtaskStatus::Cancelled,
                        "the run ended before it started".into(),
                    )
                })
            })
            .collect()
    }
}

/// One subtask's job: its directory and context file, the runner (with the safety-net
/// timeout), then its output and result files.
async fn run_job(
    run_dir: RunDir,
    runner: Arc<dyn Runner>,
    request: RunRequest,
    at_ms: u64,
) -> Result<SubtaskResult, DagError> {
    let subtask = request.subtask.clone();
    let timeout = request.timeout;
    let events = request.events.clone();
    let context_dir = run_dir.clone();
    let context = request.context.clone();
    let id = subtask.id.clone();
    blocking(&subtask.id, move || {
        context_dir.prepare_subtask(&id)?;
        context_dir.write_json(&context.subtask_dir.join("context.json"), &context)
    })
    .await?;
    let outcome = match tokio::time::timeout(timeout + RUNNER_GRACE, runner.run(request)).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(error)) => RunOutcome::with_status(SubtaskStatus::Failed, error.to_string()),
        Err(_) => RunOutcome::with_status(
            SubtaskStatus::TimedOut,
            format!(
                "timed out after {:.1}s and its runner did not return within {}s more",
                timeout.as_secs_f64(),
                RUNNER_GRACE.as_secs()
            ),
        ),
    };
    let duration_ms = events.elapsed_ms().saturating_sub(at_ms);
    let id = subtask.id.clone();
    blocking(&id, move || record(&run_dir, &subtask, at_ms, duration_ms, outcome)).await
}

/// Runs file work on the blocking pool.
async fn blocking<T: Send + 'static>(
    subtask: &str,
    work: impl FnOnce() -> Result<T, DagError> + Send + 'static,
) -> Result<T, DagError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|error| Err(DagError::runner(subtask, error)))
}

/// Writes the subtask's output and result files and builds its result.
fn record(
    run_dir: &RunDir,
    subtask: &crate::Subtask,
    at_ms: u64,
    duration_ms: u64,
    outcome: RunOutcome,
) -> Result<SubtaskResult, DagError> {
    let dir = run_dir.subtask_dir(&subtask.id);
    let output_file = if outcome.output.is_empty() {
        None
    } else {
        let path = dir.join("output.txt");
        run_dir.write_text(&path, &outcome.output)?;
        Some(path)
    };
    let mut files = run_dir.produced_files(&subtask.id);
    files.extend(outcome.files);
    let result = SubtaskResult {
        id: subtask.id.clone(),
        description: subtask.description.clone(),
        pane: subtask.pane.clone(),
        status: outcome.status,
        exit_code: outcome.exit_code,
        summary: outcome.summary.unwrap_or_else(|| last_lines(&outcome.output)),
        reason: outcome.reason,
        started_ms: Some(at_ms),
        duration_ms: Some(duration_ms),
        output_file,
        files,
    };
    run_dir.write_json(&dir.join("result.json"), &result)?;
    Ok(result)
}

/// Why dependents of a finished, unsuccessful subtask are skipped.
fn describe_failure(result: &SubtaskResult) -> String {
    let id = &result.id;
    match (result.status, result.exit_code) {
        (SubtaskStatus::Failed, Some(code)) => format!("`{id}` failed (exit code {code})"),
        (SubtaskStatus::Failed, None) => format!("`{id}` failed"),
        (SubtaskStatus::TimedOut, _) => format!("`{id}` timed out"),
        (SubtaskStatus::Cancelled, _) => format!("`{id}` was cancelled"),
        (SubtaskStatus::Skipped, _) => format!("`{id}` was skipped"),
        (SubtaskStatus::Succeeded, _) => format!("`{id}` succeeded"),
    }
}

/// The last non-empty lines of `output`, at most [`SUMMARY_CHARS`] characters.
fn last_lines(output: &str) -> String {
    let lines: Vec<&str> = output.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(SUMMARY_LINES)..].join(" | ");
    let count = tail.chars().count();
    if count <= SUMMARY_CHARS {
        tail
    } else {
        let skipped: String = tail.chars().skip(count - SUMMARY_CHARS + 1).collect();
        format!("…{skipped}")
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_take_the_last_lines() {
        assert_eq!(last_lines("a\n\nb\nc\nd\n"), "b | c | d");
        assert_eq!(last_lines(""), "");
        let long = "x".repeat(400);
        assert_eq!(last_lines(&long).chars().count(), SUMMARY_CHARS);
    }
}
