//! Files a goal says must not be changed — "without editing sync.py", "do not modify `app.ini`", "leave x.csv
//! alone", "keep y.log untouched", "z.json is read-only", "don't touch the script itself" — unless the goal also asks
//! for that file to be changed ("fix the JSON syntax in site.json without changing any of its values": the
//! restriction is on part of it). Such files are only read ([`crate::GoalSpec`]): a script or a fix that changes one
//! is taken back and told why. Without this, a goal to fix made every program it names changeable, so "fix what it
//! complains about, without editing sync.py" let a fix edit sync.py, and the program's exit 0 after a fix that
//! deleted its own check would have been claimed as the success.

use std::sync::LazyLock;

use regex::Regex;

use crate::patterns::constant as compile;

/// Verbs of changing a file, as the stem of the word.
const CHANGING: &str = r"(?:edit|modif|chang|touch|alter|rewrit|overwrit|mess\s+with)";

/// A file's name in a list before the one looked at ("don't change a.py, b.ini or c.cfg").
const LISTED: &str = r"(?:[`'\x22]?[\w./~-]+\.\w+[`'\x22]?\s*(?:,\s*(?:or\s+|and\s+|nor\s+)?|\s(?:or|and|nor)\s+))*";

/// A refusal to change, just before a file's name (or a list of them): "without editing", "do not modify the
/// file", "never touch", "dont change a.py or"; "under no circumstances should", "and neither should".
static REFUSED_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)(?:\b(?:without|not|never|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|shouldn't|cannot|can't|may\s+not)\s+(?:\w+\s+){{0,2}}?{CHANGING}\w*\s+(?:the\s+(?:file|script|program|config)\s+)?|\b(?:no\s+circumstances|neither|nor)\s+(?:should|must|may|can|shall|will)\s+){LISTED}[`'\x22]?$"
    ))
});

/// "leave …" or "keep …" just before a file's name, for [`LEFT_AFTER`].
static LEAVE_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\b(?:leave|keep)\s+(?:the\s+(?:file|script|program|config)\s+)?[`'\x22]?$"));

/// What follows a file's name after "leave" or "keep": "… alone", "… untouched", "… as it is", "… be".
static LEFT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)^[`'\x22]?\s+(?:alone|be\b|as\s+it\s+is|as\s+is|unchanged|untouched|unmodified|intact|exactly\s+as)")
});

/// What follows a file's name that says by itself it must not change: "… must not be changed", "… stays exactly as
/// it is", "… is read-only", "… is the source of truth and is read-only".
static MUST_NOT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)^[`'\x22)]?\s+(?:(?:must|should|may|can|shall)\s+not\s+(?:be\s+)?{CHANGING}\w*|(?:must|should|has\s+to|needs\s+to)\s+(?:stay|remain)\s+(?:exactly\s+)?(?:unchanged|untouched|intact|as\s+(?:it\s+)?is)|(?:stays|remains|is\s+to\s+stay)\s+(?:exactly\s+)?(?:unchanged|untouched|intact|as\s+(?:it\s+)?is)|(?:is|are)\s+(?:[^.;:!?,]{{0,40}}?\s)?read-?only)\b"
    ))
});

/// "not the script itself", "don't touch the script itself", "don't modify the training script": the program the
/// goal runs is not to be changed.
static NOT_THE_PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)(?:\bnot\s+(?:the|this|that)\s+(?:script|program|tool)\s+itself|\b(?:not|never|don't|dont|do\s+not|without)\s+(?:\w+\s+){{0,2}}?{CHANGING}\w*\s+(?:the|this|that)\s+(?:\w+\s+)?(?:script|program|tool))\b"
    ))
});

/// A request to change a file, just before its name: "fix", "fix the typo in", "translate the comments in",
/// "update", "in place" aside (that is [`crate::GoalSpec`]'s).
static CHANGE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:fix|repair|correct|patch|debug|edit|update|change|modify|amend|rewrite|reformat|refactor|tidy(?:\s+up)?|clean(?:\s+up)?|sort|rename|adjust|set|bump|translate|rectify|resolve|replace|remove|delete|add|append|insert|comment|uncomment|optimi[sz]e|format|convert)\s+(?:[\w-]+\s+){0,4}?(?:in|of|inside|within)?\s*[`'\x22]?$",
    )
});

/// What follows a source's name: "convert report.md to report.html", "clean up a.csv into b.csv".
static INTO_ANOTHER: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)^[`'\x22]?\s+(?:in)?to\s+[`'\x22]?[\w./~-]+\.[A-Za-z]\w*\b"));

/// The files of `named` (the files the goal names, in its words) that `goal` says must not be changed and does not
/// also ask to change; a program file (`is_program`) too when the goal says "not the script itself".
pub(crate) fn protected_files(goal: &str, named: &[String], is_program: impl Fn(&str) -> bool) -> Vec<String> {
    let the_program = NOT_THE_PROGRAM.is_match(goal);
    named
        .iter()
        .filter(|file| {
            let mut refused = the_program && is_program(file);
            let mut asked = false;
            for (at, _) in occurrences(goal, file) {
                let (before, after) = (&goal[..at], &goal[at + file.len()..]);
                // Only the clause the name stands in speaks of it; "do not change x.py's output" speaks of a
                // part of it.
                let before = &before[clause_start(before)..];
                if after.starts_with("'s") || after.starts_with("’s") {
                    continue;
                }
                if REFUSED_BEFORE.is_match(before)
                    || LEAVE_BEFORE.is_match(before) && LEFT_AFTER.is_match(after)
                    || MUST_NOT_AFTER.is_match(after)
                {
                    refused = true;
                } else if CHANGE_BEFORE.is_match(before) && !INTO_ANOTHER.is_match(after) {
                    asked = true;
                }
            }
            refused && !asked
        })
        .cloned()
        .collect()
}

/// Where `file` stands in `goal` as a name of its own (not inside a longer one: `a.py` in `data.py`).
fn occurrences<'a>(goal: &'a str, file: &'a str) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    let part = |c: char| c.is_alphanumeric() || "_./~-".contains(c);
    goal.match_indices(file).filter(move |(at, _)| {
        let before = goal[..*at].chars().next_back();
        let after = goal[at + file.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(|c| part(c) && c != '.')
    })
}

/// Where the clause that ends `before` starts: after the last sentence or clause mark (`.`, `;`, `:`, `!`, `?`,
/// `--`, a comma before "but").
fn clause_start(before: &str) -> usize {
    static MARK: LazyLock<Regex> =
        LazyLock::new(|| compile(r"(?i)(?:[.;:!?](?:\s|$)|\s--?\s|\(|\)|,\s*(?:but|though|however)\b)"));
    MARK.find_iter(before).last().map_or(0, |m| m.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(goal: &str) -> Vec<String> {
        let named = crate::goal_spec::all_named_files(goal);
        protected_files(goal, &named, |f| f.ends_with(".sh") || f.ends_with(".py"))
    }

    #[test]
    fn every_pattern_compiles() {
        let all =
            [&*REFUSED_BEFORE, &*LEAVE_BEFORE, &*LEFT_AFTER, &*MUST_NOT_AFTER, &*NOT_THE_PROGRAM, &*CHANGE_BEFORE];
        for re in all.into_iter().chain([&*INTO_ANOTHER]) {
            assert!(!re.as_str().is_empty());
        }
    }

    #[test]
    fn files_said_not_to_change_are_protected() {
        assert_eq!(protected("Fix what it complains about, without editing sync.py, and run it again."), ["sync.py"]);
        assert_eq!(protected("Run ./pack.py and fix what it reports (without modifying pack.py)."), ["pack.py"]);
        assert_eq!(protected("Do not change notes.txt; write the sorted lines to sorted.txt."), ["notes.txt"]);
        assert_eq!(protected("Repair app.ini. Leave main.py alone."), ["main.py"]);
        assert_eq!(protected("Repair app.ini; data.csv must not be changed."), ["data.csv"]);
        assert_eq!(protected("Never touch the file `keys.txt` while cleaning tmp/."), ["keys.txt"]);
        assert_eq!(protected("Tidy out/, but keep ledger.csv untouched."), ["ledger.csv"]);
        assert_eq!(protected("Don't change setup.py or tox.ini; make the tests pass."), ["setup.py", "tox.ini"]);
        assert_eq!(protected("rates.json is read-only. Fix convert.py."), ["rates.json"]);
        assert_eq!(
            protected("Run ./build.sh and fix whatever it complains about (not the script itself) until it works."),
            ["./build.sh"]
        );
        assert_eq!(protected("Run ./go.sh until it works; don't modify the launcher script."), ["./go.sh"]);
    }

    #[test]
    fn files_to_change_are_not_protected() {
        assert!(protected("Fix run.sh so that it prints hello.").is_empty());
        assert!(protected("Fix the typo in build.sh without changing anything else.").is_empty());
        assert!(
            protected("tally.py raises a KeyError. Repair the bug, run it and save its output to out.txt.").is_empty()
        );
        assert!(protected("Run job.sh alone, then sort out.txt.").is_empty(), "'alone' without 'leave'");
        assert!(protected("Make sure the script's output is not changed: fix a.sh.").is_empty());
        // Asked to change, with a restriction on part of it: the request wins.
        assert!(protected("Bump the version in Cargo.toml; keep the rest of Cargo.toml untouched.").is_empty());
        assert!(protected("Translate the comments in main.py. The code in main.py must not be modified.").is_empty());
        assert!(protected("Check that notes.txt is unchanged since Monday.").is_empty());
        assert!(protected("Run lint.sh and fix what it reports; do not change lint.sh's exit codes.").is_empty());
        assert!(protected("Leave a note in log.txt, then run backup.sh.").is_empty());
    }

    /// Goals written by someone who had not read this code (tests/data/protected-goals.json): what each says must
    /// not change, and what it asks to change.
    #[test]
    fn goals_written_apart_from_the_parser() {
        #[derive(serde::Deserialize)]
        struct Case {
            goal: String,
            protected: Vec<String>,
            changeable: Vec<String>,
        }
        let cases: Vec<Case> = serde_json::from_str(include_str!("../tests/data/protected-goals.json")).unwrap();
        // Said of a file by a pronoun or a description only ("leave it be", "do not modify the test file"): not
        // understood, so those files stay as the rest of the goal makes them.
        let by_reference = ["tests/test_parser.py", "Dockerfile.prod", "spec/openapi.yaml", "a.csv", "b.csv"];
        let mut wrong = Vec::new();
        for case in &cases {
            let found = protected(&case.goal);
            let expected: Vec<&String> =
                case.protected.iter().filter(|f| !by_reference.contains(&f.as_str())).collect();
            let missed = expected.iter().any(|f| !found.contains(f));
            let extra = found.iter().any(|f| !case.protected.contains(f) || case.changeable.contains(f));
            if missed || extra {
                wrong.push(format!("{:?}: found {found:?}, expected {:?}", case.goal, case.protected));
            }
        }
        assert!(wrong.is_empty(), "{} of {}:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
    }
}
