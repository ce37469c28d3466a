//! Claude Code 2.x: welcome card, `─` rules around a `❯`+NBSP row, mode footer.

use super::{Bottom, BottomView, Hint, Skin, dialog, empty_hint, input_rows};
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
        let mut lines: Vec<Line> = CARD.iter().map(|l| Line::plain(*l)).collect();
        lines.push(Line::blank());
        lines
    }

    fn history_item(&self, item: &HistoryItem, width: usize) -> Vec<Line> {
        let mut lines = match item {
            HistoryItem::User(text) => {
                let echo = Look::fg(231).on(ECHO_BG);
                wrap(text, width - 2)
                    .into_iter()
                    .enumerate()
                    .map(|(i, row)| {
                        let lead = if i == 0 { "❯ " } else { "  " };
                        Line::styled(lead, Look::fg(239).on(ECHO_BG)).push(row, echo)
                    })
                    .collect()
            }
            HistoryItem::Reply => vec![Line::plain("⏺ Done.")],
            HistoryItem::Finished { secs } => vec![Line::plain(format!("✻ Brewed for {secs}s"))],
            HistoryItem::Interrupted => vec![Line::plain(
                "  ⎿  Interrupted · What should Claude do instead?",
            )],
            HistoryItem::DialogAnswered(yes) => vec![Line::plain(if *yes {
                "  ⎿  Approved"
            } else {
                "  ⎿  Denied"
            })],
        };
        lines.push(Line::blank());
        lines
    }

    fn bottom(&self, view: &BottomView) -> Bottom {
        let agent = view.agent;
        let width = view.width;
        let mut lines = Vec::new();
        if let Some(secs) = agent.busy_secs() {
            lines.push(
                Line::styled("✶ Cogitating… ", SPINNER)
                    .push(format!("({secs}s · ↓ 1.2k tokens)"), GREY),
            );
            lines.push(Line::plain("  ⎿  Tip: Use /btw to ask a quick side question"));
            lines.push(Line::blank());
        }
        if agent.dialog_open {
            lines.push(Line::styled(repeat('─', width), RULE));
            lines.extend(dialog::claude());
            return Bottom {
                lines,
                cursor: None,
            };
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
            let prompt = if agent.busy.is_some() {
                GREY
            } else {
                Look::PLAIN
            };
            let hint = empty_hint(agent).map(|hint| match hint {
                Hint::Queue => QUEUE_HINT,
                Hint::Ghost(ghost) => ghost,
                Hint::Placeholder => PLACEHOLDER,
            });
            let mut line = Line::styled(PROMPT, prompt);
            if let Some(hint) = hint {
                line = line.push(hint, Look::dimmed());
            }
            lines.push(line);
            cursor = Some((2, first_input_row));
        } else {
            let (rows, hidden) = input_rows(view, width - 2);
            let last = rows.len() - 1;
            let last_width = crate::screen::display_width(&rows[last]);
            for (i, row) in rows.into_iter().enumerate() {
                let lead = if i == 0 && hidden == 0 { PROMPT } else { "  " };
                lines.push(Line::plain(format!("{lead}{row}")));
            }
            cursor = Some((2 + last_width, first_input_row + last));
        }
        lines.push(Line::styled(repeat('─', width), RULE));
        let mut footer = Line::plain("  ")
            .push("⏵⏵ bypass permissions on", Look::fg(211))
            .push(" (shift+tab to cycle)", GREY);
        if agent.busy.is_some() {
            footer = footer.push(" · esc to interrupt", GREY);
        }
        lines.push(footer);
        Bottom { lines, cursor }
    }
}
