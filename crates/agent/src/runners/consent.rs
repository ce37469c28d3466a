//! The answer a task gives to a program's yes/no question in so many words, read without a model.
//!
//! A person who writes "say yes when it asks", "tell it to go ahead" or "answer no to its question" has answered
//! the question already; a small model shown that task and the question still answered "no" to the first two
//! (Qwen2.5-Coder 0.5B and 1.5B). So the words are read here, and the model is asked only when they do not settle
//! it.
//!
//! The task's consent is a list of *marks*: a yes (`yes`, `go ahead`, `tell it to proceed`) or a no (`answer no`,
//! `no when …`, `don't let it …`, `… stays as it is`), each with what it is about — the words after it up to the
//! next mark or the sentence's end, and for a protecting no (`archive/ stays as it is, don't let it empty that`)
//! the sentence before it too. A mark whose words are all little ones (`say yes when it asks you to confirm`) is
//! about every question. For one question, lopsided, since a wrong yes may delete what the person meant to keep:
//! 1. a no about something the question names (one word both share, `archive` in `archive/ stays as it is` and
//!    `Empty archive/? [y/N]`) is the answer, unless a yes as below says otherwise (then the model decides);
//! 2. a yes about something is the answer only when it names every subject word of the question (`Yes, delete the
//!    temp files` and `Delete 2 temp files? [Y/n]`), says to remove when the question asks to, and the task denies,
//!    protects or defers nothing ("not", "leave … alone", "I'll decide whether …");
//! 3. else marks about every question, when every mark of the task agrees (a yes again only in a task that denies
//!    nothing);
//! 4. else nothing: the model reads the task.
//!
//! Verbs that could be said of anything (`delete`, `remove`, `clean`) are no shared subject: "yes, delete the temp
//! files" says nothing about `Delete cache/? [y/N]`.

use std::sync::LazyLock;

use regex::Regex;

/// The answer `task` gives to the yes/no `question` (the line that asks it), when its words settle it.
///
/// Lopsided on purpose, since a wrong yes may delete what the person meant to keep: a no may come from any word it
/// shares with the question; a yes about something must name everything the question does (its subject words, and
/// a verb of removing when the question asks to remove), and no yes stands in a task that denies, protects or
/// defers anything ("leave x alone", "not the backups", "I'll decide whether …").
pub(crate) fn consent(task: &str, question: &str) -> Option<bool> {
    let question = YES_NO_SUFFIX.replace_all(question, " ");
    // `Keep your local settings.ini?`: a yes keeps, a no changes; the task's words are about changing.
    if INVERTED.is_match(&question) {
        return None;
    }
    // `(3 files)`, `(*.tmp)`: what the question shows of its subject, not the subject.
    let question = PARENTHESISED.replace_all(&question, " ");
    let asked = subject_words(&question);
    let removes = DESTRUCTIVE.is_match(&question);
    // A setting's state says nothing of removing what it names ("enable the cache" is no yes to `Clear the cache?`).
    if !removes && let Some(on) = stated_state(task, &asked) {
        // "Debug mode should be off" answers `Enable debug mode?` no, and `Disable debug mode?` yes.
        return Some(on != SWITCHES_OFF.is_match(&question));
    }
    let marks = marks(task)?;
    let yes_may_stand = !GUARDED.is_match(task);
    let noes = marks.iter().any(|mark| !mark.yes && shares_a_word(&mark.about, &asked));
    let yeses = marks
        .iter()
        .any(|mark| mark.yes && !mark.about.is_empty() && covers(&mark.about, &asked) && (mark.removes || !removes));
    match (noes, yeses && yes_may_stand) {
        (true, false) => return Some(false),
        (false, true) => return Some(true),
        (true, true) => return None,
        (false, false) => {}
    }
    // A mark about every question ("say yes when it asks", "answer no to its question") stands only when every
    // mark of the task says the same.
    let first = marks.first()?.yes;
    let blanket = marks.iter().any(|mark| mark.about.is_empty());
    (blanket && marks.iter().all(|mark| mark.yes == first) && (!first || yes_may_stand)).then_some(first)
}

/// Whether `task` says the thing the question asks about (`asked`: its subject words, every one named) is to be on
/// or off: `debug mode should be off`, `telemetry must be turned on`, `with colours set to off`. `None` when it
/// says neither, or both.
fn stated_state(task: &str, asked: &[String]) -> Option<bool> {
    let set = STATE.captures_iter(task).filter_map(|found| {
        let on = matches!(found.get(2)?.as_str().to_lowercase().as_str(), "on" | "enabled");
        Some((found.get(1)?.as_str(), on))
    });
    let unwanted = NOT_WANTED.captures_iter(task).filter_map(|found| Some((found.get(1)?.as_str(), false)));
    let switched = SWITCHED.captures_iter(task).filter_map(|found| {
        let named = ["a", "b", "c", "d"].iter().find_map(|g| found.name(g))?.as_str();
        let state = ["a_on", "b_on", "c_on", "d_on"].iter().find_map(|g| found.name(g))?.as_str().to_lowercase();
        let off = state.ends_with("off") || state.starts_with("disable") || state.starts_with("deactivate");
        Some((named, !off))
    });
    let mut said = set
        .chain(unwanted)
        .chain(switched)
        .filter_map(|(named, on)| covers(&subject_words(named), asked).then_some(on));
    let first = said.next()?;
    said.all(|on| on == first).then_some(first)
}

/// A setting the task says is to be on or off: up to four words naming it, then `should be off`, `must be turned
/// on`, `set to off`, `is to be disabled`.
static STATE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:(?:should|must|needs?\s+to|has\s+to|is\s+to|ought\s+to)\s+(?:be\s+|stay\s+)?(?:(?:turned|switched|set|left|kept)\s+)?|(?:set|turned|switched)\s+(?:to\s+)?)(off|on|disabled|enabled)\b",
    )
});

/// A thing the task does not want (`we don't want debug logging`, `no need for colours`, `without telemetry`): off.
/// Up to four words, to the clause's end.
static NOT_WANTED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:(?:don'?t|do\s+not|doesn'?t|does\s+not|won'?t|will\s+not)\s+(?:want|need)|no\s+need\s+for|without)\s+(?:any\s+)?((?:[\w-]+\s+){0,3}?[\w-]+)\s*(?:[,.;:!?)]|\band\b|\bbut\b|$)",
    )
});

/// A setting the task switches in so many words: `turn on TLS`, `turn TLS on`, `enable the cache`, `disable
/// telemetry`, `with TLS enabled`, `with colours off`; up to three words naming it, to the clause's end (`with TLS on
/// port 8443` says where, not whether).
static SWITCHED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\b(?:
            (?:turn|switch)\s+(?P<a_on>on|off)\s+(?:the\s+)?(?P<a>(?:[\w-]+\s+){0,2}?[\w-]+)
           |(?:turn|switch)\s+(?:the\s+)?(?P<b>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?P<b_on>on|off)
           |(?P<c_on>enable|disable|activate|deactivate)\s+(?:the\s+)?(?P<c>(?:[\w-]+\s+){0,2}?[\w-]+)
           |with\s+(?:the\s+)?(?P<d>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?P<d_on>enabled|disabled|on|off|turned\s+on|turned\s+off)
        )\s*(?:[,.;:!?)]|\band\b|\bbut\b|\bthen\b|$)",
    )
});

/// A question whose yes turns something off: `Disable debug mode?`, `Turn off the cache?`.
static SWITCHES_OFF: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)\b(?:disable|deactivate|(?:turn|switch|shut)\s+(?:\S+\s+){0,3}?off)\b")
});

/// One yes or no the task says, and the words it is about (none: about every question).
#[derive(Debug, PartialEq, Eq)]
struct Mark {
    /// A yes, else a no.
    yes: bool,
    /// The words naming what it answers, lower-cased, little words left out.
    about: Vec<String>,
    /// Whether its words say to remove something, or that it answers a question about something ("yes, delete
    /// the temp files", "yes when it asks about tmp/"): a yes to a question that removes must.
    removes: bool,
}

/// Which way a mark answers and where its subject lies.
#[derive(Clone, Copy)]
enum Kind {
    /// A yes; its subject follows.
    Yes,
    /// A no; its subject follows (`answer no to the upgrade`).
    No,
    /// A no protecting something; its subject may come first (`archive/ stays as it is`).
    Keeps,
}

/// The marks of `task`, in order; `None` when a yes is hedged, so the words settle nothing: denied or made
/// conditional before it in its clause (`don't say yes`, `if it asks about x, answer yes`, `wait until I say
/// yes`), or limited after it (`yes, remove the logs but not the backups`, `say yes only if …`).
fn marks(task: &str) -> Option<Vec<Mark>> {
    let task = YES_NO_PAIR.replace_all(task, " ");
    let mut found: Vec<(usize, usize, Kind)> = Vec::new();
    for (pattern, kind) in [(&*SAYS_NO, Kind::No), (&*KEEPS, Kind::Keeps), (&*SAYS_YES, Kind::Yes)] {
        for m in pattern.find_iter(&task) {
            if !found.iter().any(|&(start, end, _)| m.start() < end && start < m.end()) {
                found.push((m.start(), m.end(), kind));
            }
        }
    }
    // "Go ahead and run ./reset.sh" only means to run it.
    found.retain(|&(_, end, kind)| !(matches!(kind, Kind::Yes) && AND_RUN.is_match(&task[end..])));
    found.sort_by_key(|&(start, ..)| start);
    let sentence_start = |at: usize| SENTENCE_END.find_iter(&task[..at]).last().map_or(0, |end| end.end());
    let sentence_end = |at: usize| SENTENCE_END.find(&task[at..]).map_or(task.len(), |end| at + end.start());
    let mut marks: Vec<Mark> = Vec::new();
    for (i, &(start, end, kind)) in found.iter().enumerate() {
        let next = found.get(i + 1).map_or(task.len(), |&(next, ..)| next);
        let mut about = task[end..next.min(sentence_end(end))].to_owned();
        let previous_end = i.checked_sub(1).map_or(0, |p| found[p].1);
        let same_sentence = i > 0 && sentence_start(start) <= found[i - 1].0;
        if let Kind::Yes = kind
            && (HEDGE.is_match(&IF_IT_ASKS.replace(&task[sentence_start(start).max(previous_end)..start], ""))
                || LIMITS.is_match(&about))
        {
            return None;
        }
        // "Answer no to everything else": about every question.
        if let Kind::No = kind
            && EVERYTHING_ELSE.is_match(&about)
        {
            about.clear();
        }
        if let Kind::Keeps = kind {
            about = format!("{} {about}", &task[sentence_start(start).max(previous_end)..start]);
        }
        let removes = DESTRUCTIVE.is_match(&about) || ASKS_ABOUT.is_match(&about);
        let mut about = subject_words(&about);
        // `…, don't let it empty that`, `yes, go ahead and do it`: a mark about nothing of its own is about what
        // the mark before it in the sentence is about.
        if about.is_empty()
            && same_sentence
            && let Some(before) = marks.last()
        {
            about.clone_from(&before.about);
        }
        marks.push(Mark { yes: matches!(kind, Kind::Yes), about, removes });
    }
    Some(marks)
}

/// Whether every word of `asked` is one of `about` (as it is or inflected); none asked is not covered.
pub(crate) fn covers(about: &[String], asked: &[String]) -> bool {
    !asked.is_empty() && asked.iter().all(|word| shares_a_word(about, std::slice::from_ref(word)))
}

/// Whether two lists of subject words share one, as it is or inflected (`log` and `logs`, `archive` and
/// `archived`; not `data` and `database`).
pub(crate) fn shares_a_word(about: &[String], asked: &[String]) -> bool {
    let inflected =
        |a: &str, b: &str| b.strip_prefix(a).is_some_and(|ending| ["", "s", "es", "d", "ed", "ing"].contains(&ending));
    about.iter().any(|a| asked.iter().any(|b| inflected(a, b) || inflected(b, a)))
}

/// The words of `text` that can name a subject: lower-cased runs of letters and digits of three characters or more,
/// not little words, nor verbs said of anything.
pub(crate) fn subject_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|word| !GENERIC.contains(&word.as_str()))
        .collect()
}

/// Words that name no subject of a question: little words, the words of asking and answering, and verbs that could
/// be said of anything a program asks about.
const GENERIC: &[&str] = &[
    // little words
    "about",
    "after",
    "all",
    "also",
    "and",
    "any",
    "are",
    "both",
    "but",
    "can",
    "could",
    "does",
    "each",
    "every",
    "for",
    "from",
    "has",
    "have",
    "her",
    "him",
    "his",
    "how",
    "into",
    "its",
    "just",
    "let",
    "not",
    "now",
    "once",
    "one",
    "ones",
    "our",
    "out",
    "over",
    "please",
    "should",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "too",
    "up",
    "was",
    "way",
    "well",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "will",
    "with",
    "would",
    "yes",
    "you",
    "your",
    "must",
    "sure",
    "okay",
    "exactly",
    "really",
    "still",
    "again",
    "anything",
    "everything",
    "stuff",
    "thing",
    "things",
    "file",
    "files",
    "folder",
    "directory",
    "time",
    // asking and answering
    "answer",
    "answers",
    "ask",
    "asks",
    "asked",
    "asking",
    "question",
    "questions",
    "prompt",
    "prompts",
    "confirm",
    "confirms",
    "confirmation",
    "say",
    "says",
    "tell",
    "reply",
    "respond",
    "type",
    "ahead",
    "proceed",
    "continue",
    "want",
    "need",
    "don",
    "dont",
    "never",
    "stay",
    "stays",
    "remain",
    "remains",
    "left",
    "kept",
    "leave",
    "alone",
    "untouched",
    "unchanged",
    "intact",
    "script",
    "program",
    // verbs said of anything
    "delete",
    "deletes",
    "deleting",
    "remove",
    "removes",
    "removing",
    "clean",
    "cleans",
    "cleaning",
    "clear",
    "clears",
    "get",
    "gets",
    "rid",
    "wipe",
    "purge",
    "erase",
    "empty",
    "overwrite",
    "replace",
    "run",
    "runs",
    "start",
    "make",
    "create",
    "keep",
    "change",
    "touch",
    "allow",
    "agree",
    "accept",
    "decline",
    "refuse",
    "enable",
    "disable",
    "use",
    "turn",
    "set",
    "install",
    "apply",
];

/// A yes: `yes` opening a clause (`Yes, delete them`, `…, yes we want TLS`) or said as an answer where a request
/// says it (`and answer yes`, `type y`), `go ahead`, `tell it to proceed`, `let it continue`. A `yes` inside a
/// clause may be data (`where the reply column is yes`, `the guests who reply yes`, `--yes`).
static SAYS_YES: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?i)(?:^|[,;:.!?(\u{2013}\u{2014}]\s*|\b(?:and|but|so|then|just|please)\s+)(?:yes\b|(?:answer|say|reply|respond|type|enter|press|tell\s+it)\s+(?:with\s+)?["'`]?(?:yes|y)\b)|\bgo\s+ahead\b|\b(?:tell|let)\s+it\s+(?:to\s+)?(?:proceed|continue)\b"#,
    )
});

/// Words before a yes in its clause that deny it or make it conditional.
static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:not|never|no|without|unless|until|only|if|before|instead|need|wait)\b|n['’]t\b",
    )
});

/// Words after a yes that limit it to less than the question may ask: `but not`, `except`, `only if`, `keep …`.
static LIMITS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:but|except|excluding|apart|other\s+than|not|only|if|unless|else|otherwise|leave|keep|alone|instead|until|before)\b|n['’]t\b",
    )
});

/// Whether `word` is a verb of removing or replacing ([`DESTRUCTIVE`]).
pub(crate) fn is_removing(word: &str) -> bool {
    DESTRUCTIVE.is_match(word)
}

/// A verb of removing or replacing something a question may ask to do.
static DESTRUCTIVE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:delet|remov|rid\b|drop|wip|eras|purg|clear|clean|empt|overwrit|replac|reset|truncat|discard|trash|prun|throw|destroy|kill|uninstall|unlink|rm\b)",
    )
});

/// A yes said of a question about something: `yes when it asks about tmp/`.
static ASKS_ABOUT: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:when|if)\s+it\s+asks\s+(?:about|for|to)\b"));

/// Words anywhere in a task that keep a yes from standing: a denial, a protection, a deferral to the person
/// ("I'll decide whether to go ahead", "ask me", "hold off").
static GUARDED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:not|never|no\s+need|without|unless|except|alone|untouched|intact|unchanged|read-only|stays?|remains?|whether|hold\s+off|ask\s+me|check\s+with\s+me|tell\s+you|let\s+me\s+know|decide|wait)\b|n['’]t\b",
    )
});

/// After `go ahead`: `and run …` (running, not consenting).
static AND_RUN: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)^\s+and\s+(?:run|start|execute|launch|use|try|open|call|invoke|do)\b")
});

/// A parenthesised part of a question: `(3 files)`, `(*.tmp)`.
static PARENTHESISED: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"\([^()]*\)"));

/// A no about all else: `to everything else`, `otherwise`, `to the rest`.
static EVERYTHING_ELSE: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:else|otherwise|the\s+rest|all\s+others)\b"));

/// A question whose yes keeps or stops something: `Keep your local config?`, `Skip the upload?`, `Abort?`.
static INVERTED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:keep|keeping|skip|abort|cancel|preserve|leave|retain|stop|undo|revert|don['’]?t|do\s+not|not)\b",
    )
});

/// `if it asks,`, `if it asks you to confirm,`: the condition of every question, no hedge.
static IF_IT_ASKS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:if|when)\s+it\s+(?:asks|prompts)(?:\s+(?:you\s+)?(?:for\s+confirmation|to\s+confirm))?\s*[,:]?\s*$",
    )
});

/// A no said as an answer: `answer no`, `say "no"`, `no when …`, `no to …`, `No, …`, `don't let it …`, `do not
/// confirm`, `decline`. A `no` before a noun (`it has no header`) is no answer.
static SAYS_NO: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?i)(?:^|[,;:.!?(]\s*|\b(?:and|but|so|then|just|please)\s+)(?:answer|say|reply|respond|type|enter|press|tell\s+it)\s+(?:with\s+)?["'`]?(?:no|n)\b|\bno\b(?:\s*,|\s+(?:when|to|for|if|on)\b)|\b(?:don['’]?t|do\s+not|never)\s+(?:(?:let|allow|tell)\s+it(?:\s+to)?(?:\s+(?:go\s+ahead|proceed|continue))?|confirm|agree|accept|go\s+ahead|proceed)\b|\b(?:decline|refuse)\b"#,
    )
});

/// A no protecting what comes before it: `… stays as it is`, `… must remain untouched`, `leave … alone` is not one
/// (its subject is inside).
static KEEPS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:stays?|remains?|be\s+left|be\s+kept)\s+(?:exactly\s+)?(?:as\s+(?:it\s+is|is|they\s+are)|untouched|unchanged|intact|alone)\b",
    )
});

/// `yes/no`, `yes or no`: the name of a kind of question, no answer.
static YES_NO_PAIR: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\byes\s*(?:/|\bor\b)\s*no\b|\by\s*/\s*n\b"));

/// The choices a question ends with: `[y/N]`, `(yes/no)`.
static YES_NO_SUFFIX: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)[\[(]\s*(?:y|yes)\s*/\s*(?:n|no)\s*[\])]"));

/// The end of a sentence: `.`, `!`, `?` or `;` before a space or the end (not the dot of `./run.sh`).
static SENTENCE_END: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"[.!?;](?:\s|$)"));

#[cfg(test)]
mod tests {

    #[test]
    fn a_setting_said_to_be_on_or_off_answers_the_question_that_names_it() {
        let task =
            "Run ./setup and answer it: the site is called atlas, it listens on 7000, and telemetry should be off.";
        assert_eq!(consent(task, "Enable telemetry? [y/N]:"), Some(false));
        assert_eq!(consent(task, "Disable telemetry? [y/N]:"), Some(true));
        // A question about something else is not answered by it.
        assert_eq!(consent(task, "Listen on all interfaces? [y/N]:"), None);
        let task = "Start ./kiosk with the screen saver turned on.";
        assert_eq!(consent(task, "Use a screen saver? [y/N]"), Some(true));
        assert_eq!(consent("Run ./kiosk; sound must be on but music off.", "Enable music? [y/N]"), None);
        // A thing the task does not want is off.
        let task = "Run ./init and answer it: the app is called kite, it listens on 7000, and we don't want telemetry.";
        assert_eq!(consent(task, "Enable telemetry? [y/N]:"), Some(false));
        assert_eq!(consent(task, "Listen on all interfaces? [y/N]:"), None, "something else");
        assert_eq!(consent("Start ./kiosk without sound effects.", "Enable sound effects? [Y/n]"), Some(false));
        assert_eq!(consent("Start ./kiosk without sound effects.", "Disable sound effects? [Y/n]"), Some(true));
        // A setting switched in so many words.
        for (task, question, answer) in [
            ("Run ./init and answer it: the app is kite, and turn TLS on.", "Enable TLS? [y/N]:", Some(true)),
            ("Run ./init; it should serve kite with TLS enabled.", "Enable TLS? (y/n):", Some(true)),
            ("Run ./init, switch on the cache and keep the rest.", "Use a cache? [y/N]", Some(true)),
            ("Run ./init and disable telemetry, please.", "Enable telemetry? [Y/n]", Some(false)),
            ("Run ./init with colours off.", "Disable colours? [y/N]", Some(true)),
            // Where, not whether; and a state is no yes to removing what it names.
            ("Run ./init to serve kite with TLS on port 8443.", "Enable TLS? [y/N]:", None),
            ("Run ./init and enable the cache.", "Clear the cache? [y/N]", None),
        ] {
            assert_eq!(consent(task, question), answer, "{task} / {question}");
        }
    }

    use super::{Mark, consent, marks};

    #[test]
    fn a_yes_said_for_every_question_answers_it() {
        for task in [
            "Run ./rotate.sh and answer yes to its question.",
            "Start ./sync.sh and say yes when it asks you to confirm.",
            "Archive the old invoices with ./archive.sh and tell it to go ahead.",
            "Run ./migrate.py; yes, go ahead and move them.",
            "Use ./compact.sh, and let it proceed when it asks.",
            "Run ./compact.sh; when it asks, type y.",
            "Run ./compact.sh \u{2014} yes, we want that.",
            "Run ./compact.sh and if it asks, say yes.",
        ] {
            assert_eq!(consent(task, "Compact 3 databases now? [y/N]"), Some(true), "{task}");
        }
    }

    #[test]
    fn a_no_said_for_every_question_answers_it() {
        for task in [
            "Run ./upgrade.sh but answer no to its question.",
            "Run ./install.sh and say \"no\" when it asks.",
            "Run ./deploy.sh, but don't let it go ahead with the restart.",
            "Run ./reset.sh and decline.",
            "Run ./reset.sh and press n when it asks.",
        ] {
            assert_eq!(consent(task, "Restart the service? [y/N]"), Some(false), "{task}");
        }
    }

    #[test]
    fn each_question_takes_the_answer_about_what_it_names() {
        let task = "Run ./tidy.sh. Yes, throw away the cached thumbnails, and yes, compress the old reports too.";
        assert_eq!(consent(task, "Delete 12 cached thumbnails? [Y/n]"), Some(true));
        assert_eq!(consent(task, "Compress the old reports? [y/N]"), Some(true));
        // A yes must name all the question does: its subject words, and removing when it asks to remove.
        assert_eq!(consent(task, "Delete the old reports? [y/N]"), None);
        assert_eq!(consent(task, "Delete cached thumbnails and previews? [y/N]"), None);
        // A task that protects anything lets no yes stand; a no it says stands on one shared word.
        let task = format!("{task} But drafts/ stays exactly as it is, don't let it empty that.");
        assert_eq!(consent(&task, "Delete 12 cached thumbnails? [Y/n]"), None);
        assert_eq!(consent(&task, "Empty drafts/ (4 files)? [y/N]"), Some(false));
        let task = "Run ./prune.sh. Answer yes when it asks about builds/ and no when it asks about vendor/.";
        assert_eq!(consent(task, "Remove everything in builds/? [y/N]"), Some(true));
        assert_eq!(consent(task, "Remove everything in vendor/? [y/N]"), Some(false));
    }

    #[test]
    fn a_protected_file_the_question_names_is_a_no() {
        let task = "Run ./upgrade.sh and say yes; settings.ini must stay as it is.";
        assert_eq!(consent(task, "Overwrite settings.ini with the new defaults? [y/N]"), Some(false));
        // A yes for every question and a no about something else: the model reads which this one is.
        assert_eq!(consent(task, "Upgrade 3 packages? [y/N]"), None);
    }

    #[test]
    fn a_yes_denied_made_conditional_or_limited_settles_nothing() {
        let question = "Wipe all 1,204 records in data.db? [y/N]";
        for task in [
            "Run ./wipe.sh but don't say yes to anything.",
            "Run ./wipe.sh; never answer yes to the wipe question.",
            "Run ./wipe.sh, but wait until I say yes.",
            "Run ./wipe.sh; it must not go ahead.",
            "Run ./wipe.sh and don't just go ahead.",
            "Run ./wipe.sh. If it asks about the logs, answer yes. Answer no to everything else.",
            "Run ./wipe.sh; yes, clear the logs but not the records.",
            "Run ./wipe.sh and say yes only if it reports no errors.",
            "Run ./wipe.sh, count the guests who reply yes.",
            "Run ./wipe.sh without --yes.",
            "Run ./wipe.sh; ask me first, don't just type y.",
        ] {
            assert_eq!(consent(task, question), None, "{task}");
        }
        // Deferred to the person, or "go ahead" meaning only "run it".
        for task in [
            "Run ./wipe.sh and tell me what it wants to delete; I'll decide whether to go ahead.",
            "Run ./wipe.sh. Hold off answering; I'll tell you when to go ahead.",
            "Go ahead and run ./wipe.sh, then tell me what it asks.",
            "Run ./wipe.sh and say yes when it asks. Leave data.db alone.",
        ] {
            assert_eq!(consent(task, question), None, "{task}");
        }
        // A yes about part of what the question asks, or about something else sharing a word.
        let part = [
            ("Run ./pack.sh and say yes when it asks to compress the logs.", "Delete the original logs? [y/N]"),
            ("Run ./tidy.sh; yes, remove the old logs.", "Remove 3 old backups? [y/N]"),
            ("Run ./db.sh, yes, drop the staging tables.", "Drop production tables? [y/N]"),
        ];
        for (task, question) in part {
            assert_eq!(consent(task, question), None, "{task} / {question}");
        }
        // A question whose yes keeps something: the task's words are about changing it.
        assert_eq!(consent("Run ./sync.sh; data.db stays as it is.", "Keep your local data.db? [Y/n]"), None);
        assert_eq!(consent("Run ./sync.sh and tell it to go ahead.", "Abort the sync? [y/N]"), None);
        // A word shared only as the start of another is not the same subject.
        assert_eq!(consent("Run ./x.sh; yes, remove the data exports.", "Also drop the database? [y/N]"), None);
    }

    #[test]
    fn a_mark_about_nothing_of_its_own_is_about_the_one_before_it() {
        let words = |list: &[&str]| list.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            marks("Yes, throw away the old logs. But drafts/ stays as it is, don't let it empty that."),
            Some(vec![
                Mark { yes: true, about: words(&["throw", "away", "old", "logs"]), removes: true },
                Mark { yes: false, about: words(&["drafts"]), removes: false },
                Mark { yes: false, about: words(&["drafts"]), removes: true },
            ])
        );
        // Another sentence's subject is not borrowed.
        assert_eq!(
            marks("Rotate the logs. Decline."),
            Some(vec![Mark { yes: false, about: Vec::new(), removes: false }])
        );
    }

    #[test]
    fn words_that_do_not_settle_it_leave_it_to_the_model() {
        // Nothing said about answering.
        assert_eq!(consent("Run ./purge.sh to clean out the old snapshots.", "Purge 3 snapshots? [y/N]"), None);
        // A `no` before a noun is no answer.
        assert_eq!(consent("Import the list; it has no header line.", "Skip the first line? [y/N]"), None);
        // A `yes` inside a clause may be data.
        assert_eq!(
            consent("Run ./tally.sh and count the rows whose reply is yes.", "Overwrite tally.csv? [y/N]"),
            None
        );
        // `yes/no` names a kind of question.
        assert_eq!(consent("Run ./setup.sh; it asks a yes/no question.", "Continue? [y/N]"), None);
        // A yes about one thing says nothing about another, whatever the verb.
        let task = "Run ./tidy.sh; yes, delete the temp files.";
        assert_eq!(consent(task, "Delete cache/? [y/N]"), None);
        assert_eq!(consent(task, "Delete 4 temp files? [y/N]"), Some(true));
        // A yes and a no for every question disagree.
        assert_eq!(consent("Say yes to the first and no to the second.", "Proceed? [y/N]"), None);
    }
}
