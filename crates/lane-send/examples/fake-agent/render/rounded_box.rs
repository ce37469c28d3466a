//! Rounded boxes `╭─╮ │…│ ╰─╯` (Claude 1.x, Gemini, Grok Ink), with an optional left margin.

use crate::screen::{Line, Look, pad_to, repeat};

/// A box spanning the width minus `margin` columns on each side.
pub struct RoundedBox {
    pub margin: usize,
    pub border: Look,
}

impl RoundedBox {
    /// Columns between the two `│`.
    pub fn inner(&self, width: usize) -> usize {
        width.saturating_sub(2 * self.margin + 2).max(1)
    }

    pub fn top(&self, width: usize) -> Line {
        self.edge('╭', '╮', width)
    }

    pub fn bottom(&self, width: usize) -> Line {
        self.edge('╰', '╯', width)
    }

    /// `content` between the borders, padded to the inner width.
    pub fn row(&self, width: usize, content: Line) -> Line {
        let pad = self.inner(width).saturating_sub(content.width());
        let mut line = Line::plain(repeat(' ', self.margin)).push("│", self.border);
        line.spans.extend(content.spans);
        line.push(pad_to("", pad), Look::PLAIN).push("│", self.border)
    }

    fn edge(&self, left: char, right: char, width: usize) -> Line {
        Line::plain(repeat(' ', self.margin))
            .push(format!("{left}{}{right}", repeat('─', self.inner(width))), self.border)
    }
}
