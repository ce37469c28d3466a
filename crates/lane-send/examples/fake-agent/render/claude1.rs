//! Claude Code 1.0.x: dim rounded box `│ > … │` spanning the width, `? for shortcuts` below.

use super::claude2::QUEUE_HINT;
use super::rounded_box::RoundedBox;
use super::{Bottom, BottomView, Skin, banner_lines, dialog, echo_rows, hint_text, input_lines};
use crate::agent::HistoryItem;
use crate::screen::{Line, Look};
use crate::wrap::wrap;

pub struct Claude1;

const GREY: Look = Look::fg(246);
const BOX: RoundedBox = RoundedBox { margin: 0, border: Look::fg(244).dim() };
pub const PLACEHOLDER: &str = "Try \"fix lint errors\"";

const WELCOME: [&str; 14] = [
    "╭───────────────────────────────────────────────────╮",
    "│ ✻ Welcome to Claude Code!                         │",
    "│                                                   │",
    "│   /help for help, /status for your current setup  │",
    "│                                                   │",
    "│   cwd: /home/me/src/demo                          │",
    "╰───────────────────────────────────────────────────╯",
    "",
    " Tips for getting started:",
    "",
    " 1. Run /init to create a CLAUDE.md file with instructions for Claude",
    " 2. Use Claude to help with file analysis, editing, bash commands and git",
    " 3. Be as specific as you would with another engineer for the best results",
    " 4. ✔ Run /terminal-setup to set up terminal integration",
];

impl Skin for Claude1 {
    fn banner(&self, _width: usize) -> Vec<Line> {
        banner_lines(&WELCOME)
    }

    fn echo(&self, text: &str, width: usize) -> Vec<Line> {
        echo_rows(text, width, "> ", "  ", GREY)
    }

    fn note(&self, item: &HistoryItem, _width: usize) -> Option<Line> {
        Some(Line::plain(match item {
            HistoryItem::User(_) | HistoryItem::Finished { .. } => return None,
            HistoryItem::Reply => "⏺ Done.",
            HistoryItem::Interrupted => "  ⎿  Interrupted by user",
            HistoryItem::DialogAnswered(true) => "  ⎿  Approved",
            HistoryItem::DialogAnswered(false) => "  ⎿  Denied",
        }))
    }

    fn bottom(&self, view: &BottomView) -> Bottom {
        let agent = view.agent;
        let width = view.width;
        let mut lines = Vec::new();
        if let Some(secs) = agent.busy_secs() {
            lines
                .push(Line::styled(format!("✻ Thinking… ({secs}s · ↑ 1.2k tokens · esc to interrupt)"), Look::fg(174)));
            lines.push(Line::blank());
        }
        if agent.dialog_open {
            lines.extend(dialog::claude());
            return Bottom { lines, cursor: None };
        }
        for queued in &agent.queue {
            for row in wrap(&queued.display, width - 2) {
                lines.push(Line::styled(format!("  {row}"), GREY));
            }
        }
        lines.push(BOX.top(width));
        let first_input_row = lines.len();
        // " > " prompt column, then text, then at least one space before the right border.
        let text_width = BOX.inner(width) - 4;
        let prompt = Line::styled(" > ", if agent.busy.is_some() { GREY } else { Look::PLAIN });
        let cursor;
        if agent.input_is_empty() {
            let mut content = prompt;
            let hint = hint_text(agent, QUEUE_HINT, PLACEHOLDER);
            if let Some(hint) = hint {
                // The drawn cursor: the first character in reverse video, the rest dim.
                let mut chars = hint.chars();
                let first: String = chars.next().map(String::from).unwrap_or_default();
                content = content.push(first, Look::PLAIN.reverse()).push(chars.as_str(), Look::dimmed());
            }
            lines.push(BOX.row(width, content));
            cursor = Some((4, first_input_row));
        } else {
            let (input, (col, row)) = input_lines(view, text_width, 4, |first, text| {
                let lead = if first { prompt.clone() } else { Line::plain("   ") };
                BOX.row(width, lead.push(text, Look::PLAIN))
            });
            lines.extend(input);
            cursor = Some((col, first_input_row + row));
        }
        lines.push(BOX.bottom(width));
        lines.push(Line::plain("  ").push("? for shortcuts", Look::dimmed()));
        Bottom { lines, cursor }
    }
}
