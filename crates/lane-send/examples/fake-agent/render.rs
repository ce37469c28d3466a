//! `render(agent, width, height)`: the whole screen as styled rows, laid out like the agent's
//! inline TUI (banner and history, then the busy/queue rows, the input frame and the footer).

mod claude1;
mod claude2;
mod codex;
mod dialog;
mod gemini;
mod grok;
mod rounded_box;

use crate::agent::{Agent, HistoryItem};
use crate::screen::{Frame, Line, Look, display_width};
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
    /// How a submitted message is echoed into the history.
    fn echo(&self, text: &str, width: usize) -> Vec<Line>;
    /// The one-row note for any other history item (`None`: nothing shown).
    fn note(&self, item: &HistoryItem, width: usize) -> Option<Line>;
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
        let rows = match item {
            HistoryItem::User(text) => skin.echo(text, width),
            other => skin.note(other, width).into_iter().collect(),
        };
        if !rows.is_empty() {
            lines.extend(rows);
            lines.push(Line::blank());
        }
    }
    let bottom = skin.bottom(&BottomView { agent, width, max_input_rows: (height / 2).max(1) });
    let offset = lines.len();
    lines.extend(bottom.lines);
    let mut cursor = bottom.cursor.map(|(col, row)| (col, row + offset));
    if lines.len() > height {
        let hidden = lines.len() - height;
        lines.drain(..hidden);
        cursor = cursor.and_then(|(col, row)| row.checked_sub(hidden).map(|r| (col, r)));
    }
    lines.resize(height, Line::blank());
    Frame { lines, cursor: cursor.map(|(col, row)| (clamp_u16(col.min(width - 1)), clamp_u16(row))) }
}

fn clamp_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Unstyled rows followed by one blank row: a banner.
pub fn banner_lines(rows: &[&str]) -> Vec<Line> {
    let mut lines: Vec<Line> = rows.iter().map(|row| Line::plain(*row)).collect();
    lines.push(Line::blank());
    lines
}

/// The right-aligned `right` after `left`, ending `margin` columns before the edge.
pub fn spread(left: Line, right: Line, width: usize, margin: usize) -> Line {
    let gap = width.saturating_sub(left.width() + right.width() + margin).max(1);
    let mut line = left.push(" ".repeat(gap), Look::PLAIN);
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

/// The text an empty box shows: `queue` while messages are queued, else the ghost, else
/// `placeholder` when `--placeholder` is on.
pub fn hint_text<'a>(agent: &'a Agent, queue: &'a str, placeholder: &'a str) -> Option<&'a str> {
    empty_hint(agent).map(|hint| match hint {
        Hint::Queue => queue,
        Hint::Ghost(ghost) => ghost,
        Hint::Placeholder => placeholder,
    })
}

/// `text` wrapped under a `first` prefix, continuation rows under `rest`, all in `look`.
pub fn echo_rows(text: &str, width: usize, first: &str, rest: &str, look: Look) -> Vec<Line> {
    crate::wrap::wrap(text, width.saturating_sub(display_width(first)))
        .into_iter()
        .enumerate()
        .map(|(i, row)| Line::styled(format!("{}{row}", if i == 0 { first } else { rest }), look))
        .collect()
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

/// The input box's rows: the tail of the text wrapped at `text_width`, each drawn by
/// `row(starts_message, text)`. Also returns the cursor (column, row) relative to the first
/// row, for a prefix `prefix_width` columns wide.
pub fn input_lines(
    view: &BottomView,
    text_width: usize,
    prefix_width: usize,
    mut row: impl FnMut(bool, String) -> Line,
) -> (Vec<Line>, (usize, usize)) {
    let (rows, hidden) = crate::wrap::tail_rows(&view.agent.input_display(), text_width, view.max_input_rows);
    let last = rows.len().saturating_sub(1);
    let last_width = rows.last().map_or(0, |r| display_width(r));
    let lines = rows.into_iter().enumerate().map(|(i, text)| row(i == 0 && hidden == 0, text)).collect();
    (lines, (prefix_width + last_width, last))
}

#[cfg(test)]
mod tests;
