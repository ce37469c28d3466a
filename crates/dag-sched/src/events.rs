//! Progress events of a run, as a channel of serializable values (one JSON object per line).

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedSender;

use crate::result::SubtaskStatus;

/// Something that happened during a run. Times are milliseconds since the run started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// The run began.
    RunStarted {
        /// The run directory.
        run_dir: PathBuf,
        /// How many subtasks the plan has.
        subtasks: usize,
    },
    /// A subtask started in its pane.
    Started {
        /// The subtask id.
        id: String,
        /// Its pane.
        pane: String,
        /// When.
        at_ms: u64,
    },
    /// Output of a running subtask (what its runner reports, in order).
    Output {
        /// The subtask id.
        id: String,
        /// The text.
        text: String,
    },
    /// A runner's progress on a running subtask: the turn it is on, the model tokens spent so far and what it
    /// is doing, in a few words. Model-driven runners send one per turn.
    Progress {
        /// The subtask id.
        id: String,
        /// The turn (or attempt) number, from 1.
        turn: u32,
        /// Model tokens spent on the subtask so far.
        tokens: u64,
        /// What it is doing (`run: ls -la`, `waiting for the model`).
        note: String,
    },
    /// A subtask that ran ended (succeeded, failed, timed out or was interrupted).
    Finished {
        /// The subtask id.
        id: String,
        /// How it ended.
        status: SubtaskStatus,
        /// Its exit code, when it has one.
        exit_code: Option<i32>,
        /// How long it ran.
        duration_ms: u64,
        /// A short summary.
        summary: String,
    },
    /// A subtask will not run because a dependency did not succeed.
    Skipped {
        /// The subtask id.
        id: String,
        /// Why.
        reason: String,
    },
    /// A subtask that had not started was cancelled.
    Cancelled {
        /// The subtask id.
        id: String,
        /// Why.
        reason: String,
    },
    /// The run ended; counts of terminal states.
    RunFinished {
        /// When.
        at_ms: u64,
        /// Subtasks that succeeded.
        succeeded: usize,
        /// Subtasks that failed.
        failed: usize,
        /// Subtasks that timed out.
        timed_out: usize,
        /// Subtasks that were skipped.
        skipped: usize,
        /// Subtasks that were cancelled.
        cancelled: usize,
    },
}

impl Event {
    /// The event as one line of JSON (no trailing newline).
    pub fn to_json_line(&self) -> String {
        // Plain data with string keys always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Where a run's events go; runners use it to report output.
#[derive(Debug, Clone)]
pub struct EventSink {
    sender: Option<UnboundedSender<Event>>,
    origin: Instant,
}

impl EventSink {
    /// A sink sending to `sender` (or nowhere), timing from now.
    pub fn new(sender: Option<UnboundedSender<Event>>) -> EventSink {
        EventSink { sender, origin: Instant::now() }
    }

    /// Sends `event`; a closed receiver is ignored (nobody is watching any more).
    pub fn send(&self, event: Event) {
        if let Some(sender) = &self.sender {
            let _ = sender.send(event);
        }
    }

    /// Reports output of subtask `id`.
    pub fn output(&self, id: &str, text: impl Into<String>) {
        self.send(Event::Output { id: id.to_string(), text: text.into() });
    }

    /// Milliseconds since the run started.
    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_json_lines_with_a_tag() {
        let event = Event::Skipped { id: "b".into(), reason: "`a` failed (exit code 1)".into() };
        let line = event.to_json_line();
        assert_eq!(line, r#"{"event":"skipped","id":"b","reason":"`a` failed (exit code 1)"}"#);
        assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), event);
    }
}
