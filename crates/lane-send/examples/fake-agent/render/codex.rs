//! Codex CLI: header card, a tinted composer block (pad row, bold `›` row, pad row) without
//! box glyphs, and footer rows below it.

use super::{Bottom, BottomView, Skin, banner_lines, dialog, hint_text, input_lines, spread};
use crate::agent::HistoryItem;
use crate::screen::{Line, Look, Paint, display_width, repeat};
use crate::wrap::wrap;

pub struct Codex;

const TINT: Paint = Paint::Idx(236);
pub const PLACEHOLDER: &str = "Run /review on my current changes";

const CARD: [&str; 8] = [
    "╭─────────────────────────────────────────────╮",
    "│ >_ OpenAI Codex (v0.104.0)                  │",
    "│                                             │",
    "│ model:     gpt-5.3-codex   /model to change │",
    "│ directory: ~/src/demo                       │",
    "╰─────────────────────────────────────────────╯",
    "",
    "  Tip: Start a fresh idea with /new; the previous session stays in history.",
];

/// A `› text` row on the tint (`show_prompt`), or a continuation row indented two columns.
fn composer_row(show_prompt: bool, text: String) -> Line {
    let lead = if show_prompt {
        Line::styled("›", Look::PLAIN.bold().on(TINT)).push(" ", Look::PLAIN.on(TINT))
    } else {
        Line::styled("  ", Look::PLAIN.on(TINT))
    };
    lead.push(text, Look::PLAIN.on(TINT)).filled(TINT)
}

impl Skin for Codex {
    fn banner(&self, _width: usize) -> Vec<Line> {
        banner_lines(&CARD)
    }

    fn echo(&self, text: &str, width: usize) -> Vec<Line> {
        wrap(text, width - 2).into_iter().enumerate().map(|(i, row)| composer_row(i == 0, row)).collect()
    }

    fn note(&self, item: &HistoryItem, width: usize) -> Option<Line> {
        Some(match item {
            HistoryItem::User(_) => return None,
            HistoryItem::Reply => Line::plain("• Done."),
            HistoryItem::Finished { secs } => {
                let label = format!("─ Worked for {secs}s ");
                let rest = width.saturating_sub(display_width(&label));
                Line::styled(format!("{label}{}", repeat('─', rest)), Look::dimmed())
            }
            HistoryItem::Interrupted => {
                Line::plain("■ Conversation interrupted - tell the model what to do differently.")
            }
            HistoryItem::DialogAnswered(true) => {
                Line::plain("✔ You approved codex to run rm -rf build && npm run build")
            }
            HistoryItem::DialogAnswered(false) => {
                Line::plain("✗ You canceled the request to run rm -rf build && npm run build")
            }
        })
    }

    fn bottom(&self, view: &BottomView) -> Bottom {
        let agent = view.agent;
        let width = view.width;
        let mut lines = Vec::new();
        if let Some(secs) = agent.busy_secs() {
            lines.push(
                Line::plain("◦ ")
                    .push("Working", Look::PLAIN.bold())
                    .push(format!(" ({secs}s • esc to interrupt)"), Look::dimmed()),
            );
            lines.push(Line::blank());
        }
        if agent.dialog_open {
            lines.extend(dialog::codex());
            return Bottom { lines, cursor: None };
        }
        if !agent.queue.is_empty() {
            lines.push(Line::styled("• ", Look::dimmed()).push("Queued follow-up inputs", Look::PLAIN));
            for queued in &agent.queue {
                for (i, row) in wrap(&queued.display, width - 4).into_iter().enumerate() {
                    let lead = if i == 0 { "  ↳ " } else { "    " };
                    lines.push(Line::styled(lead, Look::dimmed()).push(row, Look::dimmed().italic()));
                }
            }
            lines.push(Line::styled("    ⌥ + ↑ edit last queued message", Look::dimmed()));
            lines.push(Line::blank());
        }
        lines.push(Line::blank().filled(TINT));
        let first_input_row = lines.len();
        let cursor;
        if agent.input_is_empty() {
            let mut line = Line::styled("›", Look::PLAIN.bold().on(TINT)).push(" ", Look::PLAIN.on(TINT));
            let hint = hint_text(agent, PLACEHOLDER, PLACEHOLDER);
            if let Some(hint) = hint {
                line = line.push(hint, Look::dimmed().on(TINT));
            }
            lines.push(line.filled(TINT));
            cursor = Some((2, first_input_row));
        } else {
            let (input, (col, row)) = input_lines(view, width - 2, 2, composer_row);
            lines.extend(input);
            cursor = Some((col, first_input_row + row));
        }
        lines.push(Line::blank().filled(TINT));
        lines.push(Line::blank());
        let context = Line::styled("100% context left", Look::dimmed());
        let footer = if agent.input_is_empty() {
            spread(Line::plain("  ").push("? for shortcuts", Look::dimmed()), context, width, 2)
        } else if agent.busy.is_some() {
            spread(Line::plain("  tab to queue message"), context, width, 2)
        } else {
            Line::plain("  ").push("100% context left", Look::dimmed())
        };
        lines.push(footer);
        Bottom { lines, cursor }
    }
}
