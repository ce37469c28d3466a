//! Every pane clive starts is recorded as an asciicast v2 file (`<state>/recordings/<session>.cast` for a
//! session's first pane, `<session>.<pane>.cast` for the other panes of a plan), which `clive replay` and
//! `clive serve` play. A recording that cannot be made never stops the work.

use std::path::PathBuf;

use clive_serve::{RecordOptions, Recording};
use tmux_habitat::Pane;

use crate::settings::Settings;

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

    /// Starts recording the session's first pane, under the session's own name (so `clive replay <id>`
    /// finds it).
    pub async fn record_first(&self, pane: &Pane) {
        let path = self.dir.join(format!("{}.cast", self.session));
        self.start(pane, path, format!("{}: {}", self.session, self.task)).await;
    }

    /// Starts recording another pane, named `name` in the plan, as `<session>.<name>`.
    pub async fn record(&self, pane: &Pane, name: &str) {
        let path = self.dir.join(format!("{}.{name}.cast", self.session));
        self.start(pane, path, format!("{} ({name})", self.session)).await;
    }

    async fn start(&self, pane: &Pane, path: PathBuf, title: String) {
        // From the screen as it is now: a fresh shell may have drawn its prompt before the stream was followed.
        let options = RecordOptions { title: Some(title), current_screen: true };
        match Recording::start(pane, &path, options).await {
            Ok(recording) => self.running.lock().await.push(recording),
            Err(e) => tracing::warn!(path = %path.display(), error = %e, "the pane is not recorded"),
        }
    }

    /// Ends every recording once the output that has arrived is written.
    pub async fn stop_all(&self) {
        let recordings = std::mem::take(&mut *self.running.lock().await);
        for recording in recordings {
            match recording.stop().await {
                Ok(summary) => tracing::debug!(path = %summary.path.display(), bytes = summary.bytes, "recorded"),
                Err(e) => tracing::warn!(error = %e, "finishing the recording failed"),
            }
        }
    }
}

/// Agent panes (`clive@host` subtasks) are opened by the remote runner, not the plan's pane launcher: it tells
/// the recorder of each, so they are recorded as `<session>.agent-<id>.cast` like the plan's other panes.
#[async_trait::async_trait]
impl remote::PaneWatcher for Recorder {
    async fn opened(&self, pane: &Pane, name: &str) {
        self.record(pane, name).await;
    }
}
