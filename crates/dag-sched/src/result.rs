//! What became of each subtask, and of the run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The terminal state of a subtask. Every subtask of a run ends in exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubtaskStatus {
    /// It ran and succeeded (exit code 0 for commands).
    Succeeded,
    /// It ran and failed, or could not be run.
    Failed,
    /// It ran past its time limit and was interrupted.
    TimedOut,
    /// It did not run because a dependency did not succeed.
    Skipped,
    /// The run was cancelled before or while it ran.
    Cancelled,
}

impl SubtaskStatus {
    /// The lowercase name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            SubtaskStatus::Succeeded => "succeeded",
            SubtaskStatus::Failed => "failed",
            SubtaskStatus::TimedOut => "timed_out",
            SubtaskStatus::Skipped => "skipped",
            SubtaskStatus::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for SubtaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The record of one subtask; written to `subtasks/<id>/result.json` and given to the
/// subtasks that depend on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubtaskResult {
    /// The subtask id.
    pub id: String,
    /// Its description.
    pub description: String,
    /// Its pane.
    pub pane: String,
    /// How it ended.
    pub status: SubtaskStatus,
    /// The exit code of its command, when it has one.
    pub exit_code: Option<i32>,
    /// A short summary: the runner's, or the last lines of the output.
    pub summary: String,
    /// Why it was skipped, cancelled, timed out or could not run.
    pub reason: Option<String>,
    /// When it started, in milliseconds since the run started.
    pub started_ms: Option<u64>,
    /// How long it ran.
    pub duration_ms: Option<u64>,
    /// The file holding its whole output, if it had output.
    pub output_file: Option<PathBuf>,
    /// The files it produced: those in its subtask directory and those its runner reported.
    pub files: Vec<PathBuf>,
}

impl SubtaskResult {
    /// A result for a subtask that never ran.
    pub(crate) fn not_run(subtask: &crate::Subtask, status: SubtaskStatus, reason: String) -> SubtaskResult {
        SubtaskResult {
            id: subtask.id.clone(),
            description: subtask.description.clone(),
            pane: subtask.pane.clone(),
            status,
            exit_code: None,
            summary: String::new(),
            reason: Some(reason),
            started_ms: None,
            duration_ms: None,
            output_file: None,
            files: Vec::new(),
        }
    }
}

/// The outcome of a whole run: one result per subtask, in plan order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The run directory.
    pub run_dir: PathBuf,
    /// One result per subtask, in plan order.
    pub results: Vec<SubtaskResult>,
    /// Whether the run was cancelled.
    pub cancelled: bool,
    /// Wall time of the run.
    pub duration_ms: u64,
}

impl RunSummary {
    /// Whether every subtask succeeded.
    pub fn all_succeeded(&self) -> bool {
        self.results.iter().all(|r| r.status == SubtaskStatus::Succeeded)
    }

    /// How many subtasks ended in `status`.
    pub fn count(&self, status: SubtaskStatus) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }

    /// The result of subtask `id`.
    pub fn result(&self, id: &str) -> Option<&SubtaskResult> {
        self.results.iter().find(|r| r.id == id)
    }
}
