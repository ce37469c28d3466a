//! Breaking display text into rows of a given column width.

use crate::screen::char_width;

/// Splits `text` at newlines and wraps each line at `width` columns (a wide character that
/// does not fit starts the next row). An empty text is one empty row.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(2);
    let mut rows = Vec::new();
    for line in text.split('\n') {
        let mut row = String::new();
        let mut used = 0;
        for c in line.chars() {
            let w = char_width(c);
            if used + w > width {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            row.push(c);
            used += w;
        }
        rows.push(row);
    }
    rows
}

/// The rows of the input box: `text` wrapped at `width`, only the last `max_rows` kept (the
/// cursor sits at the end, so the box scrolls to the tail). Also returns how many leading rows
/// were hidden.
pub fn tail_rows(text: &str, width: usize, max_rows: usize) -> (Vec<String>, usize) {
    let mut rows = wrap(text, width);
    let hidden = rows.len().saturating_sub(max_rows.max(1));
    rows.drain(..hidden);
    (rows, hidden)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_on_newlines_and_width() {
        assert_eq!(wrap("abcdef\ngh", 4), vec!["abcd", "ef", "gh"]);
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("a\n", 10), vec!["a", ""]);
    }

    #[test]
    fn wide_characters_do_not_straddle_rows() {
        assert_eq!(wrap("ab🚀", 3), vec!["ab", "🚀"]);
    }

    #[test]
    fn tail_keeps_the_last_rows() {
        let text = "x".repeat(10_000);
        let (rows, hidden) = tail_rows(&text, 100, 5);
        assert_eq!(rows.len(), 5);
        assert_eq!(hidden, 95);
    }
}
