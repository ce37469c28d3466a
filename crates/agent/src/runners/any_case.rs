//! A `grep` for a word the goal writes in lower case, made to match it in any case.
//!
//! "How many error entries are there in server.log?" asks for the entries, however the log writes the level:
//! `ERROR`, `error` and `Error` alike. Qwen2.5-Coder 1.5B wrote `grep -c "ERROR"` (the case it saw in a few lines
//! of the file), the 0.5B `grep -c error`: each counted some of them. Where the goal writes the word only in lower
//! case and says nothing of case, a `grep` for that plain word gets `-i`. A word the goal writes in capitals
//! ("ERROR-level entries", "TODO written in capitals") or says the case of ("case-sensitive", "exactly") is matched
//! as the model wrote it.

use std::path::Path;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::runners::field_grep::{each_grep, grepped_text};

/// A goal that says how the case of what it looks for counts.
static SAYS_CASE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:case|capitals?|capitali[sz]ed|upper-?case|lower-?case|all-caps|exact|exactly|verbatim|literal(?:ly)?)\b",
    )
});

/// `script` with each `grep` for a word `goal` writes only in lower case made to match it in any case, where the
/// file it reads (in `cwd`) writes that word in another case than the `grep`'s somewhere, as a word of its own.
pub(crate) fn any_case_greps(goal: &str, script: &str, cwd: &Path) -> String {
    if SAYS_CASE.is_match(goal) || !script.contains("grep") {
        return script.to_owned();
    }
    each_grep(script, |c| with_any_case(goal, c, cwd))
}

/// Whether the file `file` (in `cwd`) writes `value` in another case, as a word of its own: `GET` in an access log
/// is always `GET`, and `-i` would only add `/budget` and `/target` to a count of `GET` requests.
fn other_case_in(cwd: &Path, file: &str, value: &str) -> bool {
    let Some(text) = grepped_text(cwd, file) else { return false };
    let Ok(word) = Regex::new(&format!(r"(?i)\b{}\b", regex::escape(value))) else { return false };
    word.find_iter(&text).any(|m| m.as_str() != value)
}

/// One `grep` match, given `-i` where its word is one the goal writes only in lower case.
fn with_any_case(goal: &str, c: &Captures<'_>, cwd: &Path) -> String {
    let whole = c[0].to_owned();
    let Some(value) = ["p1", "p2", "p3"].iter().find_map(|g| c.name(g)).map(|m| m.as_str()) else { return whole };
    let options = format!("{}{}", &c["a"], &c["b"]);
    if options.contains('i') || value.chars().count() < 3 || !value.chars().all(char::is_alphabetic) {
        return whole;
    }
    let lower = value.to_lowercase();
    let Ok(word) = Regex::new(&format!(r"(?i)\b{}\b", regex::escape(&lower))) else { return whole };
    let written: Vec<&str> = word.find_iter(goal).map(|m| m.as_str()).collect();
    // Quoted in the goal ("lines with 'Error:'") is the text itself, in its case.
    let quoted = Regex::new(&format!(r#"['"`]{}['"`]"#, regex::escape(&lower))).is_ok_and(|q| q.is_match(goal));
    if written.is_empty() || written.iter().any(|w| *w != lower) || quoted || !other_case_in(cwd, &c["file"], value) {
        return whole;
    }
    // `grep` is the match's first four characters.
    format!("grep -i{}", &whole[4..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("app.log"), "08:00 ERROR disk\n08:01 error net\n08:02 Error io\n").unwrap();
        std::fs::write(dir.path().join("web.log"), "GET /budget\nPOST /target\nGET /\n").unwrap();
        dir
    }

    #[test]
    fn a_word_the_goal_writes_in_lower_case_is_matched_in_any_case() {
        let dir = world();
        let cwd = dir.path();
        let goal = "How many error entries are there in app.log? Just tell me the count.";
        assert_eq!(any_case_greps(goal, "grep -c \"ERROR\" app.log", cwd), "grep -i -c \"ERROR\" app.log");
        assert_eq!(any_case_greps(goal, "grep -c error app.log", cwd), "grep -i -c error app.log");
        assert_eq!(any_case_greps(goal, "n=$(grep -c error app.log)", cwd), "n=$(grep -i -c error app.log)");
        // The file writes it in one case only: `-i` would add other words' letters.
        let get = "How many requests in web.log used the get method?";
        assert_eq!(any_case_greps(get, "grep -c GET web.log", cwd), "grep -c GET web.log");
    }

    #[test]
    fn a_case_the_goal_writes_or_states_is_kept() {
        for (goal, script) in [
            ("How many ERROR-level entries are in app.log?", "grep -c ERROR app.log"),
            ("Count the lines with TODO written in capitals.", "grep -c TODO notes.txt"),
            ("How many error lines are there? Case-sensitive.", "grep -c error app.log"),
            ("How many lines contain 'error'?", "grep -c error app.log"),
            ("How many error lines are there?", "grep -ci error app.log"),
            ("How many warnings are there?", "grep -c error app.log"),
        ] {
            assert_eq!(any_case_greps(goal, script, world().path()), script, "{goal}");
        }
    }
}
