//! Heredocs in a script's text: where each one's body is, so that what reads a script's commands can tell the
//! commands from the input they are fed (`python3 - <<'EOF'` is followed by python, not shell).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// A heredoc's opening (`<<EOF`, `<<-'END'`, `<< "PY"`) and its delimiter: not a here-string (`<<<`), not a shift
/// (`$((1 << 2))`: a delimiter starts with a letter or `_`).
static OPENING: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"(?:^|[^<])<<-?[ \t]*['"]?([A-Za-z_]\w*)['"]?"#));

/// One heredoc of a script, by line index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heredoc {
    /// The line that opens it.
    pub(crate) opener: usize,
    /// The lines of its body; its closing line (when there is one) is `body.end`.
    pub(crate) body: Range<usize>,
}

/// The heredocs of `lines`, in order. A body runs to the first line that is its delimiter (leading and trailing
/// blanks aside: a model indents them), or to the end when none closes it. One heredoc per opening line.
pub(crate) fn heredocs(lines: &[&str]) -> Vec<Heredoc> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let Some(delimiter) = OPENING.captures(lines[at]).map(|c| c[1].to_owned()) else {
            at += 1;
            continue;
        };
        let end = (at + 1..lines.len()).find(|&i| lines[i].trim() == delimiter).unwrap_or(lines.len());
        found.push(Heredoc { opener: at, body: at + 1..end });
        at = end + 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heredoc_patterns_compile() {
        assert!(!OPENING.as_str().is_empty());
    }

    #[test]
    fn bodies_run_to_their_delimiter() {
        let text = "python3 - <<'EOF'\nprint(1)\n  EOF\necho $((1<<2))\ncat <<<x\ncat << \"END\"\na\nEND\nsh <<X\nls";
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            heredocs(&lines),
            [Heredoc { opener: 0, body: 1..2 }, Heredoc { opener: 5, body: 6..7 }, Heredoc { opener: 8, body: 9..10 },]
        );
    }
}
