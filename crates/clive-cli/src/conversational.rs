//! `clive --conversational`: the inner side of `clive@host` (docs/remote.md).
//!
//! Over ssh the outer runs `clive --conversational --attach <id>` ([`attach`]): it checks that the turn nonce
//! arrived (else it names the `AcceptEnv` line the host's sshd needs), starts the conversation in a detached
//! tmux session of its own (first use) and attaches the ssh terminal to it. A dropped connection only detaches
//! that client: the conversation goes on, and the same command reattaches. The provider keys reach the tmux
//! server through its environment, never a command line or a file.
//!
//! Inside, `clive --conversational` ([`serve`]) speaks turn-protocol with the nonce: `TURN: waiting` for the
//! task (one line read from the terminal), `TURN: thinking` and `PROGRESS:` while it routes and runs it with
//! its own habitat, `QUESTION:` + `TURN: waiting` when the task is too vague (the answer is read from the
//! terminal), then `CONTEXT: {result, files}` and `TURN: done|failed`. It stays until the outer has read the
//! result (end of input) or the retention period passes.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use router::Route;
use std::sync::Mutex;
use std::time::Duration;

use turn_protocol::{Context, Emitter, LineFormat, Message, NONCE_ENV_VAR, Nonce, TurnState};

use clive_core::model_task::{self, ModelTaskOptions};
use clive_core::{CancelToken, Config, Error, Settings, Task};

use crate::error::CliError;
use crate::exit_code;

/// The tmux session (on a socket of its own per conversation) the inner runs in.
const SESSION: &str = "conversation";

/// How many questions the inner asks about one task before it gives up.
const MAX_QUESTIONS: usize = 3;

/// The remote side of a connection: make sure conversation `id` runs, then attach this terminal to it.
/// Returns only on failure (on success the process becomes the tmux client).
/// `inner_args` are the options the inner clive gets (`--tools`, `-C`, `--no-sandbox`, …: those given here).
pub fn attach(settings: &Settings, id: &str, inner_args: &[String]) -> Result<i32, CliError> {
    if !matches!(Nonce::from_env(), Ok(Some(_))) {
        let variables = clive_core::provider::provider_variables();
        eprintln!(
            "{} ({NONCE_ENV_VAR} is not set): add this line to /etc/ssh/sshd_config and reload sshd:\n    {}",
            remote::connect_error::NONCE_MISSING_MARKER,
            remote::accept_env_line(variables)
        );
        return Ok(exit_code::USAGE);
    }
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(CliError::Core(Error::Invalid {
            what: "--attach",
            value: id.to_owned(),
            reason: "hex digits (1 to 32)".into(),
        }));
    }
    let dir = settings.state_dir.join("conversations");
    create_private_dir(&dir)?;
    let socket = dir.join(format!("{id}.sock"));
    let started = dir.join(format!("{id}.started"));
    let tmux = settings.tmux.clone().unwrap_or_else(|| PathBuf::from("tmux"));
    let tmux_command = |args: &[&str]| {
        let mut command = std::process::Command::new(&tmux);
        // -u: UTF-8 whatever the locale (ssh sessions often have none), or protocol lines lose characters.
        command
            .arg("-u")
            .arg("-S")
            .arg(&socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .env_remove("TMUX")
            .env_remove("TMUX_PANE");
        command
    };
    let exists = tmux_command(&["has-session", "-t", SESSION])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !exists {
        if started.exists() {
            eprintln!("{}: {id} has ended", remote::connect_error::NO_CONVERSATION_MARKER);
            return Ok(exit_code::NOT_FOUND);
        }
        let exe = std::env::current_exe().map_err(|e| CliError::io("finding clive's own program", "clive", e))?;
        let exe = exe.display().to_string();
        let width = remote::PANE_WIDTH.to_string();
        let height = remote::PANE_HEIGHT.to_string();
        let mut args =
            vec!["new-session", "-d", "-s", SESSION, "-x", &width, "-y", &height, "--", &exe, "--conversational"];
        args.extend(inner_args.iter().map(String::as_str));
        // The new server inherits this process's environment (the nonce and the keys ssh brought): no `-e`, so
        // no value is on a command line.
        let status = tmux_command(&args).status().map_err(|e| CliError::io("starting tmux", &tmux, e))?;
        if !status.success() {
            eprintln!("clive: tmux could not start the conversation (exit {status})");
            return Ok(exit_code::INTERNAL);
        }
        std::fs::write(&started, b"").map_err(|e| CliError::io("marking the conversation", &started, e))?;
        for option in [["status", "off"], ["history-limit", "10000"]] {
            let _ = tmux_command(&["set-option", "-t", SESSION, option[0], option[1]]).status();
        }
    }
    use std::os::unix::process::CommandExt as _;
    let error = tmux_command(&["attach-session", "-t", SESSION]).exec();
    Err(CliError::io("attaching to the conversation", &tmux, error))
}

fn create_private_dir(dir: &Path) -> Result<(), CliError> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| CliError::io("creating", dir, e))
}

/// The inner agent: one task read from this terminal, run, reported in turn-protocol lines.
pub async fn serve(config: &Config) -> Result<i32, CliError> {
    let format = match Nonce::from_env() {
        Ok(Some(nonce)) => LineFormat::Tagged(nonce),
        // Run by hand, without a nonce: numbered lines, readable and deduplicated.
        _ => LineFormat::Numbered,
    };
    let out = Mutex::new(Emitter::with_format(std::io::stdout(), format));
    let say = |message: Message| say(&out, &message);
    say(Message::Turn(TurnState::Waiting));
    let Some(mut task) = read_line().await else { return Ok(exit_code::SUCCESS) };
    say(Message::Turn(TurnState::Thinking));
    let mut questions = 0;
    let outcome = loop {
        say(Message::Progress("routing the task".into()));
        match with_heartbeat(&out, run_once(config, &task, &out)).await {
            Ok(Outcome::Question(question)) if questions < MAX_QUESTIONS => {
                questions += 1;
                say(Message::Question(question.clone()));
                say(Message::Turn(TurnState::Waiting));
                let Some(answer) = read_line().await else { return Ok(exit_code::SUCCESS) };
                say(Message::Turn(TurnState::Thinking));
                task = format!("{task} (asked \"{question}\", the answer was: {answer})");
            }
            Ok(Outcome::Question(question)) => {
                break Err(format!("still unclear after {questions} answers: {question}"));
            }
            Ok(Outcome::Finished { result, files, succeeded: true }) => break Ok((result, files)),
            Ok(Outcome::Finished { result, .. }) => break Err(result),
            Err(error) => break Err(error.to_string()),
        }
    };
    let code = match outcome {
        Ok((result, files)) => {
            let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            say(Message::Context(Context::with_result(result).files(files)));
            say(Message::Turn(TurnState::Done));
            exit_code::SUCCESS
        }
        Err(why) => {
            say(Message::Context(Context::with_result(why)));
            say(Message::Turn(TurnState::Failed));
            exit_code::TASK_FAILED
        }
    };
    // Stay until the outer has read the result (it ends the input), so a dropped connection loses nothing.
    let _ = tokio::time::timeout(config.options.retention, read_line()).await;
    Ok(code)
}

enum Outcome {
    Question(String),
    Finished { result: String, files: Vec<PathBuf>, succeeded: bool },
}

/// How often a working inner says it is alive (the outer counts an inner silent for 5 minutes as stalled).
const HEARTBEAT: Duration = Duration::from_secs(60);

type Out = Mutex<Emitter<std::io::Stdout>>;

/// Writes one message; the emitter writes and flushes it whole. A terminal that went away is logged, not fatal.
fn say(out: &Out, message: &Message) {
    let mut emitter = out.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Err(error) = emitter.emit(message) {
        tracing::warn!(%error, "writing a turn line");
    }
}

/// Runs `work`, saying `PROGRESS: still working (Ns)` every [`HEARTBEAT`] meanwhile.
async fn with_heartbeat<T>(out: &Out, work: impl std::future::Future<Output = T>) -> T {
    let started = tokio::time::Instant::now();
    let mut beat = tokio::time::interval_at(started + HEARTBEAT, HEARTBEAT);
    tokio::pin!(work);
    loop {
        tokio::select! {
            done = &mut work => return done,
            _ = beat.tick() => {
                say(out, &Message::Progress(format!("still working ({}s)", started.elapsed().as_secs())));
            }
        }
    }
}

async fn run_once(config: &Config, task: &str, out: &Out) -> Result<Outcome, CliError> {
    let (settings, options) = (&config.settings, &config.options);
    let budget = llm::TokenBudget::new(options.model.max_tokens);
    let (sender, events) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancelToken::new();
    let request = Task::new(task).events(sender).cancel(cancel.clone());
    let work = async {
        let routed = clive_core::route(config, &request, &budget).await?;
        match &routed.route {
            Route::Clarify(clarification) => Ok(Outcome::Question(clarification.question.clone())),
            Route::Answer(answer) => {
                Ok(Outcome::Finished { result: answer.text.clone(), files: Vec::new(), succeeded: true })
            }
            Route::Direct(direct) => {
                say(out, &Message::Progress(format!("running `{}`", direct.command)));
                let report = clive_core::task_run::run_command(
                    settings,
                    task,
                    &routed,
                    &direct.command,
                    options,
                    &clive_core::Events::default(),
                    &cancel,
                )
                .await?;
                let succeeded = report.exit_code == 0;
                Ok(Outcome::Finished { result: report.output, files: Vec::new(), succeeded })
            }
            Route::Plan(planned) => {
                let modes: Vec<&str> = planned.plan.subtasks.iter().map(|s| s.mode.as_str()).collect();
                say(out, &Message::Progress(format!("running {} subtask(s): {}", modes.len(), modes.join(", "))));
                let Some(setup) =
                    clive_core::engine::connect_model(&config.provider, &config.options.tools.config, budget.clone())?
                else {
                    return Err(Error::NoProvider { reason: "the plan has model-driven subtasks".into() });
                };
                let plan =
                    dag_sched::ValidatedPlan::new(planned.plan.clone()).map_err(|e| Error::PlanRun(Box::new(e)))?;
                let model_options = ModelTaskOptions {
                    task: options.clone(),
                    yes_no: false,
                    events: clive_core::Events::default(),
                    cancel: cancel.clone(),
                    answerer: None,
                };
                let report = model_task::run_model_plan(settings, task, &routed, &plan, setup, &model_options).await?;
                let succeeded = report.status == model_task::TaskStatus::Succeeded;
                Ok(Outcome::Finished { result: report.answer, files: report.files_written, succeeded })
            }
            other => Err(Error::NeedsRunners { modes: other.kind().to_owned() }),
        }
    };
    // Nothing shows on this terminal but turn-protocol lines; Ctrl-C (the outer cancelling) cancels the run.
    Ok(crate::progress::drive(work, events, &cancel, |_| true).await?)
}

/// One line from the terminal, without its end; `None` at the end of input.
async fn read_line() -> Option<String> {
    tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
        }
    })
    .await
    .ok()
    .flatten()
}
