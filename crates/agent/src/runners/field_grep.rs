//! A `grep` for a value that is one column of a file's lines, which also matches the value inside other columns:
//! made to compare that column.
//!
//! "How many requests got a 404?" and "count the entries whose level is ERROR" are questions about one field of
//! each line; `grep -c 404 access.log` also counts `GET /api/orders/404 … 200`, and `grep ERROR app.log` a message
//! that mentions an error. Qwen2.5-Coder 1.5B wrote such a `grep` in three batches of tasks, and the second script
//! written to compare did the same. Where the file's lines split into blank-separated fields, the value is a whole
//! field in one column of most lines that hold it, and some line holds it elsewhere only, the `grep` becomes an
//! `awk` test of that column: `awk '$9 == "404"' access.log`. Not where the goal asks for lines that contain or
//! mention the value (then any place counts), nor for a pattern that is more than a plain word.

use std::path::Path;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// `grep [-c|-w|-F|-i…] WORD FILE`, the word plain or quoted, the command ending there (a pipe, a redirection, `)`).
static GREP_WORD: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"\bgrep(?P<a>(?:[ \t]+-[cwFi]+)*)[ \t]+(?:'(?P<p1>[A-Za-z0-9_.:-]+)'|"(?P<p2>[A-Za-z0-9_.:-]+)"|(?P<p3>[A-Za-z0-9_.:-]+))(?P<b>(?:[ \t]+-[cwFi]+)*)[ \t]+(?P<file>[A-Za-z0-9_./-]*[A-Za-z0-9_-])(?P<end>[ \t]*(?:$|[|>;&)]))"#,
    )
});

/// A goal that asks for lines holding the value anywhere.
static ANYWHERE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:contain|contains|containing|mention|mentions|mentioning|include|includes|including|appear|appears|anywhere|word|string|text)\b",
    )
});

/// The most bytes of a file looked at.
const MOST_BYTES: u64 = 1024 * 1024;

/// `script` with each such `grep` made a test of the value's column (see the module).
pub(crate) fn field_greps(goal: &str, script: &str, cwd: &Path) -> String {
    if ANYWHERE.is_match(goal) || !script.contains("grep") {
        return script.to_owned();
    }
    each_grep(script, |c| column_test(c, cwd).unwrap_or_else(|| c[0].to_owned()))
}

/// `script` with each plain-word `grep` ([`GREP_WORD`]) outside a heredoc replaced by what `with` makes of it.
pub(super) fn each_grep(script: &str, with: impl Fn(&Captures<'_>) -> String) -> String {
    let heredoc = crate::runners::script_fix::in_heredoc(script);
    let lines: Vec<String> = script
        .split('\n')
        .enumerate()
        .map(|(i, line)| if heredoc[i] { line.to_owned() } else { GREP_WORD.replace_all(line, &with).into_owned() })
        .collect();
    lines.join("\n")
}

/// The text of the file a `grep` reads (`file`, in `cwd`), where it is a file of at most [`MOST_BYTES`].
pub(super) fn grepped_text(cwd: &Path, file: &str) -> Option<String> {
    let path = cwd.join(file);
    if std::fs::metadata(&path).map_or(true, |m| !m.is_file() || m.len() > MOST_BYTES) {
        return None;
    }
    std::fs::read_to_string(&path).ok()
}

/// The `awk` test that replaces one `grep` match, where its value is a column's.
fn column_test(c: &Captures<'_>, cwd: &Path) -> Option<String> {
    let value = ["p1", "p2", "p3"].iter().find_map(|g| c.name(g))?.as_str();
    let options = format!("{}{}", &c["a"], &c["b"]);
    let (count, word, any_case) = (options.contains('c'), options.contains('w'), options.contains('i'));
    let file = &c["file"];
    let text = grepped_text(cwd, file)?;
    // `-i`: the value in any case, compared as lower case.
    let (text, value, field) = if any_case {
        (text.to_lowercase(), value.to_lowercase(), "tolower(${})".to_owned())
    } else {
        (text, value.to_owned(), "${}".to_owned())
    };
    let column = over_matched_column(&text, &value, word)?;
    let field = field.replace("{}", &column.to_string());
    let test = if count {
        format!("awk '{field} == \"{value}\" {{n++}} END {{print n+0}}' {file}")
    } else {
        format!("awk '{field} == \"{value}\"' {file}")
    };
    Some(format!("{test}{}", &c["end"]))
}

/// The column (from 1) where `value` is a whole field in most lines holding it, when some line holding it (as grep
/// matches: anywhere, or as a word with `-w`) has another field there.
fn over_matched_column(text: &str, value: &str, word: bool) -> Option<usize> {
    let holds = |line: &str| {
        line.match_indices(value).any(|(at, _)| {
            !word || {
                let is_word = |ch: char| ch.is_alphanumeric() || ch == '_';
                let before = line[..at].chars().next_back().is_none_or(|ch| !is_word(ch));
                let after = line[at + value.len()..].chars().next().is_none_or(|ch| !is_word(ch));
                before && after
            }
        })
    };
    let matching: Vec<Vec<&str>> = text.lines().filter(|l| holds(l)).map(|l| l.split_whitespace().collect()).collect();
    let mut votes: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
    for fields in &matching {
        for (i, _) in fields.iter().enumerate().filter(|(_, f)| **f == value) {
            *votes.entry(i + 1).or_default() += 1;
        }
    }
    let (&column, &hits) = votes.iter().max_by_key(|(column, hits)| (**hits, std::cmp::Reverse(**column)))?;
    let in_column = matching.iter().filter(|fields| fields.get(column - 1) == Some(&value)).count();
    (hits >= 2 && column >= 2 && in_column < matching.len()).then_some(column)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACCESS: &str = "\
10.0.0.1 - - [01/Mar/2025:09:00:00 +0000] \"GET /a HTTP/1.1\" 200 10
10.0.0.2 - - [01/Mar/2025:09:00:01 +0000] \"GET /gone HTTP/1.1\" 410 0
10.0.0.3 - - [01/Mar/2025:09:00:02 +0000] \"GET /items/410 HTTP/1.1\" 200 52
10.0.0.4 - - [01/Mar/2025:09:00:03 +0000] \"GET /old HTTP/1.1\" 410 0
10.0.0.5 - - [01/Mar/2025:09:00:04 +0000] \"GET /b HTTP/1.1\" 200 410
";

    const EVENTS: &str = "\
2025-03-01 09:00 NOTICE boot done
2025-03-01 09:01 ALERT disk full
2025-03-01 09:02 NOTICE cleared the ALERT flag
2025-03-01 09:03 ALERT fan stopped
";

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("access.log"), ACCESS).unwrap();
        std::fs::write(dir.path().join("events.log"), EVENTS).unwrap();
        dir
    }

    fn run(script: &str, dir: &Path) -> String {
        let out = std::process::Command::new("bash").arg("-c").arg(script).current_dir(dir).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    #[test]
    fn a_grep_for_a_columns_value_that_matches_elsewhere_tests_the_column() {
        let dir = world();
        let goal = "How many requests in access.log got a 410 Gone response? Put the count in gone.txt.";
        let fixed = field_greps(goal, "grep -c '410' access.log > gone.txt", dir.path());
        assert_eq!(fixed, "awk '$9 == \"410\" {n++} END {print n+0}' access.log > gone.txt");
        run(&fixed, dir.path());
        assert_eq!(std::fs::read_to_string(dir.path().join("gone.txt")).unwrap().trim(), "2");
        let any_case = field_greps("How many alert entries are there?", "grep -ci alert events.log", dir.path());
        assert_eq!(any_case, "awk 'tolower($3) == \"alert\" {n++} END {print n+0}' events.log");
        assert_eq!(run(&any_case, dir.path()), "2");
        let level = "Count the entries of events.log whose level is ALERT.";
        let piped = field_greps(level, "grep ALERT events.log | wc -l", dir.path());
        assert_eq!(piped, "awk '$3 == \"ALERT\"' events.log | wc -l");
        assert_eq!(run(&piped, dir.path()), "2");
        assert_eq!(
            field_greps(level, "n=$(grep -w \"ALERT\" events.log | wc -l)", dir.path()),
            "n=$(awk '$3 == \"ALERT\"' events.log | wc -l)"
        );
    }

    #[test]
    fn other_greps_and_goals_are_left_alone() {
        let dir = world();
        let goal = "How many requests got a 410 response?";
        for kept in [
            "grep -c ' 410 ' access.log",
            "grep -c '410 [0-9]' access.log",
            "grep -c NOTICE events.log",
            "grep -c 410 missing.log",
        ] {
            assert_eq!(field_greps(goal, kept, dir.path()), kept, "{kept}");
        }
        let anywhere = "How many lines of events.log mention ALERT?";
        assert_eq!(field_greps(anywhere, "grep -c ALERT events.log", dir.path()), "grep -c ALERT events.log");
    }
}
