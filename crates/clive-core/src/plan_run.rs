//! Plan files (`clive plan run|check`): loading and validating one, and running it through crates/dag-sched.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dag_sched::{Mode, RunSummary, SubtaskStatus, ValidatedPlan};
use serde::Serialize;

use crate::config::{ModelOptions, Provider};
use crate::engine::{Engine, EngineOptions, connect_model, task_directory};
use crate::error::Error;
use crate::event::Events;
use crate::settings::Settings;
use crate::tools::ToolsChoice;

/// How much of each subtask's output `--json` carries (its end).
const EXCERPT_CHARS: usize = 2000;

/// Reads and validates a plan file.
pub fn load_plan(path: &Path) -> Result<ValidatedPlan, Error> {
    let text =
        std::fs::read_to_string(path).map_err(|source| Error::UnreadablePlan { path: path.to_owned(), source })?;
    ValidatedPlan::from_json(&text)
        .map_err(|source| Error::InvalidPlan { path: path.to_owned(), source: Box::new(source) })
}

/// One subtask in `clive plan run --json`.
#[derive(Debug, Clone, Serialize)]
pub struct SubtaskReport {
    /// The subtask id.
    pub id: String,
    /// succeeded, failed, timed_out, skipped or cancelled.
    pub status: SubtaskStatus,
    /// Its exit code, when it ran to the end.
    pub exit_code: Option<i32>,
    /// How long it ran.
    pub duration_ms: Option<u64>,
    /// Why it did not succeed, when it did not.
    pub reason: Option<String>,
    /// The end of its output.
    pub output_excerpt: String,
    /// How it ran (the last mode: `interactive` after a script fell back).
    pub mode: Mode,
    /// Interactive turns or script attempts (0 for `direct`).
    pub turns: u32,
    /// Model calls.
    pub model_calls: u32,
    /// Model tokens.
    pub tokens: agent::Tokens,
}

/// `clive plan run --json`.
#[derive(Debug, Clone, Serialize)]
pub struct PlanReport {
    /// The plan file.
    pub plan: PathBuf,
    /// The tmux session its panes live in (none when no subtask needed a pane).
    pub session: Option<String>,
    /// Where results and outputs were written.
    pub run_dir: PathBuf,
    /// Whether every subtask succeeded.
    pub succeeded: bool,
    /// Whether the run was cancelled (Ctrl-C).
    pub cancelled: bool,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// Every subtask, in plan order.
    pub subtasks: Vec<SubtaskReport>,
}

/// How `clive plan run` runs a plan.
#[derive(Debug, Clone)]
pub struct PlanRunOptions {
    /// How long a kept session stays.
    pub retention: Duration,
    /// Let the safety gate pass destructive commands.
    pub allow_destructive: bool,
    /// The directory panes start in (default: the current one).
    pub cwd: Option<PathBuf>,
    /// The time limit of subtasks without their own.
    pub timeout: Duration,
    /// Budget and turns of model-driven subtasks.
    pub model: ModelOptions,
    /// The toolset and the sandbox of panes a model types into.
    pub tools: ToolsChoice,
}

/// Runs a plan file in a fresh session `clive-<id>` (one window per plan pane, in the task directory), sending
/// its events to `events`. Subtasks of every mode run: `direct` ones with the shell runner, the others with
/// `provider`'s model (a plan that needs one without a provider is refused before anything runs). Cancelling
/// `cancel` cancels the run. The session is removed after a full success and kept for `retention` otherwise. A
/// destructive command anywhere in the plan refuses the whole run, unless `allow_destructive`.
pub async fn run_plan(
    (settings, provider): (&Settings, &Provider),
    path: &Path,
    options: &PlanRunOptions,
    events: &Events,
    cancel: &dag_sched::CancelToken,
) -> Result<(RunSummary, PlanReport), Error> {
    let plan = load_plan(path)?;
    let gate = router::safety::GatePolicy { allow_destructive: options.allow_destructive };
    // Every command passes the same safety gate as a task, before anything is started.
    for subtask in plan.subtasks() {
        if let Some(command) = &subtask.command {
            router::safety::check(command, gate)?;
        }
    }
    // A remote subtask's model is the remote clive's: the outer's is optional (it answers questions).
    let model_modes: Vec<String> = plan
        .subtasks()
        .iter()
        .filter(|s| s.mode.needs_goal() && s.mode != Mode::Remote)
        .map(|s| format!("`{}` ({})", s.id, s.mode))
        .collect();
    let remote = plan.subtasks().iter().any(|s| s.mode == Mode::Remote);
    let model = if model_modes.is_empty() {
        if remote {
            connect_model(provider, &options.tools.config, llm::TokenBudget::new(options.model.max_tokens))?
        } else {
            None
        }
    } else {
        let setup = connect_model(provider, &options.tools.config, llm::TokenBudget::new(options.model.max_tokens))?;
        if setup.is_none() {
            return Err(Error::NoProvider { reason: format!("the plan's {} need one", model_modes.join(", ")) });
        }
        setup
    };
    let engine_options = EngineOptions {
        cwd: task_directory(options.cwd.as_deref())?,
        timeout: options.timeout,
        retention: options.retention,
        gate,
        model: Some(options.model.clone()),
        label: format!("plan run {}", path.display()),
        tools: options.tools.clone(),
        // The user wrote the plan file: the hosts it names are theirs.
        network_from: plan.plan().to_json_pretty(),
        answerer: None,
        events: events.clone(),
    };
    let engine = Engine::start(settings, &plan, &engine_options, model).await?;
    let summary = engine.run(&plan, events, cancel).await?;
    let succeeded = summary.all_succeeded();
    engine.close(succeeded, i32::from(!succeeded), options.retention).await?;
    let ledger = engine.agent.as_ref().map(|a| a.ledger().clone());
    let report = PlanReport {
        plan: path.to_owned(),
        session: engine.session().map(str::to_owned),
        run_dir: summary.run_dir.clone(),
        succeeded,
        cancelled: summary.cancelled,
        duration_ms: summary.duration_ms,
        subtasks: summary
            .results
            .iter()
            .zip(plan.subtasks())
            .map(|(r, subtask)| {
                let stats = ledger.as_ref().and_then(|l| l.get(&r.id)).unwrap_or_default();
                SubtaskReport {
                    id: r.id.clone(),
                    mode: stats.mode.unwrap_or(subtask.mode),
                    status: r.status,
                    exit_code: r.exit_code,
                    duration_ms: r.duration_ms,
                    reason: r.reason.clone(),
                    output_excerpt: r.output_file.as_deref().map(excerpt).unwrap_or_else(|| r.summary.clone()),
                    turns: stats.turns,
                    model_calls: stats.model_calls,
                    tokens: stats.tokens,
                }
            })
            .collect(),
    };
    Ok((summary, report))
}

/// The last [`EXCERPT_CHARS`] characters of a file (empty when it cannot be read).
fn excerpt(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let skip = text.chars().count().saturating_sub(EXCERPT_CHARS);
    text.chars().skip(skip).collect()
}
