//! Calling for a person when an agent stops for approval: `clive serve --on-waiting CMD` runs a command once
//! per new dialog, for people who route alerts elsewhere (a chat message, a phone push, a sound). The page
//! does its own part (title, list, browser notification) from the listing.

use std::process::Stdio;
use std::time::Duration;

use crate::error::{Error, Result};

/// How long the command may run before it is killed: an alert that hangs must not pile up processes.
pub const ON_WAITING_DEADLINE: Duration = Duration::from_secs(30);

/// The most of the command's output kept for the log.
const OUTPUT_KEPT: usize = 2000;

/// A dialog that appeared, as the command's environment describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// The tmux session (`CLIVE_SESSION`).
    pub session: String,
    /// `window.pane` in the session (`CLIVE_PANE`).
    pub pane: String,
    /// The pane's key in the page's URLs (`CLIVE_PANE_KEY`).
    pub key: String,
    /// The agent recognised in the pane, empty when none was (`CLIVE_AGENT`).
    pub agent: String,
    /// The dialog's question (`CLIVE_QUESTION`).
    pub question: String,
    /// Its choices, one per line (`CLIVE_CHOICES`).
    pub choices: Vec<String>,
    /// The dialog's id, as the page's buttons name it (`CLIVE_DIALOG`).
    pub dialog: String,
    /// The page showing the pane (`CLIVE_URL`, without the access token).
    pub url: String,
}

impl Waiting {
    /// The environment the command gets.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("CLIVE_SESSION", self.session.clone()),
            ("CLIVE_PANE", self.pane.clone()),
            ("CLIVE_PANE_KEY", self.key.clone()),
            ("CLIVE_AGENT", self.agent.clone()),
            ("CLIVE_QUESTION", self.question.clone()),
            ("CLIVE_CHOICES", self.choices.join("\n")),
            ("CLIVE_DIALOG", self.dialog.clone()),
            ("CLIVE_URL", self.url.clone()),
        ]
    }
}

/// A shell command run (`sh -c`) once per new dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnWaiting {
    command: String,
}

impl OnWaiting {
    /// `command` as `sh -c` runs it. An empty command is refused.
    pub fn new(command: impl Into<String>) -> Result<OnWaiting> {
        let command = command.into();
        if command.trim().is_empty() {
            return Err(Error::Invalid {
                what: "--on-waiting command",
                reason: "it is empty; give a shell command, e.g. --on-waiting 'notify-send \"$CLIVE_QUESTION\"'".into(),
            });
        }
        Ok(OnWaiting { command })
    }

    /// The command.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Runs the command for `waiting` (stdin empty, output collected) and waits for it, at most `deadline`
    /// (then it is killed). A command that fails, cannot start or runs too long is an error naming it.
    pub async fn run(&self, waiting: &Waiting, deadline: Duration) -> Result<()> {
        let mut command = tokio::process::Command::new("sh");
        command
            .arg("-c")
            .arg(&self.command)
            .envs(waiting.env())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a command that hangs is killed with everything it started.
            .process_group(0)
            .kill_on_drop(true);
        let child = command.spawn().map_err(|e| Error::io(format!("starting --on-waiting {:?}", self.command), e))?;
        let group = child.id().and_then(|id| rustix::process::Pid::from_raw(i32::try_from(id).ok()?));
        let output = match tokio::time::timeout(deadline, child.wait_with_output()).await {
            Ok(output) => output.map_err(|e| Error::io(format!("running --on-waiting {:?}", self.command), e))?,
            Err(_) => {
                if let Some(group) = group {
                    let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
                }
                return Err(Error::Hook {
                    command: self.command.clone(),
                    reason: format!("still running after {deadline:?}; it was killed"),
                });
            }
        };
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        let tail = &stderr[stderr.len() - tail_len(stderr, OUTPUT_KEPT)..];
        Err(Error::Hook {
            command: self.command.clone(),
            reason: if tail.is_empty() { output.status.to_string() } else { format!("{}: {tail}", output.status) },
        })
    }

    /// Runs the command in the background; its failure is logged, never passed on.
    pub(crate) fn spawn(&self, waiting: Waiting) {
        let hook = self.clone();
        tokio::spawn(async move {
            match hook.run(&waiting, ON_WAITING_DEADLINE).await {
                Ok(()) => tracing::info!(session = %waiting.session, pane = %waiting.pane, "ran --on-waiting"),
                Err(e) => {
                    tracing::warn!(session = %waiting.session, pane = %waiting.pane, error = %e, "--on-waiting failed")
                }
            }
        });
    }
}

/// The length of the last `max` bytes of `text`, on a character boundary.
fn tail_len(text: &str, max: usize) -> usize {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text.len() - start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting() -> Waiting {
        Waiting {
            session: "clive-ab12".into(),
            pane: "0.0".into(),
            key: "0.3".into(),
            agent: "claude".into(),
            question: "Do you want to make this edit to 'a b.rs'?".into(),
            choices: vec!["Yes".into(), "No (esc)".into()],
            dialog: "17".into(),
            url: "http://127.0.0.1:7878/#/pane/0.3".into(),
        }
    }

    #[tokio::test]
    async fn the_command_gets_the_dialog_in_its_environment() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let hook = OnWaiting::new(format!(
            "printf '%s|%s|%s|%s|%s|%s|%s|%s' \"$CLIVE_SESSION\" \"$CLIVE_PANE\" \"$CLIVE_PANE_KEY\" \"$CLIVE_AGENT\" \
             \"$CLIVE_QUESTION\" \"$CLIVE_CHOICES\" \"$CLIVE_DIALOG\" \"$CLIVE_URL\" > {}",
            out.display()
        ))
        .unwrap();
        hook.run(&waiting(), ON_WAITING_DEADLINE).await.unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "clive-ab12|0.0|0.3|claude|Do you want to make this edit to 'a b.rs'?|Yes\nNo (esc)|17|\
             http://127.0.0.1:7878/#/pane/0.3"
        );
    }

    #[tokio::test]
    async fn a_failing_or_hanging_command_is_an_error_that_names_it() {
        let failing = OnWaiting::new("echo no route to the pager >&2; exit 3").unwrap();
        let error = failing.run(&waiting(), ON_WAITING_DEADLINE).await.unwrap_err().to_string();
        assert!(
            error.contains("exit 3") && error.contains("echo no route") && error.contains("no route to the pager"),
            "{error}"
        );
        let hanging = OnWaiting::new("sleep 30").unwrap();
        let started = std::time::Instant::now();
        let error = hanging.run(&waiting(), Duration::from_millis(200)).await.unwrap_err().to_string();
        assert!(error.contains("killed") && started.elapsed() < Duration::from_secs(10), "{error}");
        assert!(OnWaiting::new("  ").is_err());
    }
}
