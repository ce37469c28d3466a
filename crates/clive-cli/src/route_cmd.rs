//! `clive "<task>"`: the engine routes the task and carries the route out ([`clive_core::run()`]); this module
//! shows its progress, prints what it came to (text, one line, YES/NO or `--json`) and turns it into an exit code;
//! with `--dry-run` it prints the route and runs nothing.

use std::sync::Arc;

use clive_core::model_task::{self, ModelReport, TaskStatus};
use clive_core::task_run::{self, RoutingReport, TokenCount};
use clive_core::{Config, Task, TaskOptions, TaskOutcome};
use dag_sched::Mode;
use llm::TokenBudget;
use router::{Route, Routed, Tier};
use serde_json::json;

use crate::error::CliError;
use crate::exit_code;
use crate::manage;
use clive_core::session_record;

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

/// Routes `task` (with `unrouted`, takes it as a shell command: `clive run -- <command>`) and runs (or, with
/// `dry_run`, prints) the route, showing its progress; Ctrl-C cancels it. Returns the exit code.
pub async fn run(config: &Config, task: &str, unrouted: bool, output: Output) -> Result<i32, CliError> {
    let budget = TokenBudget::new(config.options.model.max_tokens);
    let (sender, events) = tokio::sync::mpsc::unbounded_channel();
    let cancel = clive_core::CancelToken::new();
    let request = Task::new(task)
        .yes_no(output.yes_no)
        .events(sender)
        .cancel(cancel.clone())
        .answerer(Arc::new(crate::answerer::TerminalAnswerer));
    let work = async {
        let routed = if unrouted {
            clive_core::run::unrouted(task, &config.options)?
        } else {
            clive_core::route(config, &request, &budget).await?
        };
        if output.dry_run {
            return Ok((routed, None));
        }
        let outcome = clive_core::execute(config, &request, &routed, &budget).await?;
        Ok::<_, clive_core::Error>((routed, Some(outcome)))
    };
    // A remote task's progress is quiet under --json; a plan for the runners shows it on stderr.
    let quiet = |plan: &dag_sched::Plan| output.json && clive_core::remote_task::is_remote(plan);
    let (routed, outcome) = crate::progress::drive(work, events, &cancel, quiet).await?;
    let Some(outcome) = outcome else {
        // What a plan's panes would be allowed to reach, when a model would type into them.
        let networks = (routed.tier != Tier::Direct)
            .then(|| routed.route.to_plan())
            .flatten()
            .map(|plan| config.options.tools.pane_networks(task, &plan));
        print_dry_run(task, &routed, output.json, networks.as_ref());
        return Ok(if matches!(routed.route, Route::Clarify(_)) { exit_code::CLARIFY } else { exit_code::SUCCESS });
    };
    Ok(print_outcome(task, &outcome, &config.options, output))
}

/// Prints what a task came to and returns its exit code.
fn print_outcome(task: &str, outcome: &TaskOutcome, options: &TaskOptions, output: Output) -> i32 {
    let json = output.json;
    match outcome {
        TaskOutcome::Command(report) => {
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
            if output.yes_no { i32::from(report.exit_code != 0) } else { report.exit_code }
        }
        TaskOutcome::Answer { routed, text, verdict, verified } => {
            if !output.yes_no {
                let text = if output.oneline { agent::text::one_line(text, usize::MAX) } else { text.clone() };
                print_answer(task, routed, json, &text, *verified);
                if !verified {
                    return exit_code::UNCHECKED;
                }
                return exit_code::SUCCESS;
            }
            let code = model_task::exit_code_of(TaskStatus::Succeeded, true, *verdict, true);
            if json {
                let mut object = reply_object(task, routed, "answer", text);
                object["verdict"] = json!(verdict);
                object["exit_code"] = json!(code);
                outln!("{object}");
            } else {
                match verdict {
                    Some(yes) => outln!("{}", if *yes { "YES" } else { "NO" }),
                    None => eprintln!("clive: the answer says neither yes nor no: {}", text.trim()),
                }
            }
            code
        }
        TaskOutcome::Question { routed, question } => {
            print_reply(task, routed, json, "question", question);
            exit_code::CLARIFY
        }
        TaskOutcome::Plan(report) => {
            print_model_report(report, output);
            if let (true, Some(session)) = (report.kept, &report.session) {
                say_kept(session, report.exit_code, options);
            }
            report.exit_code
        }
        TaskOutcome::Remote(outcome) => crate::remote_cmd::print(outcome, json),
        _ => exit_code::INTERNAL,
    }
}

/// Prints what a plan's run came to: the answer (or YES/NO, or one line), or why it failed on stderr.
fn print_model_report(report: &ModelReport, output: Output) {
    if output.json {
        outln!("{}", serde_json::to_string(report).unwrap_or_default());
    } else if report.status == TaskStatus::Succeeded {
        if !report.verified && !output.yes_no {
            let (pane_work, guesses): (Vec<_>, Vec<_>) = report
                .subtasks
                .iter()
                .filter(|s| s.verified == Some(false))
                .partition(|s| matches!(s.mode, Mode::Script | Mode::Interactive));
            let ids = |subtasks: &[&model_task::SubtaskReport]| {
                subtasks.iter().map(|s| s.id.as_str()).collect::<Vec<_>>().join(", ")
            };
            let mut why = Vec::new();
            if !pane_work.is_empty() {
                // What was checked, and why it was not enough, where the runners said (a second script's result,
                // only a shape); else nothing applied.
                let checks: Vec<&str> = pane_work.iter().flat_map(|s| s.checks.iter().map(String::as_str)).collect();
                let what = if checks.is_empty() {
                    "no check applied and the final look gave no answer".to_owned()
                } else {
                    format!("checks: {}", checks.join("; "))
                };
                why.push(format!("the result of {} could not be checked ({what})", ids(&pane_work)));
            }
            if !guesses.is_empty() {
                why.push(format!("{} is a small model's command or text, which nothing checked", ids(&guesses)));
            }
            eprintln!("clive: unchecked: {}; exit code 6", why.join("; "));
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

/// An answer on stdout (with `json`, its object and `verified`); an unchecked one also says so on stderr.
fn print_answer(task: &str, routed: &Routed, json: bool, text: &str, verified: bool) {
    if json {
        let mut object = reply_object(task, routed, "answer", text);
        object["verified"] = json!(verified);
        object["exit_code"] = json!(if verified { exit_code::SUCCESS } else { exit_code::UNCHECKED });
        outln!("{object}");
    } else {
        outln!("{}", text.trim_end());
    }
    if !verified {
        eprintln!(
            "clive: unchecked: a small model answered from its own knowledge and nothing checked the answer; exit code 6"
        );
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

    use router::{Answer, DirectRoute, PlanRoute, TierStep};

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
        let networks = clive_core::ToolsChoice::default().pane_networks(task, &plan);
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
}
