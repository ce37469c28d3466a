//! A runner that runs nothing and records what the executor asked of it.
//!
//! For tests and benchmarks of scheduling (and for callers testing code that drives an
//! [`crate::Executor`]): it marks when each subtask started and ended on a logical clock,
//! optionally waits, and fails the subtasks it is told to fail.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use crate::error::DagError;
use crate::result::SubtaskStatus;
use crate::runner::{RunOutcome, RunRequest, Runner};

/// One subtask as the [`RecordingRunner`] saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRecord {
    /// The subtask id.
    pub id: String,
    /// Its pane.
    pub pane: String,
    /// Logical time it started (strictly increasing across all records of a runner).
    pub started: u64,
    /// Logical time it ended.
    pub finished: u64,
    /// Ids of the dependency results it was given.
    pub dependencies: Vec<String>,
    /// How it ended.
    pub status: SubtaskStatus,
}

/// A [`crate::Runner`] for tests and benchmarks: no I/O, records every run.
#[derive(Debug, Default)]
pub struct RecordingRunner {
    clock: AtomicU64,
    records: Mutex<Vec<RunRecord>>,
    delays: HashMap<String, Duration>,
    default_delay: Duration,
    failing: HashSet<String>,
}

impl RecordingRunner {
    /// A runner that succeeds at once for every subtask.
    pub fn new() -> RecordingRunner {
        RecordingRunner::default()
    }

    /// Every subtask takes `delay` (tokio time; waits are cut short by cancellation).
    pub fn with_default_delay(mut self, delay: Duration) -> RecordingRunner {
        self.default_delay = delay;
        self
    }

    /// Subtask `id` takes `delay`.
    pub fn with_delay(mut self, id: impl Into<String>, delay: Duration) -> RecordingRunner {
        self.delays.insert(id.into(), delay);
        self
    }

    /// Subtask `id` fails with exit code 1.
    pub fn failing(mut self, id: impl Into<String>) -> RecordingRunner {
        self.failing.insert(id.into());
        self
    }

    /// The records so far, in the order subtasks ended.
    pub fn records(&self) -> Vec<RunRecord> {
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::SeqCst)
    }
}

#[async_trait]
impl Runner for RecordingRunner {
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError> {
        let subtask = &request.subtask;
        let started = self.tick();
        let delay = self.delays.get(&subtask.id).copied().unwrap_or(self.default_delay);
        let cancelled = if delay.is_zero() {
            tokio::task::yield_now().await;
            false
        } else {
            tokio::select! {
                () = tokio::time::sleep(delay) => false,
                () = request.cancel.cancelled() => true,
            }
        };
        let outcome = if cancelled {
            RunOutcome::with_status(SubtaskStatus::Cancelled, "interrupted by cancellation")
        } else if self.failing.contains(&subtask.id) {
            RunOutcome::from_exit_code(1, format!("{} failed on purpose\n", subtask.id))
        } else {
            RunOutcome::from_exit_code(0, format!("{} done\n", subtask.id))
        };
        let record = RunRecord {
            id: subtask.id.clone(),
            pane: subtask.pane.clone(),
            started,
            finished: self.tick(),
            dependencies: request.context.dependencies.iter().map(|d| d.id.clone()).collect(),
            status: outcome.status,
        };
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(record);
        Ok(outcome)
    }
}
