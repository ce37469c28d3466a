//! Grok CLI (Ink era): everything in a 2-column margin, a rounded box (blue idle, yellow
//! busy) around a cyan `❯` row, and the auto-edit / model footer.

use super::rounded_box::RoundedBox;
use super::{Bottom, BottomView, Skin, banner_lines, dialog, echo_rows, hint_text, input_lines};
use crate::agent::HistoryItem;
use crate::screen::{Line, Look, Paint};
use crate::wrap::wrap;

pub struct Grok;

const CYAN: Look = Look::ansi(6);
const GRAY_DIM: Look = Look::ansi(8).dim();
pub const PLACEHOLDER: &str = "Ask me anything...";
const SPINNER: [char; 4] = ['/', '-', '\\', '|'];

const TIPS: [&str; 7] = [
    "  Tips for getting started:",
    "  1. Ask questions, edit files, or run commands.",
    "  2. Be specific for the best results.",
    "  3. Create GROK.md files to customize your interactions with Grok.",
    "  4. Press Shift+Tab to toggle auto-edit mode.",
    "  5. /help for more information.",
    "  Type your request in natural language. Ctrl+C to clear, 'exit' to quit.",
];

impl Skin for Grok {
    fn banner(&self, _width: usize) -> Vec<Line> {
        banner_lines(&TIPS)
    }

    fn echo(&self, text: &str, width: usize) -> Vec<Line> {
        echo_rows(text, width, "  > ", "    ", Look::fg(246))
    }

    fn note(&self, item: &HistoryItem, _width: usize) -> Option<Line> {
        Some(Line::plain(match item {
            HistoryItem::User(_) | HistoryItem::Finished { .. } => return None,
            HistoryItem::Reply => "  ⏺ Done.",
            HistoryItem::Interrupted => "  [Operation cancelled by user]",
            HistoryItem::DialogAnswered(true) => "    ⎿ Approved",
            HistoryItem::DialogAnswered(false) => "    ⎿ Denied",
        }))
    }

    fn bottom(&self, view: &BottomView) -> Bottom {
        let agent = view.agent;
        let width = view.width;
        let mut lines = Vec::new();
        if let Some(secs) = agent.busy_secs() {
            let glyph = SPINNER[usize::try_from(secs % 4).unwrap_or(0)];
            lines.push(Line::plain(format!("  {glyph} Thinking... ({secs}s · ↑ 1.2k tokens · esc to interrupt)")));
            lines.push(Line::blank());
        }
        if agent.dialog_open {
            lines.extend(dialog::claude());
            return Bottom { lines, cursor: None };
        }
        for queued in &agent.queue {
            for (i, row) in wrap(&queued.display, width - 4).into_iter().enumerate() {
                let lead = if i == 0 { "  → " } else { "    " };
                lines.push(Line::styled(format!("{lead}{row}"), Look::dimmed()));
            }
        }
        let frame = RoundedBox { margin: 2, border: Look::ansi(if agent.busy.is_some() { 3 } else { 4 }) };
        lines.push(frame.top(width));
        let first_input_row = lines.len();
        // "│ ❯ " then text, at least one space before the right border.
        let text_width = frame.inner(width) - 4;
        let cursor;
        if agent.input_is_empty() {
            let mut content = Line::plain(" ").push("❯ ", CYAN);
            let hint = hint_text(agent, PLACEHOLDER, PLACEHOLDER);
            if let Some(hint) = hint {
                // Ink draws the cursor as a white-background space after the placeholder.
                content = content.push(hint, GRAY_DIM).push(" ", Look::ansi(0).on(Paint::Basic(7)));
            }
            lines.push(frame.row(width, content));
            cursor = Some((6, first_input_row));
        } else {
            let (input, (col, row)) = input_lines(view, text_width, 6, |first, text| {
                let lead = if first { "❯ " } else { "│ " };
                frame.row(width, Line::plain(" ").push(lead, CYAN).push(text, Look::PLAIN))
            });
            lines.extend(input);
            cursor = Some((col, first_input_row + row));
        }
        lines.push(frame.bottom(width));
        lines.push(Line::blank());
        lines.push(
            Line::plain("  ")
                .push("⏸ auto-edit: off", CYAN)
                .push(" (shift + tab)", GRAY_DIM)
                .push("  ", Look::PLAIN)
                .push("≋ grok-code-fast-1", Look::ansi(3)),
        );
        Bottom { lines, cursor }
    }
}
