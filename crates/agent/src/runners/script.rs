//! The script runner: one model call writes a whole script; the gate checks it as a whole; it is saved in the
//! subtask's run directory and run in the pane with signalled completion. A failing script goes back to the model
//! with its exit code and the end of its output, a bounded number of times.

use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use dag_sched::{DagError, Mode, RunOutcome, RunRequest, Runner, SubtaskStatus};
use regex::Regex;
use tmux_habitat::shell_quote;
use tokio::time::Instant;

use crate::agent::{Agent, Shared};
use crate::gate::{GatedPane, TypeError};
use crate::model::{CallShape, Caller};
use crate::observe::{Command, Patience, Seen, Watch, watch_command};
use crate::prompt::{FailedScript, Input, PaneProfile, ScriptPrompt, Workplace, script_request};
use crate::runners::consensus;
use crate::runners::final_look;
use crate::runners::interactive::run_interactive;
use crate::runners::peek::peek_named_files;
use crate::runners::program_rewrite;
use crate::runners::questions::{Asker, Prompted, answer_questions};
use crate::runners::rerun::{rerun_program, run_rerun, unanswered_reason};
use crate::runners::result_check::{Before, Problem, SHAPE_ONLY, check_result, missing_input, not_fixed};
use crate::runners::script_fix;
use crate::runners::staging::{Attempt, Settled, Staging};
use crate::runners::{budget_outcome, dependency_inputs, pane_directory, progress};
use crate::text::{bound, one_line};

/// What stands for the question of a program that waits for a typed line with none on its screen.
pub(crate) const UNSEEN_QUESTION: &str = "no question on the screen: what it asked went to a file or a pipe";

/// How long a script sits quiet at a prompt-like line it printed before it counts as asking.
pub(crate) const PROMPT_QUIET: Duration = Duration::from_millis(1500);

/// The most attempts the shell fixes without a model call ([`script_fix::repair`]), on top of the model's.
const MAX_SHELL_REPAIRS: u32 = 2;

/// A script never pages: a pager waits for a person on the pane's terminal (`./show.sh` running `less`, `git log`,
/// `systemctl status`) and the script with it, until its deadline. Programs that honour these variables print
/// instead; `less` and `more` called by name, in the script or in a bash script it runs, are `cat` (their options
/// dropped) through the file `BASH_ENV` names (bash reads it before any script it runs, children included).
pub(crate) const NO_PAGER_ENV: &str = "PAGER=cat GIT_PAGER=cat MANPAGER=cat SYSTEMD_PAGER=cat";
const NO_PAGER_FILE: &str = "no-pager.bash";
/// `ls` lists one name per line, as it does into a pipe (a script's output is the pane's terminal, where it writes
/// columns: "how many files are left" printed as one line of six names was no list the shell could count); an
/// option of the script's own (`-l`, `-C`) comes after, and wins.
const NO_PAGER: &str = "less() { local a=(); for x; do [[ $x == [-+]* ]] || a+=(\"$x\"); done; cat -- \"${a[@]}\"; }\n\
                        more() { less \"$@\"; }\nls() { command ls -1 \"$@\"; }\nexport -f less more ls\n";

/// Writes the no-pager file (`BASH_ENV`) into a subtask's records; its path.
pub(crate) fn no_pager_file(records: &std::path::Path) -> Result<std::path::PathBuf, DagError> {
    let path = records.join(NO_PAGER_FILE);
    std::fs::write(&path, NO_PAGER).map_err(|source| DagError::RunDirectory { path: path.clone(), source })?;
    Ok(path)
}

/// The least sampling temperature of a repair and of a second script, where the configuration sets one.
const REPAIR_TEMPERATURE: f32 = 0.9;

/// The most characters of a failed script's output kept for the repair prompt.
const ERROR_TAIL_CHARS: usize = 1500;

/// What a script whose result is nothing is told (a zero, an empty file), once.
const FOUND_NOTHING: &str = "it found nothing (the result is 0, or the file is empty), which is also what a pattern \
                             or a field that matches no line gives: check against the input's lines that what you \
                             match is there as you wrote it (the right column, the exact text)";

/// A script a model wrote, ready to save and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The language.
    pub language: Language,
    /// The whole text, starting with its shebang.
    pub text: String,
}

impl Script {
    /// A bash script of one command line (a command a subtask came with, a program the goal runs, a fix).
    pub(crate) fn command_line(command: &str) -> Script {
        Script { language: Language::Bash, text: format!("#!/bin/bash\n{command}\n") }
    }
}

/// The languages scripts are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// bash.
    Bash,
    /// Python 3.
    Python,
}

impl Language {
    fn extension(self) -> &'static str {
        match self {
            Language::Bash => "sh",
            Language::Python => "py",
        }
    }

    fn interpreter(self) -> &'static str {
        match self {
            Language::Bash => "bash",
            Language::Python => "python3",
        }
    }
}

/// The script in a reply: the first fenced block (bash, sh, python or untagged), or from a shebang to the end.
/// A reply with neither is not a script (`None`): prose is never run.
pub fn extract_script(reply: &str) -> Option<Script> {
    let (tag, body) = first_fence(reply).or_else(|| {
        let at = reply.find("#!")?;
        Some(("", reply[at..].to_owned()))
    })?;
    let mut body = body.trim_matches('\n').to_owned();
    let mut tag = tag;
    // A first line that only names the language (```` ```bash ```` then `bash`): the model restating the fence's tag.
    // Run, it would start an interactive shell reading the terminal.
    let restated = body.split_once('\n').and_then(|(first, rest)| {
        let named = ["bash", "sh", "shell", "python", "python3"].into_iter().find(|name| *name == first.trim())?;
        (!rest.trim().is_empty()).then(|| (named, rest.trim_start_matches('\n').to_owned()))
    });
    if let Some((named, rest)) = restated {
        // The line's language wins over the tag where they differ (```` ```bash ```` then `python3` and python).
        if tag.is_empty() || language_of(named) != language_of(tag) {
            tag = named;
        }
        body = rest;
    }
    if body.trim().is_empty() {
        return None;
    }
    let first = body.lines().next().unwrap_or_default();
    let language = if first.starts_with("#!") {
        if first.contains("python") {
            Language::Python
        } else if first.contains("sh") {
            Language::Bash
        } else {
            return None;
        }
    } else {
        language_of(tag)?
    };
    let text = if first.starts_with("#!") {
        body
    } else {
        match language {
            Language::Bash => format!("#!/bin/bash\n{body}"),
            Language::Python => format!("#!/usr/bin/env python3\n{body}"),
        }
    };
    Some(Script { language, text: format!("{}\n", text.trim_end()) })
}

/// The language a fence's tag names (an untagged block is bash).
fn language_of(tag: &str) -> Option<Language> {
    match tag {
        "python" | "python3" | "py" => Some(Language::Python),
        "bash" | "sh" | "shell" | "" => Some(Language::Bash),
        _ => None,
    }
}

/// Where a script reply ends: a closing fence and a blank line. Small models write the script and then go on
/// with another block, an explanation, another language, until `max_tokens` (2,000 tokens, two minutes of a local
/// model: `csv-sum-column` in docs/evals.md); the first block is all that is read. An opening fence is never
/// followed by a blank line, and [`first_fence`] takes a block whose closing fence was cut off.
const SCRIPT_STOP: &[&str] = &["```\n\n"];

/// The tag and body of the first fenced block.
pub(crate) fn first_fence(text: &str) -> Option<(&str, String)> {
    let start = text.find("```")?;
    let rest = &text[start + 3..];
    let (tag, body) = rest.split_once('\n')?;
    let end = body.find("\n```").map_or(body.len(), |e| e + 1);
    Some((tag.trim(), body[..end].to_owned()))
}

/// String literals of a Python script: the gate judges each as a command line, so `os.system("rm -rf ~")` is
/// caught. (Python's own file operations are for the sandbox to contain.)
static PY_STRINGS: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"#));

/// Passes the whole script through the gate, and refuses one that removes the directory it works in.
pub(crate) fn gate_script(pane: &GatedPane, script: &Script, cwd: &str) -> Result<(), TypeError> {
    if script.language == Language::Bash {
        pane.guard_workplace_in(&script.text, cwd)?;
    }
    match script.language {
        Language::Bash => pane.check(&script.text),
        Language::Python => {
            {
                let re = &*PY_STRINGS;
                for literal in re.find_iter(&script.text) {
                    let text = literal.as_str();
                    pane.check(&text[1..text.len() - 1])?;
                }
            }
            Ok(())
        }
    }
}

/// Runs `script` subtasks: the model writes one script; it is gated, saved, run, and repaired on failure.
#[derive(Debug, Clone)]
pub struct ScriptRunner {
    agent: Agent,
}

impl ScriptRunner {
    /// A runner over `agent`'s model and panes.
    pub fn new(agent: Agent) -> ScriptRunner {
        ScriptRunner { agent }
    }
}

#[async_trait]
impl Runner for ScriptRunner {
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError> {
        let subtask = &request.subtask;
        if let Some(program) = rerun_program(&subtask.description, subtask.command.as_deref()) {
            return run_rerun(&self.agent.shared, &request, &program).await;
        }
        run_script(&self.agent.shared, &request).await
    }
}

/// One failed attempt: what the next prompt tells the model.
struct Failure {
    script: String,
    how: String,
    output: String,
}

async fn run_script(shared: &Shared, request: &RunRequest) -> Result<RunOutcome, DagError> {
    let subtask = &request.subtask;
    let started = Instant::now();
    let deadline = started + request.timeout;
    shared.ledger.update(&subtask.id, |s| s.mode = Some(Mode::Script));
    if shared.budget_spent() {
        return Ok(budget_outcome(false, "before this subtask started"));
    }
    let pane = shared.gated_pane(&subtask.pane).await?;
    let records = request.context.runner_dir()?;
    let no_pager = no_pager_file(&records)?;
    let caller = shared.caller(&subtask.id, Some(&request.context));
    let profile = shared.profile(&subtask.pane);
    let mut inputs = dependency_inputs(&request.context, false);
    let mut failure: Option<Failure> = None;
    // Whether a script stopped at a prompt: the one failure the interactive runner is better at than another script.
    let mut stuck_at_prompt = false;
    let attempts = shared.config.script_attempts.max(1);
    // Attempts so far: scripts written (run, or refused, or the same failed one again), replies without one, and
    // the shell's repairs.
    let mut attempt = 0;
    // The program to fix, which the model only ran again: the fix-and-rerun loop takes over once the pane is free.
    let mut hand_over: Option<String> = None;
    {
        let _lock = pane.pane().lock().await;
        let cwd = pane_directory(pane.pane()).await.unwrap_or_else(|| "unknown".into());
        inputs.extend(peek_named_files(&pane, &subtask.description).await);
        // What the goal reads, makes and changes, as it stood before any attempt: an existing file it only guesses
        // is a destination is never required (nor overwritten).
        let spec = crate::GoalSpec::parse(&subtask.description);
        let required = spec.required_writes(std::path::Path::new(&cwd));
        tracing::debug!(reads = ?spec.reads, changes = ?spec.changes, ?required, "what the goal reads and makes");
        let mut staging = crate::runners::staging::Staging::new(shared, &subtask.pane, &spec, &cwd, &records);
        let launch = Launch { request, records: &records, no_pager: &no_pager };
        let writer =
            Writer { shared, request, caller: &caller, profile: &profile, cwd: &cwd, inputs: &inputs, deadline };
        // A failed script the shell fixed without a call (`script_fix::repair`): the next attempt, on top of the
        // model's `attempts`, at most `MAX_SHELL_REPAIRS` of them.
        let mut fixed: Option<Script> = None;
        // An attempt whose staging turned out unavailable (its script never started): it runs again, unstaged.
        let mut again: Option<Script> = None;
        let mut shell_repairs = 0;
        // Whether a script that only ran the program the goal fixes failed already ([`program_rewrite::only_runs`]).
        let mut only_ran = false;
        // Whether a result of nothing was sent back once ([`FOUND_NOTHING`]); the script that gave it, until the
        // script written after it succeeds or fails; whether that one was asked for.
        let mut found_nothing_told = false;
        let mut nothing_back: Option<Script> = None;
        let mut retry_started = false;
        // The attempts these add to the model's: the new script, and the one that found nothing run again.
        let mut nothing_attempts = 0;
        let no_command = subtask.command.as_deref().is_none_or(|c| c.trim().is_empty());
        // A goal that runs a program and answers its questions: the program is the first attempt, without a call
        // (`super::asked_program`).
        if shared.config.shell_fixes
            && no_command
            && let Some(program) = super::asked_program::program_to_answer(&subtask.description)
        {
            tracing::debug!(%program, "the program whose questions the goal answers, run first");
            fixed = Some(Script::command_line(&program));
            shell_repairs += 1;
        }
        // A goal that sets one key of a config file and asks nothing else: the shell's edit is the first attempt,
        // without a call (`crate::goal_setting`).
        else if shared.config.shell_fixes
            && no_command
            && let Some(edit) = crate::goal_setting::goal_edit(&subtask.description, &spec, std::path::Path::new(&cwd))
        {
            let written = records.join("goal-edit.txt");
            std::fs::write(&written, &edit.text).map_err(|error| DagError::runner(&subtask.id, error))?;
            tracing::debug!(key = %edit.key, value = %edit.value, file = %edit.file, "the goal's setting, set by the shell");
            let text = format!("cat -- {} > {}", shell_quote(&written.display().to_string()), shell_quote(&edit.file));
            fixed = Some(Script::command_line(&text));
            shell_repairs += 1;
        }
        // The last clause: the script written after a result of nothing failed on the last attempt, and the one
        // that found nothing is still to run again.
        while attempt < attempts + shell_repairs + nothing_attempts
            || again.is_some()
            || (retry_started && nothing_back.is_some() && fixed.is_none())
        {
            if again.is_none() {
                attempt += 1;
            }
            // The script sent back for finding nothing runs again, without a call, when the one written after it
            // failed: its result of nothing may be the right one.
            let back_to_nothing = retry_started && fixed.is_none() && again.is_none() && nothing_back.is_some();
            if back_to_nothing {
                fixed = nothing_back.take();
                nothing_attempts += 1;
            } else if nothing_back.is_some() {
                retry_started = true;
            }
            // A shell's repair costs nothing, so its result is judged in full even when it comes last (the
            // lenient last judgement keeps a model's last word, which cost a call).
            let shell_repair = fixed.is_some();
            let last = attempt == attempts + shell_repairs + nothing_attempts && !shell_repair;
            shared.ledger.update(&subtask.id, |s| s.turns = attempt);
            if request.cancel.is_cancelled() {
                return Ok(RunOutcome::with_status(SubtaskStatus::Cancelled, "the run was cancelled"));
            }
            if Instant::now() >= deadline {
                return Ok(timed_out(request));
            }
            if !shell_repair && shared.budget_spent() {
                return Ok(budget_outcome(attempt > 1, "another call was refused"));
            }
            // A command the subtask came with (the classifier's, a planner's) is the first attempt: no call.
            let given = subtask.command.as_deref().map(str::trim).filter(|c| attempt == 1 && !c.is_empty());
            let script = match (again.take().or_else(|| fixed.take()), given) {
                (Some(script), _) => script,
                (None, Some(command)) => Script::command_line(command),
                (None, None) => match writer.write(failure.as_ref(), attempt).await {
                    Written::Script(script) => script,
                    Written::Unreadable(reply) => {
                        // A config file the goal changes, written out whole in its own format's fence: saved as it.
                        let cwd_path = std::path::Path::new(&cwd);
                        match shared
                            .config
                            .shell_fixes
                            .then(|| program_rewrite::saved_as_data_file(&spec, cwd_path, &reply))
                            .flatten()
                        {
                            Some(saved) => saved,
                            None => {
                                shared.ledger.update(&subtask.id, |s| s.unreadable_replies += 1);
                                failure = Some(Failure {
                                    script: one_line(&reply, 300),
                                    how: "the reply had no script in a fenced code block, so nothing ran".into(),
                                    output: String::new(),
                                });
                                continue;
                            }
                        }
                    }
                    Written::End(outcome) => return Ok(outcome),
                },
            };
            let script = tidied(shared, &subtask.description, &cwd, script);
            // The program the goal fixes, written out whole as the script: saved over the program instead.
            let script = match shared.config.shell_fixes.then(|| {
                program_rewrite::saved_as_program(&subtask.description, &spec, std::path::Path::new(&cwd), &script)
            }) {
                Some(Some(saved)) => saved,
                _ => script,
            };
            // The same failed script again (a small model's repair often is) is not run again: the next prompt says so.
            if let Some(failed) = failure.as_ref().filter(|f| !back_to_nothing && same_script(&f.script, &script.text))
            {
                // A script that only ran the program to fix, given again: the fix-and-rerun loop takes over.
                if only_ran
                    && shared.config.shell_fixes
                    && let Some(command) = program_rewrite::only_runs(&spec, &script).and_then(|only| only.command)
                {
                    hand_over = Some(command);
                    break;
                }
                let how = match failed.how.strip_prefix(SAME_AGAIN) {
                    Some(_) => failed.how.clone(),
                    None => format!("{SAME_AGAIN}{}", failed.how),
                };
                failure = Some(Failure { script: script.text, how, output: failed.output.clone() });
                continue;
            }
            if let Err(refused) = gate_script(&pane, &script, &cwd) {
                shared.ledger.update(&subtask.id, |s| s.refused_commands += 1);
                failure = Some(Failure { script: script.text, how: refused.to_string(), output: "nothing ran".into() });
                continue;
            }
            let staged = staging.begin(attempt);
            let is_staged = staged.is_staged();
            shared.ledger.update(&subtask.id, |s| s.staged = Some(is_staged));
            let (path, command) = launch.command(&script, &format!("script-{attempt}"), &staged)?;
            progress(request, attempt, caller.tokens_so_far(), format!("running script {attempt}"));
            shared.ledger.update(&subtask.id, |s| {
                s.last_command = Some(format!("{} {}", script.language.interpreter(), path.display()))
            });
            let before =
                if attempt > 1 && !is_staged { Before::take(&subtask.description, &cwd) } else { Before::default() };
            let programs_before = Before::of(&spec.changes, &cwd);
            let wakeups = crate::observe::Wakeups::new(&pane, deadline).await;
            let running = match pane.start(&command).await {
                Ok(running) => running,
                Err(error) => return Err(DagError::runner(&subtask.id, error)),
            };
            let mut running =
                Command::new(&path.display().to_string(), running, deadline.saturating_duration_since(Instant::now()));
            // A program that sits quiet at a prompt it printed is asking: answered from the task, at once.
            let watch = Watch { patience: Patience::Prompt(PROMPT_QUIET), ..Watch::script(&request.cancel) };
            let seen = watch_command(&pane, &mut running, wakeups, watch, deadline).await;
            // The questions the goal answers ("run ./x and answer yes"), each in turn: one small call each.
            let asker = Asker { caller: &caller, goal: &subtask.description, cancel: &request.cancel, deadline };
            let seen = match answer_questions(&pane, &mut running, &asker, seen, watch).await {
                Prompted::Seen(seen) => seen,
                Prompted::Unanswered(question) => {
                    drop(running);
                    pane.interrupt().await;
                    staging.abandon(&staged);
                    let program = subtask.command.as_deref().unwrap_or("the script");
                    return Ok(RunOutcome::with_status(SubtaskStatus::Failed, unanswered_reason(program, &question)));
                }
            };
            shared.ledger.update(&subtask.id, |s| s.command_ms += crate::model::millis(running.started.elapsed()));
            // What the attempt changed: applied to the working directory only when the goal allows every change
            // and the script exited 0; taken back if the result check then fails.
            let settled = match &seen {
                Seen::Finished(output) => staging.settle(&staged, output.exit_code, &output.output),
                _ => staging.abandon(&staged),
            };
            let (mut seen, applied) = match settled {
                Settled::Unavailable => {
                    again = Some(script);
                    continue;
                }
                Settled::Refused(how) => {
                    let output = match &seen {
                        Seen::Finished(output) => bound(&output.output, ERROR_TAIL_CHARS * 2),
                        _ => String::new(),
                    };
                    failure = Some(Failure { script: script.text, how, output });
                    continue;
                }
                Settled::Applied(applied) => (seen, applied),
            };
            if let Seen::Finished(output) = &mut seen
                && output.exit_code == 0
            {
                let mut checked = check_result(&subtask.description, &required, &cwd, &output.output, last, &before);
                if checked.problem.is_none()
                    && let Some(file) = not_fixed(&spec, &script.text, &cwd, &programs_before)
                {
                    checked.problem = Some(Problem::NotFixed { file });
                }
                if let Some(problem) = checked.problem {
                    let changed = applied.as_ref().is_some_and(|applied| !applied.changes().is_empty());
                    let undoable = applied.as_ref().is_some_and(|applied| applied.undoable());
                    let undone = staging.take_back(applied);
                    let replay = if !changed {
                        script_fix::Replay::NothingChanged
                    } else if undoable && undone {
                        script_fix::Replay::Undone(&script)
                    } else {
                        script_fix::Replay::Unsafe
                    };
                    // Exit 0 is not the goal: a result the goal rules out is a failed attempt. Where the shell can
                    // fix it (the result was printed, not written), that is the next attempt, with no call.
                    if matches!(problem, Problem::PrintedError { .. })
                        && let Some(file) = missing_input(&subtask.description, &cwd, &output.output)
                    {
                        return Ok(missing(&file, &cwd));
                    }
                    if shared.config.shell_fixes
                        && shell_repairs < MAX_SHELL_REPAIRS
                        && !output.truncated
                        && let Some(next) =
                            script_fix::repair(&subtask.description, &spec, &required, &problem, &output.output, replay)
                    {
                        shell_repairs += 1;
                        fixed = Some(next);
                    }
                    failure = Some(Failure {
                        script: script.text,
                        how: format!("it exited 0, but {problem}"),
                        output: bound(&output.output, ERROR_TAIL_CHARS * 2),
                    });
                    continue;
                }
                // The final look: the right shape may hold the wrong thing. A no is a failed attempt.
                let mut checks = checked.checks;
                let mut verified = checked.content_checked;
                // A result only its shape vouches for, from a model whose right-shaped results are often wrong:
                // checked only if a second script, sampled apart, gives the same; unchecked where none can be
                // compared (a changed file).
                let comparable = consensus::comparable(&spec, &required, std::path::Path::new(&cwd));
                if verified && shared.config.consensus && !comparable && !checked.whole {
                    verified = false;
                    checks.push(SHAPE_ONLY.into());
                }
                let first = consensus::result_of(&required, std::path::Path::new(&cwd), &output.output);
                // A result of nothing (a zero, an empty file) is what a filter that matches no line gives: once, the
                // model is told so and writes another script (Qwen2.5-Coder 1.5B matched a log's status in the
                // wrong field, and a time as text that the log writes otherwise), on top of its attempts. The same
                // result again is kept; a failure of the new script runs this one again.
                if shared.config.consensus
                    && !found_nothing_told
                    && first.as_deref().is_some_and(|first| consensus::found_nothing(first, &required))
                {
                    found_nothing_told = true;
                    nothing_back = Some(script.clone());
                    nothing_attempts += 1;
                    staging.take_back(applied);
                    failure = Some(Failure {
                        script: script.text,
                        how: format!("it exited 0, but {FOUND_NOTHING}"),
                        output: bound(&output.output, ERROR_TAIL_CHARS * 2),
                    });
                    continue;
                }
                if verified && shared.config.consensus && comparable {
                    let opinion = match first {
                        // No agreement would vouch for a zero: no second script is written for it.
                        Some(first) if consensus::is_zero(&first, &required) => consensus::Opinion::Zero,
                        Some(first) => {
                            let second = Second { writer: &writer, pane: &pane, launch: &launch, required: &required };
                            second.opinion(&script, &first, &mut staging, attempt).await
                        }
                        None => consensus::Opinion::Nothing("the result could not be read to compare".into()),
                    };
                    let (check, holds) = opinion.check();
                    verified = holds;
                    checks.push(check);
                }
                if shared.config.final_look {
                    let changed = applied.as_ref().map(|a| a.changes().to_vec()).unwrap_or_default();
                    let look = tokio::select! {
                        look = final_look::look(&caller, &subtask.description, std::path::Path::new(&cwd), &changed, &output.output) => look,
                        () = request.cancel.cancelled() => None,
                        () = tokio::time::sleep_until(deadline) => None,
                    };
                    match look {
                        Some(look) if !look.yes => {
                            staging.take_back(applied);
                            failure = Some(Failure {
                                script: script.text,
                                how: format!(
                                    "it exited 0, but a look at the result says it is wrong: {}",
                                    one_line(&look.reason, 200)
                                ),
                                output: bound(&output.output, ERROR_TAIL_CHARS * 2),
                            });
                            continue;
                        }
                        Some(look) => {
                            verified |= shared.config.look_verifies;
                            checks.push(format!("the final look: {}", one_line(&look.reason, 200)));
                        }
                        None => {}
                    }
                }
                let changes = staging.keep(applied);
                for change in &changes.changes {
                    progress(request, attempt, caller.tokens_so_far(), change.to_string());
                }
                drop(running);
                shared.ledger.update(&subtask.id, |s| {
                    s.verified = Some(verified);
                    s.checks = checks.clone();
                    s.changes.extend(changes.changes);
                    s.journal = changes.journal.or(s.journal.take());
                });
                // What it printed is what the user is told: a sum's float noise is dropped (`float_noise`).
                let printed = std::mem::take(&mut output.output);
                let printed = if shared.config.shell_fixes
                    && (super::result_check::asks_number(&subtask.description)
                        || super::result_check::tells_a_number(&subtask.description))
                {
                    super::float_noise::without_float_noise(&printed)
                } else {
                    printed
                };
                let mut outcome = RunOutcome::from_exit_code(0, printed);
                if output.truncated {
                    outcome.reason = Some("the start of the output scrolled out of the pane's history".into());
                }
                return Ok(outcome);
            }
            staging.take_back(applied);
            match seen {
                Seen::Finished(output) => {
                    if let Some(file) = missing_input(&subtask.description, &cwd, &output.output) {
                        return Ok(missing(&file, &cwd));
                    }
                    // An error in a line of the program the goal fixes: the fix-and-rerun loop asks for that line.
                    if shared.config.shell_fixes
                        && output.exit_code != 0
                        && let Some(command) = program_rewrite::line_fault(
                            &subtask.description,
                            &spec,
                            std::path::Path::new(&cwd),
                            &output.output,
                        )
                    {
                        hand_over = Some(command);
                        break;
                    }
                    // A script that only ran the program the goal fixes, which failed: its error is what to fix,
                    // in the program. (A clean run is not second-guessed: "fix it if it fails" may need nothing.)
                    let how = match program_rewrite::only_runs(&spec, &script) {
                        Some(only) => {
                            // Told so once, the model only ran it again: the fix-and-rerun loop takes over, where
                            // running the program is the shell's and each call asks for one change to it.
                            if let Some(command) = only.command.filter(|_| only_ran && shared.config.shell_fixes) {
                                hand_over = Some(command);
                                break;
                            }
                            only_ran = true;
                            format!("exit code {}, and {}", output.exit_code, Problem::NotFixed { file: only.file })
                        }
                        None => format!("exit code {}", output.exit_code),
                    };
                    failure =
                        Some(Failure { script: script.text, how, output: bound(&output.output, ERROR_TAIL_CHARS * 2) });
                }
                Seen::NeedsInput(_) | Seen::WaitsUnseen => {
                    stuck_at_prompt = true;
                    let how = match &seen {
                        Seen::NeedsInput(found) => format!(
                            "it stopped at a prompt waiting for input (`{}`) and was interrupted",
                            one_line(&found.prompt, 80)
                        ),
                        _ => format!(
                            "it waited for a line typed on the terminal ({UNSEEN_QUESTION}) and was interrupted: run \
                             the program with its output on the screen, not into a file or a pipe, so that its \
                             questions can be seen and answered"
                        ),
                    };
                    let so_far =
                        crate::observe::command_view(&pane, &running).await.map(|v| v.text).unwrap_or_default();
                    drop(running);
                    pane.interrupt().await;
                    failure = Some(Failure { script: script.text, how, output: so_far });
                }
                Seen::Cancelled => {
                    drop(running);
                    let how = pane.interrupt().await;
                    return Ok(RunOutcome::with_status(
                        SubtaskStatus::Cancelled,
                        format!("the run was cancelled; {how}"),
                    ));
                }
                Seen::Failed(tmux_habitat::Error::PaneDead { status, .. }) => {
                    shared.forget_pane(&subtask.pane).await;
                    let mut outcome =
                        RunOutcome::with_status(SubtaskStatus::Failed, "the script ended the pane's shell");
                    outcome.exit_code = status;
                    return Ok(outcome);
                }
                Seen::Failed(error) => return Err(DagError::runner(&subtask.id, error)),
                Seen::StillRunning | Seen::Appeared | Seen::Settled | Seen::Unchanged | Seen::Ended(_) => {
                    drop(running);
                    let how = pane.interrupt().await;
                    let mut outcome = timed_out(request);
                    outcome.reason = Some(format!("timed out after {:.1}s; {how}", request.timeout.as_secs_f64()));
                    return Ok(outcome);
                }
            }
        }
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if let Some(command) = hand_over {
        tracing::debug!(%command, "only the program was run again: the fix-and-rerun loop takes over");
        progress(request, attempt, caller.tokens_so_far(), "fixing and running the program again");
        let mut rest = request.clone();
        rest.timeout = left;
        return run_rerun(shared, &rest, &command).await;
    }
    let last = failure
        .map(|f| format!("{}; output ends: {}", f.how, one_line(&tail(&f.output, 300), 300)))
        .unwrap_or_default();
    if shared.config.script_fallback
        && stuck_at_prompt
        && left > Duration::from_secs(1)
        && !request.cancel.is_cancelled()
        && !shared.budget_spent()
    {
        shared.ledger.update(&subtask.id, |s| s.fell_back = true);
        progress(request, attempt, caller.tokens_so_far(), "falling back to interactive");
        let mut fallback = request.clone();
        fallback.timeout = left;
        let note = format!("{} for this failed; the last: {last}", scripts(attempt));
        return run_interactive(shared, &fallback, Some(note)).await;
    }
    Ok(RunOutcome::with_status(SubtaskStatus::Failed, format!("{} failed; the last: {last}", scripts(attempt))))
}

/// "1 script", "2 scripts".
fn scripts(count: u32) -> String {
    if count == 1 { "1 script".into() } else { format!("{count} scripts") }
}

/// What starting a script in the subtask's pane needs.
pub(crate) struct Launch<'a> {
    pub(crate) request: &'a RunRequest,
    pub(crate) records: &'a std::path::Path,
    pub(crate) no_pager: &'a std::path::Path,
}

impl Launch<'_> {
    /// Saves `script` in the subtask's run directory as `name` (plus its extension) and gives the shell text that
    /// runs it as `attempt` (staged or not), never paging.
    pub(crate) fn command(
        &self,
        script: &Script,
        name: &str,
        attempt: &Attempt,
    ) -> Result<(std::path::PathBuf, String), DagError> {
        let path = self.records.join(format!("{name}.{}", script.language.extension()));
        std::fs::write(&path, &script.text).map_err(|source| DagError::RunDirectory { path: path.clone(), source })?;
        let run = format!("{} {}", script.language.interpreter(), shell_quote(&path.display().to_string()));
        let command = format!(
            "{}\n{NO_PAGER_ENV} BASH_ENV={} {}",
            dag_sched::export_run_dirs(&self.request.context),
            shell_quote(&self.no_pager.display().to_string()),
            attempt.wrap(self.records, &run),
        );
        Ok((path, command))
    }
}

/// A model's script as it runs: tidied by the shell where the profile wants its fixes (`AgentConfig::shell_fixes`),
/// then fitted to the files it works on ([`script_fix::fitted_to_files`]).
fn tidied(shared: &Shared, goal: &str, cwd: &str, script: Script) -> Script {
    if !shared.config.shell_fixes {
        return script;
    }
    let script = script_fix::tidy(goal, &script);
    match script.language {
        Language::Bash => {
            Script { text: script_fix::fitted_to_files(goal, &script.text, std::path::Path::new(cwd)), ..script }
        }
        Language::Python => Script {
            text: crate::runners::header_count::records_counted(goal, &script.text, std::path::Path::new(cwd)),
            ..script
        },
    }
}

/// A second opinion on an accepted result ([`consensus`]).
struct Second<'a> {
    writer: &'a Writer<'a>,
    pane: &'a GatedPane,
    launch: &'a Launch<'a>,
    required: &'a [String],
}

impl Second<'_> {
    /// Asks for a second script for the goal, written apart from `first`, runs it staged, and compares what it
    /// gives with `result` (the accepted attempt's, [`consensus::result_of`]). Its changes are never applied.
    async fn opinion(
        &self,
        first: &Script,
        result: &str,
        staging: &mut Staging<'_>,
        attempt: u32,
    ) -> consensus::Opinion {
        use consensus::Opinion;
        let request = self.writer.request;
        let deadline = self.writer.deadline;
        if self.writer.shared.budget_spent() {
            return Opinion::Nothing("the token budget is spent".into());
        }
        let script = match self.writer.second(attempt).await {
            Written::Script(script) => {
                tidied(self.writer.shared, &request.subtask.description, self.writer.cwd, script)
            }
            Written::Unreadable(_) => return Opinion::Nothing("the reply held no script".into()),
            Written::End(outcome) => {
                return Opinion::Nothing(outcome.reason.unwrap_or_else(|| "the call ended".into()));
            }
        };
        // The same script again says nothing new: its result would be the same, right or wrong.
        if same_script(&script.text, &first.text) {
            return Opinion::Nothing("the second script was the first one again".into());
        }
        if consensus::same_method(&script.text, &first.text, std::path::Path::new(self.writer.cwd)) {
            return Opinion::Nothing(format!(
                "the second script (`{}`) did it the same way, so it would share any mistake",
                one_line(&script.text, 80)
            ));
        }
        if let Err(refused) = gate_script(self.pane, &script, self.writer.cwd) {
            return Opinion::Nothing(format!("the second script was refused: {refused}"));
        }
        // Its own stage, never applied: the accepted result below it is what it sees, and it cannot touch it.
        let staged = staging.begin(attempt + STAGE_SECOND);
        // Staged, what it writes is in its own upper directory. Unstaged (no overlay here), it may run only where
        // the result is what it prints: written files would be the accepted ones, overwritten. Either way nothing
        // of it is kept (an unstaged run's created files are removed, the goal's inputs restored).
        let root = match staged.upper() {
            Some(upper) => upper,
            None if self.required.is_empty() => std::path::PathBuf::from(self.writer.cwd),
            None => {
                staging.abandon(&staged);
                return Opinion::Nothing(
                    "staging is unavailable, and a second script would overwrite the result".into(),
                );
            }
        };
        progress(request, attempt, self.writer.caller.tokens_so_far(), "running a second script to compare");
        let outcome = self.run(&script, &format!("second-{attempt}"), &staged, deadline).await;
        // Read before the stage is discarded.
        let opinion = match outcome {
            Ok((0, printed)) => match consensus::result_of(self.required, &root, &printed) {
                Some(theirs) if theirs == result => Opinion::Agrees,
                Some(theirs) => Opinion::Differs(one_line(&theirs, 120)),
                None => Opinion::Nothing("the second script gave no result to compare".into()),
            },
            Ok((code, _)) => Opinion::Nothing(format!("the second script exited {code}")),
            Err(why) => Opinion::Nothing(why),
        };
        staging.abandon(&staged);
        opinion
    }

    /// Runs `script` as `staged` in the pane: its exit code and output, or why it did not finish.
    async fn run(
        &self,
        script: &Script,
        name: &str,
        staged: &Attempt,
        deadline: Instant,
    ) -> Result<(i32, String), String> {
        let request = self.writer.request;
        let (path, command) = self.launch.command(script, name, staged).map_err(|e| e.to_string())?;
        let wakeups = crate::observe::Wakeups::new(self.pane, deadline).await;
        let running = self.pane.start(&command).await.map_err(|e| e.to_string())?;
        let mut running =
            Command::new(&path.display().to_string(), running, deadline.saturating_duration_since(Instant::now()));
        // A second script that stops at a prompt is not answered: it did not finish.
        let watch = Watch { patience: Patience::Prompt(PROMPT_QUIET), ..Watch::script(&request.cancel) };
        let seen = watch_command(self.pane, &mut running, wakeups, watch, deadline).await;
        match seen {
            Seen::Finished(output) if output.exit_code == crate::stage::STAGE_UNAVAILABLE => {
                Err("staging turned out unavailable".into())
            }
            Seen::Finished(output) => Ok((output.exit_code, output.output)),
            Seen::Failed(error) => Err(error.to_string()),
            _ => {
                drop(running);
                let how = self.pane.interrupt().await;
                Err(format!("the second script did not finish; {how}"))
            }
        }
    }
}

/// Second scripts' stages are numbered apart from the attempts'.
const STAGE_SECOND: u32 = 100;

/// What one script-writing call needs.
struct Writer<'a> {
    shared: &'a Shared,
    request: &'a RunRequest,
    caller: &'a Caller,
    profile: &'a PaneProfile,
    cwd: &'a str,
    inputs: &'a [Input],
    deadline: Instant,
}

/// What a script-writing call came to.
enum Written {
    Script(Script),
    /// A reply without a script (its text).
    Unreadable(String),
    /// The subtask ends here (cancelled, timed out, budget spent, the call failed).
    End(RunOutcome),
}

impl Writer<'_> {
    /// Asks the model for attempt `attempt`: a first script, or a repair of `failure`.
    async fn write(&self, failure: Option<&Failure>, attempt: u32) -> Written {
        // A repair sampled as greedily as the first attempt tends to be the failed script again (measured with
        // Qwen2.5-Coder-0.5B: the same wrong pipeline three times); the check after each run picks among samples.
        // Only where a temperature is configured: some models accept none (`AgentConfig::temperature`).
        let temperature = failure.and(self.shared.config.temperature).map(|t| t.max(REPAIR_TEMPERATURE));
        self.ask(failure, attempt, temperature, true).await
    }

    /// Asks for a second first script, written apart from the first to compare results with ([`consensus`]): the
    /// same task without the worked examples, sampled as a repair is where a temperature is configured. Greedy, a
    /// small model's second script makes the first one's mistake, and their agreement says nothing.
    async fn second(&self, attempt: u32) -> Written {
        let temperature = self.shared.config.temperature.map(|t| t.max(REPAIR_TEMPERATURE));
        self.ask(None, attempt, temperature, false).await
    }

    async fn ask(&self, failure: Option<&Failure>, attempt: u32, temperature: Option<f32>, examples: bool) -> Written {
        let request = self.request;
        let subtask = &request.subtask;
        progress(request, attempt, self.caller.tokens_so_far(), format!("writing script {attempt}"));
        let workplace = Workplace {
            goal: subtask.description.trim(),
            pane: &subtask.pane,
            profile: self.profile,
            cwd: self.cwd,
            inputs: self.inputs,
        };
        // A program the failed script needs that is not installed here is named (`not_installed`).
        let how = failure.map(|f| crate::runners::not_installed::told(&f.how, &f.output, &f.script));
        let prompt = script_request(&ScriptPrompt {
            workplace,
            failed: failure.zip(how.as_deref()).map(|(f, how)| FailedScript {
                script: &f.script,
                failure: how,
                output: &f.output,
            }),
            examples: examples && self.shared.config.worked_examples,
        });
        let shape = CallShape {
            purpose: "script",
            max_tokens: self.shared.config.script_tokens,
            schema: None,
            stop: SCRIPT_STOP,
            temperature,
        };
        match crate::runners::call_within(self.caller, &prompt, shape, request, self.deadline, attempt > 1).await {
            Ok(reply) => match extract_script(&reply.text) {
                Some(script) => Written::Script(script),
                None => Written::Unreadable(reply.text),
            },
            Err(outcome) => Written::End(outcome),
        }
    }
}

/// How a repair that returned the failed script unchanged is told (followed by how that script failed).
const SAME_AGAIN: &str =
    "this is the script that already failed, so it did not run again; write a different one. It failed: ";

/// Whether two scripts are the same apart from the shebang, blank lines and indentation.
fn same_script(a: &str, b: &str) -> bool {
    let lines = |text: &str| -> Vec<String> {
        text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("#!")).map(str::to_owned).collect()
    };
    lines(a) == lines(b)
}

/// The end of a subtask whose goal reads `file`, which is not in `cwd`.
fn missing(file: &str, cwd: &str) -> RunOutcome {
    RunOutcome::with_status(SubtaskStatus::Failed, format!("{file} does not exist (in {cwd})"))
}

/// The end of a subtask that ran out of time.
pub(crate) fn timed_out(request: &RunRequest) -> RunOutcome {
    RunOutcome::with_status(SubtaskStatus::TimedOut, format!("timed out after {:.1}s", request.timeout.as_secs_f64()))
}

/// The last `chars` characters of `text`.
pub(crate) fn tail(text: &str, chars: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(chars)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_patterns_compile() {
        assert!(!PY_STRINGS.as_str().is_empty());
    }

    #[test]
    fn scripts_come_from_fences_or_shebangs() {
        let script = extract_script("Here:\n```bash\nset -euo pipefail\nls\n```\nDone.").unwrap();
        assert_eq!(script, Script { language: Language::Bash, text: "#!/bin/bash\nset -euo pipefail\nls\n".into() });
        let script = extract_script("```\n#!/usr/bin/env python3\nprint(1)\n```").unwrap();
        assert_eq!(script.language, Language::Python);
        let script = extract_script("#!/bin/bash\necho hi").unwrap();
        assert_eq!(script.text, "#!/bin/bash\necho hi\n");
        let script = extract_script("```python\nprint(2)\n```").unwrap();
        assert_eq!(script.text, "#!/usr/bin/env python3\nprint(2)\n");
    }

    #[test]
    fn a_first_line_naming_the_language_is_no_command() {
        // Run, `bash` alone would start an interactive shell reading the terminal (Qwen2.5-Coder 1.5B wrote it).
        let script = extract_script("```bash\nbash\n./count.sh > out.txt 2>&1\n```").unwrap();
        assert_eq!(script.text, "#!/bin/bash\n./count.sh > out.txt 2>&1\n");
        let script = extract_script("```\npython3\nprint(3)\n```").unwrap();
        assert_eq!((script.language, script.text.as_str()), (Language::Python, "#!/usr/bin/env python3\nprint(3)\n"));
        let script = extract_script("```bash\npython3\nprint(4)\n```").unwrap();
        assert_eq!((script.language, script.text.as_str()), (Language::Python, "#!/usr/bin/env python3\nprint(4)\n"));
        // Elsewhere, or followed by nothing, or with arguments, it is the script's own.
        assert_eq!(extract_script("```bash\necho a\nbash\n```").unwrap().text, "#!/bin/bash\necho a\nbash\n");
        assert_eq!(extract_script("```bash\nbash run.sh\n```").unwrap().text, "#!/bin/bash\nbash run.sh\n");
        assert_eq!(extract_script("```\nbash\n```").unwrap().text, "#!/bin/bash\nbash\n");
    }

    #[test]
    fn a_repair_that_changes_nothing_is_the_same_script() {
        assert!(same_script("#!/bin/bash\nwc -l notes.txt > lines.txt\n", "wc -l notes.txt > lines.txt"));
        assert!(same_script("if true; then\n  echo x\nfi", "#!/bin/bash\n\nif true; then\necho x\nfi\n"));
        assert!(!same_script("wc -l notes.txt > lines.txt", "wc -l < notes.txt > lines.txt"));
    }

    #[test]
    fn prose_and_other_languages_are_not_scripts() {
        assert_eq!(extract_script("I would list the files with ls."), None);
        assert_eq!(extract_script("```ruby\nputs 1\n```"), None);
        assert_eq!(extract_script("```bash\n\n```"), None);
    }
}
