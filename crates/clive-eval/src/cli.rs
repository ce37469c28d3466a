//! The `clive-eval` command line: parse, call the library, print.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::json;

use crate::report::{Report, RunRecord, Status};
use crate::run::{Agent, Backend, RunOptions, default_clive, default_jobs, run_suite};
use crate::task::{Filter, Suite, Task};
use crate::{Error, baseline, table};

const EXAMPLES: &str = "\
Examples:
  clive-eval run                                  every task, against the model the environment configures
  clive-eval run --tag smoke --backend local      the smoke set against LOCAL_LLM_URL
  clive-eval run --backend fake                   every task against its scripted fake model (CI)
  clive-eval run 'log-*' --repeat 3 --json        three runs of each log task, as JSON
  clive-eval run --output new.json --baseline evals/baselines/local.json
  clive-eval validate                             every check fails on its fixtures and passes after solution.sh
  clive-eval list --tag answer
  clive-eval run --tag heldout --backend local -o heldout.json   held-out tasks: counted, not shown
  clive-eval spread before.json after.json again.json   which passes are the usual ones, run after run

Exit codes:
  0    everything passed (with --baseline: nothing regressed)
  1    a run did not pass, a check is not real (validate), or something regressed (--baseline, compare)
  2    bad usage, an invalid task or reply script, no task selected, an unreadable report, no clive binary
  125  the harness itself failed (temporary files, processes)";

/// Runs clive's eval tasks and measures what each success costs.
#[derive(Debug, Parser)]
#[command(name = "clive-eval", version, after_help = EXAMPLES)]
pub struct Cli {
    /// The suite directory [default: evals/tasks here or in the nearest parent directory that has one].
    #[arg(long, global = true, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long, global = true)]
    pub json: bool,
    /// Show held-out tasks (tag `heldout`) by name, with their wording and why they failed; by default the text
    /// `run` and `list` print counts them without showing them, so that whoever tunes clive does not learn them by
    /// accident (JSON output keeps everything).
    #[arg(long, global = true)]
    pub show_heldout: bool,
    /// -v info, -vv debug logs on stderr (RUST_LOG overrides).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run tasks and report.
    Run(RunArgs),
    /// List tasks: name, tags, task text.
    List(Selection),
    /// Prove the checks: each must fail on the untouched fixtures and pass after the task's solution.sh.
    Validate(Selection),
    /// Compare two saved reports (from --json or --output).
    Compare {
        /// The baseline report.
        baseline: PathBuf,
        /// The newer report.
        report: PathBuf,
        /// Tokens per passed run may grow by this share before it counts as a regression.
        #[arg(long, default_value_t = 0.2, value_name = "SHARE")]
        token_threshold: f64,
    },
    /// Set saved reports of the same tasks side by side: each task's pass rate over all their runs, and for each
    /// report its passes of tasks that usually fail and its failures of tasks that usually pass. Held-out tasks
    /// are shown by rate only.
    Spread {
        /// The reports (from --json or --output), two or more.
        #[arg(required = true, num_args = 2.., value_name = "REPORT")]
        reports: Vec<PathBuf>,
    },
}

/// Which tasks.
#[derive(Debug, Clone, Args)]
pub struct Selection {
    /// Task names; `*` is a wildcard (`'log-*'`). None: every task.
    #[arg(value_name = "TASK")]
    pub names: Vec<String>,
    /// Only tasks with this tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
}

impl Selection {
    fn filter(&self) -> Filter {
        Filter { names: self.names.clone(), tags: self.tags.clone() }
    }
}

/// The model a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// The provider the environment configures (ANTHROPIC_API_KEY, OPENAI_API_KEY, …).
    Env,
    /// A scripted fake server per run, answering from the task's replies.toml.
    Fake,
    /// The local llama.cpp server at LOCAL_LLM_URL (or --local-url).
    Local,
}

/// What runs the tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentArg {
    /// The clive binary.
    Clive,
    /// Each task's solution.sh.
    Reference,
    /// Nothing (checks run on the untouched fixtures).
    None,
}

/// Options of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Which tasks.
    #[command(flatten)]
    pub selection: Selection,
    /// The clive binary to evaluate [default: `clive` next to clive-eval, e.g. target/debug/clive].
    #[arg(long, env = "CLIVE_EVAL_CLIVE", value_name = "PATH")]
    pub clive: Option<PathBuf>,
    /// What runs the tasks.
    #[arg(long, value_enum, default_value_t = AgentArg::Clive)]
    pub agent: AgentArg,
    /// The model.
    #[arg(long, value_enum, default_value_t = BackendArg::Env)]
    pub backend: BackendArg,
    /// The local model's URL, for --backend local.
    #[arg(long, env = "LOCAL_LLM_URL", value_name = "URL")]
    pub local_url: Option<String>,
    /// Runs per task.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Runs at the same time [default: the number of cores; 1 with --backend local].
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Wall-time limit per run in seconds, instead of each task's own.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// Keep every run's directory (working directory, outputs, requests) under DIR/TASK/REPEAT/; a held-out task's
    /// only with --show-heldout.
    #[arg(long, value_name = "DIR")]
    pub artifacts: Option<PathBuf>,
    /// Also write the JSON report to FILE (to use later as a baseline).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Compare with this earlier report; exit 1 only if something regressed.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Tokens per passed run may grow by this share before it counts as a regression.
    #[arg(long, default_value_t = 0.2, value_name = "SHARE")]
    pub token_threshold: f64,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Sets up `tracing` on stderr: `-v` info, `-vv` debug; `RUST_LOG` overrides.
pub fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

/// Runs one parsed invocation and returns the exit code.
pub async fn execute(cli: Cli) -> i32 {
    match dispatch(&cli).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("clive-eval: {error}");
            if cli.json {
                out(&json!({ "error": error.to_string(), "exit_code": error.exit_code() }).to_string());
            }
            error.exit_code()
        }
    }
}

async fn dispatch(cli: &Cli) -> Result<i32, Error> {
    if let Command::Compare { baseline, report, token_threshold } = &cli.command {
        let (before, mut after) = (Report::read(baseline)?, Report::read(report)?);
        let comparison = baseline::compare(&before, &after, &baseline.display().to_string(), *token_threshold);
        let regressed = comparison.regressed();
        after.comparison = Some(comparison);
        print_report(&after, cli.json, &BTreeSet::new());
        return Ok(i32::from(regressed));
    }
    if let Command::Spread { reports } = &cli.command {
        spread(reports, cli)?;
        return Ok(0);
    }
    let suite_dir = match &cli.suite {
        Some(dir) => dir.clone(),
        None => Suite::find_default().ok_or_else(|| Error::Io {
            path: "evals/tasks".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no suite here or above; name one with --suite"),
        })?,
    };
    let suite = Suite::load(&suite_dir)?;
    match &cli.command {
        Command::List(selection) => {
            list(&suite.select(&selection.filter())?, cli.json, cli.show_heldout);
            Ok(0)
        }
        Command::Validate(selection) => validate(&suite.select(&selection.filter())?, cli.json).await,
        Command::Run(args) => run(&suite.select(&args.selection.filter())?, args, cli.json, cli.show_heldout).await,
        Command::Compare { .. } | Command::Spread { .. } => unreachable!("handled above"),
    }
}

async fn run(tasks: &[Task], args: &RunArgs, json: bool, show_heldout: bool) -> Result<i32, Error> {
    let agent = match args.agent {
        AgentArg::Clive => Agent::Clive(match &args.clive {
            Some(path) => path.clone(),
            None => default_clive().ok_or_else(|| Error::CliveNotFound { path: "clive".into() })?,
        }),
        AgentArg::Reference => Agent::Reference,
        AgentArg::None => Agent::Nothing,
    };
    let backend = match args.backend {
        BackendArg::Env => Backend::Env,
        BackendArg::Fake => Backend::Fake,
        BackendArg::Local => {
            Backend::Local(args.local_url.clone().filter(|u| !u.is_empty()).ok_or(Error::NoLocalModel)?)
        }
    };
    // Read the baseline first: a typo in its path should not cost a whole run.
    let baseline = args.baseline.as_deref().map(Report::read).transpose()?;
    let jobs = match (args.jobs, &backend) {
        (Some(jobs), _) => jobs as usize,
        (None, Backend::Local(_)) => 1,
        (None, _) => default_jobs(),
    };
    let options = RunOptions {
        jobs,
        repeats: args.repeat,
        timeout: args.timeout.map(Duration::from_secs),
        artifacts: args.artifacts.clone(),
        held_out_artifacts: show_heldout,
        scratch: None,
        backend,
        agent,
    };
    let quiet = args.quiet;
    let hidden: BTreeSet<String> =
        tasks.iter().filter(|t| !show_heldout && t.is_held_out()).map(|t| t.name.clone()).collect();
    if args.artifacts.is_some() && !hidden.is_empty() {
        eprintln!(
            "clive-eval: --artifacts keeps no directory of the {} held-out tasks selected (--show-heldout keeps them)",
            hidden.len()
        );
    }
    let mut report = run_suite(tasks, &options, |record, done, total| {
        if !quiet {
            eprintln!("{}", progress_line(record, done, total, hidden.contains(&record.task)));
        }
    })
    .await?;
    if let (Some(before), Some(path)) = (&baseline, &args.baseline) {
        report.comparison = Some(baseline::compare(before, &report, &path.display().to_string(), args.token_threshold));
    }
    if let Some(path) = &args.output {
        write_json(path, &report)?;
    }
    print_report(&report, json, &hidden);
    let failed = match &report.comparison {
        Some(comparison) => comparison.regressed(),
        None => report.summary.passed < report.summary.runs,
    };
    Ok(i32::from(failed))
}

/// `[3/39] count-lines #1 pass 2.1s 812 tokens` (reasons follow a failure); a `hidden` (held-out) task's line
/// has neither its name nor its reasons.
fn progress_line(record: &RunRecord, done: usize, total: usize, hidden: bool) -> String {
    let mut line = format!(
        "[{done}/{total}] {} #{} {} {:.1}s",
        if hidden { "(a held-out task)" } else { record.task.as_str() },
        record.repeat,
        record.status.as_str(),
        record.wall_ms as f64 / 1000.0
    );
    if let Some(tokens) = record.reported.tokens_total() {
        line.push_str(&format!(" {tokens} tokens"));
    }
    if record.status != Status::Pass && !record.reasons.is_empty() && !hidden {
        line.push_str(&format!(": {}", record.reasons.join("; ")));
    }
    line
}

async fn validate(tasks: &[Task], json: bool) -> Result<i32, Error> {
    let quiet = |_: &RunRecord, _: usize, _: usize| {};
    let untouched = run_suite(tasks, &RunOptions::new(Agent::Nothing), quiet).await?;
    let solved = run_suite(tasks, &RunOptions::new(Agent::Reference), quiet).await?;
    let mut problems = Vec::new();
    for run in &untouched.runs {
        if run.check_passed != Some(false) {
            problems.push((run.task.clone(), "the check does not fail on the untouched fixtures".to_owned()));
        }
    }
    for run in &solved.runs {
        if run.status != Status::Pass {
            problems.push((run.task.clone(), format!("after solution.sh: {}", run.reasons.join("; "))));
        }
    }
    problems.sort();
    if json {
        let problems: Vec<_> =
            problems.iter().map(|(task, problem)| json!({"task": task, "problem": problem})).collect();
        out(&json!({"tasks": tasks.len(), "problems": problems}).to_string());
    } else if problems.is_empty() {
        out(&format!("{} tasks: every check fails on its fixtures and passes after its solution.sh", tasks.len()));
    } else {
        for (task, problem) in &problems {
            out(&format!("{task}: {problem}"));
        }
    }
    Ok(i32::from(!problems.is_empty()))
}

fn list(tasks: &[Task], json: bool, show_heldout: bool) {
    if json {
        let tasks: Vec<_> = tasks
            .iter()
            .map(|t| {
                json!({"name": t.name, "tags": t.spec.tags, "task": t.spec.task, "expect_route": t.spec.expect.route,
                       "timeout_secs": t.spec.limits.timeout_secs, "max_tokens": t.spec.limits.max_tokens,
                       "fake_replies": t.replies_file().is_some()})
            })
            .collect();
        out(&serde_json::Value::Array(tasks).to_string());
        return;
    }
    let width = tasks.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let tag_width = tasks.iter().map(|t| t.spec.tags.join(",").len()).max().unwrap_or(0);
    let mut unlisted = 0;
    for task in tasks {
        if task.is_held_out() && !show_heldout {
            unlisted += 1;
            continue;
        }
        out(&format!("{:<width$}  {:<tag_width$}  {}", task.name, task.spec.tags.join(","), task.spec.task));
    }
    if unlisted > 0 {
        out(&format!("{unlisted} held-out tasks not listed (--show-heldout lists them)"));
    }
}

/// `spread`: the reports side by side. Names of held-out tasks, and of every task when no suite says which are
/// held out, are left out of the text (JSON keeps everything, as `run --json` does).
fn spread(paths: &[PathBuf], cli: &Cli) -> Result<(), Error> {
    let reports = paths
        .iter()
        .map(|path| Ok((path.display().to_string(), Report::read(path)?)))
        .collect::<Result<Vec<_>, Error>>()?;
    let spread = crate::spread::spread(&reports);
    if cli.json {
        out(&serde_json::to_string_pretty(&spread).unwrap_or_default());
        return Ok(());
    }
    let suite = match &cli.suite {
        Some(dir) => Some(Suite::load(dir)?),
        None => Suite::find_default().and_then(|dir| Suite::load(&dir).ok()),
    };
    let visible: BTreeSet<&str> = match &suite {
        Some(suite) => suite.tasks.iter().filter(|t| !t.is_held_out()).map(|t| t.name.as_str()).collect(),
        None => BTreeSet::new(),
    };
    let hidden: BTreeSet<String> = spread
        .tasks
        .iter()
        .filter(|t| !cli.show_heldout && !visible.contains(t.task.as_str()))
        .map(|t| t.task.clone())
        .collect();
    out(crate::spread::render(&spread, &hidden).trim_end());
    Ok(())
}

fn print_report(report: &Report, json: bool, hidden: &BTreeSet<String>) {
    if json {
        out(&serde_json::to_string_pretty(report).unwrap_or_default());
    } else {
        out(table::render_hiding(report, hidden).trim_end());
    }
}

fn write_json(path: &Path, report: &Report) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(report).unwrap_or_default() + "\n";
    std::fs::write(path, text).map_err(|source| Error::Io { path: path.to_owned(), source })
}

/// Prints a line on stdout; a closed pipe (`clive-eval … | head`) is not an error.
fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
}
