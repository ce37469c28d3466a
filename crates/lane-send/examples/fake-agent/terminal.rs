//! Drawing a [`Frame`] onto the terminal, and entering/leaving the TUI modes.

use std::io::{self, Write};

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use crossterm::{cursor, execute};

use crate::screen::{Frame, Line, Look, char_width};

/// Raw mode, alternate screen and bracketed paste while alive; restored on drop (also when
/// the program fails), so the pane is left usable.
pub struct TuiSession {
    _private: (),
}

impl TuiSession {
    pub fn start() -> io::Result<TuiSession> {
        enable_raw_mode()?;
        let session = TuiSession { _private: () };
        execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
        Ok(session)
    }
}

impl Drop for TuiSession {
    fn drop(&mut self) {
        // Best effort: the terminal may already be gone when the pane is killed.
        let _ = execute!(io::stdout(), DisableBracketedPaste, LeaveAlternateScreen, cursor::Show);
        let _ = disable_raw_mode();
    }
}

/// The bytes that draw `frame` over the whole screen, `width` columns wide: every row is
/// rewritten and cleared to its end, lines longer than the screen are cut, then the cursor
/// is placed (or hidden).
pub fn frame_bytes(frame: &Frame, width: u16) -> Vec<u8> {
    let width = usize::from(width);
    let mut out = String::new();
    out.push_str("\x1b[?25l");
    for (row, line) in frame.lines.iter().enumerate() {
        out.push_str(&format!("\x1b[{};1H\x1b[0m", row + 1));
        write_line(&mut out, line, width);
        out.push_str("\x1b[0m");
    }
    if let Some((col, row)) = frame.cursor {
        out.push_str(&format!("\x1b[{};{}H\x1b[?25h", row + 1, col + 1));
    }
    out.into_bytes()
}

fn write_line(out: &mut String, line: &Line, width: usize) {
    let mut used = 0;
    'spans: for span in &line.spans {
        out.push_str("\x1b[0m");
        out.push_str(&span.look.sgr());
        for c in span.text.chars() {
            let w = char_width(c);
            if used + w > width {
                break 'spans;
            }
            out.push(c);
            used += w;
        }
    }
    out.push_str("\x1b[0m");
    match line.fill {
        Some(bg) => {
            out.push_str(&Look::PLAIN.on(bg).sgr());
            out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
        }
        None if used < width => out.push_str("\x1b[K"),
        None => {}
    }
}

/// Writes `bytes` to stdout in one go.
pub fn draw(bytes: &[u8]) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_at_the_screen_edge() {
        let frame = Frame { lines: vec![Line::plain("abcdef")], cursor: None };
        let text = String::from_utf8(frame_bytes(&frame, 4)).unwrap();
        assert!(text.contains("abcd\x1b[0m"));
        assert!(!text.contains("abcde"));
    }

    #[test]
    fn styled_spans_carry_their_sgr() {
        let frame = Frame { lines: vec![Line::plain("❯\u{a0}").push("Try", Look::dimmed())], cursor: Some((2, 0)) };
        let text = String::from_utf8(frame_bytes(&frame, 20)).unwrap();
        assert!(text.contains("❯\u{a0}\x1b[0m\x1b[2mTry"));
        assert!(text.ends_with("\x1b[1;3H\x1b[?25h"));
    }
}
