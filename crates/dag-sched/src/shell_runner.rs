//! The built-in runner for `direct` subtasks: types the command into a tmux pane.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use tmux_habitat::{Error as HabitatError, Key, Pane, RunningCommand, Session, shell_quote};

use crate::error::DagError;
use crate::result::SubtaskStatus;
use crate::runner::{RunOutcome, RunRequest, Runner};

/// How long a new pane's shell may take to read input.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an interrupted command may take to give the prompt back.
const INTERRUPT_TIMEOUT: Duration = Duration::from_secs(3);

/// Runs `direct` subtasks in tmux panes of one session, through tmux-habitat.
///
/// Each plan pane is a window of the session, named after the pane, created detached on first
/// use and kept for later subtasks (which inherit its shell state). Before the command, the
/// pane's shell gets `CLIVE_RUN_DIR` and `CLIVE_SUBTASK_DIR` exported, so a command can leave
/// files for its dependents (`… > "$CLIVE_SUBTASK_DIR/report.txt"`). On timeout or
/// cancellation the runner presses C-c in the pane and waits for the shell to read input again.
#[derive(Debug)]
pub struct ShellRunner {
    session: Session,
    panes: tokio::sync::Mutex<HashMap<String, Pane>>,
}

impl ShellRunner {
    /// A runner creating its panes in `session`.
    pub fn new(session: Session) -> ShellRunner {
        ShellRunner { session, panes: tokio::sync::Mutex::new(HashMap::new()) }
    }

    /// The session the panes live in.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The pane named `name`, created (and waited ready) on first use.
    pub async fn pane(&self, name: &str) -> Result<Pane, DagError> {
        if let Some(pane) = self.panes.lock().await.get(name) {
            return Ok(pane.clone());
        }
        // Created without holding the map, so panes start in parallel. The executor never runs
        // two subtasks of one pane at once, so one name is never created twice concurrently.
        let error = |source: HabitatError| DagError::Pane { pane: name.to_string(), source };
        let pane = self.session.new_window(name).await.map_err(error)?;
        pane.wait_ready(READY_TIMEOUT).await.map_err(error)?;
        self.panes.lock().await.insert(name.to_string(), pane.clone());
        Ok(pane)
    }

    /// Forgets a pane whose shell died, so the next subtask on it gets a new window.
    async fn forget(&self, name: &str) {
        self.panes.lock().await.remove(name);
    }
}

/// Presses C-c and waits until the shell reads input again; says how that went.
async fn interrupt(pane: &Pane) -> String {
    for _ in 0..2 {
        if pane.send_keys(&[Key::CTRL_C]).await.is_err() {
            return "could not press C-c in the pane".to_string();
        }
        if pane.wait_ready(INTERRUPT_TIMEOUT).await.is_ok() {
            return "interrupted with C-c".to_string();
        }
    }
    format!("pressed C-c twice but the shell did not come back within {}s", INTERRUPT_TIMEOUT.as_secs() * 2)
}

/// Reports a running command's new output as `Output` events, whole lines at a time, until dropped. Over
/// control mode it looks each time the pane prints (at most every 100 ms); otherwise once a second. This
/// only feeds a progress display: the command's end is never judged here.
async fn report_output_while_running(
    pane: &Pane,
    running: &RunningCommand,
    request: &RunRequest,
    reported: &std::sync::Mutex<String>,
) -> std::convert::Infallible {
    let mut stream = pane.subscribe().await.ok();
    loop {
        match stream.as_mut() {
            Some(output) => {
                if output.recv().await.is_none() {
                    stream = None;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            None => tokio::time::sleep(Duration::from_secs(1)).await,
        }
        let Ok(text) = running.output_so_far().await else { continue };
        // Only complete lines: the last one may still grow.
        let complete = text.rfind('\n').map_or("", |end| &text[..=end]);
        let mut sent = reported.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(new) = complete.strip_prefix(sent.as_str()).filter(|new| !new.is_empty()) {
            request.events.output(&request.subtask.id, new.to_owned());
            *sent = complete.to_owned();
        }
    }
}

#[async_trait]
impl Runner for ShellRunner {
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError> {
        let subtask = &request.subtask;
        let Some(command) = subtask.command.as_deref() else {
            return Err(DagError::runner(&subtask.id, "a direct subtask needs a `command`"));
        };
        let pane = self.pane(&subtask.pane).await?;
        let _guard = pane.lock().await;
        let script = format!(
            "export CLIVE_RUN_DIR={} CLIVE_SUBTASK_DIR={}\n{command}",
            shell_quote(&request.context.run_dir.display().to_string()),
            shell_quote(&request.context.subtask_dir.display().to_string()),
        );
        let running = pane.start(&script).await.map_err(|e| DagError::runner(&subtask.id, e))?;
        let reported = std::sync::Mutex::new(String::new());
        let live_output = report_output_while_running(&pane, &running, &request, &reported);
        let finished = tokio::select! {
            finished = running.wait(request.timeout) => finished,
            never = live_output => match never {},
            () = request.cancel.cancelled() => {
                let how = interrupt(&pane).await;
                return Ok(RunOutcome::with_status(SubtaskStatus::Cancelled, format!("the run was cancelled; {how}")));
            }
        };
        match finished {
            Ok(output) => {
                let reported = reported.lock().unwrap_or_else(|p| p.into_inner()).clone();
                // What was not reported while it ran (or all of it, if the screen was redrawn meanwhile).
                let rest = output.output.strip_prefix(reported.as_str()).unwrap_or(&output.output);
                if !rest.is_empty() {
                    request.events.output(&subtask.id, rest.to_owned());
                }
                let mut outcome = RunOutcome::from_exit_code(output.exit_code, output.output);
                if output.truncated {
                    outcome.reason = Some("the start of the output scrolled out of the pane's history".into());
                }
                Ok(outcome)
            }
            Err(HabitatError::Timeout { screen, .. }) => {
                let how = interrupt(&pane).await;
                let mut outcome = RunOutcome::with_status(
                    SubtaskStatus::TimedOut,
                    format!("timed out after {:.1}s; {how}", request.timeout.as_secs_f64()),
                );
                outcome.output = screen;
                Ok(outcome)
            }
            Err(HabitatError::PaneDead { status, .. }) => {
                self.forget(&subtask.pane).await;
                let mut outcome = RunOutcome::with_status(
                    SubtaskStatus::Failed,
                    format!(
                        "the pane's shell exited (status {status:?}); the next subtask on `{}` gets a new pane",
                        subtask.pane
                    ),
                );
                outcome.exit_code = status;
                Ok(outcome)
            }
            Err(other) => Err(DagError::runner(&subtask.id, other)),
        }
    }
}
