//! `clive undo <id>`: what the engine's undo ([`clive_core::undo`]) restored, as text.

use clive_core::undo::UndoReport;

/// The text `clive undo` prints.
pub fn render(report: &UndoReport) -> String {
    let mut out = format!("undid {} change(s) of {}:\n", report.undone.len(), report.session);
    for change in &report.undone {
        out.push_str(&format!("  {change} (undone)\n"));
    }
    out
}
