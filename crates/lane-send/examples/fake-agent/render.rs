//! `render(agent, width, height)`: the whole screen as styled rows, laid out like the agent's
//! inline TUI (banner and history, then the busy/queue rows, the input frame and the footer).

mod claude1;
mod claude2;
mod codex;
mod dialog;
mod rounded_box;
mod gemini;
mod grok;

use crate::agent::{Agent, HistoryItem};
use crate::screen::{Frame, Line};
use crate::style::AgentStyle;

/// What a skin needs to draw the bottom block.
pub struct BottomView<'a> {
    pub agent: &'a Agent,
    pub width: usize,
    /// The input box shows at most this many rows of text (the tail).
    pub max_input_rows: usize,
}

/// The bottom block and the cursor position inside it (column, row).
pub struct Bottom {
    pub lines: Vec<Line>,
    pub cursor: Option<(usize, usize)>,
}

/// One agent's look.
pub trait Skin {
    /// The start-up banner at the top of the history.
    fn banner(&self, width: usize) -> Vec<Line>;
    /// How one history item is echoed.
    fn history_item(&self, item: &HistoryItem, width: usize) -> Vec<Line>;
    /// Busy marker, queue, input frame (or dialog) and footer.
    fn bottom(&self, view: &BottomView) -> Bottom;
}

fn skin(style: AgentStyle) -> &'static dyn Skin {
    match style {
        AgentStyle::Claude2 => &claude2::Claude2,
        AgentStyle::Claude1 => &claude1::Claude1,
        AgentStyle::Codex => &codex::Codex,
        AgentStyle::Gemini => &gemini::Gemini,
        AgentStyle::Grok => &grok::Grok,
    }
}

/// Draws the agent at `width` x `height`. Content that does not fit scrolls off the top, as in
/// a terminal; the bottom block always stays.
pub fn render(agent: &Agent, width: u16, height: u16) -> Frame {
    let width = usize::from(width.max(8));
    let height = usize::from(height.max(1));
    let skin = skin(agent.config.style);
    let mut lines = skin.banner(width);
    for item in &agent.history {
        lines.extend(skin.history_item(item, width));
    }
    let bottom = skin.bottom(&BottomView {
        agent,
        width,
        max_input_rows: (height / 2).max(1),
    });
    let offset = lines.len();
    lines.extend(bottom.lines);
    let mut cursor = bottom.cursor.map(|(col, row)| (col, row + offset));
    if lines.len() > height {
        let hidden = lines.len() - height;
        lines.drain(..hidden);
        cursor = cursor.and_then(|(col, row)| row.checked_sub(hidden).map(|r| (col, r)));
    }
    lines.resize(height, Line::blank());
    Frame {
        lines,
        cursor: cursor.map(|(col, row)| (clamp_u16(col.min(width - 1)), clamp_u16(row))),
    }
}

fn clamp_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The right-aligned `right` after `left`, ending `margin` columns before the edge.
pub fn spread(left: Line, right: Line, width: usize, margin: usize) -> Line {
    let gap = width
        .saturating_sub(left.width() + right.width() + margin)
        .max(1);
    let mut line = left.push(" ".repeat(gap), crate::screen::Look::PLAIN);
    line.spans.extend(right.spans);
    line
}

/// What an empty input box shows instead of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint<'a> {
    /// Messages are queued (Claude: `Press up to edit queued messages`).
    Queue,
    /// A dim prompt suggestion (`--ghost`).
    Ghost(&'a str),
    /// The agent's own placeholder (`--placeholder`).
    Placeholder,
}

/// The hint for an empty box, by precedence: queue, ghost, placeholder.
pub fn empty_hint(agent: &Agent) -> Option<Hint<'_>> {
    if !agent.queue.is_empty() {
        Some(Hint::Queue)
    } else if let Some(ghost) = agent.visible_ghost() {
        Some(Hint::Ghost(ghost))
    } else if agent.config.placeholder {
        Some(Hint::Placeholder)
    } else {
        None
    }
}

/// The input's text rows for a text column `text_width` wide (the tail), and how many rows
/// are hidden above them.
pub fn input_rows(view: &BottomView, text_width: usize) -> (Vec<String>, usize) {
    crate::wrap::tail_rows(&view.agent.input_display(), text_width, view.max_input_rows)
}

#[cfg(test)]
mod tests;
