//! The server's copy of a pane's terminal. Kept current from the pane's output stream, it gives a snapshot
//! that matches an exact stream position (so a client can continue from it byte for byte) and the screen
//! that frame recognition reads.

use std::num::NonZeroU16;

use tmux_habitat::Screen;

/// A terminal emulator for one pane, with scrollback.
pub(crate) struct Terminal {
    parser: vt100::Parser,
}

impl Terminal {
    /// A terminal seeded with a capture (`capture-pane -p -e`, scrollback included): its last `rows` lines
    /// are the visible screen, the rest is history. `cursor` is `(x, y)` on the visible screen.
    pub(crate) fn seeded(size: (u16, u16), scrollback: usize, captured: &str, cursor: (u16, u16)) -> Terminal {
        let (cols, rows) = size;
        let rows_nz = NonZeroU16::new(rows).unwrap_or(NonZeroU16::MIN);
        let cols_nz = NonZeroU16::new(cols).unwrap_or(NonZeroU16::MIN);
        let mut parser = vt100::Parser::new(rows_nz, cols_nz, scrollback);
        let text = captured.strip_suffix('\n').unwrap_or(captured);
        let lines: Vec<&str> = if text.is_empty() { Vec::new() } else { text.split('\n').collect() };
        // A capture ends every row with a bare LF and carries attributes over rows (tmux writes an escape
        // only where the style changes). CR LF between rows: a full-width row must not wrap into the next.
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                parser.process(b"\r\n");
            }
            parser.process(line.as_bytes());
        }
        parser.process(format!("\x1b[0m\x1b[{};{}H", cursor.1 + 1, cursor.0 + 1).as_bytes());
        Terminal { parser }
    }

    /// Applies output the pane wrote.
    pub(crate) fn process(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
    }

    /// `(cols, rows)`.
    pub(crate) fn size(&self) -> (u16, u16) {
        let (rows, cols) = self.parser.screen().size();
        (cols.get(), rows.get())
    }

    /// Bytes that draw this terminal, history included, on a freshly reset terminal of the same size:
    /// history rows first (they scroll off the top into the client's scrollback), then the visible screen
    /// redrawn exactly, with the cursor and input modes (application cursor keys, bracketed paste, mouse).
    pub(crate) fn snapshot(&self) -> String {
        let screen = self.parser.screen();
        let mut out = String::new();
        if screen.alternate_screen() {
            out.push_str("\x1b[?1049h");
        } else {
            let mut rows = String::new();
            let mut state = vt100::capture::BasicFormattedCaptureState::new();
            // Writing into a String cannot fail.
            let _ = screen.write_contents_formatted_basic(
                &mut rows,
                vt100::capture::BasicFormattedCaptureRange::Full(&mut state),
            );
            out.push_str(&rows.replace('\n', "\r\n"));
            out.push_str("\x1b[0m");
        }
        out.push_str(&screen.state_formatted());
        out
    }

    /// The visible screen with attributes, for frame recognition.
    pub(crate) fn screen(&self) -> Screen {
        let screen = self.parser.screen();
        let (_, cols) = screen.size();
        let rows: Vec<String> = screen.rows_formatted(0, cols.get()).collect();
        Screen::from_ansi(&rows.join("\n"), cols.get())
    }
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal").field("size", &self.size()).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a fresh terminal of the same size shows after replaying `bytes`.
    fn replay(size: (u16, u16), bytes: &str) -> vt100::Parser {
        let mut parser = vt100::Parser::new(NonZeroU16::new(size.1).unwrap(), NonZeroU16::new(size.0).unwrap(), 1000);
        parser.process(bytes.as_bytes());
        parser
    }

    /// Every row the terminal holds, history first, as plain text with trailing blanks removed.
    fn all_rows(parser: &vt100::Parser) -> Vec<String> {
        let mut formatted = String::new();
        let mut state = vt100::capture::BasicFormattedCaptureState::new();
        let range = vt100::capture::BasicFormattedCaptureRange::Full(&mut state);
        parser.screen().write_contents_formatted_basic(&mut formatted, range).unwrap();
        let plain: String = vt100::capture::basic_formatted_to_plain(&formatted).collect();
        plain.split('\n').map(|row| row.trim_end().to_owned()).collect()
    }

    #[test]
    fn a_snapshot_redraws_screen_history_cursor_and_modes() {
        let mut term = Terminal::seeded((20, 4), 100, "", (0, 0));
        let mut output = String::new();
        for i in 0..10 {
            output.push_str(&format!("line {i}\r\n"));
        }
        output.push_str("\x1b[1;31mred\x1b[0m \x1b[?1h\x1b[?2004h$ ");
        term.process(output.as_bytes());

        let copy = replay((20, 4), &term.snapshot());
        assert_eq!(copy.screen().contents(), term.parser.screen().contents());
        assert_eq!(copy.screen().cursor_position(), term.parser.screen().cursor_position());
        assert!(copy.screen().application_cursor() && copy.screen().bracketed_paste());
        let red = copy.screen().cell(3, 0).unwrap();
        assert!(red.bold() && red.fgcolor() == vt100::Color::Idx(1));
        let rows = all_rows(&copy);
        let expected: Vec<String> = (0..10).map(|i| format!("line {i}")).collect();
        assert_eq!(rows[..10], expected[..], "history arrives in order, once: {rows:?}");
    }

    #[test]
    fn continuing_after_a_snapshot_matches_the_original() {
        let mut term = Terminal::seeded((10, 3), 100, "", (0, 0));
        term.process(b"abcdefghijklmnop\r\nsecond\x1b[2;3H");
        let mut copy = replay((10, 3), &term.snapshot());
        let more = b"XY\r\nthird\r\nfourth";
        term.process(more);
        copy.process(more);
        assert_eq!(copy.screen().contents(), term.parser.screen().contents());
    }

    #[test]
    fn seeding_from_a_capture_keeps_rows_apart_and_places_the_cursor() {
        // Full-width rows (10 columns) must not wrap into the next; the dim run carries over a row break.
        let captured = "history 1\nhistory 2\n0123456789\n\x1b[2mghost\nstill dim\n$ \n";
        let term = Terminal::seeded((10, 4), 100, captured, (2, 3));
        let screen = term.screen();
        assert_eq!(screen.row_text(0), "0123456789");
        assert_eq!(screen.row_text(1), "ghost");
        assert!(screen.is_dim(2, 0..9));
        assert_eq!(screen.row_text(3), "$");
        assert_eq!(term.parser.screen().cursor_position(), (3, 2));
        assert_eq!(term.parser.screen().scrollback_len(), 2);
    }

    #[test]
    fn an_alternate_screen_snapshot_enters_the_alternate_screen() {
        let mut term = Terminal::seeded((10, 3), 100, "", (0, 0));
        term.process(b"main\r\n\x1b[?1049hfull screen app");
        let copy = replay((10, 3), &term.snapshot());
        assert!(copy.screen().alternate_screen());
        assert_eq!(copy.screen().contents(), term.parser.screen().contents());
    }
}
