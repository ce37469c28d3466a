//! Self-consistency for results only their shape vouches for: a second script, sampled independently for the
//! same goal and run staged (never applied), must give the same result before the first counts as checked
//! ([`crate::AgentConfig::consensus`]).
//!
//! A small model's right-shaped result is often wrong (one number, but the count of the wrong lines); two scripts
//! sampled apart rarely make the same mistake. Results are compared as text, line by line, with white space,
//! blank lines and the spelling of numbers (`12`, `12.0`, `12.00`) set aside.

use std::path::Path;

use crate::claims::resolve;

/// The most bytes of one result file read to compare.
const READ_LIMIT: u64 = 256 * 1024;

/// What a second script said of the accepted result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Opinion {
    /// It gave the same result.
    Agrees,
    /// It gave another (its result, in one line).
    Differs(String),
    /// No second result could be had (why).
    Nothing(String),
}

impl Opinion {
    /// The check it is, in words, and whether the result counts as checked by it.
    pub(crate) fn check(&self) -> (String, bool) {
        match self {
            Opinion::Agrees => ("a second script, sampled independently, gave the same result".into(), true),
            Opinion::Differs(theirs) => {
                (format!("a second script, sampled independently, gave another result: {theirs}"), false)
            }
            Opinion::Nothing(why) => (format!("no second script confirmed the result: {why}"), false),
        }
    }
}

/// The result of an attempt, normalised for comparison: the files the goal asks to be written (each as `root`
/// holds it: the working directory for an applied attempt, an overlay's upper directory for a staged one), or,
/// when it asks for none, what the script printed. `None` when a file is missing, too large or not text, or
/// nothing was printed.
pub(crate) fn result_of(required: &[String], root: &Path, printed: &str) -> Option<String> {
    if required.is_empty() {
        let text = normalise(printed);
        return (!text.is_empty()).then_some(text);
    }
    let mut parts = Vec::new();
    for file in required {
        let path = resolve(file, root);
        std::fs::metadata(&path).ok().filter(|m| m.is_file() && m.len() <= READ_LIMIT)?;
        let text = std::fs::read_to_string(&path).ok()?;
        parts.push(format!("{file}:\n{}", normalise(&text)));
    }
    Some(parts.join("\n"))
}

/// Lines trimmed, blank ones dropped, numbers in one spelling.
fn normalise(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| match line.parse::<f64>() {
            Ok(number) if number.is_finite() => format!("{number}"),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a goal's result is one a second script can be compared on: it asks for new files (in `cwd`, where the
/// accepted attempt left them) or printed output, not for files that existed to be changed (a fixed script, an
/// edited config) nor for directories to be made (a result the shell checks by no more than its being there).
pub(crate) fn comparable(spec: &crate::GoalSpec, required: &[String], cwd: &Path) -> bool {
    spec.changes.is_empty() && required.iter().all(|file| resolve(file, cwd).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_compare_apart_from_white_space_and_the_spelling_of_numbers() {
        assert_eq!(result_of(&[], Path::new("/"), " 12\n\n"), result_of(&[], Path::new("/"), "12.0"));
        assert_ne!(result_of(&[], Path::new("/"), "12"), result_of(&[], Path::new("/"), "13"));
        assert_eq!(result_of(&[], Path::new("/"), "  \n"), None, "nothing printed is no result");
        assert_eq!(normalise("b \n\n  a\n"), "b\na", "order counts, blank lines do not");
    }

    #[test]
    fn files_are_read_where_the_attempt_left_them() {
        let dir = tempfile::tempdir().unwrap();
        let (applied, upper) = (dir.path().join("cwd"), dir.path().join("upper"));
        std::fs::create_dir_all(applied.join("out")).unwrap();
        std::fs::create_dir_all(upper.join("out")).unwrap();
        std::fs::write(applied.join("out/n.txt"), "7\n").unwrap();
        std::fs::write(upper.join("out/n.txt"), "7.0").unwrap();
        let required = vec!["out/n.txt".to_owned()];
        let first = result_of(&required, &applied, "ignored");
        assert!(first.is_some());
        assert_eq!(first, result_of(&required, &upper, ""));
        std::fs::write(upper.join("out/n.txt"), "8\n").unwrap();
        assert_ne!(first, result_of(&required, &upper, ""));
        assert_eq!(result_of(&["missing.txt".to_owned()], &upper, "7"), None, "a file not written is no result");
    }

    #[test]
    fn only_files_and_answers_that_are_made_are_compared() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("n.txt"), "4\n").unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        let parse = crate::GoalSpec::parse;
        let count = parse("Count the words in essay.md and write the count to n.txt.");
        assert!(comparable(&count, &["n.txt".to_owned()], dir.path()));
        assert!(comparable(&parse("Which port does server.conf set?"), &[], dir.path()));
        assert!(!comparable(&parse("Fix the typo in build.sh so that it runs."), &[], dir.path()));
        let made = parse("Create a directory named out.");
        assert!(!comparable(&made, &["out".to_owned()], dir.path()), "a directory is checked by being there");
    }

    #[test]
    fn each_opinion_says_whether_the_result_is_checked() {
        assert!(Opinion::Agrees.check().1);
        let (words, checked) = Opinion::Differs("13".into()).check();
        assert!(!checked && words.contains("13"), "{words}");
        assert!(!Opinion::Nothing("the budget is spent".into()).check().1);
    }
}
