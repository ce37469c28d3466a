//! Every pane clive starts is recorded as an asciicast v2 file (`<state>/recordings/<session>.cast`), which
//! `clive replay` and `clive serve` play. A recording that cannot be made never stops the work.

use clive_serve::{RecordOptions, Recording};
use tmux_habitat::Pane;

use crate::settings::Settings;

/// Starts recording `pane` of `session` (run for `task`); `None`, with a warning, when it cannot be.
pub async fn start(settings: &Settings, pane: &Pane, session: &str, task: &str) -> Option<Recording> {
    let path = settings.recording_file(session);
    // From the screen as it is now: a fresh shell may have drawn its prompt before the stream was followed.
    let options = RecordOptions { title: Some(format!("{session}: {task}")), current_screen: true };
    match Recording::start(pane, &path, options).await {
        Ok(recording) => Some(recording),
        Err(e) => {
            tracing::warn!(session, path = %path.display(), error = %e, "the session is not recorded");
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
