//! `clive "<task>"` for a route that is a plan (one subtask the classifier chose, or the planner's): the runners
//! carry it out, one answer comes back, and the report says what it cost — routing included.

use std::path::PathBuf;
use std::time::Instant;

use agent::{AnswerSource, FINAL_ANSWER_ID, SubtaskStats, Tokens};
use dag_sched::{Mode, Plan, RunSummary, SubtaskStatus, ValidatedPlan};
use router::Routed;
use serde::Serialize;

use crate::config::TaskOptions;
use crate::engine::{Engine, EngineOptions, ModelSetup, task_directory};
use crate::error::Error;
use crate::event::{Event, Events};
use crate::exit_code;
use crate::settings::Settings;
use crate::task_run::RoutingReport;

/// How a model task runs and answers.
#[derive(Clone)]
pub struct ModelTaskOptions {
    /// Session, timeout, gate, directory, tools, budget and turns, as for any task.
    pub task: TaskOptions,
    /// `--bool`: the answer is YES or NO (exit 0 or 1).
    pub yes_no: bool,
    /// Where the run's events go.
    pub events: Events,
    /// Cancels the run.
    pub cancel: dag_sched::CancelToken,
    /// Who answers a remote agent's question when the model cannot.
    pub answerer: Option<std::sync::Arc<dyn remote::Answerer>>,
}

/// How a model task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Every subtask succeeded.
    Succeeded,
    /// A subtask failed (or its claim of success did not hold).
    Failed,
    /// A subtask ran out of time.
    TimedOut,
    /// Ctrl-C.
    Cancelled,
    /// The token budget ran out first.
    BudgetSpent,
}

/// Token counts, cost and times of a run or a subtask.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Model calls (failed ones included).
    pub model_calls: u32,
    /// Tokens of completed calls.
    pub tokens: Tokens,
    /// Estimated cost in USD of the calls whose model has a price.
    pub cost_usd: f64,
    /// Calls on models without a price.
    pub unpriced_calls: u32,
    /// Wall time.
    pub wall_ms: u64,
    /// Time spent waiting for the model.
    pub model_ms: u64,
    /// Time spent waiting for commands.
    pub command_ms: u64,
    /// clive's own time: wall time minus model and command time.
    pub overhead_ms: u64,
}

impl Totals {
    /// The figures of a command that ran `command_ms` without a model.
    pub fn command_only(command_ms: u64, wall_ms: u64) -> Totals {
        Totals { command_ms, wall_ms, overhead_ms: wall_ms.saturating_sub(command_ms), ..Totals::default() }
    }

    fn from_stats(stats: &SubtaskStats, wall_ms: u64) -> Totals {
        Totals {
            model_calls: stats.model_calls,
            tokens: stats.tokens,
            cost_usd: stats.cost_usd,
            unpriced_calls: stats.unpriced_calls,
            wall_ms,
            model_ms: stats.model_ms,
            command_ms: stats.command_ms,
            overhead_ms: wall_ms.saturating_sub(stats.model_ms + stats.command_ms),
        }
    }
}

/// One subtask in the report.
#[derive(Debug, Clone, Serialize)]
pub struct SubtaskReport {
    /// The subtask id.
    pub id: String,
    /// How it ran (the last mode: `interactive` after a script fell back).
    pub mode: Mode,
    /// Its pane.
    pub pane: String,
    /// What its pane could reach: `off`, `{"hosts": [...]}` or `on` (docs/tools.md).
    pub network: toolbox::Network,
    /// How it ended.
    pub status: SubtaskStatus,
    /// The exit code of its last command, when it has one.
    pub exit_code: Option<i32>,
    /// Its summary.
    pub summary: String,
    /// Why it did not succeed.
    pub reason: Option<String>,
    /// Interactive turns or script attempts.
    pub turns: u32,
    /// Calls, tokens, cost and times.
    #[serde(flatten)]
    pub totals: Totals,
    /// Commands the safety gate refused.
    pub refused_commands: u32,
    /// Replies that were not an action.
    pub unreadable_replies: u32,
    /// Whether it claimed success: the model said done (or the command or script exited 0).
    pub claimed_success: bool,
    /// Why a claim of success was not believed.
    pub false_completion: Option<String>,
    /// Whether a failing script fell back to interactive.
    pub fell_back: bool,
    /// Files it wrote.
    pub files: Vec<PathBuf>,
    /// Whether its result was checked (`true`), could not be (`false`), or is not pane work (`null`: an answer,
    /// a text, a direct command).
    pub verified: Option<bool>,
    /// What was checked, in words.
    pub checks: Vec<String>,
    /// Whether its attempts ran staged on an overlay of the working directory.
    pub staged: Option<bool>,
    /// What it changed in the working directory (`path` relative to it).
    pub changes: Vec<agent::changes::Change>,
}

/// The token budget in the report.
#[derive(Debug, Clone, Serialize)]
pub struct BudgetReport {
    /// `--max-tokens`.
    pub max_tokens: u64,
    /// Tokens spent (completed calls as reported, failed ones as estimated).
    pub spent: u64,
    /// Calls the budget refused.
    pub refused_calls: u64,
    /// Whether the budget stopped the run.
    pub exhausted: bool,
}

/// What `clive --json "<task>"` prints for a task that needed a model.
#[derive(Debug, Clone, Serialize)]
pub struct ModelReport {
    /// The task as given.
    pub task: String,
    /// The routing decision.
    pub route: serde_json::Value,
    /// What routing cost: the tier that decided, and every tier's model, calls, tokens and latency.
    pub routing: RoutingReport,
    /// The runners' model: its provider, name and profile, where the profile came from and why.
    pub model: crate::engine::ModelChoice,
    /// The plan that ran.
    pub plan: Plan,
    /// How it ended.
    pub status: TaskStatus,
    /// The process exit code.
    pub exit_code: i32,
    /// The answer printed on stdout.
    pub answer: String,
    /// Where the answer came from.
    pub answer_source: AnswerSource,
    /// `--bool`: yes (true), no (false), or no answer (null).
    pub verdict: Option<bool>,
    /// Whether clive reports the task done (status `succeeded` with its result checked, exit 0 or a `--bool`
    /// verdict): what a caller believes, and what an eval's check can prove wrong. A model's own claims that clive
    /// did not believe are in each subtask's `claimed_success` and `false_completion`.
    pub claimed_success: bool,
    /// Whether the result of every subtask that worked in a pane was checked (its files, their shape, the final
    /// look). A succeeded task that is not verified exits 6 (unchecked).
    pub verified: bool,
    /// Every change the subtasks made in the working directory, in plan order (`clive undo <session>` takes them
    /// back).
    pub changes: Vec<agent::changes::Change>,
    /// The modes that ran, in plan order, each once.
    pub modes: Vec<Mode>,
    /// Interactive turns and script attempts of all subtasks.
    pub turns: u32,
    /// The whole run's calls, tokens, cost and times: routing, the runners and the final summary.
    #[serde(flatten)]
    pub totals: Totals,
    /// Every subtask, in plan order.
    pub subtasks: Vec<SubtaskReport>,
    /// The token budget.
    pub budget: BudgetReport,
    /// Every file the subtasks wrote.
    pub files_written: Vec<PathBuf>,
    /// The tmux session (none when no subtask needed a pane).
    pub session: Option<String>,
    /// Whether the session was kept.
    pub kept: bool,
    /// Where results, scripts and transcripts were written.
    pub run_dir: PathBuf,
}

/// `plan` for a `--bool` task: a plan of one model-driven subtask is asked to end its summary with YES or NO.
pub fn yes_no_plan(plan: &ValidatedPlan) -> Result<ValidatedPlan, Error> {
    let mut plan = plan.plan().clone();
    if let [only] = plan.subtasks.as_mut_slice()
        && only.mode.needs_goal()
    {
        only.description = agent::bool_goal(&only.description);
    }
    ValidatedPlan::new(plan).map_err(|e| Error::PlanRun(Box::new(e)))
}

/// Runs `plan` for `task` with `setup`'s model and makes the report: the final answer, `--bool`'s verdict, what
/// every subtask cost, and the exit code.
pub async fn run_model_plan(
    settings: &Settings,
    task: &str,
    routed: &Routed,
    plan: &ValidatedPlan,
    setup: ModelSetup,
    options: &ModelTaskOptions,
) -> Result<ModelReport, Error> {
    let started = Instant::now();
    let budget = setup.budget.clone();
    let model = setup.choice.clone();
    let engine_options = EngineOptions {
        cwd: task_directory(options.task.cwd.as_deref())?,
        timeout: options.task.timeout,
        retention: options.task.retention,
        gate: router::safety::GatePolicy { allow_destructive: options.task.allow_destructive },
        model: Some(options.task.model.clone()),
        label: task.to_owned(),
        tools: options.task.tools.clone(),
        network_from: task.to_owned(),
        answerer: options.answerer.clone(),
        events: options.events.clone(),
    };
    let engine = Engine::start(settings, plan, &engine_options, Some(setup)).await?;
    let summary = engine.run(plan, &options.events, &options.cancel).await?;
    let Some(agent) = engine.agent.clone() else {
        // Engine::start builds the agent whenever it is given a model, as here.
        return Err(Error::Provider(llm::Error::NotConfigured));
    };
    let answer = agent.final_answer(task, &summary).await;
    let succeeded = summary.all_succeeded();
    let verdict = if options.yes_no && succeeded { agent.judge_yes_no(task, &answer.text).await } else { None };
    let status = status_of(&summary, budget.is_exhausted());
    let ledger = agent.ledger();
    // A small model's plan: what its direct, llm and answer subtasks did is its guess too (see `checked`).
    let small_plan = model.profile.profile.is_small() && routed.tier != router::Tier::Direct;
    let verified = summary.results.iter().zip(plan.subtasks()).all(|(result, subtask)| {
        let stats = ledger.get(&result.id).unwrap_or_default();
        checked(stats.mode.unwrap_or(subtask.mode), &stats, small_plan, true) != Some(false)
    });
    let exit_code = exit_code_of(status, options.yes_no, verdict, verified);
    let kept = engine.close(succeeded && !options.task.keep, exit_code, options.task.retention).await?;
    engine.report_refused_requests(&options.events);
    let subtasks: Vec<SubtaskReport> = summary
        .results
        .iter()
        .zip(plan.subtasks())
        .map(|(result, subtask)| {
            let mut stats = ledger.get(&result.id).unwrap_or_default();
            if subtask.mode == Mode::Direct {
                // The shell runner keeps no ledger: its whole run is the command.
                stats.command_ms = result.duration_ms.unwrap_or(0);
            }
            let claimed = match subtask.mode {
                Mode::Direct => result.status == SubtaskStatus::Succeeded,
                Mode::Script if stats.mode == Some(Mode::Script) => result.status == SubtaskStatus::Succeeded,
                _ => stats.claimed_success,
            };
            SubtaskReport {
                id: result.id.clone(),
                mode: stats.mode.unwrap_or(subtask.mode),
                pane: result.pane.clone(),
                network: engine.networks.get(&result.pane).cloned().unwrap_or_default(),
                status: result.status,
                exit_code: result.exit_code,
                summary: result.summary.clone(),
                reason: result.reason.clone(),
                turns: stats.turns,
                totals: Totals::from_stats(&stats, result.duration_ms.unwrap_or(0)),
                refused_commands: stats.refused_commands,
                unreadable_replies: stats.unreadable_replies,
                claimed_success: claimed,
                false_completion: stats.false_completion.clone(),
                fell_back: stats.fell_back,
                files: result.files.clone(),
                verified: checked(
                    stats.mode.unwrap_or(subtask.mode),
                    &stats,
                    small_plan,
                    result.status == SubtaskStatus::Succeeded,
                ),
                checks: stats.checks.clone(),
                staged: stats.staged,
                changes: stats.changes.clone(),
            }
        })
        .collect();
    for subtask in subtasks.iter().filter(|s| !s.changes.is_empty()) {
        options.events.emit(Event::Changes { subtask: subtask.id.clone(), changes: subtask.changes.clone() });
    }
    let routing_ms = crate::task_run::routing_ms(routed);
    let wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX) + routing_ms;
    let mut totals = ledger.totals();
    totals.model_calls += routed.model_calls();
    totals.tokens += Tokens::from(routed.usage());
    totals.model_ms += routing_ms;
    totals.command_ms += direct_command_ms(&summary, plan.plan());
    let state = budget.state();
    let files_written = subtasks.iter().flat_map(|s| s.files.iter().cloned()).collect();
    let mut modes: Vec<Mode> = Vec::new();
    for subtask in &subtasks {
        if !modes.contains(&subtask.mode) {
            modes.push(subtask.mode);
        }
    }
    let report = ModelReport {
        task: task.to_owned(),
        route: serde_json::to_value(&routed.route).unwrap_or_default(),
        routing: RoutingReport::from(routed),
        model,
        plan: plan.plan().clone(),
        status,
        exit_code,
        answer: answer.text,
        answer_source: answer.source,
        verdict,
        claimed_success: status == TaskStatus::Succeeded && (verified || options.yes_no),
        verified,
        changes: subtasks.iter().flat_map(|s| s.changes.iter().cloned()).collect(),
        modes,
        turns: subtasks.iter().map(|s| s.turns).sum(),
        totals: Totals::from_stats(&totals, wall_ms),
        subtasks,
        budget: BudgetReport {
            max_tokens: budget.limit(),
            spent: state.spent,
            refused_calls: state.refused_calls,
            exhausted: budget.is_exhausted(),
        },
        files_written,
        session: engine.session().map(str::to_owned),
        kept,
        run_dir: summary.run_dir.clone(),
    };
    debug_assert!(ledger.get(FINAL_ANSWER_ID).is_none_or(|s| s.model_calls <= 2));
    Ok(report)
}

fn status_of(summary: &RunSummary, budget_spent: bool) -> TaskStatus {
    let any = |status| summary.results.iter().any(|r| r.status == status);
    if summary.cancelled || any(SubtaskStatus::Cancelled) {
        TaskStatus::Cancelled
    } else if summary.all_succeeded() {
        TaskStatus::Succeeded
    } else if budget_spent {
        TaskStatus::BudgetSpent
    } else if any(SubtaskStatus::TimedOut) {
        TaskStatus::TimedOut
    } else {
        TaskStatus::Failed
    }
}

/// Whether a subtask's result was checked: `None` where no check is asked for (it did not succeed, or its mode's
/// result is trusted as it is), else whether one passed. Pane work must be checked: a script or interactive
/// subtask's result. In a plan a `small` model wrote (`small_plan`), so must the rest: its direct commands, its
/// text (`llm`) and its answers are its guesses, which nothing on this machine checked (the 1.5B's held-out false
/// completions were a planned direct command's result and an llm subtask's text).
fn checked(mode: Mode, stats: &SubtaskStats, small_plan: bool, succeeded: bool) -> Option<bool> {
    match mode {
        _ if !succeeded => None,
        Mode::Script | Mode::Interactive => Some(stats.verified == Some(true)),
        Mode::Direct | Mode::Llm | Mode::Answer if small_plan => Some(false),
        _ => None,
    }
}

/// The exit code of a model task (see [`crate::exit_code`]).
pub fn exit_code_of(status: TaskStatus, yes_no: bool, verdict: Option<bool>, verified: bool) -> i32 {
    match (status, yes_no, verdict) {
        (TaskStatus::Succeeded, false, _) if verified => exit_code::SUCCESS,
        (TaskStatus::Succeeded, false, _) => exit_code::UNCHECKED,
        (TaskStatus::Succeeded, true, Some(true)) => exit_code::SUCCESS,
        (TaskStatus::Succeeded, true, Some(false)) => exit_code::TASK_FAILED,
        (TaskStatus::Succeeded | TaskStatus::Failed, true, _) => exit_code::NO_ANSWER,
        (TaskStatus::Failed, false, _) => exit_code::TASK_FAILED,
        (TaskStatus::BudgetSpent, _, _) => exit_code::BUDGET_SPENT,
        (TaskStatus::TimedOut, _, _) => exit_code::TIMED_OUT,
        (TaskStatus::Cancelled, _, _) => exit_code::INTERRUPTED,
    }
}

/// How long direct subtasks (which keep no ledger) ran their commands: the union of their intervals, so that
/// direct subtasks running in parallel on two panes count once.
fn direct_command_ms(summary: &RunSummary, plan: &Plan) -> u64 {
    let mut spans: Vec<(u64, u64)> = summary
        .results
        .iter()
        .zip(plan.subtasks.iter())
        .filter(|(_, subtask)| subtask.mode == Mode::Direct)
        .filter_map(|(result, _)| Some((result.started_ms?, result.started_ms? + result.duration_ms?)))
        .collect();
    spans.sort_unstable();
    let (mut total, mut reached) = (0, 0);
    for (start, end) in spans {
        let start = start.max(reached);
        if end > start {
            total += end - start;
            reached = end;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_keep_yes_and_no_apart_from_failures() {
        assert_eq!(exit_code_of(TaskStatus::Succeeded, false, None, true), 0);
        assert_eq!(exit_code_of(TaskStatus::Failed, false, None, true), 1);
        assert_eq!(exit_code_of(TaskStatus::Succeeded, true, Some(true), true), 0);
        assert_eq!(exit_code_of(TaskStatus::Succeeded, true, Some(false), true), 1);
        assert_eq!(exit_code_of(TaskStatus::Succeeded, true, None, true), 3);
        assert_eq!(exit_code_of(TaskStatus::Failed, true, None, true), 3);
        assert_eq!(exit_code_of(TaskStatus::BudgetSpent, true, None, true), 4);
        assert_eq!(exit_code_of(TaskStatus::TimedOut, false, None, true), 124);
        assert_eq!(exit_code_of(TaskStatus::Cancelled, true, None, true), 130);
        // Done, but nothing could check the result: not a plain success.
        assert_eq!(exit_code_of(TaskStatus::Succeeded, false, None, false), 6);
    }

    #[test]
    fn a_yes_no_task_of_one_subtask_asks_for_yes_or_no() {
        let one = ValidatedPlan::from_json(
            r#"{"subtasks":[{"id":"task","pane":"shell","mode":"interactive","description":"is a.txt empty"}]}"#,
        )
        .unwrap();
        let asked = yes_no_plan(&one).unwrap();
        assert!(asked.subtasks()[0].description.starts_with("is a.txt empty\n"));
        assert!(asked.subtasks()[0].description.contains("YES or NO"));
        let direct = ValidatedPlan::from_json(r#"{"subtasks":[{"id":"a","pane":"p","command":"true"}]}"#).unwrap();
        assert_eq!(yes_no_plan(&direct).unwrap().plan(), direct.plan());
    }

    #[test]
    fn direct_subtasks_count_their_run_as_command_time_and_parallel_ones_once() {
        let plan = ValidatedPlan::from_json(
            r#"{"subtasks":[{"id":"a","pane":"p1","command":"./job a"},{"id":"b","pane":"p2","command":"./job b"},
            {"id":"c","pane":"p1","command":"true","depends_on":["a"]},
            {"id":"d","pane":"p1","mode":"script","description":"sum it","depends_on":["c"]}]}"#,
        )
        .unwrap();
        let result = |id: &str, started: u64, duration: u64| dag_sched::SubtaskResult {
            started_ms: Some(started),
            duration_ms: Some(duration),
            ..serde_json::from_value(serde_json::json!({
                "id": id, "description": "", "pane": "p1", "status": "succeeded", "exit_code": 0, "summary": "",
                "reason": null, "started_ms": null, "duration_ms": null, "output_file": null, "files": []
            }))
            .unwrap()
        };
        let summary = RunSummary {
            run_dir: PathBuf::new(),
            // a and b overlap (0..4000 and 100..4100), c follows (4200..4250), d is not direct.
            results: vec![result("a", 0, 4000), result("b", 100, 4000), result("c", 4200, 50), result("d", 4300, 900)],
            cancelled: false,
            duration_ms: 5200,
        };
        assert_eq!(direct_command_ms(&summary, plan.plan()), 4100 + 50);
    }
}
