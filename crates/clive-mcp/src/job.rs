//! A command in flight in a pane: one task follows it to its signalled end, and every caller (`run`, `wait`,
//! `panes`) reads the end from a watch channel. No two callers wait on the pane's stream at once, and a
//! command that outlives a call's deadline is still followed.

use std::sync::Arc;
use std::time::Duration;

use tmux_habitat::{CommandOutput, RunningCommand};
use tokio::sync::watch;
use tokio::time::Instant;

/// How long the following task waits in one go (it waits again after: a command may run for days).
const FOLLOW_SLICE: Duration = Duration::from_secs(3600);

/// How a command ended.
#[derive(Debug, Clone)]
pub(crate) enum Ended {
    /// It exited: its status, output and duration.
    Exited(CommandOutput),
    /// It could not be followed to its end (the pane was killed, the shell died, tmux went away).
    Lost(String),
}

/// A command typed into a pane, followed until it ends.
#[derive(Debug)]
pub(crate) struct Job {
    /// The command as given.
    pub command: String,
    /// When it was typed.
    pub started: Instant,
    running: Arc<RunningCommand>,
    end: watch::Receiver<Option<Ended>>,
    follower: tokio::task::AbortHandle,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.follower.abort();
    }
}

impl Job {
    /// Follows `running` (the command `command`) to its end.
    pub fn follow(command: &str, running: RunningCommand) -> Job {
        let running = Arc::new(running);
        let (sender, end) = watch::channel(None);
        let followed = Arc::clone(&running);
        let follower = tokio::spawn(async move {
            let ended = loop {
                match followed.wait(FOLLOW_SLICE).await {
                    Ok(output) => break Ended::Exited(output),
                    Err(tmux_habitat::Error::Timeout { .. }) => continue,
                    Err(e) => break Ended::Lost(e.to_string()),
                }
            };
            let _ = sender.send(Some(ended));
        });
        Job { command: command.to_owned(), started: Instant::now(), running, end, follower: follower.abort_handle() }
    }

    /// How it ended, if it has.
    pub fn ended(&self) -> Option<Ended> {
        self.end.borrow().clone()
    }

    /// Waits for the end until `deadline`; `None` when it still runs then.
    pub async fn wait_until(&self, deadline: Instant) -> Option<Ended> {
        let mut end = self.end.clone();
        match tokio::time::timeout_at(deadline, end.wait_for(Option::is_some)).await {
            Ok(Ok(ended)) => ended.clone(),
            // The follower is gone without a word: it was aborted with the session.
            Ok(Err(_)) => Some(Ended::Lost("the session is closing".into())),
            Err(_) => None,
        }
    }

    /// What it has printed so far (empty when the pane cannot be read).
    pub async fn output_so_far(&self) -> String {
        self.running.output_so_far().await.unwrap_or_default()
    }
}
