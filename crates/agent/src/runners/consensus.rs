//! Self-consistency for results only their shape vouches for: a second script, sampled independently for the
//! same goal and run staged (never applied), must give the same result before the first counts as checked
//! ([`crate::AgentConfig::consensus`]).
//!
//! A small model's right-shaped result is often wrong (one number, but the count of the wrong lines); two scripts
//! sampled apart rarely make the same mistake. Results are compared as text, line by line, with white space,
//! blank lines and the spelling of numbers (`12`, `12.0`, `12.00`) set aside.

use std::path::Path;

use router::shell_syntax;

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
    /// None was asked for: the result is a zero ([`is_zero`]), which no agreement would vouch for.
    Zero,
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
            Opinion::Zero => (
                "the result is 0, which scripts whose filters match nothing give too: nothing confirms it".into(),
                false,
            ),
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
        parts.push(format!("{}\n{}", file_header(file), normalise(&text)));
    }
    Some(parts.join("\n"))
}

/// The line that opens a file's part of a result ([`result_of`]).
fn file_header(file: &str) -> String {
    format!("{file}:")
}

/// Whether a result (as [`result_of`] gives it) is a zero and nothing else: the printed answer, or each file the goal
/// asks for, holds only the number 0. It is what a count or a total of nothing gives, and so what two scripts whose
/// filters both match nothing agree on: their agreement on it is no evidence (with Qwen2.5-Coder-1.5B, the three
/// agreements seen on visible tasks were all on `0`, and one was wrong). A second script is not asked for.
pub(crate) fn is_zero(result: &str, required: &[String]) -> bool {
    let headers: Vec<String> = required.iter().map(|file| file_header(file)).collect();
    let mut values = result.lines().filter(|line| !headers.iter().any(|h| h == line)).peekable();
    values.peek().is_some() && values.all(|line| line.parse::<f64>().is_ok_and(|n| n == 0.0))
}

/// Whether a result (as [`result_of`] gives it) found nothing: a zero ([`is_zero`]), or each file the goal asks for
/// empty. It is what a filter that matches no line gives.
pub(crate) fn found_nothing(result: &str, required: &[String]) -> bool {
    let headers: Vec<String> = required.iter().map(|file| file_header(file)).collect();
    let empty =
        !required.is_empty() && result.lines().all(|line| line.trim().is_empty() || headers.iter().any(|h| h == line));
    empty || is_zero(result, required)
}

/// Whether two scripts reach their result the same way ([`method`]): then their agreement is one script's result
/// twice, and no evidence (Qwen2.5-Coder-1.5B's second script for a line count was `cat guests.txt | wc -l` after
/// `wc -l < guests.txt`, and both missed a last line with no newline at its end).
pub(crate) fn same_method(a: &str, b: &str, cwd: &Path) -> bool {
    let (a, b) = (method(a, cwd), method(b, cwd));
    !a.is_empty() && a == b
}

/// How a script reaches its result: each command it runs (command substitutions' too) as its program and its words,
/// with the existing files it names left out (the input, however it is fed) and the commands that only feed or
/// show data dropped (`cat` with no options, `echo`, `printf`, `set`), so `wc -l < a.txt`,
/// `cat a.txt | wc -l` and `n=$(wc -l < a.txt); echo "$n"` are one method.
fn method(script: &str, cwd: &Path) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    collect_commands(script, cwd, &mut commands);
    commands
}

fn collect_commands(code: &str, cwd: &Path, into: &mut Vec<Vec<String>>) {
    for command in shell_syntax::parse(code).commands() {
        for inner in command.all_words().flat_map(|word| &word.substitutions) {
            collect_commands(inner, cwd, into);
        }
        let (words, _) = shell_syntax::strip_prefixes(&command.words);
        let Some((program, args)) = words.split_first() else { continue };
        let name = shell_syntax::program_name(&program.text);
        let feeds = match name {
            "cat" => args.iter().all(|w| !w.text.starts_with('-')),
            "echo" | "printf" | "set" | "exit" | "true" => true,
            _ => false,
        };
        if feeds {
            continue;
        }
        let mut words = vec![name.to_owned()];
        words.extend(
            args.iter()
                .map(|w| w.text.trim_start_matches("./").to_owned())
                .filter(|w| w.is_empty() || !cwd.join(w).exists()),
        );
        into.push(words);
    }
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
        assert!(!Opinion::Zero.check().1);
    }

    #[test]
    fn scripts_that_feed_the_same_input_to_the_same_commands_are_one_method() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x\ny").unwrap();
        let same = |a: &str, b: &str| same_method(a, b, dir.path());
        assert!(same("wc -l < a.txt", "cat a.txt | wc -l"));
        assert!(same("#!/bin/bash\nset -e\nn=$(wc -l < ./a.txt)\necho \"$n\"", "wc -l a.txt"));
        assert!(same("grep -c 'x' a.txt", "grep -c x < a.txt"));
        assert!(!same("wc -l < a.txt", "grep -c '' a.txt"));
        assert!(!same("awk 'END {print NR}' a.txt", "awk '{n++} END {print n}' a.txt"), "another program");
        assert!(!same("grep -c x a.txt", "grep -c y a.txt"), "another pattern");
        assert!(!same("cat -n a.txt | tail -1", "cat a.txt | tail -1"), "cat with options is a command");
        assert!(!same("echo 3", "printf '3\\n'"), "nothing computed: no method to share");
    }

    #[test]
    fn a_zero_is_a_result_no_agreement_vouches_for() {
        let root = Path::new("/");
        let printed = |text: &str| result_of(&[], root, text).unwrap();
        assert!(is_zero(&printed("0\n"), &[]));
        assert!(is_zero(&printed(" 0.00 \n\n"), &[]), "any spelling of zero");
        assert!(!is_zero(&printed("10"), &[]));
        assert!(!is_zero(&printed("0\n3"), &[]), "a zero among other numbers is a result");
        assert!(!is_zero(&printed("errors: 0"), &[]));
        let dir = tempfile::tempdir().unwrap();
        let required = vec!["n.txt".to_owned(), "m.txt".to_owned()];
        std::fs::write(dir.path().join("n.txt"), "0\n").unwrap();
        std::fs::write(dir.path().join("m.txt"), "0\n").unwrap();
        assert!(is_zero(&result_of(&required, dir.path(), "").unwrap(), &required), "each file holds 0");
        std::fs::write(dir.path().join("m.txt"), "2\n").unwrap();
        assert!(!is_zero(&result_of(&required, dir.path(), "").unwrap(), &required));
    }
}
