//! Files a goal says must not be changed — "without editing sync.py", "do not modify app.ini", "leave x.csv alone",
//! "fix what it complains about (not the script itself)" — whatever else it asks: they are only read
//! ([`crate::GoalSpec`]), so a script or a fix that changes one is taken back and told why. Without this, "fix what it
//! complains about, without editing sync.py" let a fix edit sync.py (a goal to fix makes the programs it names
//! changeable), and the program's exit 0 after such a fix would have been claimed as the success.

use std::sync::LazyLock;

use regex::Regex;

use crate::patterns::constant as compile;

/// A refusal to change, just before a file's name: "without editing", "do not modify the file", "never touch".
static REFUSED_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:without|not|never|don't|do\s+not|must\s+not|mustn't|should\s+not|shouldn't)\s+(?:\w+\s+){0,2}?(?:edit|modif|chang|touch|alter|rewrit|overwrit)\w*\s+(?:the\s+(?:file|script|program|config)\s+)?[`'\x22]?$",
    )
});

/// "leave …" just before a file's name, for [`LEFT_AFTER`].
static LEAVE_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\bleave\s+(?:the\s+(?:file|script|program|config)\s+)?[`'\x22]?$"));

/// What follows a file's name that is to stay as it is: "… alone", "… unchanged", "… must not be changed".
static LEFT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^[`'\x22]?\s+(?:alone|as\s+it\s+is|as\s+is|unchanged|untouched|intact|(?:must|should|may)\s+not\s+(?:be\s+)?(?:edit|modif|chang|touch|alter)\w*|(?:stays|remains|is\s+to\s+stay)\s+(?:unchanged|untouched|as\s+it\s+is))\b",
    )
});

/// "not the script itself", "without changing the program": the program the goal runs is not to be changed.
static NOT_THE_PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:not|never|without\s+(?:\w+\s+){0,2}?(?:edit|modif|chang|touch|alter|rewrit)\w*)\s+(?:the|this|that)\s+(?:script|program|tool)(?:\s+itself)?(?:[^'\w]|$)",
    )
});

/// The files of `named` (the files the goal names, in its words) that `goal` says must not be changed; a program
/// file (`is_program`) too when the goal says "not the script itself" or "without changing the program".
pub(crate) fn protected_files(goal: &str, named: &[String], is_program: impl Fn(&str) -> bool) -> Vec<String> {
    let the_program = NOT_THE_PROGRAM.is_match(goal);
    named
        .iter()
        .filter(|file| {
            (the_program && is_program(file))
                || goal.match_indices(file.as_str()).any(|(at, _)| {
                    let (before, after) = (&goal[..at], &goal[at + file.len()..]);
                    REFUSED_BEFORE.is_match(before)
                        || LEAVE_BEFORE.is_match(before) && LEFT_AFTER.is_match(after)
                        || says_must_not(after)
                })
        })
        .cloned()
        .collect()
}

/// Whether what follows a file's name says it must not change by itself ("… must not be changed", "… stays
/// unchanged"), not only with a "leave" before it ("… alone" alone says nothing: "run it alone").
fn says_must_not(after: &str) -> bool {
    static MUST_NOT: LazyLock<Regex> = LazyLock::new(|| {
        compile(
            r"(?i)^[`'\x22]?\s+(?:(?:must|should|may)\s+not\s+(?:be\s+)?(?:edit|modif|chang|touch|alter)\w*|(?:stays|remains|is\s+to\s+stay)\s+(?:unchanged|untouched|as\s+it\s+is))\b",
        )
    });
    MUST_NOT.is_match(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(goal: &str) -> Vec<String> {
        let named = crate::goal_spec::all_named_files(goal);
        protected_files(goal, &named, |f| f.ends_with(".sh") || f.ends_with(".py"))
    }

    #[test]
    fn files_said_not_to_change_are_protected() {
        assert_eq!(protected("Fix what it complains about, without editing sync.py, and run it again."), ["sync.py"]);
        assert_eq!(protected("Run ./pack.py and fix what it reports (without modifying pack.py)."), ["pack.py"]);
        assert_eq!(protected("Do not change notes.txt; write the sorted lines to sorted.txt."), ["notes.txt"]);
        assert_eq!(protected("Repair app.ini. Leave main.py alone."), ["main.py"]);
        assert_eq!(protected("Repair app.ini; data.csv must not be changed."), ["data.csv"]);
        assert_eq!(protected("Never touch the file `keys.txt` while cleaning tmp/."), ["keys.txt"]);
        assert_eq!(
            protected("Run ./build.sh and fix whatever it complains about (not the script itself) until it works."),
            ["./build.sh"]
        );
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
    }
}
