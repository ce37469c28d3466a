//! The interactive runner: the observe/act loop. Each turn the model sees what changed since its last action and
//! answers with one action; the runner types it (through the gate), watches the pane, and reports back.

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use dag_sched::{DagError, Mode, RunOutcome, RunRequest, Runner, SubtaskStatus};
use tmux_habitat::{Error as HabitatError, Key};
use tokio::time::Instant;

use crate::action::{Action, ActionError, KeyInput, action_schema, parse_action};
use crate::agent::{Agent, Shared};
use crate::claims::{check_files, claimed_files, goal_destinations, resolve};
use crate::config::ReplyFormat;
use crate::gate::{GatedPane, TypeError};
use crate::model::{CallShape, Caller};
use crate::observe::{
    Command, Observation, Patience, Seen, Wakeups, Watch, command_view, prompt_count, screen_text, watch_command,
    watch_screen,
};
use crate::prompt::{
    Exchange, FirstTurn, INTERACTIVE_SYSTEM, Next, Prompt, Step, Workplace, interactive_conversation, interactive_first,
};
use crate::runners::final_look;
use crate::runners::result_check::{Before, SHAPE_ONLY, check_result};
use crate::runners::staging::{Attempt, Settled, Staging};
use crate::runners::{budget_outcome, dependency_inputs, pane_directory, progress};
use crate::text::{bound, last_line, new_part, one_line};

/// How long a turn waits for the screen after keys sent with no command running.
const KEYS_SETTLE: Duration = Duration::from_secs(2);
/// After keys to a running program: how long it must stay quiet after answering before the model looks.
const ANSWER_QUIET: Duration = Duration::from_millis(700);
/// After a command that has not ended: how long it must sit quiet at a prompt-like line before the model looks.
const PROMPT_QUIET: Duration = Duration::from_millis(1500);
/// The most characters of each command's output kept in the subtask's log.
const LOG_OUTPUT_CHARS: usize = 4000;

/// Runs `interactive` subtasks: a model reads the pane and types, turn by turn, towards the subtask's goal.
#[derive(Debug, Clone)]
pub struct InteractiveRunner {
    agent: Agent,
}

impl InteractiveRunner {
    /// A runner over `agent`'s model and panes.
    pub fn new(agent: Agent) -> InteractiveRunner {
        InteractiveRunner { agent }
    }
}

#[async_trait]
impl Runner for InteractiveRunner {
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError> {
        // A goal to fix a failing program and run it again is the fix-and-rerun loop's, whichever mode it was given.
        let subtask = &request.subtask;
        if let Some(program) = crate::runners::rerun::rerun_program(&subtask.description, subtask.command.as_deref()) {
            return crate::runners::rerun::run_rerun(&self.agent.shared, &request, &program).await;
        }
        run_interactive(&self.agent.shared, &request, None).await
    }
}

/// The loop, also used by the script runner's fallback (`note` says what the scripts did).
pub(crate) async fn run_interactive(
    shared: &Shared,
    request: &RunRequest,
    note: Option<String>,
) -> Result<RunOutcome, DagError> {
    let subtask = &request.subtask;
    let deadline = Instant::now() + request.timeout;
    shared.ledger.update(&subtask.id, |s| s.mode = Some(Mode::Interactive));
    if shared.budget_spent() {
        return Ok(budget_outcome(false, "before this subtask started"));
    }
    let pane = shared.gated_pane(&subtask.pane).await?;
    let _lock = pane.pane().lock().await;
    // The run's directories, as the shell runner exports them.
    let export = dag_sched::export_run_dirs(&request.context);
    pane.pane().run(&export, Duration::from_secs(10)).await.map_err(|e| DagError::runner(&subtask.id, e))?;
    let screen = screen_text(&pane).await.map_err(|e| DagError::runner(&subtask.id, e))?;
    let mut state = Loop {
        shared,
        request,
        pane,
        caller: shared.caller(&subtask.id, Some(&request.context)),
        goal: match note {
            Some(note) => format!("{}\n({note})", subtask.description.trim()),
            None => subtask.description.trim().to_owned(),
        },
        cwd: String::new(),
        deadline,
        first: String::new(),
        exchanges: Vec::new(),
        steps: Vec::new(),
        observation: Observation::Start { screen: without_line(&screen, &export) },
        screen: Some(screen),
        command: None,
        last_exit: None,
        last_output: String::new(),
        awaiting_input: false,
        bounced: false,
        log: String::new(),
        schema: action_schema(),
        staging: None,
        export,
    };
    state.run().await
}

/// `screen` without the lines that show `typed` at a prompt (`$ <typed>`).
fn without_line(screen: &str, typed: &str) -> String {
    let kept: Vec<&str> = screen.lines().filter(|line| !line.trim_end().ends_with(typed.trim())).collect();
    kept.join("\n")
}

/// How a turn ended the subtask, if it did.
enum Turn {
    Next,
    End(RunOutcome),
}

struct Loop<'a> {
    shared: &'a Shared,
    request: &'a RunRequest,
    pane: GatedPane,
    caller: Caller,
    goal: String,
    cwd: String,
    deadline: Instant,
    /// The first user message (goal, pane, screen at the start).
    first: String,
    /// The turns so far, as the conversation shows them.
    exchanges: Vec<Exchange>,
    steps: Vec<Step>,
    observation: Observation,
    /// The clean screen as the model last saw it (`None` after a command: looked at only when needed).
    screen: Option<String>,
    command: Option<Command>,
    last_exit: Option<i32>,
    /// The output of the last command that ended, for a summary that says nothing.
    last_output: String,
    /// Whether the running command was last seen waiting for input.
    awaiting_input: bool,
    /// Whether a claim of success was already sent back once.
    bounced: bool,
    /// The line clive typed to export the run's directories: not the task's, so never shown to the model (a small
    /// model took the directories it names for the task's and listed them).
    export: String,
    /// Commands and their outputs, for the subtask's output file.
    log: String,
    schema: serde_json::Value,
    /// What the subtask changes, watched from its first turn (and the attempt it watches).
    staging: Option<(Staging<'a>, Attempt)>,
}

impl Loop<'_> {
    async fn run(&mut self) -> Result<RunOutcome, DagError> {
        let max_turns = self.shared.config.max_turns;
        for turn in 1..=max_turns {
            self.shared.ledger.update(&self.request.subtask.id, |s| s.turns = turn);
            if let Some(outcome) = self.stopped(turn > 1).await {
                return Ok(outcome);
            }
            if turn == 1 {
                self.cwd = pane_directory(self.pane.pane()).await.unwrap_or_else(|| "unknown".into());
                self.first = self.first_message();
                let subtask = &self.request.subtask;
                if let Ok(records) = self.request.context.runner_dir() {
                    let spec = crate::GoalSpec::parse(&subtask.description);
                    let mut staging = Staging::watching(self.shared, &subtask.pane, &spec, &self.cwd, &records);
                    let attempt = staging.begin(1);
                    self.shared.ledger.update(&subtask.id, |s| s.staged = Some(false));
                    self.staging = Some((staging, attempt));
                }
            }
            progress(self.request, turn, self.caller.tokens_so_far(), "waiting for the model");
            let prompt = Prompt {
                system: INTERACTIVE_SYSTEM.to_owned(),
                messages: interactive_conversation(&self.first, &self.exchanges, self.shared.config.max_turns),
            };
            let reply = tokio::select! {
                reply = self.caller.call(&prompt, self.shape(turn)) => reply,
                () = self.request.cancel.cancelled() => return Ok(self.cancelled().await),
                () = tokio::time::sleep_until(self.deadline) => return Ok(self.timed_out().await),
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(error) if error.is_budget() => {
                    let outcome = budget_outcome(turn > 1, &error.to_string());
                    self.stop_command().await;
                    return Ok(self.finish(outcome));
                }
                Err(error) => {
                    self.stop_command().await;
                    let mut outcome =
                        RunOutcome::with_status(SubtaskStatus::Failed, format!("the model call failed: {error}"));
                    outcome.output = std::mem::take(&mut self.log);
                    return Ok(outcome);
                }
            };
            let action = match parse_action(&reply.text) {
                Ok(action) => action,
                Err(problem) => {
                    self.shared.ledger.update(&self.request.subtask.id, |s| s.unreadable_replies += 1);
                    self.step("unreadable reply".into(), "nothing typed".into());
                    let problem = if problem == ActionError::NotAnAction { String::new() } else { problem.to_string() };
                    self.observation = Observation::Unreadable { problem };
                    self.remember(one_line(&reply.text, 200));
                    continue;
                }
            };
            progress(self.request, turn, self.caller.tokens_so_far(), describe(&action));
            // The conversation shows the action as parsed: clean JSON, whatever else the reply held.
            let reply = serde_json::to_string(&action).unwrap_or_default();
            if let Turn::End(outcome) = self.act(action).await? {
                return Ok(self.finish(outcome));
            }
            self.remember(reply);
        }
        self.stop_command().await;
        let last = self.steps.last().map(|s| format!("; last: {} -> {}", s.action, s.outcome)).unwrap_or_default();
        let mut outcome = RunOutcome::with_status(
            SubtaskStatus::Failed,
            format!("used all {max_turns} turns without reaching the goal{last}"),
        );
        outcome.exit_code = self.last_exit;
        Ok(self.finish(outcome))
    }

    /// Stops before a turn when the run was cancelled, time is up or the budget is spent.
    async fn stopped(&mut self, started: bool) -> Option<RunOutcome> {
        if self.request.cancel.is_cancelled() {
            return Some(self.cancelled().await);
        }
        if Instant::now() >= self.deadline {
            return Some(self.timed_out().await);
        }
        if self.shared.budget_spent() {
            self.stop_command().await;
            return Some(budget_outcome(started, "another call was refused"));
        }
        None
    }

    fn first_message(&self) -> String {
        let profile = self.shared.profile(&self.request.subtask.pane);
        let inputs = dependency_inputs(&self.request.context, false);
        let observation = self.observation.render(self.shared.config.observation_chars);
        let workplace = Workplace {
            goal: &self.goal,
            pane: &self.request.subtask.pane,
            profile: &profile,
            cwd: &self.cwd,
            inputs: &inputs,
        };
        interactive_first(&FirstTurn { workplace, observation: &observation, max_turns: self.shared.config.max_turns })
    }

    /// Adds the turn just taken to the conversation: the model's `reply`, the observation and step it led to.
    fn remember(&mut self, reply: String) {
        let step = self.steps.last().cloned().unwrap_or(Step { action: String::new(), outcome: String::new() });
        let mut observation = self.observation.render(self.shared.config.observation_chars);
        // Small models can loop on one action; say so once it is the third time in a row.
        let repeats = self.exchanges.iter().rev().take_while(|e| e.reply == reply).count();
        if repeats >= 2 {
            observation.push_str(&format!("\nYou did exactly this {} times in a row: do something else.", repeats + 1));
        }
        let next = match &self.observation {
            Observation::Finished { exit_code, .. } if *exit_code != 0 => Next::Fix,
            Observation::Refused { .. }
            | Observation::Unreadable { .. }
            | Observation::Busy { .. }
            | Observation::NotDone { .. } => Next::Fix,
            Observation::NeedsInput { .. } => Next::Answer,
            _ => Next::Done,
        };
        self.exchanges.push(Exchange { reply, observation, step, next });
    }

    fn shape(&self, turn: u32) -> CallShape<'_> {
        let schema = match self.shared.config.reply_format {
            ReplyFormat::Schema => Some(("action", &self.schema)),
            ReplyFormat::Text => None,
        };
        let purpose: &'static str = if turn == 1 { "turn 1" } else { "turn" };
        CallShape { purpose, max_tokens: self.shared.config.action_tokens, schema, stop: &[], temperature: None }
    }

    fn step(&mut self, action: String, outcome: String) {
        self.steps.push(Step { action, outcome });
    }

    async fn act(&mut self, action: Action) -> Result<Turn, DagError> {
        match action {
            Action::Run { command } => self.run_command(command).await,
            Action::Keys { keys } => {
                // Text then Enter at a shell prompt is a command: run it, so its end and output are known.
                if self.command.is_none()
                    && let [KeyInput::Text(text), KeyInput::Key(Key::Enter)] = keys.as_slice()
                    && !self.in_full_screen_program().await
                {
                    return self.run_command(text.trim().to_owned()).await;
                }
                self.press(keys).await
            }
            Action::Wait { seconds, pattern } => self.wait(seconds, pattern).await,
            Action::Done { summary, files } => Ok(self.done(summary, files).await),
            Action::Fail { reason } => {
                self.stop_command().await;
                let mut outcome =
                    RunOutcome::with_status(SubtaskStatus::Failed, format!("the model gave up: {reason}"));
                outcome.exit_code = self.last_exit;
                Ok(Turn::End(outcome))
            }
        }
    }

    async fn in_full_screen_program(&self) -> bool {
        self.pane.pane().info().await.is_ok_and(|info| info.alternate_screen)
    }

    async fn run_command(&mut self, command: String) -> Result<Turn, DagError> {
        let label = one_line(&command, 120);
        if let Some(running) = &self.command {
            self.observation = Observation::Busy { command: running.label.clone() };
            self.step(format!("run `{label}`"), "not typed: a command is still running".into());
            return Ok(Turn::Next);
        }
        let wakeups = Wakeups::new(&self.pane, self.deadline).await;
        let started = match self.pane.start(&command).await {
            Ok(started) => started,
            Err(TypeError::Pane(error)) => return self.pane_failed(error).await,
            Err(refused) => {
                self.shared.ledger.update(&self.request.subtask.id, |s| s.refused_commands += 1);
                let reasons = refused.refusal().unwrap_or_default().to_owned();
                self.observation = Observation::Refused { text: label.clone(), reasons };
                self.step(format!("run `{label}`"), "refused by the safety gate".into());
                return Ok(Turn::Next);
            }
        };
        self.shared.ledger.update(&self.request.subtask.id, |s| s.last_command = Some(label.clone()));
        let limit = self.deadline.saturating_duration_since(Instant::now());
        let mut running = Command::new(&label, started, limit);
        let wait_until = self.deadline.min(Instant::now() + self.shared.config.command_wait);
        let watch = Watch {
            baseline: "",
            pattern: None,
            patience: Patience::Prompt(PROMPT_QUIET),
            cancel: &self.request.cancel,
            prompt_floor: None,
            look_first: false,
        };
        let seen = watch_command(&self.pane, &mut running, wakeups, watch, wait_until).await;
        self.settle(running, seen, None).await
    }

    async fn press(&mut self, keys: Vec<KeyInput>) -> Result<Turn, DagError> {
        let shown: Vec<String> = keys.iter().map(ToString::to_string).collect();
        let label = format!("keys {}", shown.join(" "));
        // What was there before the keys: only output after it can raise a new alarm.
        let baseline = match &self.command {
            Some(running) => command_view(&self.pane, running).await.map(|view| view.text).unwrap_or_default(),
            None => self.current_screen().await,
        };
        let prompt_floor = prompt_count(&self.pane).await;
        let wakeups = Wakeups::new(&self.pane, self.deadline).await;
        match self.pane.send(&keys).await {
            Ok(()) => {}
            Err(TypeError::Pane(error)) => return self.pane_failed(error).await,
            Err(refused) => {
                self.shared.ledger.update(&self.request.subtask.id, |s| s.refused_commands += 1);
                let reasons = refused.refusal().unwrap_or_default().to_owned();
                self.observation = Observation::Refused { text: shown.join(" "), reasons };
                self.step(label, "refused by the safety gate".into());
                return Ok(Turn::Next);
            }
        }
        match self.command.take() {
            Some(mut running) => {
                let wait_until = self.deadline.min(Instant::now() + self.shared.config.command_wait);
                let watch = Watch {
                    baseline: &baseline,
                    pattern: None,
                    patience: Patience::Quiet(ANSWER_QUIET),
                    cancel: &self.request.cancel,
                    prompt_floor,
                    look_first: false,
                };
                let seen = watch_command(&self.pane, &mut running, wakeups, watch, wait_until).await;
                running.shown = baseline;
                self.settle(running, seen, Some(label)).await
            }
            None => {
                let until = self.deadline.min(Instant::now() + KEYS_SETTLE);
                let seen = watch_screen(&self.pane, wakeups, &baseline, None, until, &self.request.cancel).await;
                if matches!(seen, Seen::Cancelled) {
                    return Ok(Turn::End(self.cancelled().await));
                }
                self.show_screen(format!("You pressed {}.", shown.join(" ")), seen, label).await;
                Ok(Turn::Next)
            }
        }
    }

    async fn wait(&mut self, seconds: f64, pattern: Option<String>) -> Result<Turn, DagError> {
        let label = match &pattern {
            Some(p) => format!("wait {seconds}s for \"{p}\""),
            None => format!("wait {seconds}s"),
        };
        let until = self.deadline.min(Instant::now() + Duration::from_secs_f64(seconds));
        match self.command.take() {
            Some(mut running) => {
                let baseline = running.shown.clone();
                let watch = Watch {
                    baseline: &baseline,
                    pattern: pattern.as_deref(),
                    patience: Patience::Deadline,
                    cancel: &self.request.cancel,
                    prompt_floor: prompt_count(&self.pane).await,
                    look_first: true,
                };
                let wakeups = Wakeups::new(&self.pane, until).await;
                let seen = watch_command(&self.pane, &mut running, wakeups, watch, until).await;
                self.settle(running, seen, Some(label)).await
            }
            None => {
                let wakeups = Wakeups::new(&self.pane, until).await;
                let before = match self.screen.clone() {
                    Some(screen) => screen,
                    None => self.current_screen().await,
                };
                let seen =
                    watch_screen(&self.pane, wakeups, &before, pattern.as_deref(), until, &self.request.cancel).await;
                if matches!(seen, Seen::Cancelled) {
                    return Ok(Turn::End(self.cancelled().await));
                }
                self.show_screen(format!("You waited up to {seconds}s."), seen, label).await;
                Ok(Turn::Next)
            }
        }
    }

    /// Turns what the watcher saw about a command into the next observation.
    async fn settle(&mut self, mut running: Command, seen: Seen, label: Option<String>) -> Result<Turn, DagError> {
        let label = label.unwrap_or_else(|| format!("run `{}`", running.label));
        self.awaiting_input = matches!(seen, Seen::NeedsInput(_));
        match seen {
            Seen::Finished(output) => {
                let elapsed = running.started.elapsed();
                self.shared.ledger.update(&self.request.subtask.id, |s| s.command_ms += crate::model::millis(elapsed));
                let fresh = new_part(&running.shown, &output.output).to_owned();
                self.log.push_str(&format!(
                    "$ {}\n{}[exit {}]\n",
                    running.label,
                    with_newline(&bound(&output.output, LOG_OUTPUT_CHARS)),
                    output.exit_code
                ));
                let hint = last_line(&output.output, 60).map(|l| format!(": \"{l}\"")).unwrap_or_default();
                self.step(label, format!("exit {}{hint}", output.exit_code));
                self.last_exit = Some(output.exit_code);
                self.last_output = output.output.clone();
                self.observation = Observation::Finished {
                    command: running.label.clone(),
                    exit_code: output.exit_code,
                    output: fresh,
                    continued: !running.shown.is_empty(),
                };
                self.screen = None;
                Ok(Turn::Next)
            }
            Seen::Ended(status) => {
                let view = command_view(&self.pane, &running).await.map(|v| v.text).unwrap_or_default();
                let output = tmux_habitat::CommandOutput {
                    exit_code: status,
                    output: view,
                    duration: running.started.elapsed(),
                    truncated: false,
                };
                Box::pin(self.settle(running, Seen::Finished(output), Some(label))).await
            }
            Seen::NeedsInput(found) => {
                let view = command_view(&self.pane, &running).await.map(|v| v.text).unwrap_or_default();
                let fresh = new_part(&running.shown, &view).to_owned();
                self.step(label, format!("waiting for input: \"{}\"", one_line(&found.prompt, 60)));
                self.observation =
                    Observation::NeedsInput { command: running.label.clone(), kind: found.kind, output: fresh };
                running.shown = view;
                self.command = Some(running);
                Ok(Turn::Next)
            }
            // Waiting for a line with no question shown: still running, as the model sees it; it may type or stop.
            Seen::StillRunning | Seen::Appeared | Seen::Settled | Seen::Unchanged | Seen::WaitsUnseen => {
                let view = command_view(&self.pane, &running).await.map(|v| v.text).unwrap_or_default();
                let fresh = new_part(&running.shown, &view).to_owned();
                let appeared = matches!(seen, Seen::Appeared).then(|| label.clone());
                self.step(label, "still running".into());
                self.observation = Observation::StillRunning {
                    command: running.label.clone(),
                    seconds: running.started.elapsed().as_secs(),
                    output: fresh,
                    appeared,
                };
                running.shown = view;
                self.command = Some(running);
                Ok(Turn::Next)
            }
            Seen::Cancelled => {
                self.command = Some(running);
                Ok(Turn::End(self.cancelled().await))
            }
            Seen::Failed(error) => {
                drop(running);
                self.pane_failed(error).await
            }
        }
    }

    async fn show_screen(&mut self, after: String, seen: Seen, label: String) {
        let screen = self.current_screen().await;
        let changed = self.screen.as_ref() != Some(&screen);
        self.step(
            label,
            if matches!(seen, Seen::Appeared) {
                "text appeared".into()
            } else if changed {
                "screen changed".into()
            } else {
                "no change".into()
            },
        );
        self.observation = Observation::Screen { after, screen: without_line(&screen, &self.export), changed };
        self.screen = Some(screen);
    }

    async fn current_screen(&self) -> String {
        screen_text(&self.pane).await.unwrap_or_default()
    }

    /// tmux failed or the pane died: the subtask ends.
    async fn pane_failed(&mut self, error: HabitatError) -> Result<Turn, DagError> {
        match error {
            HabitatError::PaneDead { status, .. } => {
                self.shared.forget_pane(&self.request.subtask.pane).await;
                let mut outcome = RunOutcome::with_status(
                    SubtaskStatus::Failed,
                    format!(
                        "the pane's shell exited (status {status:?}); the next subtask on `{}` gets a new pane",
                        self.request.subtask.pane
                    ),
                );
                outcome.exit_code = status;
                Ok(Turn::End(outcome))
            }
            HabitatError::Timeout { .. } => Ok(Turn::End(self.timed_out().await)),
            other => Err(DagError::runner(&self.request.subtask.id, other)),
        }
    }

    /// A claim of success, checked: the last command must have succeeded and the files it names must exist.
    async fn done(&mut self, summary: String, files: Vec<String>) -> Turn {
        let id = self.request.subtask.id.clone();
        self.shared.ledger.update(&id, |s| s.claimed_success = true);
        let mut claimed = claimed_files(&summary, &files);
        let destinations = goal_destinations(&self.request.subtask.description);
        claimed.extend(destinations.iter().filter(|d| !claimed.contains(d)).cloned().collect::<Vec<_>>());
        // Where the shell is now: the model may have changed directory since the first turn.
        if let Some(now) = pane_directory(self.pane.pane()).await {
            self.cwd = now;
        }
        let cwd = PathBuf::from(&self.cwd);
        let (present, missing) = check_files(&claimed, &cwd);
        // A file the goal says to write holds something: `touch lines.txt` is not the count.
        let empty: Vec<&String> = destinations
            .iter()
            .filter(|d| resolve(d, &cwd).metadata().is_ok_and(|m| m.is_file() && m.len() == 0))
            .collect();
        let list = |names: Vec<String>| names.join(", ");
        // A command left waiting for an answer is not a goal reached (a server left running may be).
        let waiting = self.command.as_ref().filter(|_| self.awaiting_input).map(|c| c.label.clone());
        let problem = match self.last_exit {
            _ if waiting.is_some() => Some(format!(
                "`{}` still waits for input. Answer it (keys), or stop it with [\"C-c\"], then say done.",
                waiting.unwrap_or_default()
            )),
            Some(code) if code != 0 => Some(format!(
                "your last command failed (exit code {code}). Fix it, or run a command that shows the goal is reached, then say done."
            )),
            _ if !missing.is_empty() => Some(format!(
                "{} not exist in {}. Make {}, then say done.",
                if missing.len() == 1 {
                    format!("{} does", missing[0])
                } else {
                    format!("{} do", list(missing.clone()))
                },
                self.cwd,
                if missing.len() == 1 { "it" } else { "them" }
            )),
            _ if !empty.is_empty() => Some(format!(
                "{} empty. Write the result into {}, then say done.",
                if empty.len() == 1 {
                    format!("{} is", empty[0])
                } else {
                    format!("{} are", list(empty.iter().map(|e| (*e).clone()).collect()))
                },
                if empty.len() == 1 { "it" } else { "them" }
            )),
            _ => None,
        };
        if let Some(problem) = problem {
            if !self.bounced {
                self.bounced = true;
                self.step(format!("done \"{}\"", one_line(&summary, 60)), "not accepted".into());
                self.observation = Observation::NotDone { reason: problem };
                return Turn::Next;
            }
            self.shared.ledger.update(&id, |s| s.false_completion = Some(problem.clone()));
            let mut outcome = RunOutcome::with_status(
                SubtaskStatus::Failed,
                format!("the model said done, but {problem} (claim: {})", one_line(&summary, 200)),
            );
            outcome.exit_code = self.last_exit;
            outcome.output = std::mem::take(&mut self.log);
            return Turn::End(outcome);
        }
        // What it changed: a change the goal does not allow fails it (what can be is taken back); the final look
        // may send it back once more.
        let mut checks: Vec<String> = destinations
            .iter()
            .filter(|d| resolve(d, &cwd).metadata().is_ok_and(|m| !m.is_file() || m.len() > 0))
            .map(|d| format!("{d} was written"))
            .collect();
        // The shell's checks of the content (a number, a stated shape) on the destinations and the last output; a
        // problem there only leaves the result unchecked (the summary is the model's prose, not a script's output).
        let spec = crate::GoalSpec::parse(&self.request.subtask.description);
        let required = spec.required_writes(&cwd);
        let content = check_result(
            &self.request.subtask.description,
            &required,
            &self.cwd,
            &self.last_output,
            true,
            &Before::default(),
        );
        let mut content_checked = content.problem.is_none() && content.content_checked;
        checks.extend(content.checks.into_iter().filter(|_| content_checked));
        // A model whose right-shaped results are often wrong gets no second result to compare here: its shape alone
        // leaves it unchecked.
        if content_checked && self.shared.config.consensus && !content.whole {
            content_checked = false;
            checks.push(SHAPE_ONLY.into());
        }
        let mut looked_yes = false;
        if let Some((mut staging, attempt)) = self.staging.take() {
            match staging.settle(&attempt, 0, "") {
                Settled::Refused(how) => {
                    self.shared.ledger.update(&id, |s| s.false_completion = Some(how.clone()));
                    let mut outcome = RunOutcome::with_status(
                        SubtaskStatus::Failed,
                        format!("the model said done, but {how} (claim: {})", one_line(&summary, 200)),
                    );
                    outcome.output = std::mem::take(&mut self.log);
                    return Turn::End(outcome);
                }
                Settled::Unavailable => {}
                Settled::Applied(applied) => {
                    let changed = applied.as_ref().map(|a| a.changes().to_vec()).unwrap_or_default();
                    let look = if self.shared.config.final_look {
                        let printed = format!("{summary}\n{}", self.last_output);
                        let goal = self.request.subtask.description.clone();
                        tokio::select! {
                            look = final_look::look(&self.caller, &goal, &cwd, &changed, &printed) => look,
                            () = self.request.cancel.cancelled() => None,
                            () = tokio::time::sleep_until(self.deadline) => None,
                        }
                    } else {
                        None
                    };
                    match look {
                        Some(look) if !look.yes => {
                            let problem =
                                format!("a look at the result says it is wrong: {}", one_line(&look.reason, 200));
                            if !self.bounced {
                                // Still watching from the start: the attempt goes on.
                                self.staging = Some((staging, attempt));
                                self.bounced = true;
                                self.step(format!("done \"{}\"", one_line(&summary, 60)), "not accepted".into());
                                self.observation =
                                    Observation::NotDone { reason: format!("{problem}. Fix it, then say done.") };
                                return Turn::Next;
                            }
                            staging.take_back(applied);
                            self.shared.ledger.update(&id, |s| s.false_completion = Some(problem.clone()));
                            let mut outcome = RunOutcome::with_status(
                                SubtaskStatus::Failed,
                                format!("the model said done, but {problem} (claim: {})", one_line(&summary, 200)),
                            );
                            outcome.output = std::mem::take(&mut self.log);
                            return Turn::End(outcome);
                        }
                        Some(look) => {
                            looked_yes = self.shared.config.look_verifies;
                            checks.push(format!("the final look: {}", one_line(&look.reason, 200)));
                        }
                        None => {}
                    }
                    let kept = staging.keep(applied);
                    for change in &kept.changes {
                        progress(self.request, 0, self.caller.tokens_so_far(), change.to_string());
                    }
                    self.shared.ledger.update(&id, |s| s.changes.extend(kept.changes));
                }
            }
        }
        self.shared.ledger.update(&id, |s| {
            s.false_completion = None;
            s.verified = Some(looked_yes || content_checked);
            s.checks = checks.clone();
        });
        // Small models copy the prompt's example instead of an answer: then the last output is the answer.
        let summary = if is_placeholder(&summary) && !self.last_output.trim().is_empty() {
            bound(self.last_output.trim(), 1000)
        } else {
            summary
        };
        let mut outcome = RunOutcome::from_exit_code(0, String::new());
        outcome.exit_code = self.last_exit;
        outcome.summary = Some(summary);
        outcome.files = present;
        Turn::End(outcome)
    }

    /// The outcome with the log as its output (and the summary at its end). A subtask that did not succeed
    /// leaves what it can take back behind it: files it created go, inputs it changed are restored.
    fn finish(&mut self, mut outcome: RunOutcome) -> RunOutcome {
        if outcome.status != SubtaskStatus::Succeeded
            && let Some((mut staging, attempt)) = self.staging.take()
        {
            staging.abandon(&attempt);
        }
        if outcome.output.is_empty() {
            let mut output = std::mem::take(&mut self.log);
            if let Some(summary) = &outcome.summary {
                output.push_str(&format!("Done: {summary}\n"));
            }
            outcome.output = output;
        }
        outcome
    }

    async fn stop_command(&mut self) {
        if self.command.take().is_some() {
            let how = self.pane.interrupt().await;
            tracing::debug!(subtask = %self.request.subtask.id, %how, "stopped the running command");
        }
    }

    async fn cancelled(&mut self) -> RunOutcome {
        let how = match self.command.take() {
            Some(_) => self.pane.interrupt().await,
            None => "nothing was running".to_owned(),
        };
        let mut outcome = RunOutcome::with_status(SubtaskStatus::Cancelled, format!("the run was cancelled; {how}"));
        outcome.output = std::mem::take(&mut self.log);
        outcome
    }

    async fn timed_out(&mut self) -> RunOutcome {
        let how = match self.command.take() {
            Some(_) => self.pane.interrupt().await,
            None => "no command was running".to_owned(),
        };
        let mut outcome = RunOutcome::with_status(
            SubtaskStatus::TimedOut,
            format!("timed out after {:.1}s; {how}", self.request.timeout.as_secs_f64()),
        );
        outcome.output = std::mem::take(&mut self.log);
        outcome
    }
}

/// A summary that says nothing: empty, `...`, or a copy of the prompt's wording.
fn is_placeholder(summary: &str) -> bool {
    let words: String =
        summary.to_ascii_lowercase().chars().filter(|c| c.is_ascii_alphanumeric() || *c == ' ').collect();
    matches!(
        words.trim(),
        "" | "the result"
            | "result"
            | "done"
            | "the goal is reached"
            | "goal reached"
            | "the goal is reached the summary is the answer or what you made"
    )
}

fn with_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') { text.to_owned() } else { format!("{text}\n") }
}

/// A few words for the progress display.
fn describe(action: &Action) -> String {
    match action {
        Action::Run { command } => format!("run: {}", one_line(command, 60)),
        Action::Keys { keys } => {
            format!("keys: {}", keys.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "))
        }
        Action::Wait { seconds, .. } => format!("wait {seconds}s"),
        Action::Done { .. } => "done".into(),
        Action::Fail { .. } => "fail".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_line;

    #[test]
    fn the_line_clive_typed_is_not_shown() {
        let export = "export CLIVE_RUN_DIR='/s/runs/r1' CLIVE_SUBTASK_DIR='/s/runs/r1/subtasks/t'";
        let screen = format!("$ {export}\n$ ls\nnotes.txt\n$");
        assert_eq!(without_line(&screen, export), "$ ls\nnotes.txt\n$");
        assert_eq!(without_line("$ ls\n$", export), "$ ls\n$");
    }
}
