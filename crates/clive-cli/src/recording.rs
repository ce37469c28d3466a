//! Every pane clive starts is recorded as an asciicast v2 file (`<state>/recordings/<session>.cast` for a
//! session's first pane, `<session>.<pane>.cast` for the other panes of a plan), which `clive replay` and
//! `clive serve` play. A recording that cannot be made never stops the work.

use std::path::PathBuf;

use clive_serve::{RecordOptions, Recording};
use tmux_habitat::Pane;

use crate::settings::Settings;

/// Starts recording `pane` of `session` (run for `task`); `None`, with a warning, when it cannot be.
pub async fn start(settings: &Settings, pane: &Pane, session: &str, task: &str) -> Option<Recording> {
    start_at(settings.recording_file(session), pane, format!("{session}: {task}")).await
}

async fn start_at(path: PathBuf, pane: &Pane, title: String) -> Option<Recording> {
    // From the screen as it is now: a fresh shell may have drawn its prompt before the stream was followed.
    let options = RecordOptions { title: Some(title), current_screen: true };
    match Recording::start(pane, &path, options).await {
        Ok(recording) => Some(recording),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "the pane is not recorded");
            None
        }
    }
}

/// Ends a recording once the output that has arrived is written.
pub async fn stop(recording: Option<Recording>) {
    let Some(recording) = recording else { return };
    match recording.stop().await {
        Ok(summary) => tracing::debug!(path = %summary.path.display(), bytes = summary.bytes, "recorded"),
        Err(e) => tracing::warn!(error = %e, "finishing the recording failed"),
    }
}

/// The recordings of one run's panes (a plan opens panes as its subtasks need them), ended together.
pub struct Recorder {
    dir: PathBuf,
    session: String,
    task: String,
    running: tokio::sync::Mutex<Vec<Recording>>,
}

impl Recorder {
    /// A recorder for the panes of `session`, run for `task`.
    pub fn new(settings: &Settings, session: &str, task: &str) -> Recorder {
        Recorder {
            dir: settings.recordings_dir(),
            session: session.to_owned(),
            task: task.to_owned(),
            running: tokio::sync::Mutex::new(Vec::new()),
        }
    }

    /// The file of the pane named `pane`: the session's own name for its first pane (`first`), so that
    /// `clive replay <id>` finds it; `<session>.<pane>` for the others.
    pub fn file(&self, pane: &str, first: bool) -> PathBuf {
        let stem = if first { self.session.clone() } else { format!("{}.{pane}", self.session) };
        self.dir.join(format!("{stem}.cast"))
    }

    /// Starts recording `pane`, named `name` in the plan.
    pub async fn record(&self, pane: &Pane, name: &str, first: bool) {
        let title =
            if first { format!("{}: {}", self.session, self.task) } else { format!("{} ({name})", self.session) };
        if let Some(recording) = start_at(self.file(name, first), pane, title).await {
            self.running.lock().await.push(recording);
        }
    }

    /// Ends every recording.
    pub async fn stop_all(&self) {
        let recordings = std::mem::take(&mut *self.running.lock().await);
        for recording in recordings {
            stop(Some(recording)).await;
        }
    }
}
