//! The end-of-run table a CLI prints.

use crate::result::RunSummary;

/// Renders `summary` as a plain-text table: one row per subtask (id, pane, status, exit
/// code, time, summary or reason), then a line of totals. No colours; the caller prints it.
pub fn render_summary_table(summary: &RunSummary) -> String {
    let header = ["ID", "PANE", "STATUS", "EXIT", "TIME", "SUMMARY"];
    let rows: Vec<[String; 6]> = summary
        .results
        .iter()
        .map(|r| {
            let note = match (&r.reason, r.summary.is_empty()) {
                (Some(reason), true) => reason.clone(),
                (Some(reason), false) => format!("{reason}: {}", r.summary),
                (None, _) => r.summary.clone(),
            };
            [
                r.id.clone(),
                r.pane.clone(),
                r.status.to_string(),
                r.exit_code.map_or("-".to_string(), |c| c.to_string()),
                r.duration_ms.map_or("-".to_string(), |ms| format!("{:.2}s", ms as f64 / 1000.0)),
                note,
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut push_row = |cells: &[&str]| {
        let last = cells.len() - 1;
        for (i, cell) in cells.iter().enumerate() {
            if i == last {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push('\n');
    };
    push_row(&header);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        push_row(&cells);
    }
    use crate::result::SubtaskStatus as S;
    out.push_str(&format!(
        "{} succeeded, {} failed, {} timed out, {} skipped, {} cancelled in {:.2}s{}\n",
        summary.count(S::Succeeded),
        summary.count(S::Failed),
        summary.count(S::TimedOut),
        summary.count(S::Skipped),
        summary.count(S::Cancelled),
        summary.duration_ms as f64 / 1000.0,
        if summary.cancelled { " (cancelled)" } else { "" },
    ));
    out
}
