//! A run compared with a saved baseline report: a task whose pass rate dropped, or whose tokens per passed
//! run grew by more than a threshold, is a regression.

use serde::{Deserialize, Serialize};

use crate::report::{Report, Status, round3};

/// What changed for one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The task.
    pub task: String,
    /// `pass_rate` or `tokens_per_pass`.
    pub metric: String,
    /// The baseline's value.
    pub before: f64,
    /// This run's value.
    pub after: f64,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.metric == "pass_rate" {
            write!(f, "{}: passed {:.0}% -> {:.0}%", self.task, self.before * 100.0, self.after * 100.0)
        } else if self.before > 0.0 {
            let change = (self.after / self.before - 1.0) * 100.0;
            write!(f, "{}: tokens per pass {:.0} -> {:.0} ({change:+.0}%)", self.task, self.before, self.after)
        } else {
            write!(f, "{}: tokens per pass {:.0} -> {:.0}", self.task, self.before, self.after)
        }
    }
}

/// The comparison of a run with a baseline, over the tasks both ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Where the baseline came from.
    pub baseline: String,
    /// The token threshold used (0.2 = 20 % more tokens is a regression).
    pub token_threshold: f64,
    /// Worse than the baseline.
    pub regressions: Vec<Change>,
    /// Better than the baseline.
    pub improvements: Vec<Change>,
    /// Tasks this run has and the baseline lacks.
    pub new_tasks: Vec<String>,
}

impl Comparison {
    /// Whether anything regressed.
    pub fn regressed(&self) -> bool {
        !self.regressions.is_empty()
    }
}

/// Compares `report` with `baseline` (named `label` in the output). Pass rates compare per task; tokens per
/// passed run compare where both runs passed at least once and report tokens. A task that needed no tokens
/// and now needs some is a regression whatever the threshold.
pub fn compare(baseline: &Report, report: &Report, label: &str, token_threshold: f64) -> Comparison {
    let mut comparison = Comparison {
        baseline: label.to_owned(),
        token_threshold,
        regressions: vec![],
        improvements: vec![],
        new_tasks: vec![],
    };
    for task in report.task_names() {
        let (Some(before), Some(after)) = (TaskFigures::of(baseline, task), TaskFigures::of(report, task)) else {
            comparison.new_tasks.push(task.to_owned());
            continue;
        };
        let change = |metric: &str, before: f64, after: f64| Change {
            task: task.to_owned(),
            metric: metric.to_owned(),
            before: round3(before),
            after: round3(after),
        };
        if after.pass_rate < before.pass_rate {
            comparison.regressions.push(change("pass_rate", before.pass_rate, after.pass_rate));
        } else if after.pass_rate > before.pass_rate {
            comparison.improvements.push(change("pass_rate", before.pass_rate, after.pass_rate));
        }
        if let (Some(b), Some(a)) = (before.tokens_per_pass, after.tokens_per_pass) {
            if a > b * (1.0 + token_threshold) {
                comparison.regressions.push(change("tokens_per_pass", b, a));
            } else if a < b * (1.0 - token_threshold) {
                comparison.improvements.push(change("tokens_per_pass", b, a));
            }
        }
    }
    comparison
}

struct TaskFigures {
    pass_rate: f64,
    tokens_per_pass: Option<f64>,
}

impl TaskFigures {
    fn of(report: &Report, task: &str) -> Option<TaskFigures> {
        let runs: Vec<_> = report.runs_of(task).collect();
        let passed: Vec<_> = runs.iter().filter(|r| r.status == Status::Pass).collect();
        if runs.is_empty() {
            return None;
        }
        let tokens: Option<Vec<u64>> = passed.iter().map(|r| r.reported.tokens_total()).collect();
        Some(TaskFigures {
            pass_rate: passed.len() as f64 / runs.len() as f64,
            tokens_per_pass: tokens.filter(|t| !t.is_empty()).map(|t| t.iter().sum::<u64>() as f64 / t.len() as f64),
        })
    }
}
