//! Reading one screen row: its text with a cell index, and its input without ghost text.

use tmux_habitat::{Cell, Color};

/// A row's text with a map from cells to byte offsets, so a regex match on the text can be
/// turned back into cell columns (and styles).
#[derive(Debug, Clone)]
pub struct RowText {
    /// The row's text with trailing ASCII spaces trimmed, as `capture-pane -p` shows it.
    pub text: String,
    full: String,
    cell_starts: Vec<usize>,
}

impl RowText {
    /// Indexes a row of cells, without its trailing blank cells (a reverse-video blank is a drawn cursor
    /// and stays).
    pub fn new(cells: &[Cell]) -> Self {
        let cells = trim_blank_end(cells);
        let mut full = String::new();
        let mut cell_starts = Vec::with_capacity(cells.len());
        for cell in cells {
            cell_starts.push(full.len());
            if cell.wide_continuation {
                continue;
            }
            full.push_str(if cell.text.is_empty() { " " } else { &cell.text });
        }
        let text = full.trim_end_matches(' ').to_string();
        Self { text, full, cell_starts }
    }

    /// Number of cells in the row, trailing blanks trimmed.
    pub fn cells_len(&self) -> usize {
        self.cell_starts.len()
    }

    /// The text of cell `col`, or `""` past the end.
    pub fn cell_text(&self, col: usize) -> &str {
        match (self.cell_starts.get(col), self.cell_starts.get(col + 1)) {
            (Some(&start), Some(&end)) => &self.full[start..end],
            (Some(&start), None) => &self.full[start..],
            _ => "",
        }
    }

    fn byte_of_cell(&self, col: usize) -> usize {
        self.cell_starts.get(col).copied().unwrap_or(self.full.len())
    }

    /// The text of cells `start..end`.
    pub fn slice_text(&self, start: usize, end: usize) -> String {
        let (from, to) = (self.byte_of_cell(start), self.byte_of_cell(end));
        self.full.get(from..to.max(from)).unwrap_or_default().to_string()
    }

    /// The cell that starts `offset` bytes after the start of cell `start`.
    pub fn cell_at_byte_in(&self, start: usize, offset: usize) -> usize {
        let target = self.byte_of_cell(start) + offset;
        self.cell_starts.iter().position(|&byte| byte >= target).unwrap_or(self.cell_starts.len())
    }
}

/// One input row split into what the user typed and what the agent drew as a hint.
#[derive(Debug, Default)]
pub struct SplitRow {
    /// Real input, trailing spaces and NBSP trimmed.
    pub real: String,
    /// Ghost text (dim runs, ghost colours, and a drawn cursor on top of them).
    pub ghost: String,
}

/// The row without the blank cells after its last drawn one.
fn trim_blank_end(cells: &[Cell]) -> &[Cell] {
    let blank =
        |cell: &Cell| (cell.text.is_empty() || cell.text == " ") && !cell.style.reverse && !cell.wide_continuation;
    let end = cells.iter().rposition(|cell| !blank(cell)).map_or(0, |last| last + 1);
    &cells[..end]
}

fn is_ghost(cell: &Cell, ghost_fg: &[u8]) -> bool {
    cell.style.dim || matches!(cell.style.fg, Color::Indexed(index) if ghost_fg.contains(&index))
}

/// Splits cells `start..end` of a row into real input and ghost text.
///
/// A reverse-video cell directly before ghost text is the agent's drawn cursor sitting on the
/// ghost's first character, so it belongs to the ghost.
pub fn split_ghost(cells: &[Cell], start: usize, end: usize, ghost_fg: &[u8]) -> SplitRow {
    let end = end.min(cells.len());
    let mut split = SplitRow::default();
    for col in start..end {
        let cell = &cells[col];
        if cell.wide_continuation {
            continue;
        }
        let text = if cell.text.is_empty() { " " } else { cell.text.as_str() };
        let drawn_cursor = cell.style.reverse && cells.get(col + 1).is_some_and(|next| is_ghost(next, ghost_fg));
        if is_ghost(cell, ghost_fg) || drawn_cursor {
            split.ghost.push_str(text);
        } else {
            split.real.push_str(text);
        }
    }
    // Trailing padding, and the zero-width space some agents (Qwen Code) draw after their cursor cell.
    split.real = split.real.trim_end_matches([' ', '\u{a0}', '\u{200b}']).to_string();
    split
}
