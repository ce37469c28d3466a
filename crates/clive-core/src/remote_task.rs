//! Tasks for remote agents (`clive@host …`, crates/remote), and the agents clive can reach (`clive agents`).
//!
//! A task that starts with an address is routed without any model (tier 0): one `remote` subtask per address,
//! each waiting for the one before when the task says `then`. The outer makes no model call while an inner
//! thinks; a model is asked only to answer an inner's question (one short call), and nothing reads the result
//! but the user: the answer is the inner's `CONTEXT.result`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dag_sched::{Mode, Plan, Subtask, SubtaskStatus, ValidatedPlan};
use remote::Answerer;
use remote::Registry;
use remote::address::{self, AddressError};
use router::{PlanRoute, Route, Routed, Tier, TierStep};
use serde::Serialize;

use crate::config::{Provider, TaskOptions};
use crate::engine::{Engine, EngineOptions, connect_model};
use crate::error::Error;
use crate::event::Events;
use crate::exit_code;
use crate::settings::Settings;
use crate::task_run::RoutingReport;

/// The plan for a task that addresses agents, `None` when it addresses none.
pub fn plan_for(task: &str) -> Result<Option<Plan>, AddressError> {
    let Some(steps) = address::split(task)? else { return Ok(None) };
    let mut subtasks: Vec<Subtask> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let host = step.address.host();
        let slug: String =
            host.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).take(40).collect();
        let id = format!("{}-{slug}", index + 1);
        let depends_on = match (step.after_previous, subtasks.last()) {
            (true, Some(previous)) => vec![previous.id.clone()],
            _ => Vec::new(),
        };
        subtasks.push(Subtask {
            id: id.clone(),
            description: step.task.clone(),
            pane: format!("agent-{id}"),
            mode: Mode::Remote,
            command: None,
            depends_on,
            timeout: None,
            host: Some(host.to_owned()),
        });
    }
    Ok(Some(Plan { version: dag_sched::PLAN_VERSION, panes: None, subtasks }))
}

/// How a task that may address agents is routed.
#[derive(Debug, Clone)]
pub enum AgentRoute {
    /// It addresses no agent.
    NoAgents,
    /// By rule (tier 0, no model): one remote subtask per address.
    ByRule(Routed),
    /// It has work for this machine before its first address (`count the files then clive@b sum them`): the
    /// planner places the remote subtasks among local ones, told of these hosts (and no others).
    Planner {
        /// The hosts the task addresses, in order, each once.
        agents: Vec<String>,
        /// Why the rules passed it on.
        declined: String,
    },
}

/// Routes a task that addresses agents by rule when it can (tier 0: no model), else says the planner must.
pub fn route(task: &str) -> Result<AgentRoute, Error> {
    let started = Instant::now();
    match plan_for(task) {
        Ok(None) => Ok(AgentRoute::NoAgents),
        Ok(Some(plan)) => {
            let steps = vec![TierStep::new(Tier::Direct, started.elapsed())];
            Ok(AgentRoute::ByRule(Routed { route: Route::Plan(PlanRoute { plan }), tier: Tier::Direct, steps }))
        }
        Err(error @ AddressError::LocalWorkFirst { .. }) => {
            let mut agents: Vec<String> = Vec::new();
            for found in address::find(task) {
                let host = found.address?.host().to_owned();
                if !agents.contains(&host) {
                    agents.push(host);
                }
            }
            Ok(AgentRoute::Planner { agents, declined: error.to_string() })
        }
        Err(error) => Err(error.into()),
    }
}

/// Whether a plan hands work to remote agents.
pub fn is_remote(plan: &Plan) -> bool {
    plan.subtasks.iter().any(|s| s.mode == Mode::Remote)
}

/// One remote subtask in the report.
#[derive(Debug, Clone, Serialize)]
pub struct RemoteSubtaskReport {
    /// The subtask id.
    pub id: String,
    /// The agent's alias (`None`: a subtask the plan ran on this machine).
    pub host: Option<String>,
    /// How it ended.
    pub status: SubtaskStatus,
    /// The inner's result.
    pub summary: String,
    /// Why it failed.
    pub reason: Option<String>,
    /// Files copied back.
    pub files: Vec<PathBuf>,
    /// How long it took.
    pub wall_ms: u64,
}

/// What `clive --json "clive@host …"` prints.
#[derive(Debug, Clone, Serialize)]
pub struct RemoteReport {
    /// The task.
    pub task: String,
    /// The route (a plan).
    pub route: serde_json::Value,
    /// What routing cost (nothing: tier 0).
    pub routing: RoutingReport,
    /// `succeeded` or `failed`.
    pub status: &'static str,
    /// The exit code.
    pub exit_code: i32,
    /// The answer: the inner's result (the last step's, or each host's).
    pub answer: String,
    /// Model calls of the outer (answering questions).
    pub model_calls: u64,
    /// Their tokens.
    pub tokens: u64,
    /// Per subtask.
    pub subtasks: Vec<RemoteSubtaskReport>,
    /// Every file copied back.
    pub files_written: Vec<PathBuf>,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Wall time.
    pub wall_ms: u64,
}

/// What a remote task came to: the report, and the session when it was kept.
#[derive(Debug, Clone)]
pub struct RemoteOutcome {
    /// What `clive --json` prints.
    pub report: RemoteReport,
    /// The session, when it was kept (a failure, or `keep`).
    pub kept_session: Option<String>,
}

/// Runs a plan with remote subtasks: its answer is the inner agents' results.
pub async fn run(
    (settings, provider): (&Settings, &Provider),
    (task, routed, plan): (&str, &Routed, &Plan),
    options: &TaskOptions,
    budget: &Arc<llm::TokenBudget>,
    (events, cancel, answerer): (&Events, &dag_sched::CancelToken, Option<Arc<dyn Answerer>>),
) -> Result<RemoteOutcome, Error> {
    let started = Instant::now();
    let plan = ValidatedPlan::new(plan.clone()).map_err(|e| Error::PlanRun(Box::new(e)))?;
    // A model is optional: it only answers questions (and runs the plan's other model-driven subtasks).
    let setup = connect_model(provider, &options.tools.config, budget.clone())?;
    let engine_options = EngineOptions {
        cwd: crate::engine::task_directory(options.cwd.as_deref())?,
        timeout: options.timeout,
        retention: options.retention,
        gate: router::safety::GatePolicy { allow_destructive: options.allow_destructive },
        model: Some(options.model.clone()),
        label: task.to_owned(),
        tools: options.tools.clone(),
        network_from: task.to_owned(),
        answerer,
        events: events.clone(),
    };
    let engine = Engine::start(settings, &plan, &engine_options, setup).await?;
    let summary = engine.run(&plan, events, cancel).await?;
    let succeeded = summary.all_succeeded();
    let exit_code = if succeeded { exit_code::SUCCESS } else { exit_code::TASK_FAILED };
    let kept = engine.close(succeeded && !options.keep, exit_code, options.retention).await?;
    let hosts: BTreeMap<&str, Option<&str>> =
        plan.subtasks().iter().map(|s| (s.id.as_str(), s.host.as_deref())).collect();
    let subtasks: Vec<RemoteSubtaskReport> = summary
        .results
        .iter()
        .map(|r| RemoteSubtaskReport {
            id: r.id.clone(),
            host: hosts.get(r.id.as_str()).copied().flatten().map(str::to_owned),
            status: r.status,
            summary: r.summary.clone(),
            reason: r.reason.clone(),
            files: r.files.clone(),
            wall_ms: r.duration_ms.unwrap_or(0),
        })
        .collect();
    let answer = compose_answer(&plan, &subtasks);
    let (mut model_calls, mut tokens) = engine.remote_answers.as_ref().map(|c| c.get()).unwrap_or_default();
    if let Some(agent) = &engine.agent {
        let totals = agent.ledger().totals();
        model_calls += u64::from(totals.model_calls);
        tokens += totals.tokens.input + totals.tokens.output;
    }
    let report = RemoteReport {
        task: task.to_owned(),
        route: serde_json::to_value(&routed.route).unwrap_or_default(),
        routing: RoutingReport::from(routed),
        status: if succeeded { "succeeded" } else { "failed" },
        exit_code,
        answer,
        model_calls,
        tokens,
        files_written: subtasks.iter().flat_map(|s| s.files.iter().cloned()).collect(),
        subtasks,
        run_dir: summary.run_dir.clone(),
        wall_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    let kept_session = if kept { engine.session().map(str::to_owned) } else { None };
    Ok(RemoteOutcome { report, kept_session })
}

/// The answer: a chain's last result; several independent results, one per host (or subtask, for one that ran
/// here); a failure's reason.
fn compose_answer(plan: &ValidatedPlan, subtasks: &[RemoteSubtaskReport]) -> String {
    let who = |s: &RemoteSubtaskReport| match &s.host {
        Some(host) => format!("clive@{host}"),
        None => s.id.clone(),
    };
    if let Some(failed) = subtasks.iter().find(|s| s.status != SubtaskStatus::Succeeded) {
        let reason = failed.reason.clone().unwrap_or_default();
        return match &failed.host {
            Some(_) => format!("{} ({}): {reason}", who(failed), failed.id),
            None => format!("{}: {reason}", failed.id),
        };
    }
    // Subtasks nothing depends on are the ends of the chains: their results are the answer.
    let ends: Vec<&RemoteSubtaskReport> =
        subtasks.iter().filter(|s| !plan.subtasks().iter().any(|other| other.depends_on.contains(&s.id))).collect();
    match ends.as_slice() {
        [one] => one.summary.clone(),
        many => many.iter().map(|s| format!("{}: {}", who(s), s.summary)).collect::<Vec<_>>().join("\n"),
    }
}

/// One agent in `clive agents`.
#[derive(Debug, Clone, Serialize)]
pub struct AgentStatus {
    /// The agent as resolved.
    #[serde(flatten)]
    pub agent: remote::AgentHost,
    /// Whether it answered over ssh within the deadline.
    pub reachable: bool,
    /// Why not, with what to do.
    pub problem: Option<String>,
}

/// `clive agents`: every agent of the registry and the ssh config, each checked (in parallel) with
/// `ssh … true` under `deadline`.
pub async fn agents(deadline: Duration) -> Result<Vec<AgentStatus>, Error> {
    let config = toolbox::UserConfig::load()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let registry = Registry::load(&config, home.as_deref());
    // Checked in parallel: each waits on its own ssh process.
    let mut checks = tokio::task::JoinSet::new();
    for (index, agent) in registry.list().into_iter().enumerate() {
        checks.spawn(async move {
            let problem = check(&agent, deadline).await.err();
            (index, AgentStatus { reachable: problem.is_none(), problem, agent })
        });
    }
    let mut statuses = checks.join_all().await;
    statuses.sort_by_key(|(index, _)| *index);
    Ok(statuses.into_iter().map(|(_, status)| status).collect())
}

async fn check(agent: &remote::AgentHost, deadline: Duration) -> Result<(), String> {
    let mut agent = agent.clone();
    agent.connect_timeout = deadline;
    let argv = remote::SshCommand::new(&agent, std::iter::empty()).tty(false).remote(["true"]).argv();
    let Some((program, args)) = argv.split_first() else { return Err("no ssh command".into()) };
    let child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start ssh: {e}"))?;
    match tokio::time::timeout(deadline + Duration::from_secs(1), child.wait_with_output()).await {
        Ok(Ok(out)) if out.status.success() => Ok(()),
        Ok(Ok(out)) => {
            let line = remote::accept_env_line(crate::provider::provider_variables());
            Err(remote::connect_error::classify(&agent.alias, &String::from_utf8_lossy(&out.stderr), &line).to_string())
        }
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(remote::ConnectError::TimedOut { host: agent.alias.clone(), waited: deadline }.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_becomes_one_remote_subtask_per_address_with_its_dependency() {
        let plan = plan_for("clive@gpu render the video then clive@web upload it").unwrap().unwrap();
        insta::assert_json_snapshot!(plan);
        assert!(ValidatedPlan::new(plan).is_ok());
        assert_eq!(plan_for("mail bob@example.com the notes").unwrap(), None);
        assert!(plan_for("clive@ check").is_err());
    }
}
