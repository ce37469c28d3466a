//! The results: one [`RunRecord`] per run of a task, a [`Summary`], and the [`Report`] that `--json` prints
//! (schema version [`SCHEMA`]; unknown figures are `null`, never 0).

use serde::{Deserialize, Serialize};

use crate::agent_report::Figures;
use crate::baseline::Comparison;
use crate::replies::FakeUsage;

/// The version of the JSON report's shape; bumped on any incompatible change.
pub const SCHEMA: u32 = 1;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The check passed and every expectation and limit held.
    Pass,
    /// The check failed, or an expectation or limit did not hold.
    Fail,
    /// The agent ran out of time (the check still ran, for the record, but a timeout never passes).
    Timeout,
    /// The run could not be carried out (the agent did not start, the check could not run).
    Error,
}

impl Status {
    /// The word used in tables and progress lines.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Timeout => "timeout",
            Status::Error => "error",
        }
    }
}

/// One run of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The task's name.
    pub task: String,
    /// Which repeat (1-based).
    pub repeat: u32,
    /// The outcome.
    pub status: Status,
    /// Why it did not pass (empty on a pass).
    pub reasons: Vec<String>,
    /// Whether the check passed (`None`: it did not run).
    pub check_passed: Option<bool>,
    /// The agent's exit code (`None`: killed, or no agent).
    pub exit_code: Option<i32>,
    /// The agent claimed success but the check failed.
    pub false_completion: bool,
    /// What the agent reported (route, modes, claimed success, turns, calls, tokens, cost, times, files).
    #[serde(flatten)]
    pub reported: Figures,
    /// The agent's wall time as measured by the runner (spawn to exit).
    pub wall_ms: u64,
    /// The agent's own time: wall − model − command, when both are known.
    pub overhead_ms: Option<u64>,
    /// Use of the fake model, with that backend.
    pub fake: Option<FakeUsage>,
}

/// Totals over all runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Distinct tasks.
    pub tasks: usize,
    /// Runs (tasks × repeats).
    pub runs: usize,
    /// Runs that passed.
    pub passed: usize,
    /// Runs that failed.
    pub failed: usize,
    /// Runs that timed out.
    pub timed_out: usize,
    /// Runs that could not be carried out.
    pub errors: usize,
    /// passed / runs.
    pub pass_rate: f64,
    /// Runs where the agent claimed success but the check failed.
    pub false_completions: usize,
    /// false completions / runs.
    pub false_completion_rate: f64,
    /// Tokens (in + out) over the runs that report them.
    pub tokens: Option<u64>,
    /// Runs that do not report tokens (then `tokens` and `tokens_per_pass` are lower bounds).
    pub runs_without_tokens: usize,
    /// Tokens (in + out) of all runs, passed or not, / passed runs: what one success costs (`None` without
    /// passes or without any tokens reported).
    pub tokens_per_pass: Option<f64>,
    /// Sum of the runs' wall times.
    pub wall_ms: u64,
    /// Median of the runs' overhead, over the runs that report it.
    pub median_overhead_ms: Option<u64>,
    /// Median turns (interactive turns, script attempts), over the runs that report them.
    #[serde(default)]
    pub median_turns: Option<u64>,
}

impl Summary {
    /// Totals over `runs`.
    pub fn of(runs: &[RunRecord]) -> Summary {
        let count = |status| runs.iter().filter(|r| r.status == status).count();
        let passed = count(Status::Pass);
        let false_completions = runs.iter().filter(|r| r.false_completion).count();
        let rate = |n: usize| if runs.is_empty() { 0.0 } else { round3(n as f64 / runs.len() as f64) };
        let known: Vec<u64> = runs.iter().filter_map(|r| r.reported.tokens_total()).collect();
        let tokens = (!known.is_empty()).then(|| known.iter().sum::<u64>());
        let mut tasks: Vec<&str> = runs.iter().map(|r| r.task.as_str()).collect();
        tasks.sort_unstable();
        tasks.dedup();
        Summary {
            tasks: tasks.len(),
            runs: runs.len(),
            passed,
            failed: count(Status::Fail),
            timed_out: count(Status::Timeout),
            errors: count(Status::Error),
            pass_rate: rate(passed),
            false_completions,
            false_completion_rate: rate(false_completions),
            tokens,
            runs_without_tokens: runs.len() - known.len(),
            tokens_per_pass: tokens.filter(|_| passed > 0).map(|t| round3(t as f64 / passed as f64)),
            wall_ms: runs.iter().map(|r| r.wall_ms).sum(),
            median_overhead_ms: median(runs.iter().filter_map(|r| r.overhead_ms).collect()),
            median_turns: median(runs.iter().filter_map(|r| r.reported.turns).collect()),
        }
    }
}

/// The whole result of `clive-eval run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: u32,
    /// What ran the tasks: `clive`, `reference` (each task's solution.sh) or `none`.
    pub agent: String,
    /// The model backend: `env`, `fake` or `local`.
    pub backend: String,
    /// Runs per task.
    pub repeats: u32,
    /// Totals.
    pub summary: Summary,
    /// Every run, sorted by task and repeat.
    pub runs: Vec<RunRecord>,
    /// The comparison with a baseline, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

impl Report {
    /// A report over `runs` (sorted here, so parallel runs give the same report).
    pub fn new(agent: &str, backend: &str, repeats: u32, mut runs: Vec<RunRecord>) -> Report {
        runs.sort_by(|a, b| (a.task.as_str(), a.repeat).cmp(&(b.task.as_str(), b.repeat)));
        Report {
            schema: SCHEMA,
            agent: agent.to_owned(),
            backend: backend.to_owned(),
            repeats,
            summary: Summary::of(&runs),
            runs,
            comparison: None,
        }
    }

    /// Reads a report written by `--json` or `--output`.
    pub fn read(path: &std::path::Path) -> Result<Report, crate::Error> {
        let bad = |problem: String| crate::Error::BadReport { path: path.to_owned(), problem };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let report: Report = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if report.schema != SCHEMA {
            return Err(bad(format!("schema {} (this clive-eval reads {SCHEMA})", report.schema)));
        }
        Ok(report)
    }

    /// The runs of one task.
    pub fn runs_of<'a>(&'a self, task: &'a str) -> impl Iterator<Item = &'a RunRecord> + 'a {
        self.runs.iter().filter(move |r| r.task == task)
    }

    /// Task names in order, once each.
    pub fn task_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.runs.iter().map(|r| r.task.as_str()).collect();
        names.dedup();
        names
    }
}

/// The median (the lower middle of an even count), `None` for no values.
pub fn median(mut values: Vec<u64>) -> Option<u64> {
    values.sort_unstable();
    values.get(values.len().saturating_sub(1) / 2).copied()
}

/// Rounded to 3 decimals, so reports do not carry float noise.
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
