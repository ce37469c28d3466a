//! How steady each task's outcome is over several reports of the same tasks, and where each report's passes
//! came from.
//!
//! A local model's runs are nearly repeatable: over fifteen runs of a 36-task batch most tasks pass every time or
//! never, and a difference of one pass between two runs is usually the one task that passes about half the time.
//! [`spread`] tells a real change from that: for every report it lists the passes of tasks that usually fail
//! ("rare passes", passed in under half of all the runs given) and the failures of tasks that usually pass ("usual
//! failures"), each by its pass rate. A change that turns a never-passing task into a pass shows as a rare pass of
//! `1/N`; a coin-flip task shows at about half. The rate alone says nothing of the task, so held-out tasks can be
//! shown by rate without their names ([`render`]).
//!
//! It also gives the ceiling a way of choosing among these outcomes could reach: the tasks passed at least once
//! ([`Spread::ever_passed`]). No vote or pick among runs passes a task that no run passed.
//!
//! ```
//! use clive_eval::spread::spread;
//! # use clive_eval::{Report, RunRecord, Status};
//! # fn run(task: &str, status: Status) -> RunRecord {
//! #     serde_json::from_value(serde_json::json!({"task": task, "repeat": 1, "status": status, "reasons": [],
//! #         "check_passed": status == Status::Pass, "exit_code": 0, "false_completion": false, "wall_ms": 1,
//! #         "overhead_ms": null, "fake": null})).unwrap()
//! # }
//! let before = Report::new("clive", "local", 1, vec![run("a", Status::Pass), run("b", Status::Fail)]);
//! let after = Report::new("clive", "local", 1, vec![run("a", Status::Pass), run("b", Status::Pass)]);
//! let again = Report::new("clive", "local", 1, vec![run("a", Status::Pass), run("b", Status::Fail)]);
//! let spread = spread(&[("before".into(), before), ("after".into(), after), ("again".into(), again)]);
//! assert_eq!(spread.ever_passed(), 2);
//! assert_eq!(spread.reports[1].rare_passes[0].task, "b"); // passed in 1 of 3 runs
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::report::{Report, Status};

/// One task's passes over all the reports' runs of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskRate {
    /// The task.
    pub task: String,
    /// Runs that passed.
    pub passed: usize,
    /// Runs of it, over all the reports.
    pub runs: usize,
}

impl TaskRate {
    /// Passed in under half of its runs.
    pub fn is_rare(&self) -> bool {
        2 * self.passed < self.runs
    }

    /// Passed in over half of its runs.
    pub fn is_usual(&self) -> bool {
        2 * self.passed > self.runs
    }
}

/// One report against the rates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportSpread {
    /// What the report was given as (its path).
    pub label: String,
    /// Its runs that passed.
    pub passed: usize,
    /// Its runs.
    pub runs: usize,
    /// Its passes of tasks that pass in under half of all runs, with those tasks' rates (a task once per pass).
    pub rare_passes: Vec<TaskRate>,
    /// Its failures of tasks that pass in over half of all runs, with those tasks' rates.
    pub usual_failures: Vec<TaskRate>,
}

/// Several reports' outcomes side by side ([`spread`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// Every task any report ran, by name.
    pub tasks: Vec<TaskRate>,
    /// Each report, in the order given.
    pub reports: Vec<ReportSpread>,
}

impl Spread {
    /// Tasks passed in at least one run: the most any choice among these runs' results could pass.
    pub fn ever_passed(&self) -> usize {
        self.tasks.iter().filter(|t| t.passed > 0).count()
    }

    /// Tasks passed in every run.
    pub fn always_passed(&self) -> usize {
        self.tasks.iter().filter(|t| t.passed == t.runs).count()
    }

    /// How many tasks passed how many of how many runs: `(passed, runs, tasks)`, fewest passes first.
    pub fn histogram(&self) -> Vec<(usize, usize, usize)> {
        let mut counts: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for task in &self.tasks {
            *counts.entry((task.passed, task.runs)).or_default() += 1;
        }
        counts.into_iter().map(|((passed, runs), tasks)| (passed, runs, tasks)).collect()
    }
}

/// The rates of every task over `reports` (label, report), and each report's passes and failures against them. A
/// run passes when its status is [`Status::Pass`], as in the reports' own totals.
pub fn spread(reports: &[(String, Report)]) -> Spread {
    let mut rates: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (_, report) in reports {
        for run in &report.runs {
            let rate = rates.entry(run.task.as_str()).or_default();
            rate.0 += usize::from(run.status == Status::Pass);
            rate.1 += 1;
        }
    }
    let rate_of = |task: &str| {
        let (passed, runs) = rates.get(task).copied().unwrap_or_default();
        TaskRate { task: task.to_owned(), passed, runs }
    };
    let lines = reports
        .iter()
        .map(|(label, report)| {
            let mut rare_passes = Vec::new();
            let mut usual_failures = Vec::new();
            for run in &report.runs {
                let rate = rate_of(&run.task);
                match run.status == Status::Pass {
                    true if rate.is_rare() => rare_passes.push(rate),
                    false if rate.is_usual() => usual_failures.push(rate),
                    _ => {}
                }
            }
            // Rarest first: a pass no other run had is the one to look for.
            rare_passes.sort_by_key(|r| (r.passed, r.task.clone()));
            usual_failures.sort_by_key(|r| (std::cmp::Reverse(r.passed), r.task.clone()));
            ReportSpread {
                label: label.clone(),
                passed: report.runs.iter().filter(|r| r.status == Status::Pass).count(),
                runs: report.runs.len(),
                rare_passes,
                usual_failures,
            }
        })
        .collect();
    Spread { tasks: rates.keys().map(|task| rate_of(task)).collect(), reports: lines }
}

/// Renders `spread` as text; the tasks in `hidden` (held-out tasks) are shown by their rate only.
pub fn render(spread: &Spread, hidden: &BTreeSet<String>) -> String {
    let tasks = spread.tasks.len();
    let unnamed = spread.tasks.iter().filter(|t| hidden.contains(&t.task)).count();
    let mut out = format!("{} reports · {tasks} tasks", spread.reports.len());
    if unnamed > 0 {
        out.push_str(&format!(" ({unnamed} held out: shown by pass rate only)"));
    }
    out.push('\n');
    let histogram: Vec<String> = spread
        .histogram()
        .iter()
        .map(|(passed, runs, count)| format!("{passed}/{runs}: {count} {}", if *count == 1 { "task" } else { "tasks" }))
        .collect();
    out.push_str(&format!("runs passed per task: {}\n", histogram.join(" · ")));
    out.push_str(&format!(
        "passed at least once: {} of {tasks} ({}) · every time: {} of {tasks} ({})\n\n",
        spread.ever_passed(),
        percent(spread.ever_passed(), tasks),
        spread.always_passed(),
        percent(spread.always_passed(), tasks),
    ));
    let named = |rates: &[TaskRate]| -> String {
        if rates.is_empty() {
            return "-".to_owned();
        }
        let shown: Vec<String> = rates
            .iter()
            .map(|r| {
                if hidden.contains(&r.task) {
                    format!("{}/{}", r.passed, r.runs)
                } else {
                    format!("{} {}/{}", r.task, r.passed, r.runs)
                }
            })
            .collect();
        shown.join(", ")
    };
    let mut rows = vec![vec!["report".to_owned(), "passed".into(), "rare passes".into(), "usual failures".into()]];
    for report in &spread.reports {
        rows.push(vec![
            report.label.clone(),
            format!("{}/{}", report.passed, report.runs),
            named(&report.rare_passes),
            named(&report.usual_failures),
        ]);
    }
    out.push_str(&crate::table::columns(&rows, 4));
    out
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 { "-".to_owned() } else { format!("{:.1} %", part as f64 * 100.0 / whole as f64) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RunRecord;
    use proptest::prelude::*;

    fn run(task: &str, pass: bool) -> RunRecord {
        serde_json::from_value(serde_json::json!({
            "task": task, "repeat": 1, "status": if pass { "pass" } else { "fail" }, "reasons": [],
            "check_passed": pass, "exit_code": 0, "false_completion": false, "wall_ms": 1,
            "overhead_ms": null, "fake": null
        }))
        .unwrap()
    }

    /// Reports from rows of outcomes: `outcomes[r][t]` is whether task `t` passed in report `r`.
    fn reports(outcomes: &[Vec<bool>]) -> Vec<(String, Report)> {
        outcomes
            .iter()
            .enumerate()
            .map(|(r, row)| {
                let runs = row.iter().enumerate().map(|(t, pass)| run(&format!("t{t}"), *pass)).collect();
                (format!("r{r}.json"), Report::new("clive", "local", 1, runs))
            })
            .collect()
    }

    #[test]
    fn a_coin_flip_and_a_real_flip_are_told_apart() {
        // t0 always passes, t1 passes half the time, t2 never but in the last report, t3 never.
        let spread = spread(&reports(&[
            vec![true, true, false, false],
            vec![true, false, false, false],
            vec![true, true, false, false],
            vec![false, false, true, false],
        ]));
        assert_eq!(spread.histogram(), vec![(0, 4, 1), (1, 4, 1), (2, 4, 1), (3, 4, 1)]);
        assert_eq!((spread.ever_passed(), spread.always_passed()), (3, 0));
        // The coin flip (2/4) is neither rare nor usual: no report is credited or blamed for it.
        assert!(spread.reports[..3].iter().all(|r| r.rare_passes.is_empty()));
        let last = &spread.reports[3];
        assert_eq!(last.rare_passes, [TaskRate { task: "t2".into(), passed: 1, runs: 4 }]);
        assert_eq!(last.usual_failures, [TaskRate { task: "t0".into(), passed: 3, runs: 4 }]);
        assert_eq!((last.passed, last.runs), (1, 4));
    }

    #[test]
    fn held_out_tasks_are_shown_by_rate_only() {
        let spread = spread(&reports(&[vec![true, false, false], vec![true, true, false], vec![true, false, false]]));
        let hidden: BTreeSet<String> = ["t1".to_owned()].into();
        let text = render(&spread, &hidden);
        assert!(!text.contains("t1"), "{text}");
        insta::assert_snapshot!(text);
        let shown = render(&spread, &BTreeSet::new());
        assert!(shown.contains("t1 1/3"), "{shown}");
    }

    proptest! {
        /// Every task is counted once; a report's rare passes are some of its passes, its usual failures some of
        /// its failures; nothing passed every time unless it passed at least once.
        #[test]
        fn the_counts_add_up(outcomes in prop::collection::vec(prop::collection::vec(any::<bool>(), 5), 1..6)) {
            let spread = spread(&reports(&outcomes));
            prop_assert_eq!(spread.histogram().iter().map(|(_, _, n)| n).sum::<usize>(), 5);
            prop_assert!(spread.always_passed() <= spread.ever_passed());
            for (line, row) in spread.reports.iter().zip(&outcomes) {
                let passed = row.iter().filter(|p| **p).count();
                prop_assert_eq!(line.passed, passed);
                prop_assert!(line.rare_passes.len() <= passed);
                prop_assert!(line.usual_failures.len() <= row.len() - passed);
            }
        }
    }
}
