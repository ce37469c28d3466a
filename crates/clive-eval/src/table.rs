//! The report as a table for people: one row per task (figures are medians over its runs; `?` is a figure
//! the agent does not report), then the totals and any comparison with a baseline.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::report::{Report, RunRecord, Status, median};

/// Renders `report` as text.
pub fn render(report: &Report) -> String {
    render_hiding(report, &BTreeSet::new())
}

/// Renders `report` as text without the rows and reasons of the tasks in `hidden` (held-out tasks: their runs
/// count in the totals, and one line says how many are not listed).
pub fn render_hiding(report: &Report, hidden: &BTreeSet<String>) -> String {
    let header = ["task", "pass", "route", "modes", "turns", "calls", "tok in", "tok out", "wall", "overhead", "fc"];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| (*h).to_owned()).collect()];
    let mut notes = Vec::new();
    let mut unlisted = (0, 0);
    for task in report.task_names() {
        let runs: Vec<&RunRecord> = report.runs_of(task).collect();
        if hidden.contains(task) {
            unlisted = (unlisted.0 + 1, unlisted.1 + runs.len());
            continue;
        }
        let passed = runs.iter().filter(|r| r.status == Status::Pass).count();
        let timeouts = runs.iter().filter(|r| r.status == Status::Timeout).count();
        let mut pass = format!("{passed}/{}", runs.len());
        if timeouts > 0 {
            pass.push_str(&format!(" ({timeouts} t/o)"));
        }
        let figure = |get: fn(&RunRecord) -> Option<u64>| known(median(runs.iter().filter_map(|r| get(r)).collect()));
        rows.push(vec![
            task.to_owned(),
            pass,
            most_common(runs.iter().map(|r| r.reported.route.clone().unwrap_or_else(|| "?".to_owned())).collect()),
            most_common(
                runs.iter().map(|r| r.reported.modes.as_ref().map_or("?".to_owned(), |m| m.join("+"))).collect(),
            ),
            figure(|r| r.reported.turns),
            figure(|r| r.reported.model_calls),
            figure(|r| r.reported.tokens_in),
            figure(|r| r.reported.tokens_out),
            duration(median(runs.iter().map(|r| r.wall_ms).collect())),
            median(runs.iter().filter_map(|r| r.overhead_ms).collect()).map_or("?".to_owned(), |ms| format!("{ms}ms")),
            runs.iter().filter(|r| r.false_completion).count().to_string(),
        ]);
        if let Some(failed) = runs.iter().find(|r| r.status != Status::Pass) {
            notes.push(format!("  {task} #{}: {}", failed.repeat, failed.reasons.join("; ")));
        }
    }
    // Text columns to the left, figures to the right.
    let mut out = columns(&rows, 4);
    let s = &report.summary;
    let _ = writeln!(
        out,
        "\n{} of {} runs passed ({:.1}%), {} failed, {} timed out, {} errors; false completions {} ({:.1}%)",
        s.passed,
        s.runs,
        s.pass_rate * 100.0,
        s.failed,
        s.timed_out,
        s.errors,
        s.false_completions,
        s.false_completion_rate * 100.0
    );
    let _ = writeln!(
        out,
        "tokens {} · per passed run {} · median turns {} · wall {} · median overhead {}   (agent {}, backend {})",
        known(s.tokens),
        s.tokens_per_pass.map_or("?".to_owned(), |t| format!("{t:.0}")),
        known(s.median_turns),
        duration(Some(s.wall_ms)),
        s.median_overhead_ms.map_or("?".to_owned(), |ms| format!("{ms}ms")),
        report.agent,
        report.backend,
    );
    if unlisted.0 > 0 {
        let _ = writeln!(
            out,
            "{} held-out tasks ({} runs) counted above, not listed (--show-heldout lists them)",
            unlisted.0, unlisted.1
        );
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\nnot passed:\n{}", notes.join("\n"));
    }
    if let Some(comparison) = &report.comparison {
        let _ = writeln!(out, "\ncompared with {}:", comparison.baseline);
        if comparison.regressions.is_empty() {
            let _ = writeln!(out, "  no regressions");
        }
        for change in &comparison.regressions {
            let _ = writeln!(out, "  REGRESSION {change}");
        }
        for change in &comparison.improvements {
            let _ = writeln!(out, "  improved   {change}");
        }
        if !comparison.new_tasks.is_empty() {
            let _ = writeln!(out, "  not in the baseline: {}", comparison.new_tasks.join(", "));
        }
    }
    out
}

/// `rows` as columns two spaces apart, each as wide as its widest cell: the first `left` columns aligned to the
/// left, the rest to the right; one line per row, without trailing spaces.
pub(crate) fn columns(rows: &[Vec<String>], left: usize) -> String {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..count)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(
                |(c, cell)| {
                    if c < left { format!("{cell:<w$}", w = widths[c]) } else { format!("{cell:>w$}", w = widths[c]) }
                },
            )
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

fn known(value: Option<u64>) -> String {
    value.map_or("?".to_owned(), |v| v.to_string())
}

fn duration(ms: Option<u64>) -> String {
    match ms {
        None => "?".to_owned(),
        Some(ms) if ms < 10_000 => format!("{:.1}s", ms as f64 / 1000.0),
        Some(ms) if ms < 600_000 => format!("{}s", ms / 1000),
        Some(ms) => format!("{}m{:02}s", ms / 60_000, ms / 1000 % 60),
    }
}

/// The value most runs share (ties: the first seen).
fn most_common(values: Vec<String>) -> String {
    let mut best: Option<(&String, usize)> = None;
    for v in &values {
        let n = values.iter().filter(|x| *x == v).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((v, n));
        }
    }
    best.map(|(v, _)| v.clone()).unwrap_or_default()
}
