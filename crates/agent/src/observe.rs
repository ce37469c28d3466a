//! Watching a pane after an action, and telling the model what happened.
//!
//! A command's end is signalled by tmux-habitat (never guessed) and its own output — also of a command that
//! ended at once — is what the model sees next. While a command runs, the watcher wakes on each print (control
//! mode) and judges only output that is *new* since the model last looked: an old `[y/N]` still on screen never
//! raises an alarm again.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use regex::Regex;
use tmux_habitat::{Backoff, CommandOutput, Intervention, InterventionKind, PaneOutput, RunningCommand};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::gate::GatedPane;
use crate::text::{bound, clean_screen, fence, new_part};

/// Output arriving this close together is one burst: the watcher looks once after it.
const BURST_GAP: Duration = Duration::from_millis(10);
/// The longest burst the watcher waits out before looking.
const BURST_MAX: Duration = Duration::from_millis(100);
/// After keys with no command running, how long the screen must stay quiet to count as settled.
const SETTLE_QUIET: Duration = Duration::from_millis(150);
/// After output, how long the command's end may take to be signalled before the watcher looks: output is often
/// the command's last words, and a look costs tmux calls.
const END_FIRST: Duration = Duration::from_millis(3);
/// Without control mode, the first look after an action (then backing off to 250 ms).
const FIRST_LOOK: Duration = Duration::from_millis(30);
/// When the shell's prompt sign says a command line is over, how long its end marker may still take to arrive.
const END_MARKER_GRACE: Duration = Duration::from_millis(300);
/// How long a command watched for prompts may go without output before the watcher asks the kernel whether it
/// waits for input with its question where nobody looks ([`Seen::WaitsUnseen`]), and how often again.
const UNSEEN_QUIET: Duration = Duration::from_secs(2);

/// A command typed into the pane that the model has not seen end yet.
pub(crate) struct Command {
    /// The command line as typed.
    pub label: String,
    running: Arc<RunningCommand>,
    finish: JoinHandle<tmux_habitat::Result<CommandOutput>>,
    /// The output already shown to the model (a prefix of what it prints).
    pub shown: String,
    /// When it was typed.
    pub started: Instant,
}

impl Command {
    /// Whether it has ended (its end marker came).
    pub(crate) fn is_finished(&self) -> bool {
        self.finish.is_finished()
    }

    /// Starts waiting for the end of `running` (at most `limit`) in the background.
    pub(crate) fn new(label: &str, running: RunningCommand, limit: Duration) -> Command {
        let running = Arc::new(running);
        let waiter = running.clone();
        let finish = tokio::spawn(async move { waiter.wait(limit).await });
        Command { label: label.to_owned(), running, finish, shown: String::new(), started: Instant::now() }
    }
}

impl Drop for Command {
    fn drop(&mut self) {
        self.finish.abort();
    }
}

/// What the watcher saw.
#[derive(Debug)]
pub(crate) enum Seen {
    /// The command ended.
    Finished(CommandOutput),
    /// The shell is back at its prompt without the command's end marker (the line was interrupted): its status.
    Ended(i32),
    /// The command waits for a person (judged on new output).
    NeedsInput(Intervention),
    /// The command waits for a line typed on the terminal, and its screen shows no question: what it asked went to
    /// a file or a pipe (`./export.py > out.csv`), or it reads without asking (`cat` with no file).
    WaitsUnseen,
    /// The awaited text appeared.
    Appeared,
    /// The deadline passed with the command still running.
    StillRunning,
    /// (No command) the screen changed and settled.
    Settled,
    /// (No command) nothing changed before the deadline.
    Unchanged,
    /// The run was cancelled.
    Cancelled,
    /// Waiting for the command failed: the pane died or tmux failed.
    Failed(tmux_habitat::Error),
}

/// How long to keep watching a command that neither ends nor asks for input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Patience {
    /// Until the deadline (a `wait`).
    Deadline,
    /// Until it has printed something and then stayed quiet this long (after keys: the program answered).
    Quiet(Duration),
    /// Until it stays quiet this long with a prompt-like last line (a REPL or a program asking in its own words).
    Prompt(Duration),
}

/// Follows a pane's output to wake up when it prints; without control mode, looks with backoff.
pub(crate) struct Wakeups {
    output: Option<PaneOutput>,
    backoff: Backoff,
}

impl Wakeups {
    /// Starts following the pane; make it before the action whose effect it is to see.
    pub(crate) async fn new(pane: &GatedPane, deadline: Instant) -> Wakeups {
        let output = pane.pane().subscribe().await.ok();
        let left = deadline.saturating_duration_since(Instant::now());
        Wakeups { output, backoff: Backoff::with(FIRST_LOOK, Duration::from_millis(250), left) }
    }

    /// Resolves after the pane's next burst of output (or the next backoff step).
    async fn next(&mut self) {
        match &mut self.output {
            Some(output) => {
                if output.recv().await.is_none() {
                    self.output = None;
                    return;
                }
                let burst_end = Instant::now() + BURST_MAX;
                while let Ok(Some(_)) =
                    tokio::time::timeout_at(burst_end.min(Instant::now() + BURST_GAP), output.recv()).await
                {
                    if Instant::now() >= burst_end {
                        break;
                    }
                }
            }
            None => {
                if !self.backoff.wait().await {
                    std::future::pending::<()>().await;
                }
            }
        }
    }
}

/// What a running command shows.
pub(crate) struct View {
    /// Its own output, or the whole screen of a full-screen program it started.
    pub text: String,
    /// The shell's prompt sign (see [`tmux_habitat::shell_prompt`]).
    pub prompt: Option<tmux_habitat::ShellPrompt>,
}

/// What the command shows now.
pub(crate) async fn command_view(pane: &GatedPane, command: &Command) -> tmux_habitat::Result<View> {
    let info = pane.pane().info().await?;
    let prompt = tmux_habitat::shell_prompt(&info.title);
    if info.alternate_screen {
        return Ok(View { text: screen_text(pane).await?, prompt });
    }
    Ok(View { text: command.running.output_so_far().await?, prompt })
}

/// The visible screen as the model sees it: wrapped lines joined (so each typed line is one line) and
/// tmux-habitat's framing removed.
pub(crate) async fn screen_text(pane: &GatedPane) -> tmux_habitat::Result<String> {
    let captured = pane.pane().capture(tmux_habitat::CaptureOptions::visible().joined()).await?;
    Ok(clean_screen(&captured))
}

/// The shell's prompt count now (see [`tmux_habitat::shell_prompt`]).
pub(crate) async fn prompt_count(pane: &GatedPane) -> Option<u64> {
    let info = pane.pane().info().await.ok()?;
    tmux_habitat::shell_prompt(&info.title).map(|p| p.count)
}

/// Watches a running command until it ends, waits for input in new output, shows `pattern` in new output, or
/// `deadline` passes. `baseline` is what the model saw last (or what was on screen when keys were pressed).
pub(crate) async fn watch_command(
    pane: &GatedPane,
    command: &mut Command,
    mut wakeups: Wakeups,
    watch: Watch<'_>,
    deadline: Instant,
) -> Seen {
    let Watch { baseline, pattern, patience, cancel, prompt_floor, look_first } = watch;
    // After keys the program is expected to answer at once: a program that stays silent is shown as it is
    // after the same quiet time as one that answered.
    let mut quiet_since: Option<(Instant, String)> =
        matches!(patience, Patience::Quiet(_)).then(|| (Instant::now(), baseline.to_owned()));
    // `wakeups` was made before the action, so no output since is missed; look first only when asked (a `wait`
    // on output that may have come before it). Each look costs tmux calls: a command that ends at once is seen
    // ending without one.
    let mut look_now = look_first;
    // A command watched for prompts that stays silent is asked after, in the kernel: is it reading the terminal?
    let mut unseen_check = matches!(patience, Patience::Prompt(_)).then(|| Instant::now() + UNSEEN_QUIET);
    loop {
        if command.finish.is_finished() {
            return joined((&mut command.finish).await);
        }
        if !std::mem::take(&mut look_now) {
            let quiet_limit = match patience {
                Patience::Deadline => None,
                Patience::Quiet(quiet) | Patience::Prompt(quiet) => quiet_since.as_ref().map(|(at, _)| *at + quiet),
            };
            tokio::select! {
                biased;
                finished = &mut command.finish => return joined(finished),
                () = cancel.cancelled() => return Seen::Cancelled,
                () = tokio::time::sleep_until(deadline) => return Seen::StillRunning,
                () = sleep_until_opt(unseen_check) => {
                    if waits_unseen(pane, command).await {
                        return Seen::WaitsUnseen;
                    }
                    unseen_check = Some(Instant::now() + UNSEEN_QUIET);
                    continue;
                }
                () = sleep_until_opt(quiet_limit) => {
                    let prompt_ok = match (patience, &quiet_since) {
                        (Patience::Prompt(_), Some((_, view))) => looks_like_prompt(view),
                        _ => true,
                    };
                    if prompt_ok {
                        return Seen::Settled;
                    }
                    quiet_since = None;
                    continue;
                }
                () = wakeups.next() => {
                    // Output came: the command is not silent.
                    unseen_check = unseen_check.map(|_| Instant::now() + UNSEEN_QUIET);
                }
            }
            if let Ok(finished) = tokio::time::timeout(END_FIRST, &mut command.finish).await {
                return joined(finished);
            }
        }
        let Ok(View { text: view, prompt }) = command_view(pane, command).await else { continue };
        if let (Some(floor), Some(prompt)) = (prompt_floor, prompt)
            && prompt.count > floor
        {
            // The shell is back at its prompt. A normal end's marker comes first; give it a moment.
            return match tokio::time::timeout(END_MARKER_GRACE, &mut command.finish).await {
                Ok(Ok(Ok(output))) => Seen::Finished(output),
                Ok(Ok(Err(error))) => Seen::Failed(error),
                Ok(Err(_)) | Err(_) => Seen::Ended(prompt.status),
            };
        }
        if view == baseline {
            continue;
        }
        if quiet_since.as_ref().is_none_or(|(_, seen)| *seen != view) {
            quiet_since = Some((Instant::now(), view.clone()));
        }
        let fresh = new_part(baseline, &view);
        if pattern.is_some_and(|p| fresh.contains(p)) {
            return Seen::Appeared;
        }
        if let Some(found) = tmux_habitat::detect_intervention(&view) {
            if command.finish.is_finished() {
                // It ended meanwhile: its end, not its last line, is the news.
                look_now = true;
                continue;
            }
            return Seen::NeedsInput(found);
        }
    }
}

/// Whether `command` waits for a line typed on the pane's terminal with no question on its screen: a process under
/// the pane blocked reading the terminal ([`tmux_habitat::reads_terminal`]), while its last line is no prompt (a
/// question shown is the prompt watch's to see and answer).
async fn waits_unseen(pane: &GatedPane, command: &Command) -> bool {
    let Ok(info) = pane.pane().info().await else { return false };
    if command.is_finished() || tmux_habitat::reads_terminal(info.pid, &info.tty) != Some(true) {
        return false;
    }
    let view = command_view(pane, command).await.map(|v| v.text).unwrap_or_default();
    !looks_like_prompt(&view) && !command.is_finished()
}

/// What the waiting task's end means.
fn joined(finished: Result<tmux_habitat::Result<CommandOutput>, tokio::task::JoinError>) -> Seen {
    match finished {
        Ok(Ok(output)) => Seen::Finished(output),
        Ok(Err(error)) => Seen::Failed(error),
        Err(join) => Seen::Failed(tmux_habitat::Error::Protocol {
            command: "run".into(),
            detail: format!("waiting for the command stopped: {join}"),
        }),
    }
}

/// What to watch a command for.
#[derive(Clone, Copy)]
pub(crate) struct Watch<'a> {
    /// What the model saw last (or what was there when keys were pressed): only output after it counts.
    pub baseline: &'a str,
    /// A text to wait for in new output.
    pub pattern: Option<&'a str>,
    /// When to give up on a command that neither ends nor asks.
    pub patience: Patience,
    /// The run's cancellation.
    pub cancel: &'a dag_sched::CancelToken,
    /// The shell's prompt count when the watch began (with the command running): a higher count means the
    /// command line is over even if its end marker never comes (C-c aborts the whole line).
    pub prompt_floor: Option<u64>,
    /// Look at the command at once, before any new output.
    pub look_first: bool,
}

impl<'a> Watch<'a> {
    /// The watch of a script just started: all its output counts, and it may take until the deadline.
    pub(crate) fn script(cancel: &'a dag_sched::CancelToken) -> Watch<'a> {
        Watch {
            baseline: "",
            pattern: None,
            patience: Patience::Deadline,
            cancel,
            prompt_floor: None,
            look_first: false,
        }
    }
}

/// Whether the last line of `view` looks like a program waiting for a typed line (`>>>`, `$`, `sqlite>`,
/// `Name:`, `Continue?`).
pub(crate) fn looks_like_prompt(view: &str) -> bool {
    view.lines()
        .rev()
        .map(str::trim_end)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|last| last.ends_with(['>', '$', '#', ':', '?', ']']) && last.chars().count() <= 80)
}

/// An interactive shell's or Python's prompt (`me@host:~/work$`, `[me@host work]#`, `me@host ~ $`, `bash-5.2$`, `/ #`,
/// `>>>`): what a `bash` or `python3` alone on a script's line shows when it reads the terminal. No program's
/// question: a line typed there is a command line. A bare `$` or `#` is not taken for one (`read -p '$ '` asks an
/// amount), nor a bracket without a `user@host` (`[default 5] #`).
pub(crate) fn is_shell_prompt(line: &str) -> bool {
    static SHELL_PROMPT: LazyLock<Regex> = LazyLock::new(|| {
        crate::patterns::constant(
            r"^(?:\([^)]*\)\s*)?(?:[\w.-]+@[\w.-]+(?::\S*|\s+\S+)?|[~/]\S*)(?:\s\([^)]*\))?\s?[$#]$|^\[[\w.-]+@[^\]]*\][$#]$|^(?:ba|da|k|z)?sh-[\d.]+[$#]$|^>>>$",
        )
    });
    SHELL_PROMPT.is_match(line.trim())
}

/// With no command running (keys sent to the shell, or a wait): waits until the screen changes and settles, or
/// `pattern` shows, or `deadline` passes.
pub(crate) async fn watch_screen(
    pane: &GatedPane,
    mut wakeups: Wakeups,
    before: &str,
    pattern: Option<&str>,
    deadline: Instant,
    cancel: &dag_sched::CancelToken,
) -> Seen {
    let mut changed_at: Option<Instant> = None;
    loop {
        let quiet_until = changed_at.map(|at| at + SETTLE_QUIET);
        tokio::select! {
            () = cancel.cancelled() => return Seen::Cancelled,
            () = tokio::time::sleep_until(deadline) => {
                return if changed_at.is_some() { Seen::Settled } else { Seen::Unchanged };
            }
            () = sleep_until_opt(quiet_until) => return Seen::Settled,
            () = wakeups.next() => {}
        }
        let Ok(screen) = screen_text(pane).await else { continue };
        if screen == before {
            continue;
        }
        if pattern.is_some_and(|p| screen.contains(p) && !before.contains(p)) {
            return Seen::Appeared;
        }
        changed_at = Some(Instant::now());
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// What the model is told at the start of a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Observation {
    /// The first turn: the screen as it is.
    Start {
        /// The visible screen.
        screen: String,
    },
    /// A command ended.
    Finished {
        /// The command.
        command: String,
        /// Its exit code.
        exit_code: i32,
        /// Its output not shown before.
        output: String,
        /// Part of its output was shown in an earlier turn.
        continued: bool,
    },
    /// A running command waits for input.
    NeedsInput {
        /// The command.
        command: String,
        /// What it asks for.
        kind: InterventionKind,
        /// Its new output, ending with the prompt.
        output: String,
    },
    /// A command is still running at the turn's deadline (or the awaited text appeared).
    StillRunning {
        /// The command.
        command: String,
        /// How long it has run.
        seconds: u64,
        /// Its new output.
        output: String,
        /// The awaited text, when it appeared.
        appeared: Option<String>,
    },
    /// Keys went to the pane (no command of ours running), or a wait ended: the screen now.
    Screen {
        /// What was done (`You pressed C-c.`).
        after: String,
        /// The visible screen.
        screen: String,
        /// Whether it changed.
        changed: bool,
    },
    /// The gate refused a command or text; nothing was typed.
    Refused {
        /// What the model wanted typed.
        text: String,
        /// The gate's reasons.
        reasons: String,
    },
    /// The reply was not an action; nothing was typed.
    Unreadable {
        /// What was wrong beyond not being an action (empty when nothing more is known).
        problem: String,
    },
    /// `run` while a command still runs.
    Busy {
        /// The running command.
        command: String,
    },
    /// `done` was not accepted.
    NotDone {
        /// Why.
        reason: String,
    },
}

impl Observation {
    /// The observation as the model reads it, with screen and output fenced and bounded to about `max_chars`.
    pub fn render(&self, max_chars: usize) -> String {
        let output = |text: &str| fence("output", "", &bound(text, max_chars));
        let screen = |text: &str| fence("screen", "", &bound(text, max_chars));
        match self {
            Observation::Start { screen: text } => format!("The screen now:\n{}", screen(text)),
            Observation::Finished { command, exit_code, output: text, continued } => {
                let more = if *continued { " (output after what you saw)" } else { "" };
                if text.trim().is_empty() {
                    format!("`{command}` finished with exit code {exit_code} and printed nothing{more}.")
                } else {
                    format!("`{command}` finished with exit code {exit_code}. Its output{more}:\n{}", output(text))
                }
            }
            Observation::NeedsInput { command, kind, output: text } => format!(
                "`{command}` is waiting for input ({}). Its new output:\n{}\nAnswer with keys (e.g. [\"y\",\"Enter\"]) or stop it with [\"C-c\"].",
                describe(*kind),
                output(text)
            ),
            Observation::StillRunning { command, seconds, output: text, appeared } => {
                let head = match appeared {
                    Some(pattern) => format!("\"{pattern}\" appeared; `{command}` is still running ({seconds}s)."),
                    None => format!("`{command}` is still running after {seconds}s."),
                };
                let body = if text.trim().is_empty() {
                    " No new output.".to_owned()
                } else {
                    format!(" Its new output:\n{}", output(text))
                };
                format!("{head}{body}\nWait for it, answer it with keys, or stop it with [\"C-c\"].")
            }
            Observation::Screen { after, screen: text, changed } => {
                let state = if *changed { "The screen now" } else { "The screen did not change" };
                format!("{after} {state}:\n{}", screen(text))
            }
            Observation::Refused { text, reasons } => format!(
                "Refused by the safety gate, nothing was typed: `{text}` ({reasons}). Reach the goal another way."
            ),
            Observation::Unreadable { problem } => {
                let problem = if problem.is_empty() { String::new() } else { format!(" ({problem})") };
                format!(
                    "Your reply was not one JSON action{problem}, so nothing was typed. Reply with JSON only, e.g. {{\"action\":\"run\",\"command\":\"ls\"}}."
                )
            }
            Observation::Busy { command } => format!(
                "`{command}` is still running, so nothing was typed. Wait for it, answer it with keys, or stop it with [\"C-c\"]."
            ),
            Observation::NotDone { reason } => format!("Not done yet: {reason}"),
        }
    }
}

fn describe(kind: InterventionKind) -> &'static str {
    match kind {
        InterventionKind::Confirm => "a yes/no question",
        InterventionKind::Password => "a password",
        InterventionKind::Pager => "a pager: q quits",
        InterventionKind::PressKey => "press a key",
        _ => "input",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_recognised_by_their_last_line() {
        assert!(looks_like_prompt("Python 3.11\n>>>"));
        assert!(looks_like_prompt("sqlite>\n\n"));
        assert!(looks_like_prompt("Your name:"));
        assert!(!looks_like_prompt("compiling foo v0.1.0"));
        assert!(!looks_like_prompt(""));
    }

    #[test]
    fn an_interactive_shell_prompt_is_told_from_a_question() {
        for shell in [
            "cloudsdk@vm:/tmp/clive-eval1/39/work$",
            "root@box:/# ",
            "(venv) me@host:~/src$",
            "[me@host work]$",
            "bash-5.2$",
            "sh-5.2#",
            "~/work $",
            "/ #",
            "me@host ~ $",
            "me@host:~/src (main)$",
            ">>>",
        ] {
            assert!(is_shell_prompt(shell), "{shell}");
        }
        for question in [
            "Price in $",
            "Name:",
            "Continue? [y/N]",
            "Choose #",
            "Amount ($)",
            "sqlite>",
            "Port [8080]?",
            "$",
            "#",
            "(USD) $",
            "[amount] $",
            "[default 5] #",
            "postgres=#",
        ] {
            assert!(!is_shell_prompt(question), "{question}");
        }
    }

    #[test]
    fn a_quick_command_shows_its_output() {
        let seen = Observation::Finished {
            command: "echo TOKEN".into(),
            exit_code: 0,
            output: "TOKEN\n".into(),
            continued: false,
        };
        assert_eq!(seen.render(100), "`echo TOKEN` finished with exit code 0. Its output:\n<output>\nTOKEN\n</output>");
    }

    #[test]
    fn long_output_says_it_was_cut() {
        let text: String = (0..500).map(|i| format!("row {i}\n")).collect();
        let seen = Observation::Finished { command: "seq".into(), exit_code: 0, output: text, continued: false };
        let rendered = seen.render(300);
        assert!(rendered.contains("characters) cut …]") && rendered.contains("row 499"), "{rendered}");
    }
}
