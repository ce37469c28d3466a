//! The `clive` command: the front door that runs a task in tmux panes. The engine ([`clive_core`]) routes and
//! runs; this crate adds the command line (clap), text and JSON output, exit codes, Ctrl-C and progress lines.
//!
//! `clive "ls -la"` routes the task with [`router`] (tier 0: it is a shell command, no model), passes it
//! through the safety gate, runs it in a fresh detached session `clive-<id>` on clive's own tmux server
//! (socket `clive`) in the caller's directory and environment, prints its output and exits with its exit
//! code. A task in words goes to the model tiers ([`route_cmd`], [`clive_core::run()`]): an answer, a question, one command, or a
//! plan; `--dry-run` prints the route and plan without running anything. Successful runs leave no session
//! behind (only their recording, for `clive replay`); failed runs (and `--keep`) stay for a retention period,
//! then are archived to a log file and removed. `docs/clive.md` describes the grammar, exit codes and files.
//!
//! ```no_run
//! use clap::Parser as _;
//!
//! # async fn demo() {
//! let cli = clive_cli::Cli::parse_from(["clive", "--json", "echo hello"]);
//! let code = clive_cli::execute(cli).await; // prints the report, returns the exit code
//! # let _ = code; }
//! ```

pub mod answerer;
pub mod cli;
pub mod conversational;
mod error;
pub mod exit_code;
mod logging;
#[macro_use]
mod output;
pub mod manage;
pub mod mcp_cmd;
pub mod plan_cmd;
pub mod progress;
pub mod remote_cmd;
pub mod route_cmd;
pub mod serve_cmd;
pub mod tools;
pub mod undo_cmd;

pub use cli::{Cli, Command, PlanCommand, ServeArgs};
pub use error::CliError;
pub use logging::init_logging;

use clive_core::session_record;
use clive_core::{Config, Provider, Settings, TaskOptions};
use serde_json::json;

use clive_core::sessions::{self, LogSource};

/// Runs one parsed invocation, prints its results and returns the process exit code.
pub async fn execute(cli: Cli) -> std::process::ExitCode {
    exit_code::to_exit_code(execute_code(cli).await)
}

async fn execute_code(cli: Cli) -> i32 {
    let json = cli.global.json;
    let task = cli.task_text();
    let result = match Settings::from_env() {
        Ok(settings) => dispatch(&cli, &settings, task.as_deref()).await,
        Err(e) => Err(e.into()),
    };
    let code = match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("clive: {error}");
            if json {
                outln!("{}", error_report(task.as_deref(), &error));
            }
            error.exit_code()
        }
    };
    output::flush();
    match output::write_failure() {
        Some(failure) => {
            eprintln!("clive: writing to stdout failed: {failure}; the output is lost");
            exit_code::INTERNAL
        }
        None => code,
    }
}

/// What `--json` prints when clive fails: the task (if any), the message and clive's exit code.
fn error_report(task: Option<&str>, error: &CliError) -> serde_json::Value {
    let mut report = json!({ "task": task, "error": error.to_string(), "exit_code": error.exit_code() });
    // What routing spent before it failed (the planner's attempts, a failed provider) is part of the cost.
    if let Some(clive_core::Error::Route(route_error)) = error.core()
        && !route_error.steps().is_empty()
    {
        report["routing"] = json!({ "steps": route_error.steps() });
    }
    report
}

/// The options `clive --conversational --attach` hands on to the inner clive it starts.
fn inner_args(global: &cli::GlobalArgs) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(tools) = &global.tools {
        args.extend(["--tools".to_owned(), tools.clone()]);
    }
    if let Some(dir) = &global.cwd {
        args.extend(["-C".to_owned(), dir.display().to_string()]);
    }
    for (set, flag) in [
        (global.no_sandbox, "--no-sandbox"),
        (global.no_network, "--no-network"),
        (global.network, "--network"),
        (global.allow_destructive, "--allow-destructive"),
    ] {
        if set {
            args.push(flag.to_owned());
        }
    }
    args.extend(["--max-tokens".to_owned(), global.max_tokens.to_string()]);
    args.extend(["--max-turns".to_owned(), global.max_turns.to_string()]);
    args
}

/// The engine's configuration for a task run: `settings`, the environment's provider, and the options from the
/// command line (the tools over the config file's).
fn task_config(cli: &Cli, settings: &Settings) -> Result<Config, CliError> {
    let options = TaskOptions {
        keep: cli.global.keep,
        retention: cli.global.retain,
        timeout: cli.global.timeout,
        allow_destructive: cli.global.allow_destructive,
        cwd: cli.global.cwd.clone(),
        tools: clive_core::ToolsChoice::resolve(&cli.global.tools_args())?,
        model: clive_core::ModelOptions { max_tokens: cli.global.max_tokens, max_turns: cli.global.max_turns },
    };
    Ok(Config { settings: settings.clone(), provider: Provider::FromEnv, options })
}

async fn dispatch(cli: &Cli, settings: &Settings, task: Option<&str>) -> Result<i32, CliError> {
    let json = cli.global.json;
    if cli.global.conversational {
        if let Some(id) = &cli.global.attach {
            return conversational::attach(settings, id, &inner_args(&cli.global));
        }
        return conversational::serve(&task_config(cli, settings)?).await;
    }
    if let Some(task) = task {
        let config = task_config(cli, settings)?;
        let output = route_cmd::Output {
            json,
            dry_run: cli.global.dry_run,
            oneline: cli.global.oneline,
            yes_no: cli.global.yes_no,
        };
        return route_cmd::run(&config, task, cli.unrouted(), output).await;
    }
    match &cli.command {
        Some(Command::Sessions) => {
            let records = sessions::sessions(settings).await?;
            if json {
                outln!("{}", serde_json::to_string(&records).unwrap_or_default());
            } else {
                out!("{}", manage::render_sessions(&records, session_record::unix_now()));
            }
            Ok(exit_code::SUCCESS)
        }
        Some(Command::Attach { id }) => Ok(manage::attach(settings, id).await?),
        Some(Command::Logs { id }) => {
            let (source, text) = sessions::logs(settings, id).await?;
            if json {
                let (live, from) = match &source {
                    LogSource::Live(session) => (true, session.clone()),
                    LogSource::Archived(path) => (false, path.display().to_string()),
                };
                outln!("{}", json!({ "live": live, "source": from, "text": text }));
            } else {
                out!("{text}");
            }
            Ok(exit_code::SUCCESS)
        }
        Some(Command::Gc { all }) => {
            let removed = sessions::gc(settings, *all).await?;
            if json {
                outln!("{}", serde_json::to_string(&removed).unwrap_or_default());
            } else {
                for done in &removed {
                    outln!("removed {} (log: {})", done.session, done.log.display());
                }
            }
            Ok(exit_code::SUCCESS)
        }
        Some(Command::Plan(plan)) => run_plan_command(plan, settings, cli).await,
        Some(Command::Agents { deadline }) => {
            let agents = clive_core::remote_task::agents(*deadline).await?;
            if json {
                outln!("{}", remote_cmd::agents_json(&agents));
            } else {
                out!("{}", remote_cmd::render_agents(&agents));
            }
            Ok(if agents.iter().all(|a| a.reachable) { exit_code::SUCCESS } else { exit_code::NOT_FOUND })
        }
        Some(Command::Serve(args)) => {
            let options = serve_cmd::ServeOptions {
                bind: args.bind,
                port: args.port,
                policy: serve_cmd::input_policy(args.allow_input, args.allow_approvals, &args.allow_input_for),
                sockets: args.socket.clone(),
                prefix: args.prefix.clone(),
                new_token: args.new_token,
                on_waiting: args.on_waiting.clone(),
            };
            let served = serve_cmd::serve(settings, &options, |serving| {
                if json {
                    outln!("{}", serde_json::to_string(serving).unwrap_or_default());
                } else {
                    outln!("{}", serving.url);
                    eprintln!("clive serve: open the URL above; Ctrl-C stops");
                }
            })
            .await;
            Ok(served?)
        }
        Some(Command::Replay { id, speed, instant, idle_limit }) => {
            if json {
                let report = serve_cmd::replay_report(settings, id)?;
                outln!("{}", serde_json::to_string(&report).unwrap_or_default());
                return Ok(exit_code::SUCCESS);
            }
            let speed = if *instant { None } else { Some(*speed) };
            Ok(serve_cmd::replay(settings, id, clive_serve::ReplayOptions { speed, idle_limit: *idle_limit }).await?)
        }
        Some(Command::Undo { id }) => {
            let report = clive_core::undo::undo(settings, id)?;
            if json {
                outln!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else {
                out!("{}", undo_cmd::render(&report));
            }
            Ok(exit_code::SUCCESS)
        }
        Some(Command::Mcp) => mcp_cmd::serve(settings, &cli.global).await,
        Some(Command::Tools) => {
            let view = tools::tools(&cli.global.tools_args(), settings).await?;
            if json {
                outln!("{}", serde_json::to_string(&view).unwrap_or_default());
            } else {
                out!("{}", view.render());
            }
            Ok(exit_code::SUCCESS)
        }
        Some(Command::Run { .. }) | None => {
            let help = <Cli as clap::CommandFactory>::command().render_help();
            eprintln!("{help}");
            eprintln!("clive: give a task (clive \"ls -la\") or a command (clive sessions)");
            Ok(exit_code::USAGE)
        }
    }
}

async fn run_plan_command(command: &PlanCommand, settings: &Settings, cli: &Cli) -> Result<i32, CliError> {
    let json = cli.global.json;
    match command {
        PlanCommand::Check { file } => {
            let plan = clive_core::plan_run::load_plan(file)?;
            if json {
                outln!("{}", json!({ "plan": file, "valid": true, "subtasks": plan.subtasks().len() }));
            } else {
                outln!(
                    "{}: valid plan, {} subtasks, panes: {}",
                    file.display(),
                    plan.subtasks().len(),
                    plan.panes().join(", ")
                );
            }
            Ok(exit_code::SUCCESS)
        }
        PlanCommand::Show { file, format } => {
            let plan = clive_core::plan_run::load_plan(file)?;
            out!("{}", plan_cmd::render(&plan, *format));
            Ok(exit_code::SUCCESS)
        }
        PlanCommand::Run { file } => {
            let options = clive_core::plan_run::PlanRunOptions {
                retention: cli.global.retain,
                allow_destructive: cli.global.allow_destructive,
                cwd: cli.global.cwd.clone(),
                timeout: cli.global.timeout,
                model: clive_core::ModelOptions { max_tokens: cli.global.max_tokens, max_turns: cli.global.max_turns },
                tools: clive_core::ToolsChoice::resolve(&cli.global.tools_args())?,
            };
            let (sender, events) = tokio::sync::mpsc::unbounded_channel();
            let cancel = clive_core::CancelToken::new();
            let sender = clive_core::Events::to(sender);
            let run = clive_core::plan_run::run_plan((settings, &Provider::FromEnv), file, &options, &sender, &cancel);
            let (summary, report) = progress::drive(run, events, &cancel, |_| json).await?;
            if json {
                outln!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else {
                out!("{}", dag_sched::render_summary_table(&summary));
            }
            Ok(if report.cancelled {
                exit_code::INTERRUPTED
            } else if report.succeeded {
                exit_code::SUCCESS
            } else {
                exit_code::PLAN_FAILED
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_report_shape() {
        let error = CliError::from(clive_core::Error::NoSuchSession { id: "zz".into() });
        insta::assert_json_snapshot!(error_report(None, &error));
        let refused = CliError::from(clive_core::task_run::plan_task("rm -rf ~", false).unwrap_err());
        insta::assert_json_snapshot!(error_report(Some("rm -rf ~"), &refused));
    }
}
