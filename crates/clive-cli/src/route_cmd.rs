//! `clive "<task>"`: route the task — tier 0 for a shell command, else the model tiers through the
//! environment's provider — then run the route, or with `--dry-run` print it and run nothing.
//!
//! [`route_task`] decides, [`execute_route`] carries a decision out (a plan goes to the agent's runners,
//! [`crate::model_task`]), [`print_dry_run`] shows it. Routing and the runners draw from one token budget
//! (`--max-tokens`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use dag_sched::{Mode, ValidatedPlan};
use llm::TokenBudget;

use router::safety::GatePolicy;
use router::{PaneInfo, Route, RouteContext, Routed, Router, RouterError, Tier, TierStep, WorkDir};
use serde_json::json;

use crate::engine::connect_model;
use crate::error::CliError;
use crate::exit_code;
use crate::manage;
use crate::model_task::{self, ModelReport, ModelTaskOptions};
use crate::session_record;
use crate::settings::Settings;
use crate::task_run::{self, RoutingReport, TaskOptions, TokenCount};

/// How the result is printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Output {
    /// One JSON object on stdout.
    pub json: bool,
    /// Print the route (and plan) instead of running it.
    pub dry_run: bool,
    /// The answer on one line.
    pub oneline: bool,
    /// `--bool`: print YES or NO and exit 0 or 1 (3 without a yes/no answer).
    pub yes_no: bool,
}

/// Routes `task` and runs (or, with `dry_run`, prints) the route; returns the exit code.
pub async fn run(settings: &Settings, task: &str, options: &TaskOptions, output: Output) -> Result<i32, CliError> {
    let budget = TokenBudget::new(options.model.max_tokens);
    let routed = route_task(task, options, &budget).await?;
    execute_route(settings, task, &routed, options, output, &budget).await
}

/// `clive run -- <command>`: runs `command` as a shell command, with no routing at all (no tier-0 rules, no
/// model); the safety gate still judges it. Returns the exit code.
pub async fn run_unrouted(
    settings: &Settings,
    command: &str,
    options: &TaskOptions,
    output: Output,
) -> Result<i32, CliError> {
    let budget = TokenBudget::new(options.model.max_tokens);
    let started = Instant::now();
    let direct = router::DirectRoute::describe(command);
    if direct.command.is_empty() {
        return Err(CliError::Route(RouterError::EmptyTask));
    }
    router::safety::check(&direct.command, GatePolicy { allow_destructive: options.allow_destructive })?;
    let steps = vec![TierStep::new(Tier::Direct, started.elapsed())];
    let routed = Routed { route: Route::Direct(direct), tier: Tier::Direct, steps };
    execute_route(settings, command, &routed, options, output, &budget).await
}

/// Routes `task`: tier 0 without any model; otherwise the router built from the environment's provider
/// ([`router_from_env`]) with the working directory as context. Every command in the route has passed the
/// safety gate.
pub async fn route_task(task: &str, options: &TaskOptions, budget: &Arc<TokenBudget>) -> Result<Routed, CliError> {
    // A task for agents (`clive@host …`) is routed by rules: one remote subtask per address, no model.
    if let Some(routed) = crate::remote_cmd::route(task)? {
        return Ok(routed);
    }
    let cwd = working_directory(options)?;
    let started = Instant::now();
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
        return Err(CliError::Route(RouterError::EmptyTask));
    }
    let router = router_from_env(options.allow_destructive, &format!("tier 0 declined: {declined}"), budget)?;
    let installed = options.tools.installed().await;
    router.route(task, &context_for(&cwd, &installed)).await.map_err(|error| match error {
        RouterError::Refused { .. } => CliError::Refused(error),
        other if budget.is_exhausted() => CliError::BudgetSpent(other),
        other => CliError::Route(other),
    })
}

/// The router for the environment's provider (llm's `ProviderConfig::detect_from_env`: the first of
/// `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `OPENROUTER_API_KEY`, `OLLAMA_HOST`, `OPENAI_BASE_URL` that is set).
/// `reason` says why the task needs a model, for the error when no provider is configured. Its calls draw
/// from `budget`.
pub fn router_from_env(allow_destructive: bool, reason: &str, budget: &Arc<TokenBudget>) -> Result<Router, CliError> {
    let Some(setup) = connect_model(budget.clone())? else {
        return Err(CliError::NoProvider { reason: reason.to_owned() });
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

fn working_directory(options: &TaskOptions) -> Result<PathBuf, CliError> {
    match &options.cwd {
        Some(dir) => Ok(dir.clone()),
        None => std::env::current_dir().map_err(|e| CliError::io("reading the current directory", ".", e)),
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

/// Carries out a route: runs a direct command in a fresh session, prints an answer or a question, or has the
/// agent's runners carry out a plan; with `dry_run`, prints the route instead. Returns the exit code.
pub async fn execute_route(
    settings: &Settings,
    task: &str,
    routed: &Routed,
    options: &TaskOptions,
    output: Output,
    budget: &Arc<TokenBudget>,
) -> Result<i32, CliError> {
    log_routing(routed);
    if output.dry_run {
        // What a plan's panes would be allowed to reach, when a model would type into them.
        let networks = (routed.tier != Tier::Direct)
            .then(|| routed.route.to_plan())
            .flatten()
            .map(|plan| options.tools.pane_networks(task, &plan));
        print_dry_run(task, routed, output.json, networks.as_ref());
        return Ok(if matches!(routed.route, Route::Clarify(_)) { exit_code::CLARIFY } else { exit_code::SUCCESS });
    }
    let json = output.json;
    match &routed.route {
        // A command a model wrote is the first attempt of a script subtask: checked against what the task says
        // to make, answered through when it stops at a prompt, and repaired by the script writer when it fails.
        // A local model's only when it runs a program the task names, nothing more: its router writes commands
        // without the script writer's worked examples, and the script writer's first attempt does better
        // (Qwen2.5-Coder-0.5B: 26 → 29 of 39, docs/evals.md).
        Route::Direct(direct)
            if routed.tier != Tier::Direct
                && let Some(setup) = connect_model(budget.clone())? =>
        {
            let keep = !crate::engine::is_local(setup.provider) || only_runs_named_program(task, &direct.command);
            let first = keep.then_some(direct.command.as_str());
            let plan =
                ValidatedPlan::new(model_command_plan(task, first)).map_err(|e| CliError::PlanRun(Box::new(e)))?;
            run_plan(settings, task, routed, &plan, setup, options, output).await
        }
        Route::Direct(direct) => {
            let report = task_run::run_command(settings, task, routed, &direct.command, options).await?;
            if json {
                outln!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else if output.yes_no {
                outln!("{}", if report.exit_code == 0 { "YES" } else { "NO" });
            } else if output.oneline {
                outln!("{}", agent::text::one_line(&report.output, usize::MAX));
            } else {
                out!("{}", report.output);
            }
            if report.kept {
                say_kept(&report.session, report.exit_code, options);
            }
            Ok(if output.yes_no { i32::from(report.exit_code != 0) } else { report.exit_code })
        }
        Route::Answer(answer) => {
            if !output.yes_no {
                let text =
                    if output.oneline { agent::text::one_line(&answer.text, usize::MAX) } else { answer.text.clone() };
                print_reply(task, routed, json, "answer", &text);
                return Ok(exit_code::SUCCESS);
            }
            let verdict = match agent::leading_yes_no(&answer.text) {
                Some(verdict) => Some(verdict),
                None => match connect_model(budget.clone())? {
                    Some(setup) => agent::Agent::builder(setup.model).build().judge_yes_no(task, &answer.text).await,
                    None => None,
                },
            };
            let code = model_task::exit_code_of(model_task::TaskStatus::Succeeded, true, verdict, true);
            if json {
                let mut object = reply_object(task, routed, "answer", &answer.text);
                object["verdict"] = json!(verdict);
                object["exit_code"] = json!(code);
                outln!("{object}");
            } else {
                match verdict {
                    Some(yes) => outln!("{}", if yes { "YES" } else { "NO" }),
                    None => eprintln!("clive: the answer says neither yes nor no: {}", answer.text.trim()),
                }
            }
            Ok(code)
        }
        Route::Clarify(clarification) => {
            print_reply(task, routed, json, "question", &clarification.question);
            Ok(exit_code::CLARIFY)
        }
        Route::Plan(planned) if crate::remote_cmd::is_remote(&planned.plan) => {
            crate::remote_cmd::run(settings, task, routed, &planned.plan, options, json, budget).await
        }
        Route::Plan(planned) => {
            let unsupported: Vec<&str> =
                planned.plan.subtasks.iter().filter(|s| s.mode == Mode::Agent).map(|s| s.mode.as_str()).collect();
            if !unsupported.is_empty() {
                return Err(CliError::NeedsRunners { modes: unsupported[0].to_owned() });
            }
            let Some(setup) = connect_model(budget.clone())? else {
                return Err(CliError::NoProvider { reason: "the plan has model-driven subtasks".into() });
            };
            let plan = ValidatedPlan::new(planned.plan.clone()).map_err(|e| CliError::PlanRun(Box::new(e)))?;
            run_plan(settings, task, routed, &plan, setup, options, output).await
        }
        other => Err(CliError::NeedsRunners { modes: other.kind().to_owned() }),
    }
}

/// Whether `command` only runs a program `task` names (`./upgrade.sh`, `bash ask.sh`) and the task names no file to
/// write: a command no model gets wrong. A small script writer, shown the files such a task names, writes
/// something else (Qwen2.5-Coder-0.5B edited the `settings.conf` that "must stay as it is").
fn only_runs_named_program(task: &str, command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let program = match words.as_slice() {
        [program] if program.starts_with("./") => *program,
        ["bash" | "sh", program] => *program,
        _ => return false,
    };
    let name = program.trim_start_matches("./");
    let named = agent::named_files(task).iter().any(|file| file.trim_start_matches("./") == name);
    named && agent::goal_destinations(task).is_empty()
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

/// Has the agent's runners carry out `plan`, prints what it came to, returns the exit code.
async fn run_plan(
    settings: &Settings,
    task: &str,
    routed: &Routed,
    plan: &ValidatedPlan,
    setup: crate::engine::ModelSetup,
    options: &TaskOptions,
    output: Output,
) -> Result<i32, CliError> {
    let yes_no_plan;
    let plan = if output.yes_no {
        yes_no_plan = model_task::yes_no_plan(plan)?;
        &yes_no_plan
    } else {
        plan
    };
    let model_options = ModelTaskOptions { task: options.clone(), yes_no: output.yes_no, quiet: false };
    let report = model_task::run_model_plan(settings, task, routed, plan, setup, &model_options).await?;
    print_model_report(&report, output);
    if let (true, Some(session)) = (report.kept, &report.session) {
        say_kept(session, report.exit_code, options);
    }
    Ok(report.exit_code)
}

/// Prints what a plan's run came to: the answer (or YES/NO, or one line), or why it failed on stderr.
fn print_model_report(report: &ModelReport, output: Output) {
    if output.json {
        outln!("{}", serde_json::to_string(report).unwrap_or_default());
    } else if report.status == model_task::TaskStatus::Succeeded {
        if !report.verified && !output.yes_no {
            let unchecked: Vec<&str> =
                report.subtasks.iter().filter(|s| s.verified == Some(false)).map(|s| s.id.as_str()).collect();
            eprintln!(
                "clive: unchecked: the result of {} could not be checked (no check applied and the final look gave no \
                 answer); exit code 6",
                unchecked.join(", ")
            );
        }
        match (output.yes_no, report.verdict) {
            (true, Some(yes)) => outln!("{}", if yes { "YES" } else { "NO" }),
            (true, None) => eprintln!("clive: the result says neither yes nor no: {}", report.answer.trim()),
            (false, _) if output.oneline => outln!("{}", agent::text::one_line(&report.answer, usize::MAX)),
            (false, _) => outln!("{}", report.answer.trim_end()),
        }
    } else {
        let status = serde_json::to_value(report.status).ok().and_then(|v| v.as_str().map(str::to_owned));
        eprintln!("clive: {}: {}", status.unwrap_or_default().replace('_', " "), report.answer.trim());
    }
}

/// Tells where a kept session is.
fn say_kept(session: &str, exit_code: i32, options: &TaskOptions) {
    let id = session.trim_start_matches(session_record::SESSION_PREFIX);
    eprintln!(
        "clive: exit code {exit_code}; session {session} kept for {} (clive logs {id}, clive attach {id})",
        manage::human_age(options.retention.as_secs())
    );
}

fn print_reply(task: &str, routed: &Routed, json: bool, field: &str, text: &str) {
    if json {
        outln!("{}", reply_object(task, routed, field, text));
    } else {
        outln!("{}", text.trim_end());
    }
}

/// `--json` for an answer (`field` = `answer`) or a question (`question`).
fn reply_object(task: &str, routed: &Routed, field: &str, text: &str) -> serde_json::Value {
    json!({
        "task": task,
        "route": routed.route,
        "routing": RoutingReport::from(routed),
        "model_calls": routed.model_calls(),
        "tokens": TokenCount::of_routing(routed),
        // The time figures of a task report (no command ran), so that clive's own overhead can be measured.
        "model_ms": task_run::routing_ms(routed),
        "command_ms": 0,
        field: text,
    })
}

/// `--dry-run`: the route and its plan. With `json`, a route that runs something prints the plan file itself
/// (`clive plan run` reads it); an answer or a question prints `{"task", "route", "routing"}`.
/// With `networks` (and not `json`, which prints the plan file alone), what each pane may reach.
pub fn print_dry_run(
    task: &str,
    routed: &Routed,
    json: bool,
    networks: Option<&std::collections::BTreeMap<String, toolbox::Network>>,
) {
    out!("{}", render_dry_run(task, routed, json));
    if let (false, Some(networks)) = (json, networks) {
        out!("{}", render_networks(networks));
    }
}

/// `--dry-run`'s lines on the network: each pane a model would type into and what it may reach.
pub fn render_networks(networks: &std::collections::BTreeMap<String, toolbox::Network>) -> String {
    let mut text = String::from("network (what each pane a model types into may reach; --network opens it):\n");
    for (pane, network) in networks {
        text.push_str(&format!("  {pane}: {network}\n"));
    }
    text
}

/// The text [`print_dry_run`] prints.
pub fn render_dry_run(task: &str, routed: &Routed, json: bool) -> String {
    let plan = routed.route.to_plan();
    if json {
        return match plan {
            Some(plan) => format!("{}\n", plan.to_json_pretty()),
            None => {
                format!("{}\n", json!({"task": task, "route": routed.route, "routing": RoutingReport::from(routed)}))
            }
        };
    }
    let mut text = format!("task:    {task}\nroute:   {}, decided by {}\n", routed.route.kind(), routed.tier);
    match &routed.route {
        Route::Direct(direct) => text.push_str(&format!("command: {}\n", direct.command)),
        Route::Answer(answer) => text.push_str(&format!("answer:  {}\n", answer.text.trim_end())),
        Route::Clarify(question) => text.push_str(&format!("question: {}\n", question.question.trim_end())),
        _ => {}
    }
    let usage = routed.usage();
    text.push_str(&format!(
        "cost:    {} model call(s), {} tokens in / {} out\n",
        routed.model_calls(),
        usage.input_tokens,
        usage.output_tokens
    ));
    for step in &routed.steps {
        text.push_str(&format!("  {step}\n"));
    }
    if let Some(plan) = plan {
        text.push_str("plan (clive --dry-run --json prints it alone, for clive plan run):\n");
        text.push_str(&plan.to_json_pretty());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use router::{Answer, DirectRoute, PlanRoute};

    use super::*;

    fn routed(route: Route, tier: Tier) -> Routed {
        let mut tier0 = TierStep::new(Tier::Direct, Duration::from_micros(4));
        tier0.declined = Some("`count` is not a known direct command".into());
        let mut steps = vec![tier0];
        let mut classifier = TierStep::new(Tier::Classifier, Duration::from_millis(412));
        classifier.model = Some("claude-haiku-4-5".into());
        classifier.calls = 1;
        classifier.usage.input_tokens = 431;
        classifier.usage.output_tokens = 12;
        if tier == Tier::Planner {
            classifier.declined = Some("the classifier chose a plan".into());
            steps.push(classifier);
            let mut planner = TierStep::new(Tier::Planner, Duration::from_millis(2310));
            planner.model = Some("claude-sonnet-4-5".into());
            planner.calls = 2;
            planner.usage.input_tokens = 1290;
            planner.usage.output_tokens = 240;
            steps.push(planner);
        } else {
            steps.push(classifier);
        }
        Routed { route, tier, steps }
    }

    fn plan() -> Route {
        let plan = dag_sched::Plan::from_json(
            r#"{"subtasks":[{"id":"count","pane":"shell","command":"wc -l < /etc/passwd > n.txt","description":"count"},
                            {"id":"say","pane":"shell","mode":"llm","description":"summarise n.txt","depends_on":["count"]}]}"#,
        )
        .unwrap();
        Route::Plan(PlanRoute { plan })
    }

    #[test]
    fn dry_run_text() {
        let task = "count the lines of /etc/passwd, then summarise";
        insta::assert_snapshot!("dry_run_plan", render_dry_run(task, &routed(plan(), Tier::Planner), false));
        let direct = Route::Direct(DirectRoute::describe("wc -l /etc/passwd"));
        insta::assert_snapshot!("dry_run_direct", render_dry_run(task, &routed(direct, Tier::Classifier), false));
    }

    #[test]
    fn dry_run_names_what_each_pane_may_reach() {
        let task = "post the report to http://127.0.0.2:8080/ then summarise it";
        let plan = dag_sched::Plan::from_json(
            r#"{"subtasks":[{"id":"post","pane":"shell","mode":"script","description":"post it to http://127.0.0.2:8080/"},
                            {"id":"look","pane":"browser","mode":"script","description":"open http://127.0.0.3/"}]}"#,
        )
        .unwrap();
        let networks = crate::tools::ToolsChoice::default().pane_networks(task, &plan);
        assert_eq!(
            render_networks(&networks),
            "network (what each pane a model types into may reach; --network opens it):\n  browser: off\n  \
             shell: hosts: 127.0.0.2\n"
        );
    }

    #[test]
    fn dry_run_json_is_the_plan_file() {
        let text = render_dry_run("t", &routed(plan(), Tier::Planner), true);
        assert!(dag_sched::ValidatedPlan::from_json(&text).is_ok(), "{text}");
        insta::assert_snapshot!("dry_run_plan_json", text);
    }

    #[test]
    fn answer_json() {
        let answer = Route::Answer(Answer { text: "4".into() });
        let object = reply_object("what is 2+2", &routed(answer, Tier::Classifier), "answer", "4");
        insta::assert_json_snapshot!("answer_json", object);
    }

    #[test]
    fn a_command_that_only_runs_the_named_program_is_kept() {
        let task = "Run ./upgrade.sh but answer no to its question: settings.conf must stay as it is.";
        assert!(only_runs_named_program(task, "./upgrade.sh"));
        assert!(only_runs_named_program("Run ask.sh and answer no.", "bash ask.sh"));
        assert!(!only_runs_named_program(task, "echo n | ./upgrade.sh"), "more than running it");
        assert!(!only_runs_named_program(task, "./other.sh"), "not the named program");
        assert!(!only_runs_named_program(task, "ls"), "not a named program");
        assert!(!only_runs_named_program("Run ask.sh.", "ask.sh"), "not on PATH: it needs ./");
        let writes = "Run ./build.sh and write the last line it prints to result.txt.";
        assert!(!only_runs_named_program(writes, "./build.sh"), "the task has a file to write");
    }
}
