//! A small model of a terminal for property tests: lines wrap at the width,
//! the screen scrolls into history, and captures look like `capture-pane`
//! output (with `-J`, or row by row with trailing spaces trimmed).

/// Output written so far, as logical lines, plus a line being written.
pub struct Terminal {
    pub width: usize,
    pub height: usize,
    lines: Vec<String>,
    partial: Option<String>,
}

impl Terminal {
    pub fn new(width: usize, height: usize) -> Terminal {
        Terminal { width, height, lines: Vec::new(), partial: None }
    }

    /// Writes one complete line (its text must not contain a newline).
    pub fn write_line(&mut self, line: &str) {
        self.partial = None;
        self.lines.push(line.to_string());
    }

    /// Shows the first part of a line being written, until the next `write_line`.
    pub fn write_partial(&mut self, text: &str) {
        self.partial = Some(text.to_string());
    }

    /// Number of complete lines written.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Rows (text, wrapped-into-next) of all output, oldest first.
    fn rows(&self) -> Vec<(String, bool)> {
        let mut rows = Vec::new();
        for line in self.lines.iter().chain(self.partial.iter()) {
            rows.extend(self.rows_of(line));
        }
        rows
    }

    fn rows_of(&self, line: &str) -> Vec<(String, bool)> {
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            return vec![(String::new(), false)];
        }
        let pieces: Vec<String> = chars.chunks(self.width).map(|piece| piece.iter().collect()).collect();
        let last = pieces.len() - 1;
        // A line that exactly fills the width does not wrap (the cursor waits
        // at the margin), as in tmux.
        pieces.into_iter().enumerate().map(|(index, piece)| (piece, index < last)).collect()
    }

    /// Index of the first row of complete line `line_index`.
    pub fn first_row_of(&self, line_index: usize) -> usize {
        self.lines[..line_index].iter().map(|line| self.rows_of(line).len()).sum()
    }

    /// Total rows after writing `extra` more lines.
    pub fn rows_with(&self, extra: &[String]) -> usize {
        let own: usize = self.lines.iter().map(|line| self.rows_of(line).len()).sum();
        own + extra.iter().map(|line| self.rows_of(line).len()).sum::<usize>()
    }

    /// A capture of the last `history + height` rows (the visible screen is
    /// padded with empty rows, as `capture-pane` prints them).
    pub fn capture(&self, history: usize, joined: bool) -> String {
        let mut rows = self.rows();
        while rows.len() < self.height {
            rows.push((String::new(), false));
        }
        let window = (history + self.height).min(rows.len());
        let mut text = String::new();
        for (row, wrapped) in &rows[rows.len() - window..] {
            if joined {
                text.push_str(row);
                if !wrapped {
                    text.push('\n');
                }
            } else {
                text.push_str(row.trim_end());
                text.push('\n');
            }
        }
        text
    }
}
