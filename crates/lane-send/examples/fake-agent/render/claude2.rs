//! Claude Code 2.x: welcome card, `─` rules around a `❯`+NBSP row, mode footer.

use super::{Bottom, BottomView, Skin, banner_lines, dialog, hint_text, input_lines};
use crate::agent::HistoryItem;
use crate::screen::{Line, Look, Paint, repeat};
use crate::wrap::wrap;

pub struct Claude2;

/// `❯` followed by U+00A0, as Claude 2.x draws its prompt.
pub const PROMPT: &str = "❯\u{a0}";
const RULE: Look = Look::fg(244);
const GREY: Look = Look::fg(246);
const SPINNER: Look = Look::fg(174);
const ECHO_BG: Paint = Paint::Idx(237);
pub const PLACEHOLDER: &str = "Try \"refactor <filepath>\"";
pub const QUEUE_HINT: &str = "Press up to edit queued messages";

const CARD: [&str; 11] = [
    "╭─── Claude Code v2.1.114 ─────────────────────────────────────────────────────╮",
    "│                                                    │ Tips for getting        │",
    "│                    Welcome back!                   │ started                 │",
    "│                                                    │ Run /init to create a … │",
    "│                       ▐▛███▜▌                      │ ─────────────────────── │",
    "│                      ▝▜█████▛▘                     │ Recent activity         │",
    "│                        ▘▘ ▝▝                       │ No recent activity      │",
    "│                                                    │                         │",
    "│               Sonnet 4.6 · Claude Pro              │                         │",
    "│                     ~/src/demo                     │                         │",
    "╰──────────────────────────────────────────────────────────────────────────────╯",
];

impl Skin for Claude2 {
    fn banner(&self, _width: usize) -> Vec<Line> {
        banner_lines(&CARD)
    }

    fn echo(&self, text: &str, width: usize) -> Vec<Line> {
        wrap(text, width - 2)
            .into_iter()
            .enumerate()
            .map(|(i, row)| {
                let lead = if i == 0 { "❯ " } else { "  " };
                Line::styled(lead, Look::fg(239).on(ECHO_BG)).push(row, Look::fg(231).on(ECHO_BG))
            })
            .collect()
    }

    fn note(&self, item: &HistoryItem, _width: usize) -> Option<Line> {
        Some(Line::plain(match item {
            HistoryItem::User(_) => return None,
            HistoryItem::Reply => "⏺ Done.".to_string(),
            HistoryItem::Finished { secs } => format!("✻ Brewed for {secs}s"),
            HistoryItem::Interrupted => "  ⎿  Interrupted · What should Claude do instead?".into(),
            HistoryItem::DialogAnswered(true) => "  ⎿  Approved".into(),
            HistoryItem::DialogAnswered(false) => "  ⎿  Denied".into(),
        }))
    }

    fn bottom(&self, view: &BottomView) -> Bottom {
        let agent = view.agent;
        let width = view.width;
        let mut lines = Vec::new();
        if let Some(secs) = agent.busy_secs() {
            lines.push(Line::styled("✶ Cogitating… ", SPINNER).push(format!("({secs}s · ↓ 1.2k tokens)"), GREY));
            lines.push(Line::plain("  ⎿  Tip: Use /btw to ask a quick side question"));
            lines.push(Line::blank());
        }
        if agent.dialog_open {
            lines.push(Line::styled(repeat('─', width), RULE));
            lines.extend(dialog::claude());
            return Bottom { lines, cursor: None };
        }
        for queued in &agent.queue {
            for (i, row) in wrap(&queued.display, width - 4).into_iter().enumerate() {
                let lead = if i == 0 { "  ❯ " } else { "    " };
                lines.push(Line::styled(format!("{lead}{row}"), GREY));
            }
        }
        lines.push(Line::styled(repeat('─', width), RULE));
        let first_input_row = lines.len();
        let cursor;
        if agent.input_is_empty() {
            let hint = hint_text(agent, QUEUE_HINT, PLACEHOLDER);
            // Mid-turn, an empty prompt is greyed with a colour (not dim).
            let prompt = if agent.busy.is_some() && hint.is_none() { GREY } else { Look::PLAIN };
            let mut line = Line::styled(PROMPT, prompt);
            if let Some(hint) = hint {
                line = line.push(hint, Look::dimmed());
            }
            lines.push(line);
            cursor = Some((2, first_input_row));
        } else {
            let (input, (col, row)) = input_lines(view, width - 2, 2, |first, text| {
                Line::plain(format!("{}{text}", if first { PROMPT } else { "  " }))
            });
            lines.extend(input);
            cursor = Some((col, first_input_row + row));
        }
        lines.push(Line::styled(repeat('─', width), RULE));
        let mut footer =
            Line::plain("  ").push("⏵⏵ bypass permissions on", Look::fg(211)).push(" (shift+tab to cycle)", GREY);
        if agent.busy.is_some() {
            footer = footer.push(" · esc to interrupt", GREY);
        }
        lines.push(footer);
        Bottom { lines, cursor }
    }
}
