//! Running a task the way `clive "<task>"` does: route it — tier 0 for a shell command, else the model tiers —
//! then carry the route out: one command in a fresh session, an answer, a question back, a plan for the runners,
//! or a plan for remote agents. Routing and the runners draw from one token budget.
//!
//! [`route`] decides, [`run`] decides and carries out. Both send [`Event`]s and stop when the caller's
//! [`CancelToken`] is cancelled.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use dag_sched::{CancelToken, Mode, ValidatedPlan};
use llm::TokenBudget;
use router::safety::GatePolicy;
use router::{PaneInfo, Route, RouteContext, Routed, Router, RouterError, Tier, TierStep, WorkDir};

use crate::config::{Config, Provider, TaskOptions};
use crate::engine::connect_model;
use crate::error::Error;
use crate::event::{Event, Events};
use crate::model_task::{self, ModelReport, ModelTaskOptions};
use crate::remote_task::{self, RemoteOutcome};
use crate::task_run::{self, TaskReport};

/// One task to run, with where its events go and the token that cancels it.
#[derive(Clone)]
pub struct Task {
    text: String,
    unrouted: bool,
    yes_no: bool,
    events: Events,
    cancel: CancelToken,
    answerer: Option<Arc<dyn remote::Answerer>>,
}

impl Task {
    /// The task: a shell command, or words for the model tiers.
    pub fn new(text: impl Into<String>) -> Task {
        Task {
            text: text.into(),
            unrouted: false,
            yes_no: false,
            events: Events::default(),
            cancel: CancelToken::new(),
            answerer: None,
        }
    }

    /// Runs the task as a shell command with no routing at all (`clive run -- <command>`): no tier-0 rules, no
    /// model; the safety gate still judges it.
    pub fn unrouted(mut self) -> Task {
        self.unrouted = true;
        self
    }

    /// The task is a yes/no question (`--bool`): the outcome carries a verdict.
    pub fn yes_no(mut self, yes_no: bool) -> Task {
        self.yes_no = yes_no;
        self
    }

    /// Sends the run's events to `sender`.
    pub fn events(mut self, sender: tokio::sync::mpsc::UnboundedSender<Event>) -> Task {
        self.events = Events::to(sender);
        self
    }

    /// Cancelling `cancel` stops the run: routing ends with [`Error::Cancelled`], a running command gets C-c
    /// ([`Error::Interrupted`]), a plan's busy panes get C-c and its outcome says cancelled.
    pub fn cancel(mut self, cancel: CancelToken) -> Task {
        self.cancel = cancel;
        self
    }

    /// Who answers a remote agent's question when the model cannot (`clive` asks on its terminal).
    pub fn answerer(mut self, answerer: Arc<dyn remote::Answerer>) -> Task {
        self.answerer = Some(answerer);
        self
    }

    /// The task's text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// What a task came to.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TaskOutcome {
    /// One shell command ran (the user's, or the one a model chose and clive ran as it is).
    Command(Box<TaskReport>),
    /// The model tiers answered without running anything.
    Answer {
        /// How the task was routed.
        routed: Routed,
        /// The answer.
        text: String,
        /// For a yes/no task: yes, no, or neither.
        verdict: Option<bool>,
        /// Whether the answer counts as checked: clive computed it (tier 0), or a model that is not `small`
        /// answered. A `small` model's answer from its own knowledge is no evidence (its wrong answers read as
        /// fluently as its right ones), and nothing on this machine checked it: the task is unchecked (exit 6).
        verified: bool,
    },
    /// The task is too vague: one question for the user; nothing ran.
    Question {
        /// How the task was routed.
        routed: Routed,
        /// The question.
        question: String,
    },
    /// The model-driven runners carried out a plan.
    Plan(Box<ModelReport>),
    /// Remote agents carried out a plan.
    Remote(Box<RemoteOutcome>),
}

/// Routes `task.text()` and carries the route out.
pub async fn run(config: &Config, task: Task) -> Result<TaskOutcome, Error> {
    let budget = TokenBudget::new(config.options.model.max_tokens);
    let routed = if task.unrouted {
        let routed = unrouted(&task.text, &config.options)?;
        task.events.emit(Event::routed(&routed));
        routed
    } else {
        route(config, &task, &budget).await?
    };
    execute(config, &task, &routed, &budget).await
}

/// Routes `task` without carrying it out: tier 0 without any model; otherwise the router of `config`'s
/// provider with the working directory as context. Every command in the route has passed the safety gate.
/// Cancelling the task's token ends routing with [`Error::Cancelled`].
pub async fn route(config: &Config, task: &Task, budget: &Arc<TokenBudget>) -> Result<Routed, Error> {
    let routed = tokio::select! {
        routed = route_task(&task.text, &config.provider, &config.options, budget) => routed?,
        () = task.cancel.cancelled() => return Err(Error::Cancelled),
    };
    log_routing(&routed);
    task.events.emit(Event::routed(&routed));
    Ok(routed)
}

/// `clive run -- <command>`'s route: the command as it is (tier 0, no rules), judged by the safety gate.
pub fn unrouted(command: &str, options: &TaskOptions) -> Result<Routed, Error> {
    let started = Instant::now();
    let direct = router::DirectRoute::describe(command);
    if direct.command.is_empty() {
        return Err(Error::Route(RouterError::EmptyTask));
    }
    router::safety::check(&direct.command, GatePolicy { allow_destructive: options.allow_destructive })?;
    let steps = vec![TierStep::new(Tier::Direct, started.elapsed())];
    let routed = Routed { route: Route::Direct(direct), tier: Tier::Direct, steps };
    log_routing(&routed);
    Ok(routed)
}

async fn route_task(
    task: &str,
    provider: &Provider,
    options: &TaskOptions,
    budget: &Arc<TokenBudget>,
) -> Result<Routed, Error> {
    // A task for agents (`clive@host …`) is routed by rules: one remote subtask per address, no model. One with
    // work for this machine first goes to the planner, which places the remote subtasks among the local ones.
    let started = Instant::now();
    let (agents, declined) = match remote_task::route(task)? {
        remote_task::AgentRoute::ByRule(routed) => return Ok(routed),
        remote_task::AgentRoute::Planner { agents, declined } => (agents, declined),
        remote_task::AgentRoute::NoAgents => (Vec::new(), String::new()),
    };
    let cwd = working_directory(options)?;
    if !agents.is_empty() {
        let reason = format!("tier 0 declined: {declined}");
        let router = router_for(provider, options.allow_destructive, &reason, budget)?;
        let installed = options.tools.installed().await;
        let context = agents.iter().fold(context_for(&cwd, &installed), |context, host| context.agent(host.clone()));
        let mut tier0 = TierStep::new(Tier::Direct, started.elapsed());
        tier0.declined = Some(declined);
        let (plan, step) = router.plan(task, &context).await.map_err(|error| route_error(error, budget))?;
        let steps = vec![tier0, step];
        return Ok(Routed { route: Route::Plan(router::PlanRoute { plan }), tier: Tier::Planner, steps });
    }
    let declined = match router::route_with(task, &router::Installed::in_dir(&cwd)) {
        Route::NeedsModel(escalation) => escalation.declined,
        route => {
            if let Some(direct) = route.as_direct() {
                router::safety::check(&direct.command, GatePolicy { allow_destructive: options.allow_destructive })?;
            }
            let steps = vec![TierStep::new(Tier::Direct, started.elapsed())];
            return Ok(Routed { route, tier: Tier::Direct, steps });
        }
    };
    if task.trim().is_empty() {
        return Err(Error::Route(RouterError::EmptyTask));
    }
    let router = router_for(provider, options.allow_destructive, &format!("tier 0 declined: {declined}"), budget)?;
    let installed = options.tools.installed().await;
    // A small model's planner splits one step into several it cannot join up again: see
    // `RouterOptions::unplanned_single_steps`. Its classifier says `drive` for file work it then cannot do step by
    // step: `RouterOptions::drives_need_a_program`. Its classifier's verdict on file work named by its files comes to
    // one script subtask anyway, at ~500 tokens: `RouterOptions::file_work_scripted`.
    let small = small_model(provider, options, budget)?;
    let router = router.unplanned_single_steps(small).drives_need_a_program(small).file_work_scripted(small);
    let mut routed =
        router.route(task, &context_for(&cwd, &installed)).await.map_err(|error| route_error(error, budget))?;
    if small && let Route::Plan(planned) = &mut routed.route {
        edits_are_scripts(&mut planned.plan, &cwd);
    }
    Ok(routed)
}

/// Each `llm` subtask of `plan` whose description changes a file that exists in `cwd` (`switch LOG_LEVEL to debug in
/// .env`, `fix app.ini so the checker passes`) becomes a script subtask. A text reply can only write a file whole,
/// which such a goal never asks for, so the runner refuses it and nothing is done; a small model's classifier says
/// `write` for these edits (Qwen2.5-Coder-1.5B, for an edit of one line of a config, and for a fix of a YAML file a
/// linter rejects).
fn edits_are_scripts(plan: &mut dag_sched::Plan, cwd: &Path) {
    for subtask in &mut plan.subtasks {
        if subtask.mode != Mode::Llm {
            continue;
        }
        if agent::GoalSpec::parse(&subtask.description).changes_an_existing_file(cwd) {
            tracing::debug!(subtask = %subtask.id, "the subtask changes a file that exists: a script subtask");
            subtask.mode = Mode::Script;
        }
    }
}

/// Whether the configured model is `small` (its profile: `ModelChoice`).
fn small_model(provider: &Provider, options: &TaskOptions, budget: &Arc<TokenBudget>) -> Result<bool, Error> {
    Ok(connect_model(provider, &options.tools.config, budget.clone())?.is_some_and(|setup| setup.choice.is_small()))
}

/// A routing failure as the engine reports it.
fn route_error(error: RouterError, budget: &TokenBudget) -> Error {
    match error {
        RouterError::Refused { .. } => Error::Refused(error),
        other if budget.is_exhausted() => Error::BudgetSpent(other),
        other => Error::Route(other),
    }
}

/// The router for `provider` (for [`Provider::FromEnv`], llm's `ProviderConfig::detect_from_env`: the first of
/// `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `OPENROUTER_API_KEY`, `OLLAMA_HOST`, `OPENAI_BASE_URL` that is set).
/// `reason` says why the task needs a model, for the error when no provider is configured. Its calls draw
/// from `budget`.
pub fn router_for(
    provider: &Provider,
    allow_destructive: bool,
    reason: &str,
    budget: &Arc<TokenBudget>,
) -> Result<Router, Error> {
    // The router's prompts are the same for every profile: no config file to read the profile from.
    let Some(setup) = connect_model(provider, &toolbox::UserConfig::default(), budget.clone())? else {
        return Err(Error::NoProvider { reason: reason.to_owned() });
    };
    Ok(Router::new(setup.model).gate(GatePolicy { allow_destructive }))
}

/// What the model tiers are told: the toolset's panes and tools that are installed here (a missing tool is
/// never offered) and a bounded listing of the working directory.
pub fn context_for(cwd: &Path, installed: &toolbox::Toolbox) -> RouteContext {
    let mut context = RouteContext::new();
    for pane in installed.offered() {
        context.tools.extend(pane.tools.iter().map(|t| t.tool.clone()));
        context = context.pane(PaneInfo::new(pane.name, pane.kind.name()));
    }
    match WorkDir::read(cwd, WorkDir::DEFAULT_LIMIT) {
        Ok(listing) => context.workdir = Some(listing),
        Err(error) => tracing::debug!(%error, dir = %cwd.display(), "the working directory cannot be listed"),
    }
    context
}

fn working_directory(options: &TaskOptions) -> Result<PathBuf, Error> {
    match &options.cwd {
        Some(dir) => Ok(dir.clone()),
        None => std::env::current_dir().map_err(|e| Error::io("reading the current directory", ".", e)),
    }
}

/// With `-v`: what each tier did and cost.
fn log_routing(routed: &Routed) {
    for step in &routed.steps {
        tracing::info!("routing: {step}");
    }
    let usage = routed.usage();
    tracing::info!(
        "routed to {} by {}: {} model call(s), {} tokens in / {} out",
        routed.route.kind(),
        routed.tier,
        routed.model_calls(),
        usage.input_tokens,
        usage.output_tokens
    );
}

/// Carries out a route: runs a direct command in a fresh session, returns an answer or a question, or has the
/// agent's runners (or remote agents) carry out a plan.
pub async fn execute(
    config: &Config,
    task: &Task,
    routed: &Routed,
    budget: &Arc<TokenBudget>,
) -> Result<TaskOutcome, Error> {
    let (settings, provider, options) = (&config.settings, &config.provider, &config.options);
    let text = task.text.as_str();
    // Work a model will do on a goal that may mean to overwrite a file without saying so: asked, never guessed
    // (a guessed destination that exists is kept, so the result would go elsewhere).
    let model_work = match &routed.route {
        Route::Direct(_) => routed.tier != Tier::Direct,
        Route::Plan(planned) => !remote_task::is_remote(&planned.plan),
        _ => false,
    };
    if model_work && let Some(file) = agent::GoalSpec::parse(text).unclear_overwrite(text, &working_directory(options)?)
    {
        let question = format!(
            "{file} exists, and the task does not say to replace it. Should clive overwrite {file}? Say so (\"write \
             … to {file}\"), or name a new file."
        );
        return Ok(TaskOutcome::Question { routed: routed.clone(), question });
    }
    match &routed.route {
        // A command a model wrote is the first attempt of a script subtask: checked against what the task says
        // to make, answered through when it stops at a prompt, and repaired by the script writer when it fails.
        // A small model's (its profile: `ModelChoice`) only when it runs a program the task names, nothing more: its
        // router writes commands without the script writer's worked examples, and the script writer's first
        // attempt does better (Qwen2.5-Coder-0.5B: 26 → 29 of 39, docs/evals.md).
        Route::Direct(direct)
            if routed.tier != Tier::Direct
                && let Some(setup) = connect_model(provider, &options.tools.config, budget.clone())? =>
        {
            let first = if setup.choice.is_small() {
                named_program_run(text, &direct.command)
            } else {
                Some(direct.command.as_str())
            };
            let plan = ValidatedPlan::new(model_command_plan(text, first)).map_err(|e| Error::PlanRun(Box::new(e)))?;
            run_plan(config, task, routed, &plan, setup).await
        }
        Route::Direct(direct) => {
            let report =
                task_run::run_command(settings, text, routed, &direct.command, options, &task.events, &task.cancel)
                    .await?;
            Ok(TaskOutcome::Command(Box::new(report)))
        }
        Route::Answer(answer) => {
            let verdict = if !task.yes_no {
                None
            } else {
                match agent::leading_yes_no(&answer.text) {
                    Some(verdict) => Some(verdict),
                    None => match connect_model(provider, &options.tools.config, budget.clone())? {
                        Some(setup) => {
                            agent::Agent::builder(setup.model).build().judge_yes_no(text, &answer.text).await
                        }
                        None => None,
                    },
                }
            };
            let verified = routed.tier == Tier::Direct || !small_model(provider, options, budget)?;
            Ok(TaskOutcome::Answer { routed: routed.clone(), text: answer.text.clone(), verdict, verified })
        }
        Route::Clarify(clarification) => {
            Ok(TaskOutcome::Question { routed: routed.clone(), question: clarification.question.clone() })
        }
        Route::Plan(planned) if remote_task::is_remote(&planned.plan) => {
            let outcome = remote_task::run(
                (settings, provider),
                (text, routed, &planned.plan),
                options,
                budget,
                (&task.events, &task.cancel, task.answerer.clone()),
            )
            .await?;
            Ok(TaskOutcome::Remote(Box::new(outcome)))
        }
        Route::Plan(planned) => {
            let unsupported: Vec<&str> =
                planned.plan.subtasks.iter().filter(|s| s.mode == Mode::Agent).map(|s| s.mode.as_str()).collect();
            if !unsupported.is_empty() {
                return Err(Error::NeedsRunners { modes: unsupported[0].to_owned() });
            }
            let Some(setup) = connect_model(provider, &options.tools.config, budget.clone())? else {
                return Err(Error::NoProvider { reason: "the plan has model-driven subtasks".into() });
            };
            let plan = ValidatedPlan::new(planned.plan.clone()).map_err(|e| Error::PlanRun(Box::new(e)))?;
            run_plan(config, task, routed, &plan, setup).await
        }
        other => Err(Error::NeedsRunners { modes: other.kind().to_owned() }),
    }
}

/// `command` when it only runs a program `task` names (`./migrate.sh`, `bash ask.sh`) and the task names no file to
/// write: a command no model gets wrong. A small script writer, shown the files such a task names, writes
/// something else (Qwen2.5-Coder-0.5B edited a file the task said to leave as it was, instead of running the program).
/// A `sudo` the task does not ask for is left off: a small model adds it (`sudo ./setup.sh` for "run ./setup.sh and
/// answer its questions"), and the program the task names runs as the user who asked.
fn named_program_run<'c>(task: &str, command: &'c str) -> Option<&'c str> {
    let given = command.trim();
    let unprivileged = given.strip_prefix("sudo ").map_or(given, str::trim_start);
    let command = if asks_for_root(task) { given } else { unprivileged };
    let words: Vec<&str> = unprivileged.split_whitespace().collect();
    let program = match words.as_slice() {
        [program] if program.starts_with("./") => *program,
        ["bash" | "sh", program] => *program,
        _ => return None,
    };
    let name = program.trim_start_matches("./");
    let named = agent::named_files(task).iter().any(|file| file.trim_start_matches("./") == name);
    (named && agent::goal_destinations(task).is_empty()).then_some(command)
}

/// Whether a task asks for root: `sudo`, `as root`, `with root privileges`, `as administrator`.
fn asks_for_root(task: &str) -> bool {
    task.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| {
        ["sudo", "root", "admin", "administrator", "privilege", "privileges"]
            .contains(&word.to_ascii_lowercase().as_str())
    })
}

/// The plan that carries out `task` for a model's direct route: one script subtask whose first attempt is `command`
/// (`None`: the script writer's).
fn model_command_plan(task: &str, command: Option<&str>) -> dag_sched::Plan {
    dag_sched::Plan {
        version: dag_sched::PLAN_VERSION,
        panes: None,
        subtasks: vec![dag_sched::Subtask {
            id: router::SINGLE_SUBTASK_ID.to_owned(),
            description: task.trim().to_owned(),
            pane: router::DEFAULT_PANE.to_owned(),
            mode: Mode::Script,
            command: command.map(str::to_owned),
            depends_on: Vec::new(),
            timeout: None,
            host: None,
        }],
    }
}

/// Has the agent's runners carry out `plan`.
async fn run_plan(
    config: &Config,
    task: &Task,
    routed: &Routed,
    plan: &ValidatedPlan,
    setup: crate::engine::ModelSetup,
) -> Result<TaskOutcome, Error> {
    let yes_no_plan;
    let plan = if task.yes_no {
        yes_no_plan = model_task::yes_no_plan(plan)?;
        &yes_no_plan
    } else {
        plan
    };
    let model_options = ModelTaskOptions {
        task: config.options.clone(),
        yes_no: task.yes_no,
        events: task.events.clone(),
        cancel: task.cancel.clone(),
        answerer: task.answerer.clone(),
    };
    let report = model_task::run_model_plan(&config.settings, &task.text, routed, plan, setup, &model_options).await?;
    Ok(TaskOutcome::Plan(Box::new(report)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_only_runs_the_named_program_is_kept() {
        let task = "Start ./migrate.sh and say no when it asks; db.cfg is to be left untouched.";
        assert_eq!(named_program_run(task, "./migrate.sh"), Some("./migrate.sh"));
        assert_eq!(named_program_run("Run ask.sh and answer no.", "bash ask.sh"), Some("bash ask.sh"));
        assert_eq!(named_program_run(task, "echo n | ./migrate.sh"), None, "more than running it");
        assert_eq!(named_program_run(task, "./other.sh"), None, "not the named program");
        assert_eq!(named_program_run(task, "ls"), None, "not a named program");
        assert_eq!(named_program_run("Run ask.sh.", "ask.sh"), None, "not on PATH: it needs ./");
        let writes = "Run ./bench.sh and save the fastest time it prints to best.txt.";
        assert_eq!(named_program_run(writes, "./bench.sh"), None, "the task has a file to write");
        // A sudo nobody asked for is left off; one asked for stays.
        assert_eq!(named_program_run(task, "sudo ./migrate.sh"), Some("./migrate.sh"));
        let as_root = "Run ./migrate.sh as root and say no when it asks.";
        assert_eq!(named_program_run(as_root, "sudo ./migrate.sh"), Some("sudo ./migrate.sh"));
    }

    #[test]
    fn a_text_subtask_that_edits_a_file_that_exists_is_a_script() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".profile"), "EDITOR=vi\n").unwrap();
        std::fs::write(dir.path().join("lamp.ini"), "[lamp]\n").unwrap();
        let subtask = |id: &str, description: &str| dag_sched::Subtask {
            id: id.into(),
            description: description.into(),
            pane: "shell".into(),
            mode: Mode::Llm,
            command: None,
            depends_on: Vec::new(),
            timeout: None,
            host: None,
        };
        let mut plan = dag_sched::Plan {
            version: dag_sched::PLAN_VERSION,
            panes: None,
            subtasks: vec![
                subtask("a", "In .profile, switch EDITOR to nano. Nothing else in the file should change."),
                subtask("b", "Fix lamp.ini so `python3 lint.py lamp.ini` says OK."),
                subtask("c", "Write a haiku about lamps to haiku.txt."),
                subtask("d", "Fix wick.ini so it parses."),
            ],
        };
        edits_are_scripts(&mut plan, dir.path());
        let modes: Vec<Mode> = plan.subtasks.iter().map(|s| s.mode).collect();
        assert_eq!(modes, [Mode::Script, Mode::Script, Mode::Llm, Mode::Llm], "d's file does not exist");
    }
}
