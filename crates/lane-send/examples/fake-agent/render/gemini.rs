//! Gemini CLI (2025 layout): block logo, tips, `Using: …`, rounded box `│ > … │`, and the
//! cwd / sandbox / model footer.

use super::rounded_box::RoundedBox;
use super::{Bottom, BottomView, Hint, Skin, dialog, echo_rows, empty_hint, input_lines};
use crate::agent::HistoryItem;
use crate::screen::{Line, Look, display_width, repeat};
use crate::wrap::wrap;

pub struct Gemini;

const BOX: RoundedBox = RoundedBox { margin: 0, border: Look::fg(240) };
const PROMPT: Look = Look::fg(147);
/// Gemini's default placeholder, two leading spaces included.
pub const PLACEHOLDER: &str = "  Type your message or @path/to/file";
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

const LOGO: [&str; 8] = [
    " ███            █████████  ██████████ ██████   ██████ █████ ██████   █████ █████",
    "░░░███         ███░░░░░███░░███░░░░░█░░██████ ██████ ░░███ ░░██████ ░░███ ░░███",
    "  ░░░███      ███     ░░░  ░███  █ ░  ░███░█████░███  ░███  ░███░███ ░███  ░███",
    "    ░░░███   ░███          ░██████    ░███░░███ ░███  ░███  ░███░░███░███  ░███",
    "     ███░    ░███    █████ ░███░░█    ░███ ░░░  ░███  ░███  ░███ ░░██████  ░███",
    "   ███░      ░░███  ░░███  ░███ ░   █ ░███      ░███  ░███  ░███  ░░█████  ░███",
    " ███░         ░░█████████  ██████████ █████     █████ █████ █████  ░░█████ █████",
    "░░░            ░░░░░░░░░  ░░░░░░░░░░ ░░░░░     ░░░░░ ░░░░░ ░░░░░    ░░░░░ ░░░░░",
];

const TIPS: [&str; 5] = [
    "Tips for getting started:",
    "1. Ask questions, edit files, or run commands.",
    "2. Be specific for the best results.",
    "3. Create GEMINI.md files to customize your interactions with Gemini.",
    "4. /help for more information.",
];

/// The footer's three groups spread across the row (`paddingX=1`).
fn footer(width: usize) -> Line {
    let parts = ["~/src/demo (main*)", "no sandbox (see /docs)", "gemini-2.5-pro (100% context left)"];
    let used: usize = parts.iter().map(|p| display_width(p)).sum();
    let free = width.saturating_sub(2 + used);
    let gap = (free / 2).max(1);
    Line::plain(format!(
        " {}{}{}{}{}",
        parts[0],
        repeat(' ', gap),
        parts[1],
        repeat(' ', (free - gap.min(free)).max(1)),
        parts[2]
    ))
}

impl Skin for Gemini {
    fn banner(&self, _width: usize) -> Vec<Line> {
        let mut lines = vec![Line::blank()];
        lines.extend(LOGO.iter().map(|l| Line::plain(*l)));
        lines.push(Line::blank());
        lines.extend(TIPS.iter().map(|l| Line::plain(*l)));
        lines.push(Line::blank());
        lines.push(Line::blank());
        lines
    }

    fn echo(&self, text: &str, width: usize) -> Vec<Line> {
        echo_rows(text, width, "> ", "  ", Look::fg(246))
    }

    fn note(&self, item: &HistoryItem, _width: usize) -> Option<Line> {
        Some(Line::plain(match item {
            HistoryItem::User(_) | HistoryItem::Finished { .. } => return None,
            HistoryItem::Reply => "✦ Done.",
            HistoryItem::Interrupted => "ℹ Request cancelled.",
            HistoryItem::DialogAnswered(true) => "✓ Shell rm -rf build && npm run build",
            HistoryItem::DialogAnswered(false) => "- Shell rm -rf build && npm run build (cancelled)",
        }))
    }

    fn bottom(&self, view: &BottomView) -> Bottom {
        let agent = view.agent;
        let width = view.width;
        let mut lines = Vec::new();
        if let Some(secs) = agent.busy_secs() {
            let glyph = SPINNER[usize::try_from(secs % 10).unwrap_or(0)];
            lines.push(Line::plain(format!("{glyph} Reticulating splines... (esc to cancel, {secs}s)")));
            lines.push(Line::blank());
        }
        if agent.dialog_open {
            lines.extend(dialog::gemini(width));
            return Bottom { lines, cursor: None };
        }
        if !agent.queue.is_empty() {
            lines.push(Line::styled("  Queued (press ↑ to edit):", Look::dimmed()));
            for queued in agent.queue.iter().take(3) {
                let first = wrap(&queued.display, width - 4).swap_remove(0);
                lines.push(Line::styled(format!("    {first}"), Look::dimmed()));
            }
            if agent.queue.len() > 3 {
                lines.push(Line::styled(format!("    ... (+{} more)", agent.queue.len() - 3), Look::dimmed()));
            }
            lines.push(Line::blank());
        }
        lines.push(Line::plain("Using: 1 GEMINI.md file"));
        lines.push(BOX.top(width));
        let first_input_row = lines.len();
        // "│ > " then text, at least one space before the right border.
        let text_width = BOX.inner(width) - 4;
        let cursor;
        if agent.input_is_empty() {
            let mut content = Line::plain(" ").push("> ", PROMPT);
            match empty_hint(agent) {
                Some(Hint::Ghost(ghost)) => content = content.push(ghost, Look::dimmed()),
                Some(Hint::Queue | Hint::Placeholder) => {
                    // The cursor is drawn as the placeholder's first character in reverse.
                    let mut chars = PLACEHOLDER.chars();
                    let first: String = chars.next().map(String::from).unwrap_or_default();
                    content = content.push(first, Look::PLAIN.reverse()).push(chars.as_str(), Look::fg(243));
                }
                None => {}
            }
            lines.push(BOX.row(width, content));
            cursor = Some((4, first_input_row));
        } else {
            let (input, (col, row)) = input_lines(view, text_width, 4, |first, text| {
                let lead = if first { Line::plain(" ").push("> ", PROMPT) } else { Line::plain("   ") };
                BOX.row(width, lead.push(text, Look::PLAIN))
            });
            lines.extend(input);
            cursor = Some((col, first_input_row + row));
        }
        lines.push(BOX.bottom(width));
        lines.push(footer(width));
        Bottom { lines, cursor }
    }
}
