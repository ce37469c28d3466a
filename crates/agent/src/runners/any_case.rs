//! A `grep` for a word the goal writes in lower case, made to match it in any case.
//!
//! "How many error entries are there in server.log?" asks for the entries, however the log writes the level:
//! `ERROR`, `error` and `Error` alike. Qwen2.5-Coder 1.5B wrote `grep -c "ERROR"` (the case it saw in a few lines
//! of the file), the 0.5B `grep -c error`: each counted some of them. Where the goal writes the word only in lower
//! case and says nothing of case, a `grep` for that plain word gets `-i`. A word the goal writes in capitals
//! ("ERROR-level entries", "TODO written in capitals") or says the case of ("case-sensitive", "exactly") is matched
//! as the model wrote it.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::runners::field_grep::each_grep;

/// A goal that says how the case of what it looks for counts.
static SAYS_CASE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:case|capitals?|capitali[sz]ed|upper-?case|lower-?case|all-caps|exact|exactly|verbatim|literal(?:ly)?)\b",
    )
});

/// `script` with each `grep` for a word `goal` writes only in lower case made to match it in any case.
pub(crate) fn any_case_greps(goal: &str, script: &str) -> String {
    if SAYS_CASE.is_match(goal) || !script.contains("grep") {
        return script.to_owned();
    }
    each_grep(script, |c| with_any_case(goal, c))
}

/// One `grep` match, given `-i` where its word is one the goal writes only in lower case.
fn with_any_case(goal: &str, c: &Captures<'_>) -> String {
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
    if written.is_empty() || written.iter().any(|w| *w != lower) || quoted {
        return whole;
    }
    // `grep` is the match's first four characters.
    format!("grep -i{}", &whole[4..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_the_goal_writes_in_lower_case_is_matched_in_any_case() {
        let goal = "How many error entries are there in server.log? Just tell me the count.";
        assert_eq!(any_case_greps(goal, "grep -c \"ERROR\" server.log"), "grep -i -c \"ERROR\" server.log");
        assert_eq!(any_case_greps(goal, "grep -c error server.log"), "grep -i -c error server.log");
        assert_eq!(any_case_greps(goal, "n=$(grep -c error server.log)"), "n=$(grep -i -c error server.log)");
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
            assert_eq!(any_case_greps(goal, script), script, "{goal}");
        }
    }
}
