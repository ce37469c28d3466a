//! How one subtask runs: the [`Runner`] trait.
//!
//! The executor decides *when* and *where* (which pane, after which dependencies); a runner
//! decides *how*. The built-in [`crate::ShellRunner`] types `direct` commands into panes; later
//! runners (LLM, agent) implement the same trait and are registered per [`crate::Mode`]
//! without touching the scheduler.

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;

use crate::cancel::CancelToken;
use crate::error::DagError;
use crate::events::EventSink;
use crate::plan::Subtask;
use crate::result::SubtaskStatus;
use crate::run_dir::SubtaskContext;

/// Everything a runner gets for one subtask.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The subtask.
    pub subtask: Subtask,
    /// Its time limit: the runner must interrupt the work and return
    /// [`SubtaskStatus::TimedOut`] when it passes. (The executor gives up on a runner that
    /// has not returned a few seconds after it.)
    pub timeout: Duration,
    /// Its directory and its dependencies' results.
    pub context: SubtaskContext,
    /// Cancelled when the run is: interrupt the work and return [`SubtaskStatus::Cancelled`].
    pub cancel: CancelToken,
    /// Where to report output while running.
    pub events: EventSink,
}

/// What a runner reports when a subtask is done.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// How it ended ([`SubtaskStatus::Skipped`] is the executor's, not a runner's).
    pub status: SubtaskStatus,
    /// The exit code of the command, when there is one.
    pub exit_code: Option<i32>,
    /// The whole output; the executor writes it to `output.txt`.
    pub output: String,
    /// A short summary; when `None` the executor takes the last lines of `output`.
    pub summary: Option<String>,
    /// Why it did not succeed, when there is more to say than the exit code.
    pub reason: Option<String>,
    /// Files produced outside the subtask directory.
    pub files: Vec<PathBuf>,
}

impl RunOutcome {
    /// An outcome from an exit code: 0 succeeded, anything else failed.
    pub fn from_exit_code(exit_code: i32, output: impl Into<String>) -> RunOutcome {
        let status = if exit_code == 0 { SubtaskStatus::Succeeded } else { SubtaskStatus::Failed };
        RunOutcome {
            status,
            exit_code: Some(exit_code),
            output: output.into(),
            summary: None,
            reason: None,
            files: Vec::new(),
        }
    }

    /// An outcome without an exit code.
    pub fn with_status(status: SubtaskStatus, reason: impl Into<String>) -> RunOutcome {
        RunOutcome {
            status,
            exit_code: None,
            output: String::new(),
            summary: None,
            reason: Some(reason.into()),
            files: Vec::new(),
        }
    }
}

/// Runs one subtask. Implementations must be cheap to share: the executor calls `run`
/// concurrently for subtasks on different panes (never for two on the same pane).
#[async_trait]
pub trait Runner: Send + Sync {
    /// Runs the subtask of `request` to its end. An `Err` marks the subtask failed with the
    /// error's message.
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError>;
}
