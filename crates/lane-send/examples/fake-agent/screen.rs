//! Styled screen lines: what a render produces and what the terminal writer draws.

use unicode_width::UnicodeWidthChar;

/// A colour: one of the 16 basic colours or a 256-colour palette index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// The 16 basic colours: 0–7 as `30+n` / `40+n`, 8–15 as `90+n` / `100+n`.
    Basic(u8),
    /// `38;5;N` / `48;5;N`.
    Idx(u8),
}

/// The SGR attributes of a span. `Look::default()` is the terminal's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Look {
    pub fg: Option<Paint>,
    pub bg: Option<Paint>,
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub reverse: bool,
}

impl Look {
    /// Default attributes.
    pub const PLAIN: Look = Look { fg: None, bg: None, bold: false, dim: false, italic: false, reverse: false };

    /// Foreground palette colour `n`.
    pub const fn fg(n: u8) -> Look {
        Look { fg: Some(Paint::Idx(n)), ..Look::PLAIN }
    }

    /// Foreground basic colour `n` (0–15), as Ink apps write it (`\e[36m`).
    pub const fn ansi(n: u8) -> Look {
        Look { fg: Some(Paint::Basic(n)), ..Look::PLAIN }
    }

    /// Dim (SGR 2), the way agents draw placeholders and ghosts.
    pub const fn dimmed() -> Look {
        Look { dim: true, ..Look::PLAIN }
    }

    pub const fn bold(self) -> Look {
        Look { bold: true, ..self }
    }

    pub const fn dim(self) -> Look {
        Look { dim: true, ..self }
    }

    pub const fn italic(self) -> Look {
        Look { italic: true, ..self }
    }

    pub const fn reverse(self) -> Look {
        Look { reverse: true, ..self }
    }

    pub const fn on(self, bg: Paint) -> Look {
        Look { bg: Some(bg), ..self }
    }

    /// The SGR escape that switches from default attributes to this look (empty for plain).
    pub fn sgr(&self) -> String {
        let mut codes: Vec<String> = Vec::new();
        if self.bold {
            codes.push("1".into());
        }
        if self.dim {
            codes.push("2".into());
        }
        if self.italic {
            codes.push("3".into());
        }
        if self.reverse {
            codes.push("7".into());
        }
        match self.fg {
            Some(Paint::Basic(n)) if n < 8 => codes.push(format!("{}", 30 + n)),
            Some(Paint::Basic(n)) => codes.push(format!("{}", 90 + (n & 7))),
            Some(Paint::Idx(n)) => codes.push(format!("38;5;{n}")),
            None => {}
        }
        match self.bg {
            Some(Paint::Basic(n)) if n < 8 => codes.push(format!("{}", 40 + n)),
            Some(Paint::Basic(n)) => codes.push(format!("{}", 100 + (n & 7))),
            Some(Paint::Idx(n)) => codes.push(format!("48;5;{n}")),
            None => {}
        }
        if codes.is_empty() { String::new() } else { format!("\x1b[{}m", codes.join(";")) }
    }
}

/// A run of text with one look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub look: Look,
}

/// One screen row. `fill` paints the rest of the row (Codex's tinted composer block).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    pub spans: Vec<Span>,
    pub fill: Option<Paint>,
}

impl Line {
    /// An empty row.
    pub fn blank() -> Line {
        Line::default()
    }

    /// A row of unstyled text.
    pub fn plain(text: impl Into<String>) -> Line {
        Line::blank().push(text, Look::PLAIN)
    }

    /// A row of text in one look.
    pub fn styled(text: impl Into<String>, look: Look) -> Line {
        Line::blank().push(text, look)
    }

    /// Appends a span (builder style).
    pub fn push(mut self, text: impl Into<String>, look: Look) -> Line {
        let text = text.into();
        if !text.is_empty() {
            self.spans.push(Span { text, look });
        }
        self
    }

    /// Paints the remainder of the row with `bg`.
    pub fn filled(mut self, bg: Paint) -> Line {
        self.fill = Some(bg);
        self
    }

    /// The row's characters without styling.
    pub fn text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }

    /// Display width in terminal columns.
    pub fn width(&self) -> usize {
        display_width(&self.text())
    }
}

/// A rendered screen: rows top to bottom, and where the terminal cursor goes (column, row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub lines: Vec<Line>,
    pub cursor: Option<(u16, u16)>,
}

/// Terminal columns a character occupies (controls count as zero).
pub fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Terminal columns a string occupies.
pub fn display_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Pads `s` with spaces to `width` columns (never truncates).
pub fn pad_to(s: &str, width: usize) -> String {
    let w = display_width(s);
    let mut out = s.to_string();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(w)));
    out
}

/// `n` copies of `c`.
pub fn repeat(c: char, n: usize) -> String {
    std::iter::repeat_n(c, n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgr_joins_attributes_in_one_csi() {
        assert_eq!(Look::fg(244).sgr(), "\x1b[38;5;244m");
        assert_eq!(Look::dimmed().sgr(), "\x1b[2m");
        assert_eq!(Look::PLAIN.bold().on(Paint::Idx(236)).sgr(), "\x1b[1;48;5;236m");
        assert_eq!(Look::PLAIN.sgr(), "");
    }

    #[test]
    fn widths_count_wide_characters() {
        assert_eq!(display_width("ab"), 2);
        assert_eq!(display_width("🚀"), 2);
        assert_eq!(display_width("日本"), 4);
        assert_eq!(pad_to("🚀", 4), "🚀  ");
    }
}
