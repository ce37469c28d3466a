//! Running a shell command in a pane and knowing exactly when it ended.
//!
//! The command goes into a script file that the pane's shell sources (so it inherits and changes the shell's
//! state: `cd`, `export`, history). The typed line sources a second script around it, which shows the
//! command, frames it by two markers and, on the subprocess transport, ends with a signal on a FIFO unique to
//! this command:
//!
//! ```text
//! $ . '/tmp/…/run-5f3a….sh'                     ← typed, then wiped and replaced by the command
//! $ ls -la ⟨__HAB_S_5f3a…⟩                      ← ⟨…⟩: printed concealed
//! total 8
//! ⟨__HAB_E_5f3a…:0⟩
//! ```
//!
//! Nothing typed contains a marker, so no echo can be taken for one; the signal is sent only after the end
//! marker is printed, so completion is never reported early; and since the script is sourced, multi-line
//! commands, heredocs and lines longer than a terminal line all work. A person watching sees the command as it
//! was given and no plumbing ([`crate::frame`]). If the command kills the shell, a `pane-died` hook on the pane
//! signals a `wait-for` channel unique to the command, and a look at the pane once a second covers a hook that
//! tmux does not run.
//!
//! Over control mode the end marker itself is the signal: the pane's output stream is watched for it, so
//! the script has no FIFO write and the end is seen within a millisecond. Should the stream miss it (a
//! slow reader, a paused or moved pane), a look at the screen once a second finds it.

use std::time::Duration;

use tokio::time::Instant;

use tmux_control::{Command, OutputSubscription};

use crate::end_signal::EndSignal;
use crate::error::{Error, Result};
use crate::frame::{self, TypedAt};
use crate::intervention::{Intervention, detect_intervention};
use crate::pane::{Pane, PaneInfo};
use crate::stream::{StreamWait, wait_for_any_output, wait_for_marker};
use crate::wait::Backoff;

const START: &str = "__HAB_S_";
const END: &str = "__HAB_E_";

/// What a finished command left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// The command's exit status (`$?` after it).
    pub exit_code: i32,
    /// What the command printed, as the terminal shows it (wrapped lines joined, trailing blanks removed).
    pub output: String,
    /// From the moment it was typed to the moment its end was signalled.
    pub duration: Duration,
    /// The start of the output scrolled out of the pane's history; `output` holds only the end.
    pub truncated: bool,
}

impl CommandOutput {
    /// Whether the command exited with status 0.
    pub fn success(&self) -> bool {
        self.exit_code == 0
    }
}

/// A command typed into a pane that has not been waited for yet.
#[derive(Debug)]
pub struct RunningCommand {
    pane: Pane,
    /// The command's script and the one around it that the typed line sources; removed once it has ended.
    scripts: [std::path::PathBuf; 2],
    token: String,
    channel: String,
    started: Instant,
    /// Absolute line (history + screen) where the command's output begins.
    start_line: usize,
    /// The cursor row when the command was typed.
    start_cursor_y: u16,
    /// The pane's output stream, over control mode.
    stream: tokio::sync::Mutex<Option<OutputSubscription>>,
    /// The FIFO the typed line ends by writing the token into (the subprocess transport's way).
    end_signal: tokio::sync::Mutex<Option<EndSignal>>,
    /// The end was seen and the script removed.
    ended: std::sync::atomic::AtomicBool,
}

impl Drop for RunningCommand {
    fn drop(&mut self) {
        if !self.ended.load(std::sync::atomic::Ordering::Relaxed) {
            for script in &mut self.scripts {
                self.pane.server().leave_script(self.pane.id(), std::mem::take(script));
            }
        }
    }
}

/// How many rows above the command's first row the one-call capture reaches: outputs that scroll less than
/// this are collected in a single tmux call.
const FAST_PATH_WINDOW: i64 = 200;

/// A random token that appears nowhere else: ids, channel names, buffer names.
pub(crate) fn unique_token(kind: &str) -> String {
    format!("hab-{kind}-{:016x}", rand::random::<u64>())
}

impl Pane {
    /// Runs `command` in the pane's shell and waits for it to end, up to `timeout`. Returns its exit code,
    /// its output only, and its duration. On timeout the error carries the screen so far; the command keeps
    /// running (send [`Key::CTRL_C`](crate::Key::CTRL_C) to stop it).
    ///
    /// The pane must run a POSIX shell at its prompt. Callers that share the pane take [`Pane::lock`] first.
    pub async fn run(&self, command: &str, timeout: Duration) -> Result<CommandOutput> {
        self.start(command).await?.wait(timeout).await
    }

    /// Types `command` into the pane's shell and returns at once, so the caller can watch for
    /// interventions (a `[y/N]` prompt, a password, a pager) and answer them before waiting.
    pub async fn start(&self, command: &str) -> Result<RunningCommand> {
        let info = self.info().await?;
        if info.dead {
            return Err(Error::PaneDead { pane: self.id().to_string(), status: info.dead_status });
        }
        if info.in_mode {
            return Err(Error::Refused {
                pane: self.id().to_string(),
                reason:
                    "the pane is in a mode (copy mode?) that would swallow the keys; leave it (press q) and try again"
                        .into(),
            });
        }
        let token = format!("{:016x}", rand::random::<u64>());
        let channel = unique_token("done");
        let script = self.server().runtime_dir().join(format!("cmd-{token}.sh"));
        let frame = self.server().runtime_dir().join(format!("run-{token}.sh"));
        let mut body = command.replace("\r\n", "\n");
        if !body.ends_with('\n') {
            body.push('\n');
        }
        std::fs::write(&script, &body).map_err(|e| Error::io(format!("writing {}", script.display()), e))?;
        let stream = self.server().subscribe_output(self.id()).await?;
        let at = TypedAt::of(&info);
        let (line, rows) = at.fit(format!(". {}", crate::shell_quote(&frame.display().to_string())));
        let end_signal = match stream {
            Some(_) => None,
            None => Some(EndSignal::create(self.server().runtime_dir().join(format!("end-{token}")))?),
        };
        // Over the subprocess transport the script ends by writing the token into the FIFO.
        let after = end_signal.as_ref().map(|signal| {
            format!("printf '%s\\n' {token} 1<>{}", crate::shell_quote(&signal.path().display().to_string()))
        });
        let text = frame::command_script(
            &body,
            rows.map(|rows| at.wipe(rows)),
            info.cursor_x == 0,
            (START, &token),
            (END, &token),
            &crate::shell_quote(&script.display().to_string()),
            after,
        );
        if let Err(e) = std::fs::write(&frame, text) {
            let _ = std::fs::remove_file(&script);
            return Err(Error::io(format!("writing {}", frame.display()), e));
        }
        self.typed_into();
        let id = self.id().as_str();
        let hook = format!("wait-for -S {channel}");
        let started = Instant::now();
        let typed = crate::Invocation::new(Command::new("set-hook").args(["-p", "-t", id, "pane-died", &hook]))
            .then(Command::new("send-keys").args(["-t", id, "-l", &line]))
            .then(Command::new("send-keys").args(["-t", id, "Enter"]));
        self.server().tmux(typed).await?;
        Ok(RunningCommand {
            pane: self.clone(),
            token,
            channel,
            scripts: [script, frame],
            started,
            start_line: info.history_size + usize::from(info.cursor_y),
            start_cursor_y: info.cursor_y,
            stream: tokio::sync::Mutex::new(stream),
            end_signal: tokio::sync::Mutex::new(end_signal),
            ended: std::sync::atomic::AtomicBool::new(false),
        })
    }
}

impl RunningCommand {
    /// The pane the command runs in.
    pub fn pane(&self) -> &Pane {
        &self.pane
    }

    /// Waits until the command ends, up to `timeout`, and collects its output. It borrows, so another task
    /// may read [`RunningCommand::output_so_far`] or watch for interventions meanwhile (they share the
    /// output stream, so over control mode only one of them waits on it at a time).
    pub async fn wait(&self, timeout: Duration) -> Result<CommandOutput> {
        let deadline = Instant::now() + timeout;
        let stream = self.stream.lock().await.take();
        match stream {
            None if self.end_signal.lock().await.is_some() => {
                let mut guard = self.end_signal.lock().await;
                let signal = guard.as_mut().ok_or_else(|| Error::Protocol {
                    command: "run".into(),
                    detail: "the end signal went away".into(),
                })?;
                // The pane-died hook signals the channel: a command that kills its shell never writes. Listen
                // only once the command has had a moment to end normally, so fast commands cost no tmux client.
                let death = async {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    self.pane.wait_for_channel(&self.channel, timeout, "the command to finish").await
                };
                tokio::select! {
                    ended = signal.wait(&self.token, deadline) => {
                        if !ended? {
                            return Err(self.timed_out(timeout, "the command to finish").await);
                        }
                    }
                    died = death => died?,
                }
            }
            None => self.poll_until_finished(deadline, timeout).await?,
            Some(mut stream) => {
                let marker = format!("{END}{}:", self.token);
                // The pane-died hook signals the channel; listen to it only once the command has had a moment
                // to end normally, so fast commands cost no extra tmux client.
                let death = async {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    self.pane.wait_for_channel(&self.channel, timeout, "the command to finish").await
                };
                // The stream can miss the end: an earlier wait_for_intervention may have taken its event, the
                // pane may have been paused with no reader or moved to another session. A look at the screen
                // now and once a second covers that, and notices a pane that was killed.
                let slow_check = async {
                    loop {
                        if self.finished().await? {
                            return Ok::<_, Error>(());
                        }
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                };
                let seen = tokio::select! {
                    seen = wait_for_marker(&mut stream, marker.as_bytes(), deadline) => seen,
                    died = death => { died?; StreamWait::Found }
                    checked = slow_check => { checked?; StreamWait::Found }
                };
                match seen {
                    StreamWait::Found => {}
                    StreamWait::TimedOut => {
                        // Still running: keep the stream for a later wait.
                        *self.stream.lock().await = Some(stream);
                        return Err(self.timed_out(timeout, "the command to finish").await);
                    }
                    StreamWait::Lost => {
                        self.pane.server().continue_pane(self.pane.id()).await;
                        self.poll_until_finished(deadline, timeout).await?;
                    }
                }
            }
        }
        let duration = self.started.elapsed();
        // The shell has read the script: the command is over, and so are those given up on before it.
        for script in &self.scripts {
            let _ = std::fs::remove_file(script);
        }
        self.ended.store(true, std::sync::atomic::Ordering::Relaxed);
        self.pane.server().remove_left_scripts(self.pane.id());
        // Fast path, one tmux call: capture from a little above where the command started. Unless its output
        // scrolled more than that window, both markers are in it.
        let lines = self.capture_from(i64::from(self.start_cursor_y) - FAST_PATH_WINDOW).await?;
        let parsed = parse_output(&lines, &self.token);
        if parsed.saw_start && parsed.exit_code.is_some() {
            return Ok(CommandOutput {
                exit_code: parsed.exit_code.unwrap_or_default(),
                output: parsed.output,
                duration,
                truncated: false,
            });
        }
        let info = self.pane.info().await?;
        let parsed = parse_output(&self.lines_since_start(&info).await?, &self.token);
        match parsed.exit_code {
            Some(exit_code) => {
                Ok(CommandOutput { exit_code, output: parsed.output, duration, truncated: !parsed.saw_start })
            }
            None if info.dead => {
                Err(Error::PaneDead { pane: self.pane.id().to_string(), status: self.pane.dead_status().await })
            }
            None => Err(Error::Protocol {
                command: "run".into(),
                detail: format!("the end marker of command {} is missing from the pane", self.token),
            }),
        }
    }

    /// Whether the end marker is on the screen or the pane has died (an error if the pane is gone).
    async fn finished(&self) -> Result<bool> {
        let info = self.pane.info().await?;
        Ok(info.dead || parse_output(&self.lines_since_start(&info).await?, &self.token).exit_code.is_some())
    }

    /// Looks at the screen with backoff until the end marker shows or the pane dies.
    async fn poll_until_finished(&self, deadline: Instant, timeout: Duration) -> Result<()> {
        let mut backoff = Backoff::new(deadline.saturating_duration_since(Instant::now()));
        loop {
            if self.finished().await? {
                return Ok(());
            }
            if !backoff.wait().await {
                return Err(self.timed_out(timeout, "the command to finish").await);
            }
        }
    }

    async fn timed_out(&self, waited: Duration, what: &str) -> Error {
        Error::Timeout {
            pane: self.pane.id().to_string(),
            what: what.to_owned(),
            waited,
            screen: self.pane.capture_text().await.unwrap_or_default(),
        }
    }

    /// What the command has printed so far (without the markers).
    pub async fn output_so_far(&self) -> Result<String> {
        let info = self.pane.info().await?;
        Ok(parse_output(&self.lines_since_start(&info).await?, &self.token).output)
    }

    /// Whether the command now waits for a person: judged only on what it printed since it started.
    pub async fn intervention(&self) -> Result<Option<Intervention>> {
        let info = self.pane.info().await?;
        if info.alternate_screen {
            // A full-screen program (less, a TUI) entered after the command started: its screen is all ours.
            let screen = self.pane.capture_text().await?;
            return Ok(detect_intervention(&screen));
        }
        let parsed = parse_output(&self.lines_since_start(&info).await?, &self.token);
        if parsed.exit_code.is_some() {
            return Ok(None);
        }
        Ok(detect_intervention(&parsed.output))
    }

    /// Waits until an intervention appears (`Some`), the command ends (`None`), or `timeout` passes (an
    /// error with the screen). Over control mode it looks again each time the pane prints; otherwise with
    /// backoff (10 ms doubling to 200 ms).
    pub async fn wait_for_intervention(&self, timeout: Duration) -> Result<Option<Intervention>> {
        let deadline = Instant::now() + timeout;
        let mut backoff = Backoff::with(Duration::from_millis(10), Duration::from_millis(200), timeout);
        let mut stream = self.stream.lock().await;
        loop {
            if let Some(found) = self.intervention().await? {
                return Ok(Some(found));
            }
            let info = self.pane.info().await?;
            let parsed = parse_output(&self.lines_since_start(&info).await?, &self.token);
            if parsed.exit_code.is_some() || info.dead {
                return Ok(None);
            }
            let waited = match stream.as_mut() {
                Some(sub) => match wait_for_any_output(sub, deadline).await {
                    StreamWait::Found => true,
                    StreamWait::TimedOut => false,
                    StreamWait::Lost => {
                        // Output was lost: look at the screen from now on.
                        self.pane.server().continue_pane(self.pane.id()).await;
                        *stream = None;
                        true
                    }
                },
                None => backoff.wait().await,
            };
            if !waited {
                return Err(self.timed_out(timeout, "an intervention or the end of the command").await);
            }
        }
    }

    /// The pane's lines from where the command started to the bottom, wrapped lines joined.
    async fn lines_since_start(&self, info: &PaneInfo) -> Result<Vec<String>> {
        // Relative to the top of the visible screen; negative reaches into history.
        let offset = i64::try_from(self.start_line).unwrap_or(i64::MAX) - i64::try_from(info.history_size).unwrap_or(0);
        self.capture_from(offset.max(-i64::try_from(info.history_size).unwrap_or(0))).await
    }

    /// Lines from `row` (relative to the top of the visible screen, negative into history) to the bottom.
    async fn capture_from(&self, row: i64) -> Result<Vec<String>> {
        let text = self
            .pane
            .server()
            .tmux(Command::new("capture-pane").args([
                "-p",
                "-J",
                "-t",
                self.pane.id().as_str(),
                "-S",
                &row.to_string(),
            ]))
            .await
            .map_err(|e| self.pane.gone_as_not_found(e))?;
        Ok(text.lines().map(|l| l.trim_end().to_owned()).collect())
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Parsed {
    output: String,
    exit_code: Option<i32>,
    saw_start: bool,
}

/// Finds the output between this command's start and end markers. The start marker ends the row that shows
/// the command; the end marker follows the output directly, so text before it on its row is a last line
/// without a newline, and a marker at the start of a row means the output ended with one.
fn parse_output(lines: &[String], token: &str) -> Parsed {
    let start_marker = format!("{START}{token}");
    let end_prefix = format!("{END}{token}:");
    let start = lines.iter().position(|l| l.ends_with(&start_marker));
    let body_from = start.map_or(0, |i| i + 1);
    let mut exit_code = None;
    let mut body: Vec<&str> = Vec::new();
    let mut ended_with_newline = false;
    for line in &lines[body_from..] {
        let end = line.find(&end_prefix).and_then(|at| {
            let code = line[at + end_prefix.len()..].trim().parse().ok()?;
            Some((at, code))
        });
        if let Some((at, code)) = end {
            exit_code = Some(code);
            match &line[..at] {
                "" => ended_with_newline = !body.is_empty(),
                last => body.push(last),
            }
            break;
        }
        body.push(line);
    }
    if exit_code.is_none() {
        // Still running: trailing blank rows are just the empty screen below the cursor.
        while body.last().is_some_and(|l| l.is_empty()) {
            body.pop();
        }
    }
    let mut output = body.join("\n");
    if ended_with_newline {
        output.push('\n');
    }
    Parsed { output, exit_code, saw_start: start.is_some() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn output_between_markers_keeps_its_final_newline() {
        let screen = lines("$ echo hello __HAB_S_t1\nhello\n__HAB_E_t1:0\n$");
        assert_eq!(
            parse_output(&screen, "t1"),
            Parsed { output: "hello\n".into(), exit_code: Some(0), saw_start: true }
        );
    }

    #[test]
    fn output_without_final_newline() {
        let screen = lines("$ x __HAB_S_t1\nabc__HAB_E_t1:3");
        assert_eq!(parse_output(&screen, "t1").output, "abc");
        assert_eq!(parse_output(&screen, "t1").exit_code, Some(3));
        let screen = lines("$ x __HAB_S_t1\na\n\nbc__HAB_E_t1:3");
        assert_eq!(parse_output(&screen, "t1").output, "a\n\nbc");
    }

    #[test]
    fn empty_output_and_empty_lines() {
        assert_eq!(parse_output(&lines("$ true __HAB_S_t1\n__HAB_E_t1:0"), "t1").output, "");
        assert_eq!(parse_output(&lines("$ echo __HAB_S_t1\n\n__HAB_E_t1:0"), "t1").output, "\n");
        assert_eq!(parse_output(&lines("$ x __HAB_S_t1\na\n\n\n__HAB_E_t1:0"), "t1").output, "a\n\n\n");
    }

    #[test]
    fn a_marker_split_in_two_is_not_a_marker() {
        let screen = lines("$ printf '%s%s\\n' __HAB_S_ t1; printf '%s%s:%s\\n' __HAB_E_ t1 \"$?\"");
        let parsed = parse_output(&screen, "t1");
        assert_eq!(parsed.exit_code, None);
        assert!(!parsed.saw_start);
    }

    #[test]
    fn markers_of_other_commands_are_ignored() {
        let screen = lines("$ x __HAB_S_t1\n__HAB_E_t0:1\n__HAB_E_t1x:2\nreal\n__HAB_E_t1:0");
        let parsed = parse_output(&screen, "t1");
        assert_eq!(parsed.exit_code, Some(0));
        assert_eq!(parsed.output, "__HAB_E_t0:1\n__HAB_E_t1x:2\nreal\n");
    }

    #[test]
    fn still_running_output_drops_the_empty_screen_below() {
        let parsed = parse_output(&lines("$ x __HAB_S_t1\nsome\n\n\n"), "t1");
        assert_eq!((parsed.output.as_str(), parsed.exit_code), ("some", None));
    }
}
