//! A styled snapshot of a pane: rows of cells with the attributes the recogniser needs.
//!
//! The recogniser judges ghost text by style (dim, grey, reverse cursor), so it works on cells,
//! not on plain text. [`StyledScreen::from_ansi`] parses what `tmux capture-pane -p -e` prints (through
//! tmux-habitat's [`tmux_habitat::Screen`], the workspace's one parser of captures);
//! [`StyledScreen::from_plain`] wraps what `capture-pane -p` prints (no styles known).

/// A cell colour as the terminal was told to draw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum Color {
    /// The terminal's default colour.
    #[default]
    Default,
    /// A palette colour (0–255; 8–15 are the bright colours such as SGR 90).
    Indexed(u8),
    /// A truecolor value.
    Rgb(u8, u8, u8),
}

impl From<tmux_habitat::Color> for Color {
    fn from(color: tmux_habitat::Color) -> Self {
        match color {
            tmux_habitat::Color::Default => Color::Default,
            tmux_habitat::Color::Indexed(index) => Color::Indexed(index),
            tmux_habitat::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
        }
    }
}

/// One character cell.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cell {
    /// The grapheme drawn in the cell; empty for a blank cell or the right half of a wide one.
    pub text: String,
    /// SGR 2 (faint).
    pub dim: bool,
    /// SGR 1.
    pub bold: bool,
    /// SGR 7 (often a drawn cursor).
    pub reverse: bool,
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// True for the right half of a double-width character (carries no text of its own).
    pub wide_continuation: bool,
}

/// A pane's visible rows as styled cells.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StyledScreen {
    rows: Vec<Vec<Cell>>,
    cursor: Option<(usize, usize)>,
}

impl StyledScreen {
    /// Builds a screen from rows of cells (for adapters from other screen types and for tests).
    pub fn from_rows(rows: Vec<Vec<Cell>>, cursor: Option<(usize, usize)>) -> Self {
        Self { rows, cursor }
    }

    /// Parses the output of `capture-pane -p -e` (rows separated by `\n`, SGR escapes inline).
    ///
    /// `cols` is the pane width; lines are never wider than the pane, so a width that is too
    /// small only wraps, which the recogniser then refuses as an unknown frame.
    pub fn from_ansi(capture: &str, cols: u16) -> Self {
        Self::from_habitat(&tmux_habitat::Screen::from_ansi(capture, cols.max(1)), false)
    }

    /// Wraps a plain capture (`capture-pane -p`): every cell unstyled.
    pub fn from_plain(capture: &str) -> Self {
        let rows = capture
            .strip_suffix('\n')
            .unwrap_or(capture)
            .split('\n')
            .map(|line| line.chars().map(|ch| Cell { text: ch.to_string(), ..Cell::default() }).collect())
            .collect();
        Self { rows, cursor: None }
    }

    /// Copies the cells of a screen parsed by tmux-habitat; `with_cursor` keeps its cursor position.
    pub fn from_habitat(screen: &tmux_habitat::Screen, with_cursor: bool) -> Self {
        let rows = (0..screen.height())
            .map(|row| {
                (0..usize::from(screen.width()))
                    .map(|col| match screen.cell(row, col) {
                        Some(cell) => Cell {
                            text: cell.text.clone(),
                            dim: cell.style.dim,
                            bold: cell.style.bold,
                            reverse: cell.style.reverse,
                            fg: cell.style.fg.into(),
                            bg: cell.style.bg.into(),
                            wide_continuation: cell.wide_continuation,
                        },
                        None => Cell::default(),
                    })
                    .collect()
            })
            .collect();
        let cursor = with_cursor.then(|| {
            let (x, y) = screen.cursor();
            (usize::from(y), usize::from(x))
        });
        Self { rows: trim_rows(rows), cursor }
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.rows.len()
    }

    /// The cells of one row (trailing blank cells trimmed); empty past the last row.
    pub fn row(&self, index: usize) -> &[Cell] {
        self.rows.get(index).map_or(&[], Vec::as_slice)
    }

    /// The text of one row with trailing ASCII spaces trimmed, as `capture-pane -p` shows it.
    pub fn row_text(&self, index: usize) -> String {
        cells_text(self.row(index)).trim_end_matches(' ').to_string()
    }

    /// The cursor position (row, column), when known.
    pub fn cursor(&self) -> Option<(usize, usize)> {
        self.cursor
    }
}

/// Concatenates the text of cells, drawing an empty cell as a space.
pub fn cells_text(cells: &[Cell]) -> String {
    cells
        .iter()
        .filter(|cell| !cell.wide_continuation)
        .map(|cell| if cell.text.is_empty() { " " } else { cell.text.as_str() })
        .collect()
}

fn trim_rows(rows: Vec<Vec<Cell>>) -> Vec<Vec<Cell>> {
    rows.into_iter()
        .map(|mut row| {
            while row.last().is_some_and(|cell| {
                (cell.text.is_empty() || cell.text == " ") && !cell.reverse && !cell.wide_continuation
            }) {
                row.pop();
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_capture_keeps_dim_and_reverse() {
        let screen = StyledScreen::from_ansi("\x1b[39m❯\u{a0}\x1b[7mk\x1b[0;2meep\x1b[0m\nnext", 20);
        assert_eq!(screen.height(), 2);
        assert_eq!(screen.row_text(0), "❯\u{a0}keep");
        assert!(screen.row(0)[2].reverse);
        assert!(screen.row(0)[3].dim);
        assert_eq!(screen.row_text(1), "next");
    }

    #[test]
    fn attributes_carry_over_to_the_next_captured_row_as_tmux_writes_them() {
        // tmux 3.3a `capture-pane -p -e` of `\e[2mghost one\r\nghost two\e[0m`: the second row
        // carries no escape of its own, it is still dim.
        let screen = StyledScreen::from_ansi("\x1b[2mghost one\nghost two\n\x1b[0m\x1b[39m\x1b[49mplain", 40);
        assert!(screen.row(1).iter().all(|cell| cell.dim));
        assert!(!screen.row(2)[0].dim);
    }

    #[test]
    fn full_width_line_does_not_wrap_into_next_row() {
        let line = "─".repeat(10);
        let screen = StyledScreen::from_ansi(&format!("{line}\nx"), 10);
        assert_eq!(screen.row_text(0), line);
        assert_eq!(screen.row_text(1), "x");
    }
}
