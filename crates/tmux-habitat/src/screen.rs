//! A captured screen with attributes: rows of styled cells parsed from `capture-pane -e`.

use std::num::NonZeroU16;

/// A terminal colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Color {
    /// The terminal's default colour.
    #[default]
    Default,
    /// One of the 256 indexed colours.
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

impl From<vt100::Color> for Color {
    fn from(c: vt100::Color) -> Self {
        match c {
            vt100::Color::Default => Color::Default,
            vt100::Color::Idx(i) => Color::Indexed(i),
            vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
        }
    }
}

/// How a cell is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Style {
    /// SGR 1.
    pub bold: bool,
    /// SGR 2: faint. Agents draw placeholders and ghost suggestions this way.
    pub dim: bool,
    /// SGR 3.
    pub italic: bool,
    /// SGR 4.
    pub underline: bool,
    /// SGR 7.
    pub reverse: bool,
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
}

/// One cell: its text (empty for a blank or the right half of a wide character) and style.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cell {
    /// The grapheme in the cell, or `""`.
    pub text: String,
    /// How it is drawn.
    pub style: Style,
    /// The right half of a wide character: it has no text of its own and adds nothing to row text.
    pub wide_continuation: bool,
}

/// A run of cells of the same style in one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The run's text (blank cells as spaces).
    pub text: String,
    /// Its style.
    pub style: Style,
    /// Column of the first cell.
    pub start_col: u16,
}

/// An atomic snapshot of a pane's visible screen with attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screen {
    rows: Vec<Vec<Cell>>,
    width: u16,
    cursor: (u16, u16),
}

impl Screen {
    /// Parses the output of `capture-pane -p -e` for a pane `width` cells wide.
    pub fn from_ansi(captured: &str, width: u16) -> Screen {
        let text = captured.strip_suffix('\n').unwrap_or(captured);
        let lines: Vec<&str> = text.split('\n').collect();
        let height = lines.len().max(1);
        let rows_nz = NonZeroU16::new(u16::try_from(height).unwrap_or(u16::MAX)).unwrap_or(NonZeroU16::MIN);
        let cols_nz = NonZeroU16::new(width).unwrap_or(NonZeroU16::MIN);
        let mut parser = vt100::Parser::new(rows_nz, cols_nz, 0);
        feed_capture(&mut parser, &lines);
        Screen::from_vt100(parser.screen())
    }

    /// A screen of unstyled text, one row per line, as wide as its widest line (for tests and for plain
    /// captures, `capture-pane -p` without `-e`). The cursor is at the top left.
    pub fn from_plain(text: &str) -> Screen {
        let text = text.strip_suffix('\n').unwrap_or(text);
        // Two columns per character is room enough for wide characters; trailing blank cells carry no text.
        let widest = text.split('\n').map(|line| line.chars().count() * 2).max().unwrap_or(1).max(1);
        Screen::from_ansi(text, u16::try_from(widest).unwrap_or(u16::MAX))
    }

    /// Snapshots an emulator's screen (as kept current by [`LiveScreen`](crate::LiveScreen)).
    pub(crate) fn from_vt100(screen: &vt100::Screen) -> Screen {
        let (rows_nz, cols_nz) = screen.size();
        let rows = (0..rows_nz.get())
            .map(|r| {
                (0..cols_nz.get())
                    .map(|c| match screen.cell(r, c) {
                        Some(cell) => Cell {
                            text: cell.contents().to_owned(),
                            style: Style {
                                bold: cell.bold(),
                                dim: cell.dim(),
                                italic: cell.italic(),
                                underline: cell.underline(),
                                reverse: cell.inverse(),
                                fg: cell.fgcolor().into(),
                                bg: cell.bgcolor().into(),
                            },
                            wide_continuation: cell.is_wide_continuation(),
                        },
                        None => Cell::default(),
                    })
                    .collect()
            })
            .collect();
        let (y, x) = screen.cursor_position();
        Screen { rows, width: cols_nz.get(), cursor: (x, y) }
    }

    /// The same screen with the cursor at column `x`, row `y` (a capture's text does not carry the cursor;
    /// `display-message -p '#{cursor_x} #{cursor_y}'` does).
    pub fn with_cursor(mut self, x: u16, y: u16) -> Screen {
        self.cursor = (x, y);
        self
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.rows.len()
    }

    /// Number of columns.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Cursor position `(x, y)`.
    pub fn cursor(&self) -> (u16, u16) {
        self.cursor
    }

    /// The cells of `row`, as wide as the screen; empty past the last row.
    pub fn row(&self, row: usize) -> &[Cell] {
        self.rows.get(row).map_or(&[], Vec::as_slice)
    }

    /// The cell at `row`, `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<&Cell> {
        self.rows.get(row).and_then(|r| r.get(col))
    }

    /// A row's text, trailing blanks removed.
    pub fn row_text(&self, row: usize) -> String {
        self.row_text_where(row, |_| true)
    }

    /// A row's text without its dim (SGR 2) cells: what remains once ghost text is dropped.
    pub fn row_text_without_dim(&self, row: usize) -> String {
        self.row_text_where(row, |style| !style.dim)
    }

    fn row_text_where(&self, row: usize, keep: impl Fn(&Style) -> bool) -> String {
        let Some(cells) = self.rows.get(row) else { return String::new() };
        let mut text = String::new();
        for cell in cells {
            if cell.wide_continuation {
                continue;
            } else if cell.text.is_empty() {
                text.push(' ');
            } else if keep(&cell.style) {
                text.push_str(&cell.text);
            } else {
                text.push(' ');
            }
        }
        text.trim_end().to_owned()
    }

    /// The whole screen as text, one row per line, trailing blanks removed.
    pub fn text(&self) -> String {
        (0..self.rows.len()).map(|r| self.row_text(r)).collect::<Vec<_>>().join("\n")
    }

    /// The runs of equally styled cells in a row.
    pub fn spans(&self, row: usize) -> Vec<Span> {
        let mut spans: Vec<Span> = Vec::new();
        let Some(cells) = self.rows.get(row) else { return spans };
        for (col, cell) in cells.iter().enumerate() {
            if cell.wide_continuation {
                continue;
            }
            let text = if cell.text.is_empty() { " " } else { cell.text.as_str() };
            match spans.last_mut() {
                Some(last) if last.style == cell.style => last.text.push_str(text),
                _ => spans.push(Span {
                    text: text.to_owned(),
                    style: cell.style,
                    start_col: u16::try_from(col).unwrap_or(u16::MAX),
                }),
            }
        }
        spans
    }

    /// Whether every non-blank cell of `row` in `cols` is dim.
    pub fn is_dim(&self, row: usize, cols: std::ops::Range<usize>) -> bool {
        self.rows.get(row).is_some_and(|cells| {
            cells.iter().skip(cols.start).take(cols.len()).filter(|c| !c.text.trim().is_empty()).all(|c| c.style.dim)
        })
    }
}

/// Feeds captured rows to an emulator. Each row is placed by moving the cursor to its start (capture ends
/// each row with a bare LF, and a full-width row must not wrap into the next). Attributes are *not* reset
/// between rows: `capture-pane -e` writes an escape only where the style changes, so a dim run that goes
/// on into the next row carries no escape of its own there.
pub(crate) fn feed_capture(parser: &mut vt100::Parser, lines: &[&str]) {
    for (i, line) in lines.iter().enumerate() {
        parser.process(format!("\x1b[{};1H", i + 1).as_bytes());
        parser.process(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn first_row_survives_the_final_newline() {
        let screen = Screen::from_ansi("top\nmiddle\nbottom\n", 20);
        assert_eq!(screen.height(), 3);
        assert_eq!(screen.row_text(0), "top");
        assert_eq!(screen.row_text(2), "bottom");
    }

    #[test]
    fn dim_runs_can_be_dropped() {
        let screen = Screen::from_ansi("> hello\x1b[2m ghost text\x1b[0m\n", 40);
        assert_eq!(screen.row_text(0), "> hello ghost text");
        assert_eq!(screen.row_text_without_dim(0), "> hello");
        assert!(screen.is_dim(0, 8..18));
        assert!(!screen.is_dim(0, 0..7));
    }

    #[test]
    fn attributes_carry_over_to_the_next_captured_row_as_tmux_writes_them() {
        // tmux 3.3a `capture-pane -p -e` of `\e[2mghost one\r\nghost two\e[0m`: the second row carries no
        // escape of its own; it is still dim.
        let screen = Screen::from_ansi("\x1b[2mghost one\nghost two\n\x1b[0m\x1b[39m\x1b[49mplain\n", 40);
        assert!(screen.is_dim(1, 0..9));
        assert!(!screen.cell(2, 0).unwrap().style.dim);
    }

    #[test]
    fn a_full_width_row_does_not_wrap_into_the_next() {
        let line = "─".repeat(10);
        let screen = Screen::from_ansi(&format!("{line}\nx\n"), 10);
        assert_eq!(screen.row_text(0), line);
        assert_eq!(screen.row_text(1), "x");
    }

    #[test]
    fn plain_text_keeps_its_rows_and_wide_characters() {
        let screen = Screen::from_plain("日本日本日本\nx  \n");
        assert_eq!(screen.height(), 2);
        assert_eq!(screen.row_text(0), "日本日本日本");
        assert_eq!(screen.row_text(1), "x");
        assert!(screen.row(0).iter().all(|cell| cell.style == Style::default()));
    }

    #[test]
    fn wide_characters_keep_their_text() {
        let screen = Screen::from_ansi("日本 ok 🎉!\n", 20);
        assert_eq!(screen.row_text(0), "日本 ok 🎉!");
    }

    #[derive(Debug, Clone)]
    struct Run {
        text: String,
        bold: bool,
        dim: bool,
        reverse: bool,
        fg: Option<u8>,
        bg: Option<u8>,
    }

    /// Bold and dim are one intensity in the emulator (as in xterm): a run is normal, bold or dim.
    fn run_strategy() -> impl Strategy<Value = Run> {
        ("[a-z]{1,6}", 0u8..3, any::<bool>(), proptest::option::of(0u8..=255), proptest::option::of(0u8..=255))
            .prop_map(|(text, intensity, reverse, fg, bg)| Run {
                text,
                bold: intensity == 1,
                dim: intensity == 2,
                reverse,
                fg,
                bg,
            })
    }

    proptest! {
        /// Generated SGR sequences parse back into exactly the styles that were written, cell by cell.
        #[test]
        fn styled_cells_match_generated_sgr(runs in proptest::collection::vec(run_strategy(), 1..8)) {
            let mut line = String::new();
            let mut expected: Vec<(char, Style)> = Vec::new();
            for run in &runs {
                let mut codes = vec!["0".to_owned()];
                if run.bold { codes.push("1".into()); }
                if run.dim { codes.push("2".into()); }
                if run.reverse { codes.push("7".into()); }
                if let Some(fg) = run.fg { codes.push(format!("38;5;{fg}")); }
                if let Some(bg) = run.bg { codes.push(format!("48;5;{bg}")); }
                line.push_str(&format!("\x1b[{}m{}", codes.join(";"), run.text));
                let style = Style {
                    bold: run.bold,
                    dim: run.dim,
                    reverse: run.reverse,
                    fg: run.fg.map_or(Color::Default, Color::Indexed),
                    bg: run.bg.map_or(Color::Default, Color::Indexed),
                    ..Style::default()
                };
                expected.extend(run.text.chars().map(|c| (c, style)));
            }
            let width = u16::try_from(expected.len() + 1).unwrap();
            let screen = Screen::from_ansi(&format!("{line}\n"), width);
            for (col, (ch, style)) in expected.iter().enumerate() {
                let cell = screen.cell(0, col).unwrap();
                prop_assert_eq!(&cell.text, &ch.to_string());
                prop_assert_eq!(&cell.style, style);
            }
        }
    }
}
