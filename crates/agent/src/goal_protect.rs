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
const CHANGING: &str =
    r"(?:edit|modif|chang|touch|alter|rewrit|overwrit|delet|remov|renam|replac|mov(?:e|es|ed|ing)\b|mess\s+with)";

/// A negation, straight or curly apostrophe.
const NOT: &str = r"(?:without|not|never|don['’]t|dont|do\s+not|must\s+not|mustn['’]t|should\s+not|shouldn['’]t|cannot|can['’]t|may\s+not)";

/// A file's name in a list before the one looked at ("don't change a.py, b.ini or c.cfg").
const LISTED: &str = r"(?:[`'\x22]?[\w./~-]+\.\w+[`'\x22]?\s*(?:,\s*(?:or\s+|and\s+|nor\s+)?|\s(?:or|and|nor)\s+))*";

/// More names in a list after the one looked at ("leave a.py and b.ini alone", "x.csv and y.csv are read-only").
const LISTED_AFTER: &str = r"(?:\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|nor)\s+)[`'\x22]?[\w./~-]+\.\w+[`'\x22]?)*";

/// A refusal to change, just before a file's name (or a list of them): "without editing", "do not modify the
/// file", "never touch", "dont change a.py or"; "under no circumstances should", "and neither should". Not "don't
/// forget to edit".
static REFUSED_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)(?:\b{NOT}\s+(?:\w+\s+){{0,2}}?{CHANGING}\w*\s+(?:the\s+(?:file|script|program|config)\s+)?|\b(?:no\s+circumstances|neither|nor)\s+(?:should|must|may|can|shall|will)\s+){LISTED}[`'\x22]?$"
    ))
});

/// "leave …" or "keep …" just before a file's name (or a list of them), for [`LEFT_AFTER`].
static LEAVE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(r"(?i)\b(?:leave|keep)\s+(?:the\s+(?:file|script|program|config)\s+)?{LISTED}[`'\x22]?$"))
});

/// What follows a file's name (and the rest of a list) after "leave" or "keep": "… alone", "… untouched", "… as it
/// is", "… be".
static LEFT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)^[`'\x22)]?{LISTED_AFTER}\s+(?:alone|be\b|as\s+it\s+is|as\s+is|unchanged|untouched|unmodified|intact|exactly\s+as)"
    ))
});

/// What follows a file's name (and the rest of a list) that says by itself it must not change: "… must not be
/// changed", "… cannot be edited", "… must never be modified", "… is not to be changed", "… stays exactly as it is",
/// "… is read-only", "… is the source of truth and is read-only" (not "… is not read-only": [`NOT_READ_ONLY`]).
static MUST_NOT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)^[`'\x22)]?{LISTED_AFTER}\s+(?:(?:(?:must|should|may|can|shall)(?:\s+not|n['’]t|\s+never)|cannot|(?:is|are)\s+not\s+to)\s+(?:be\s+)?{CHANGING}\w*|(?:must|should|has\s+to|have\s+to|needs?\s+to)\s+(?:stay|remain)\s+(?:exactly\s+)?(?:unchanged|untouched|intact|as\s+(?:it\s+|they\s+)?(?:is|are))|(?:stays|remains|stay|remain|is\s+to\s+stay)\s+(?:exactly\s+)?(?:unchanged|untouched|intact|as\s+(?:it\s+|they\s+)?(?:is|are))|(?:is|are)\s+(?:[^.;:!?,\s]+\s+){{0,6}}?read-?only)\b"
    ))
});

/// A file (or list) the goal vouches for and then leaves by pronoun: "… are correct, leave them as they are", "… is
/// fine; don't touch it", "… are right, so keep them".
static FINE_LEFT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)^[`'\x22)]?{LISTED_AFTER}\s+(?:is|are)\s+(?:\w+\s+)?(?:fine|correct|right|ok|okay|good|working)\s*[,;:-]*\s*(?:so\s+|and\s+|just\s+|please\s+)*(?:(?:leave|keep)\s+(?:it|them)\b|{NOT}\s+{CHANGING}\w*\s+(?:it|them)\b)"
    ))
});

/// "not the script itself", "(not the program)", "don't touch the script itself", "don't modify the training
/// script": the program the goal runs is not to be changed (not "without changing the program's output", "the tool
/// configuration").
static NOT_THE_PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?i)\(\s*not\s+the\s+(?:script|program|tool)\s*(?:itself\s*)?\)|(?:\bnot\s+(?:the|this|that)\s+(?:script|program|tool)\s+itself|\b{NOT}\s+(?:\w+\s+){{0,2}}?{CHANGING}\w*\s+(?:the|this|that)\s+(?:[\w-]+\s+)?(?:script|program|tool)(?:\s+itself)?)(?:\s*(?:[.,;:!?)]|--|$)|\s+(?:and|but|or|until|while|when|so|though|then)\b)"
    ))
});

/// A verb that asks for a file to be changed, for [`asks_to_change`].
static CHANGE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:fix|repair|correct|patch|debug|edit|update|change|modify|amend|rewrite|reformat|refactor|tidy(?:\s+up)?|clean(?:\s+up)?|sort|rename|adjust|set|bump|translate|rectify|resolve|replace|remove|delete|add|append|insert|comment|uncomment|optimi[sz]e|format|convert)\b",
    )
});

/// Words that make a name after a change verb the subject of a clause of its own ("fix whatever errors sync.py
/// reports", "fix the problems reported by check.py", "update the README to describe build.sh").
const NOT_THE_OBJECT: &[&str] = &[
    "what", "whatever", "which", "that", "who", "by", "from", "to", "with", "for", "about", "reported", "reports",
    "says", "said", "and", "or", "but", "if", "when", "so", "because", "until", "unless", "since", "while", "where",
];

/// "Don't forget to edit config.py": a reminder, no refusal; "don't just delete x.yaml, repair it" asks for more
/// than the change, not for none.
static REMINDER: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:don['’]t|dont|do\s+not|never)\s+(?:(?:forget|hesitate|fail|neglect)\s+to|just|only|simply|merely)\b",
    )
});

/// "… is not read-only", "… are no longer read-only".
static NOT_READ_ONLY: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)^[`'\x22)]?\s+(?:is|are)\s+(?:not|no\s+longer|never)\s+read-?only\b"));

/// A clause that speaks of what the error is, not of what to leave alone ("it fails because state.json is
/// read-only").
static EXPLAINS: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\b(?:because|since|fails?|failing|failed|errors?|complains?|says|reports?)\b"));

/// What follows a source's name: "convert report.md to report.html", "clean up a.csv into b.csv".
static INTO_ANOTHER: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)^[`'\x22]?\s+(?:in)?to\s+[`'\x22]?[\w./~-]+\.[A-Za-z]\w*\b"));

/// The files of `named` (the files the goal names, in its words) that `goal` says must not be changed and does not
/// also ask to change; the program the goal runs (the first program file it names, `is_program`) too when it says
/// "not the script itself". A file named two ways (`./pack.sh`, `pack.sh`) is one file: all its names are returned.
pub(crate) fn protected_files(goal: &str, named: &[String], is_program: impl Fn(&str) -> bool) -> Vec<String> {
    let program = NOT_THE_PROGRAM.is_match(goal).then(|| named.iter().find(|f| is_program(f))).flatten();
    let mut protected = Vec::new();
    for file in named {
        let names: Vec<&String> = named.iter().filter(|n| crate::goal_spec::same_file(n, file)).collect();
        let mut refused = program.is_some_and(|p| crate::goal_spec::same_file(p, file));
        let mut asked = false;
        for (at, name) in names.iter().flat_map(|name| occurrences(goal, name).map(move |at| (at, name))) {
            let (before, after) = (&goal[..at], &goal[at + name.len()..]);
            // Only the clause the name stands in speaks of it; "do not change x.py's output" speaks of a part of
            // it.
            let before = &before[clause_start(before)..];
            if after.starts_with("'s") || after.starts_with("’s") {
                continue;
            }
            let refuses = REFUSED_BEFORE.is_match(before) && !REMINDER.is_match(before)
                || LEAVE_BEFORE.is_match(before) && LEFT_AFTER.is_match(after)
                || MUST_NOT_AFTER.is_match(after) && !NOT_READ_ONLY.is_match(after) && !EXPLAINS.is_match(before)
                || FINE_LEFT_AFTER.is_match(after);
            if refuses {
                refused = true;
            } else if asks_to_change(before) && !INTO_ANOTHER.is_match(after) {
                asked = true;
            }
        }
        if refused && !asked {
            protected.push(file.clone());
        }
    }
    protected
}

/// Whether `before` (the clause up to a file's name) ends in a request to change it: a change verb, then at most
/// an article, three words and `in`/`of` ("fix", "fix the typo in", "translate the comments in").
fn asks_to_change(before: &str) -> bool {
    CHANGE_VERB.find_iter(before).any(|verb| {
        let mut words: Vec<String> = before[verb.end()..]
            .split_whitespace()
            .map(|w| w.trim_matches(['`', '\'', '"']).to_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        if words.first().is_some_and(|w| matches!(w.as_str(), "the" | "a" | "an" | "its" | "this")) {
            words.remove(0);
        }
        if words.last().is_some_and(|w| matches!(w.as_str(), "in" | "of" | "inside" | "within")) {
            words.pop();
        }
        words.len() <= 3 && !words.iter().any(|w| NOT_THE_OBJECT.contains(&w.as_str()))
    })
}

/// Where `file` stands in `goal` as a name of its own (not inside a longer one: `a.py` in `data.py`, `sync.py` in
/// `sync.py.bak`; a full stop after it ends a sentence).
fn occurrences<'a>(goal: &'a str, file: &'a str) -> impl Iterator<Item = usize> + 'a {
    let part = |c: char| c.is_alphanumeric() || "_/~-".contains(c);
    goal.match_indices(file)
        .filter(move |(at, _)| {
            let before = goal[..*at].chars().next_back();
            let mut after = goal[at + file.len()..].chars();
            let ends = match after.next() {
                None => true,
                Some('.') => after.next().is_none_or(char::is_whitespace),
                Some(c) => !part(c),
            };
            !before.is_some_and(|c| part(c) || c == '.') && ends
        })
        .map(|(at, _)| at)
}

/// Where the clause that ends `before` starts: after the last sentence or clause mark (`.`, `;`, `:`, `!`, `?`,
/// `--`, a comma before "but").
pub(crate) fn clause_start(before: &str) -> usize {
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
            [&*REFUSED_BEFORE, &*LEAVE_BEFORE, &*LEFT_AFTER, &*MUST_NOT_AFTER, &*FINE_LEFT_AFTER, &*NOT_THE_PROGRAM];
        for re in all.into_iter().chain([&*CHANGE_VERB, &*INTO_ANOTHER, &*REMINDER, &*NOT_READ_ONLY, &*EXPLAINS]) {
            assert!(!re.as_str().is_empty());
        }
    }

    #[test]
    fn files_said_not_to_change_are_protected() {
        assert_eq!(protected("Fix what it complains about, without editing sync.py, and run it again."), ["sync.py"]);
        assert_eq!(
            protected("Run ./pack.py and fix what it reports (without modifying pack.py)."),
            ["./pack.py", "pack.py"],
            "one file, named two ways"
        );
        assert_eq!(protected("Fix whatever errors sync.py reports, without editing sync.py."), ["sync.py"]);
        assert_eq!(protected("Repair what load.py complains about; leave load.py alone."), ["load.py"]);
        assert_eq!(protected("Fix the problems reported by check.py without modifying check.py."), ["check.py"]);
        assert_eq!(protected("Update the README to describe build.sh, but don't modify build.sh."), ["build.sh"]);
        assert_eq!(protected("Leave setup.py and tox.ini alone; make the tests pass."), ["setup.py", "tox.ini"]);
        assert_eq!(protected("a.csv and b.csv are read-only; merge them into c.csv."), ["a.csv", "b.csv"]);
        for goal in [
            "Fix app.ini; main.py cannot be changed.",
            "Fix app.ini; main.py must never be edited.",
            "Fix app.ini; main.py is not to be changed.",
            "Fix app.ini but don’t touch main.py.",
        ] {
            assert_eq!(protected(goal), ["main.py"], "{goal}");
            // A name after "so" is the subject of a clause of its own, not what the fix changes.
            assert_eq!(protected("Fix routes.json so ship.sh runs; don't edit ship.sh."), ["ship.sh"]);
        }
        assert_eq!(
            protected("Get ./mill running. mill.sh and sacks.csv are fine, leave them."),
            ["mill.sh", "sacks.csv"]
        );
        assert_eq!(protected("Fix grain.toml; sacks.csv is correct, so don't edit it."), ["sacks.csv"]);
        assert!(protected("sacks.csv is fine, but leave me a note in notes.md.").is_empty(), "no pronoun");
        assert_eq!(protected("Restore sync.py from sync.py.bak; do not edit sync.py.bak."), ["sync.py.bak"]);
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
        assert_eq!(
            protected("The kiln.sh run fails on fire.conf. Fix the config (not the program) so it runs."),
            ["kiln.sh"]
        );
        assert_eq!(protected("kiln.sh fails. Fix the bug in fire.conf (not the script) first."), ["kiln.sh"]);
        assert_eq!(
            protected("Run ./report.sh until it works; the bug is in lib/util.sh -- don't touch the script itself."),
            ["./report.sh"],
            "only the program it runs"
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
        // Asked to change, with a restriction on part of it: the request wins.
        assert!(protected("Bump the version in Cargo.toml; keep the rest of Cargo.toml untouched.").is_empty());
        assert!(protected("Translate the comments in main.py. The code in main.py must not be modified.").is_empty());
        assert!(protected("Check that notes.txt is unchanged since Monday.").is_empty());
        assert!(protected("Run lint.sh and fix what it reports; do not change lint.sh's exit codes.").is_empty());
        assert!(protected("Leave a note in log.txt, then run backup.sh.").is_empty());
        assert!(
            protected("Run python3 train.py and fix what it reports, without changing the program's output.")
                .is_empty()
        );
        assert!(protected("Don't forget to edit config.py.").is_empty());
        assert!(protected("Don't just delete broken.yaml, repair it.").is_empty(), "more than the change");
        assert!(protected("Run ./app.sh; it fails because state.json is read-only. Fix that.").is_empty());
        assert!(protected("Make state.json writable: state.json is not read-only any more.").is_empty());
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
