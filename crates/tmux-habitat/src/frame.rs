//! What a person watching a pane sees of the plumbing around a command: as little as possible.
//!
//! Completion is signalled by markers the shell prints (see [`crate::run`]), and the shell is made to read a
//! script by a typed line. Neither is for people: the script first wipes the typed line from the screen and
//! writes the command as it was given in its place, and the markers are printed *concealed* (SGR 8), which a
//! terminal, tmux's own client and xterm.js draw as blanks while `capture-pane` still reads the text. So a
//! watcher sees
//!
//! ```text
//! $ ls -la
//! total 8
//! …
//! $
//! ```
//!
//! with at most one blank-looking row (the end marker, when the output ended with a newline) before the prompt.
//!
//! The typed line is wiped by moving the cursor back to where it was when the line was typed, and clearing
//! from there down. When the screen cannot have scrolled since, that place is found by its row and column: this
//! also holds when the shell was not reading yet (a new pane), so the terminal echoed the line before the
//! shell drew its prompt. Otherwise the cursor moves up over the rows the line took, known from its length
//! and the pane's width. A line that would end exactly at the right margin gets a trailing space, because
//! shells disagree about where the cursor goes after such a line.

/// A marker of this crate's as it shows in a capture (concealed text is still text there), with the space that
/// separates a start marker from the command shown before it.
static MARKER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    // A constant pattern: the unit tests of `without_markers` force it, so a wrong one fails them.
    #[allow(clippy::expect_used, reason = "a constant pattern, forced by a unit test")]
    regex::Regex::new(r" ?__HAB_[SERX]_[0-9a-f]{16}(:-?[0-9]+)?").expect("the marker pattern compiles")
});

/// `screen` (a capture, as text) without this crate's markers: the concealed start and end markers around each
/// command, which a terminal does not draw but `capture-pane` returns. A row that held only a marker goes
/// with it. For text that people or models read; [`crate::Pane::run`]'s output never holds them.
pub fn without_markers(screen: &str) -> String {
    let mut out = String::with_capacity(screen.len());
    for line in screen.split_inclusive('\n') {
        let (text, end) = line.strip_suffix('\n').map_or((line, ""), |text| (text, "\n"));
        let cleaned = MARKER.replace_all(text, "");
        if cleaned.len() != text.len() && cleaned.trim().is_empty() {
            continue;
        }
        out.push_str(&cleaned);
        out.push_str(end);
    }
    out
}

/// Turns concealment on; printf reads the octal escape.
const CONCEAL: &str = "\\033[8m";
/// Turns every attribute off again.
const RESET: &str = "\\033[0m";

/// Where the typed line starts and how wide the pane is: what wiping it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypedAt {
    /// The cursor's column when the line was typed (the end of the prompt).
    pub cursor_x: u16,
    /// The cursor's row.
    pub cursor_y: u16,
    /// The pane's width in columns.
    pub width: u16,
    /// The pane's height in rows.
    pub height: u16,
}

impl TypedAt {
    /// Where the cursor of the pane described by `info` is.
    pub(crate) fn of(info: &crate::pane::PaneInfo) -> Self {
        TypedAt { cursor_x: info.cursor_x, cursor_y: info.cursor_y, width: info.width, height: info.height }
    }

    /// `line`, padded so it never ends exactly at the right margin; `None` when its width on screen is not
    /// simply its length (non-ASCII) or the cursor is not inside the pane, and then it is not wiped.
    pub(crate) fn fit(self, line: String) -> (String, Option<usize>) {
        if !line.is_ascii() || self.width == 0 || self.cursor_x >= self.width {
            return (line, None);
        }
        let mut line = line;
        if (usize::from(self.cursor_x) + line.len()).is_multiple_of(usize::from(self.width)) {
            line.push(' ');
        }
        let rows = self.rows(line.len());
        (line, Some(rows))
    }

    /// How many rows a line of `len` columns typed at the cursor takes.
    fn rows(self, len: usize) -> usize {
        (usize::from(self.cursor_x) + len.max(1) - 1) / usize::from(self.width) + 1
    }

    /// Whether the screen cannot have scrolled while a line of `rows` rows and `extra` rows after it were
    /// printed, even if the line was echoed twice (by the terminal, then by the shell).
    fn stays(self, rows: usize, extra: usize) -> bool {
        usize::from(self.cursor_y) + 2 * rows + extra < usize::from(self.height)
    }

    /// A printf format that, run just after the typed line of `rows` rows was entered, moves the cursor back to
    /// where the line began and clears from there down (the prompt before it stays).
    pub(crate) fn wipe(self, rows: usize) -> String {
        if self.stays(rows, 1) {
            return format!("\\033[{};{}H\\033[J", self.cursor_y + 1, self.cursor_x + 1);
        }
        let right = match self.cursor_x {
            0 => String::new(),
            x => format!("\\033[{x}C"),
        };
        format!("\\033[{rows}A\\r{right}\\033[J")
    }

    /// Like [`TypedAt::wipe`], but back to the start of the prompt's row too, for a line whose only purpose
    /// was a handshake: the shell then draws its prompt where the old one was, as if nothing had been typed.
    /// `extra` rows were printed after the typed line.
    pub(crate) fn wipe_all(self, rows: usize, extra: usize) -> String {
        if self.stays(rows, extra) {
            return format!("\\033[{};1H\\033[J", self.cursor_y + 1);
        }
        format!("\\033[{}A\\r\\033[J", rows + extra)
    }
}

/// The last line of the shell's prompt, printed when it is plain text (`$ `); prompts with escapes or
/// substitutions would show wrong unexpanded, so they are left out.
const PROMPT: &str = "case $PS1 in *\\\\*|*'$('*|*'`'*) ;; *) printf '%s' \"${PS1##*\n}\" ;; esac\n";

/// The script a pane's shell sources to run one command: wipe the typed line (when `wipe` is given), show the
/// command (after the prompt when `prompt`: the line was typed before the shell drew its prompt, which the wipe
/// then takes away), print the concealed start marker, source the command's own script (so a syntax error in
/// it cannot stop the end marker), print the concealed end marker with its status, then run `after` (a
/// signal, if any).
pub(crate) fn command_script(
    command: &str,
    wipe: Option<String>,
    prompt: bool,
    start_marker: (&str, &str),
    end_marker: (&str, &str),
    script_word: &str,
    after: Option<String>,
) -> String {
    let mut out = String::new();
    if let Some(wipe) = wipe {
        out.push_str(&format!("printf '{wipe}'\n"));
        if prompt {
            out.push_str(PROMPT);
        }
    }
    let lines: Vec<String> = command.trim_end_matches('\n').lines().map(crate::shell_quote).collect();
    let (last, before) = match lines.split_last() {
        Some((last, before)) => (last.clone(), before),
        None => ("''".to_owned(), &[][..]),
    };
    if !before.is_empty() {
        out.push_str(&format!("printf '%s\\r\\n' {}\n", before.join(" ")));
    }
    let (start, token) = start_marker;
    out.push_str(&format!("printf '%s {CONCEAL}%s%s\\r\\n{RESET}' {last} {start} {token}\n"));
    out.push_str(&format!(". {script_word}\n"));
    let (end, token) = end_marker;
    out.push_str(&format!("printf '{CONCEAL}%s%s:%s\\r\\n{RESET}' {end} {token} \"$?\"\n"));
    if let Some(after) = after {
        out.push_str(&after);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: TypedAt = TypedAt { cursor_x: 2, cursor_y: 22, width: 10, height: 24 };

    #[test]
    fn markers_leave_captures_and_rows_of_only_a_marker_go() {
        let screen = "$ ls __HAB_S_0123456789abcdef\na.txt\n__HAB_E_0123456789abcdef:0\n$ printf x __HAB_S_00000000000000ff\nx__HAB_E_00000000000000ff:-1\n$ ";
        assert_eq!(without_markers(screen), "$ ls\na.txt\n$ printf x\nx\n$ ");
        assert_eq!(without_markers("__HAB_S_ 5f and __HAB_E_t:0 stay\n"), "__HAB_S_ 5f and __HAB_E_t:0 stay\n");
    }

    #[test]
    fn rows_of_a_typed_line() {
        assert_eq!(AT.rows(1), 1);
        assert_eq!(AT.rows(7), 1);
        assert_eq!(AT.rows(9), 2);
        assert_eq!(AT.rows(18), 2);
        assert_eq!(AT.rows(19), 3);
    }

    #[test]
    fn a_line_never_ends_at_the_margin() {
        let (line, rows) = AT.fit("12345678".to_owned());
        assert_eq!(line, "12345678 ");
        assert_eq!(rows, Some(2));
        let (line, rows) = AT.fit("1234567".to_owned());
        assert_eq!(line, "1234567");
        assert_eq!(rows, Some(1));
    }

    #[test]
    fn lines_that_cannot_be_measured_are_not_wiped() {
        assert_eq!(AT.fit("é".to_owned()).1, None);
        assert_eq!(TypedAt { cursor_x: 10, ..AT }.fit("x".to_owned()).1, None);
        assert_eq!(TypedAt { cursor_x: 0, width: 0, ..AT }.fit("x".to_owned()).1, None);
    }

    #[test]
    fn near_the_bottom_the_wipe_counts_rows() {
        assert_eq!(AT.wipe(2), "\\033[2A\\r\\033[2C\\033[J");
        assert_eq!(TypedAt { cursor_x: 0, ..AT }.wipe(1), "\\033[1A\\r\\033[J");
        assert_eq!(AT.wipe_all(1, 1), "\\033[2A\\r\\033[J");
    }

    #[test]
    fn where_nothing_can_scroll_the_wipe_goes_back_to_the_cell() {
        let top = TypedAt { cursor_y: 3, ..AT };
        assert_eq!(top.wipe(2), "\\033[4;3H\\033[J");
        assert_eq!(top.wipe_all(2, 1), "\\033[4;1H\\033[J");
    }

    #[test]
    fn the_script_shows_each_line_of_the_command() {
        let script = command_script("a 'b'\nc\n", Some("W".into()), false, ("S_", "t"), ("E_", "t"), "'/x'", None);
        assert_eq!(
            script,
            "printf 'W'\nprintf '%s\\r\\n' 'a '\\''b'\\'''\nprintf '%s \\033[8m%s%s\\r\\n\\033[0m' 'c' S_ t\n\
             . '/x'\nprintf '\\033[8m%s%s:%s\\r\\n\\033[0m' E_ t \"$?\"\n"
        );
    }
}
