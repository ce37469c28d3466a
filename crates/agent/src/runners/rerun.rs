//! The fix-and-rerun loop: a goal to run a program and, when it fails, fix what it complains about and run it again
//! ("Run ./build.sh; if it fails, fix what it complains about and run it again until it succeeds").
//!
//! The shell runs the program, as the task names it, in a staged attempt like a script's. When it fails, the model
//! is shown the goal, how it failed and the end of its output, and asked for one command that fixes the cause —
//! create the file the error names, change the line it names, set a mode — not for a script: a small model asked
//! for a whole script re-ran the failing program, or pasted the program's own text as its "fix". A reply that runs
//! the program itself, writes the program out again, or repeats a fix already made is not run; the model is told
//! why and asked again. The fix runs staged too (through the gate, as every model command), and is kept when it
//! exits 0; then the program runs again. It ends when the program exits 0 without printing an error, or when the
//! calls (`AgentConfig::max_turns`) run out. A program waiting at a prompt is answered from the task
//! ([`super::questions`]). With the shell's fixes (`AgentConfig::shell_fixes`), a fix the error states itself (a
//! directory to make, a line to add) is made first, without a call ([`super::stated`]).

use std::sync::LazyLock;
use std::time::Duration;

use dag_sched::{DagError, RunOutcome, RunRequest, SubtaskStatus};
use regex::Regex;
use router::shell_syntax;
use tmux_habitat::shell_quote;
use tokio::time::Instant;

use crate::agent::Shared;
use crate::answer::answer_field;
use crate::gate::GatedPane;
use crate::model::{CallShape, Caller};
use crate::observe::{Command, Patience, Seen, Wakeups, Watch, watch_command};
use crate::prompt::{FixPrompt, fix_request, line_fix_request};
use crate::runners::fix_sources;
use crate::runners::line_fix::{LineReply, LineSite, asks_to_fix};
use crate::runners::questions::{Asker, Prompted, answer_questions};
use crate::runners::result_check::{Before, check_result, empty_directory, error_line};
use crate::runners::script::{
    Launch, PROMPT_QUIET, Script, UNSEEN_QUESTION, gate_script, no_pager_file, tail, timed_out,
};
use crate::runners::script_fix::fitted_to_files;
use crate::runners::setting::Setting;
use crate::runners::staging::{Settled, Staging};
use crate::runners::stated::{Scene, stated_fix};
use crate::runners::value_source::{changes_a_source, value_for_missing, value_sources, writes_a_source};
use crate::runners::{budget_outcome, pane_directory, progress};
use crate::text::{bound, one_line};

/// A goal that asks for a failing program to be fixed and run again, or run until it works.
static RERUN: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\b(?:until\s+it\s+(?:succeeds|works|runs|passes|completes|finishes)
        |(?:fix|repair|resolve|solve)\s+(?:what|whatever|the\s+(?:errors?|problems?|issues?|causes?|complaints?)\b)
        |make\s+it\s+(?:work|run|succeed|pass)|(?:run|try|start)\s+it\s+again|re-?run\s+it

        |get\s+(?:it|this|that|[\w./-]+)\s+(?:to\s+(?:run|work|finish|complete|pass|succeed)|working|running)
        |(?:repeat|again|keep\s+(?:going|trying|running|at\s+it))\b[^.;!?]{0,40}?\buntil\b
        |what(?:ever)?\s+it\s+(?:complains\s+about|says\s+is\s+(?:wrong|missing)|reports)
        |until\s+it\s+(?:no\s+longer|stops)\s+(?:fails|failing|complaining|complains|erroring))",
    )
});

/// A fix asked for so that a program runs: "Fix app.toml so that ./start.py starts", "correct the settings so
/// bake.sh can run". The program is the one named after "so".
static SO_RUNS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\b(?:fix|fixes|repair|repairs|correct|corrects)\b(?:[^.;!?\n]|\.\w)*?\bso\s+(?:that\s+)?
        (?:running\s+|calling\s+|executing\s+)?(?P<program>(?:\.{1,2}/|/)?[\w./-]*\w\.(?:sh|bash|py|pl|rb|js)|\./[\w.-]+\w)\s+
        (?:starts|runs|works|succeeds|passes|completes|finishes|(?:can|will)\s+(?:start|run|work|succeed|finish))\b
        (?P<after>[^.;!?\n]{0,40})",
    )
});

/// "Fix the script so it works", "repair it so that it runs": a fix for the program to run now, where the words
/// after it say nothing of when or how it runs ([`SCHEDULED`]).
static SO_IT_RUNS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\b(?:fix|repair|correct)\b(?:[^.;!?\n]|\.\w){0,40}?\bso\s+(?:that\s+)?it\s+(?:works|runs|succeeds|passes
        |completes|finishes|(?:can|will)\s+(?:run|work|succeed|finish))\b(?P<after>[^.;!?\n]{0,40})",
    )
});

/// Words after "so X runs" that make it about when or how it runs, not about a run now (`runs every night`, `can run
/// as www-data`, `starts on boot`).
static SCHEDULED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)^\s*(?:again\s+)?(?:at|every|each|nightly|daily|hourly|weekly|monthly|on\s+(?:boot|login|startup|start)|automatically|as|when|whenever|in\s+the\s+background|from\s+cron|under|via|through)\b",
    )
});

/// The program "so (that) PROGRAM runs" names, where the goal asks for a fix for it to run now.
fn so_runs(goal: &str) -> Option<regex::Match<'_>> {
    SO_RUNS.captures_iter(goal).find(|found| for_a_run_now(goal, found)).and_then(|found| found.name("program"))
}

/// Whether a "fix … so it runs" match of `goal` asks for a run now: the words after it (its `after` group) say
/// nothing of when or how it runs, and no denial comes before it.
fn for_a_run_now(goal: &str, found: &regex::Captures<'_>) -> bool {
    !SCHEDULED.is_match(found.name("after").map_or("", |m| m.as_str()))
        && found.get(0).is_some_and(|m| !DENIED.is_match(&goal[..m.start()]))
}

/// What makes the words after it a denial (`don't run it again`).
pub(super) static DENIED: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:don'?t|do\s+not|never|no\s+need\s+to|without)\s+$"));

/// A sentence that says what the program does (`It should copy …`, `The script then writes …`, `./pack.sh is
/// supposed to bundle conf/ into bundle.tar, but …`, `` `python3 sum.py a.csv` is meant to print … ``), not what to
/// do.
static DESCRIBES_PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)^\s*(?:it|this|that|the\s+(?:script|program|tool|job|command|app)|(?:my\s+|the\s+)?`?(?:(?:bash|sh|python3?|perl|ruby|node)\s+)?(?:\./[\w.-]*\w|[\w./-]*\w\.(?:sh|bash|py|pl|rb|js))(?:\s+[\w./-]+){0,2}`?(?:\s+(?:script|program|tool))?)\s+(?:should|will|would|must|is\s+(?:supposed|meant)\s+to|ought\s+to|normally|then|copies|writes|makes|creates|builds|generates|produces|syncs|deploys)\b",
    )
});

/// Words that ask for something to be fixed or made to work: a missing input is then something to make.
static SAYS_FIX: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:fix|fixes|repair|resolve|make\s+it\s+(?:work|run|succeed|pass)|until\s+it\s+(?:succeeds|works|runs|passes)|get\s+(?:it|this|that|[\w./-]+)\s+(?:to\s+(?:run|work|finish|complete|pass|succeed)|working|running))\b",
    )
});

/// A program a goal runs: an interpreter and a file, a `./name`, or a file with a program's extension.
pub(crate) static PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?:\b(bash|sh|python3?|perl|ruby|node)\s+)?((?:\.{1,2}/|/)?[\w./-]*\w\.(?:sh|bash|py|pl|rb|js)\b|\./[\w.-]+\w)",
    )
});

/// A goal that asks for the program's result to be right (`so it prints the right totals`, `writes them correctly`),
/// which a run without an error does not show.
static WANTS_RIGHT: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\b(?:correctly|accurately|properly
        |(?:right|correct|expected|accurate|proper)\s+(?:\w+\s+)?(?:totals?|sums?|counts?|numbers?|values?|results?
        |output|answers?|lines?|rows?|amounts?|averages?|report|list))\b",
    )
});

/// A goal that says the program prints something (`is supposed to print the total per category`, `should show the
/// list`, `it prints a report`): a run that printed nothing did not do its work, whatever its exit code (a 0.5B
/// model's line fix put the program's entry point inside a function; it exited 0 in silence, and was taken as
/// fixed).
static PRINTS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:(?:should|supposed\s+to|meant\s+to|ought\s+to|will|would)\s+(?:print|show|display|echo)|(?:it|program|script)\s+(?:prints|shows|displays|echoes))\b",
    )
});

/// The check said of a clean run whose result the goal wants right: not vouched for.
const UNJUDGED: &str = "whether what it printed or wrote is right was not checked: only that it ran without an error";

/// The most characters of the program's output kept for a fix prompt.
const OUTPUT_CHARS: usize = 1500;

/// The most lines of a fixing command: one change, not a program.
const FIX_LINES: usize = 12;

/// The most calls in a row whose fixes kept no change (refused, failed, taken back, or changing no file): past them
/// the model is going round, and the calls left would be spent the same way. On the visible fix-and-rerun tasks
/// (252 runs that passed, with both local models, over two sessions) no run that passed had more than two such
/// calls in a row; runs that failed went on to eight.
const BARREN_CALLS: u32 = 3;

/// The least sampling temperature of a fix asked for again after a refusal, where the configuration sets one.
const REASK_TEMPERATURE: f32 = 0.9;

/// The program a fix-and-rerun goal runs (its command line), when `goal` is one: it names a program and asks for it
/// to be fixed and run again (or run until it works), and asks for no file besides what the program makes. `command`:
/// the subtask's own command, used when it runs the program the goal names.
pub(crate) fn rerun_program(goal: &str, command: Option<&str>) -> Option<String> {
    // "Fix it, but don't run it again": a rerun denied is none.
    let so = so_runs(goal);
    let so_it = SO_IT_RUNS.captures_iter(goal).any(|found| for_a_run_now(goal, &found));
    let asked = so.is_some() || so_it || RERUN.find_iter(goal).any(|rerun| !DENIED.is_match(&goal[..rerun.start()]));
    if !asked {
        return None;
    }
    let spec = asked_besides_the_program(goal);
    if !spec.writes.is_empty() || !spec.guessed.is_empty() {
        return None;
    }
    // The program "so that X starts" names, before any other the goal names first ("Fix utils.py so that ./app.py
    // starts").
    let found = PROGRAM.captures(so.map_or(goal, |m| m.as_str()))?;
    let file = found.get(2)?.as_str();
    if let Some(command) = command.map(str::trim).filter(|c| !c.is_empty() && !c.contains('\n'))
        && command.contains(file.trim_start_matches("./"))
    {
        return Some(command.to_owned());
    }
    // "`python3 total.py expenses.csv` is supposed to print …": run as the goal writes it, arguments and all.
    if let Some(written) = written_command(goal, file) {
        return Some(written);
    }
    // "pack.sh is meant to …, but running ./pack.sh fails": run as the goal says it is run.
    let run_as = format!("./{file}");
    if found.get(1).is_none() && !file.contains('/') && PROGRAM.find_iter(goal).any(|m| m.as_str() == run_as) {
        return Some(run_as);
    }
    Some(program_command(&found))
}

/// A command line the goal writes in backquotes that runs `file` (`` `python3 total.py expenses.csv` ``): the
/// program with its interpreter or path first, then plain words only (no operator, variable or redirection).
fn written_command(goal: &str, file: &str) -> Option<String> {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"`([^`\n]+)`"));
    let runs: Vec<String> = QUOTED
        .captures_iter(goal)
        .filter_map(|c| {
            let written = c[1].trim();
            let found = PROGRAM.captures(written)?;
            let starts = found.get(0).is_some_and(|m| m.start() == 0);
            let plain = !written.contains([';', '|', '&', '>', '<', '$', '(', ')', '*', '?']);
            (starts && plain && found.get(2)?.as_str() == file).then(|| written.to_owned())
        })
        .collect();
    // Two ways of running it ("`./sync.sh --dry-run` works, but `./sync.sh` fails"): which one is meant is not said.
    match runs.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    }
}

/// What `goal` asks for itself: what the program makes ("It should copy the files into mirror/") is for the program
/// to write, not a file the goal asks for besides it.
pub(crate) fn asked_besides_the_program(goal: &str) -> crate::GoalSpec {
    let asked: String = crate::goal_spec::sentences(goal)
        .into_iter()
        .map(|(start, end)| &goal[start..end])
        .filter(|sentence| !DESCRIBES_PROGRAM.is_match(sentence))
        .collect();
    crate::GoalSpec::parse(&asked)
}

/// The command that runs the program a [`PROGRAM`] match names: its interpreter, where it says one or its extension
/// needs one (`bash pack.sh`, `python3 report.py`), before it; a path (`./x`) alone.
pub(crate) fn program_command(found: &regex::Captures<'_>) -> String {
    let file = found.get(2).map_or("", |m| m.as_str());
    let interpreter = found.get(1).map(|m| m.as_str()).or_else(|| match file.rsplit_once('.').map(|(_, e)| e) {
        _ if file.starts_with("./") || file.starts_with('/') => None,
        Some("sh" | "bash") => Some("bash"),
        Some("py") => Some("python3"),
        Some("pl") => Some("perl"),
        Some("rb") => Some("ruby"),
        Some("js") => Some("node"),
        _ => None,
    });
    // The file's name is only word characters, dots, slashes and dashes (`PROGRAM`): nothing to quote.
    match interpreter {
        Some(interpreter) => format!("{interpreter} {file}"),
        None => file.to_owned(),
    }
}

/// Whether `goal` asks for something to be fixed or made to work (then an input the program misses is for the fix
/// to make, not the end of the subtask).
pub(crate) fn says_to_fix(goal: &str) -> bool {
    SAYS_FIX.is_match(goal)
}

/// What of `promised` (what the goal says the program makes) a run that exited 0 did not make, in words: a file it
/// did not write (unchanged since `before`) or left empty, a directory that is missing or empty.
fn unmade(promised: &[String], before: &Before, cwd: &std::path::Path) -> Option<String> {
    for file in promised {
        let path = crate::claims::resolve(file, cwd);
        let Ok(meta) = std::fs::metadata(&path) else {
            return Some(format!("{file} is not there, and the task says the program makes it"));
        };
        if meta.is_dir() {
            if empty_directory(&path) {
                return Some(format!("{file} is empty, and the task says the program fills it"));
            }
        } else if before.unchanged(file, &meta) {
            return Some(format!("the program did not write {file}, which the task says it makes"));
        } else if meta.len() == 0 {
            return Some(format!("{file} is empty, and the task says the program writes it"));
        }
    }
    None
}

/// `output` without the prefix bash puts before an error about the line that started the program (`/…/.runner/
/// run-9.sh: line 2: ./count.sh: cannot execute: required file not found`): the shell's own file, which is not the
/// program's. Shown it, a small model made a `.runner` directory and wrote into it.
fn without_wrapper(output: &str, wrapper: &str) -> String {
    let prefix = format!("{wrapper}: line ");
    output
        .lines()
        .map(|line| match line.find(&prefix) {
            Some(at) => {
                let rest = &line[at + prefix.len()..];
                let after_number = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                match after_number.strip_prefix(": ") {
                    Some(message) if after_number.len() < rest.len() => format!("{}{message}", &line[..at]),
                    _ => line.to_owned(),
                }
            }
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a fixing command is not run, if it is not: it runs the program itself, writes the program out again, is
/// longer than one change, repeats a fix already made, or acts on nothing the error names (`error`: the program's
/// output; a 0.5B model answered `mkdir cache`, an example's, to an error naming a missing config file, eight times),
/// unless it changes the program where the goal asks for the program to be fixed (`fixes_program`).
fn refusal(
    fix: &str,
    program: &str,
    program_text: Option<&str>,
    made: &[(String, String)],
    error: &str,
    missing: &[String],
    fixes_program: bool,
) -> Option<String> {
    let fix = fix.trim();
    if fix.is_empty() {
        return Some("it held no command".into());
    }
    let file = program_file(program);
    let name = file.trim_start_matches("./");
    if runs_program(fix, name) {
        return Some(format!(
            "`{}` runs the program, which the shell runs again after your fix: reply with the command that changes \
             what the error complains about",
            one_line(fix, 80)
        ));
    }
    if rewrites(fix, name, program_text) {
        return Some(format!(
            "it writes {name} out again: change only what the error names (`sed -i 'Ns/old/new/' {name}`), or make \
             what it asks for"
        ));
    }
    if fix.lines().count() > FIX_LINES {
        return Some("it is a whole script: reply with one command that changes one thing".into());
    }
    if made.iter().any(|(done, _)| done.trim() == fix) {
        return Some(format!("`{}` was done already: do something else about the error above", one_line(fix, 80)));
    }
    // A missing `x.conf` made a directory (what Qwen2.5-Coder-0.5B does for "not found"): a name with an extension
    // is a file's.
    if let Some(file) = made_directories(fix).into_iter().find(|d| {
        let plain = d.chars().all(|c| c.is_alphanumeric() || "._-/".contains(c));
        plain && looks_like_file(d.rsplit('/').next().unwrap_or(d))
    }) {
        // Only a file the error says is missing is one to write (a 0.5B model, told to write a file an error named
        // as a source of a value, wrote it over).
        if !missing.iter().any(|name| name.trim_end_matches('/') == file.trim_start_matches("./")) {
            return Some(format!(
                "{file} is a file's name, not a directory's: make no {file}; act on what the error names"
            ));
        }
        return Some(format!("{file} is a file's name, not a directory's: write the file (`printf '…\\n' > {file}`)"));
    }
    // A goal that asks for the program itself to be fixed lets a fix change it, whatever the error names (an empty
    // variable's `cp: cannot stat '/*.txt'` names no file).
    let edits_in_place = ["sed -i", "sed --in-place", "perl -pi", "perl -i"].iter().any(|e| fix.starts_with(e));
    let on_program = fixes_program
        && edits_in_place
        && arguments(fix, true).iter().any(|word| word.trim_start_matches("./") == name);
    if !on_program && !error.trim().is_empty() && !arguments(fix, true).iter().any(|word| error.contains(word.as_str()))
    {
        let named = named_files(error);
        let hint = if named.is_empty() { String::new() } else { format!(" (it names {})", named.join(", ")) };
        return Some(format!("`{}` acts on nothing the error names{hint}", one_line(fix, 80)));
    }
    None
}

/// Why a fix that writes a file here whole (`> FILE`) is not run while the error says another file is missing: the
/// file it replaces is one the program reads (Qwen2.5-Coder 1.5B, told "VERSION file not found; it holds the newest
/// version in CHANGELOG.md", wrote `VERSION=2.4.0` over CHANGELOG.md). `None` for any other fix.
fn replaces_another_file(fix: &str, cwd: &std::path::Path, missing: &[String]) -> Option<String> {
    let [wanted, ..] = missing else { return None };
    let parsed = shell_syntax::parse(fix);
    let replaced = parsed
        .commands()
        .flat_map(|command| &command.redirections)
        .filter(|r| r.writes() && !r.operator.contains(">>"))
        .filter_map(|r| r.target.as_ref().map(|t| t.text.trim_start_matches("./").to_owned()))
        .find(|target| cwd.join(target).is_file() && !missing.contains(target))?;
    Some(format!(
        "it writes over {replaced}, which is there and may be what the program reads; the error is about {wanted}, \
         which is missing: write {wanted} itself, with what the error says it must hold"
    ))
}

/// The files `error` says are missing (a line that says so names them: with an extension, or in capitals and called
/// a file, `VERSION file`), which are not in `cwd`.
pub(super) fn missing_files(error: &str, cwd: &std::path::Path) -> Vec<String> {
    error
        .lines()
        .filter(|line| MISSING_LINE.is_match(line))
        .flat_map(|line| {
            let words: Vec<&str> = line
                .split_whitespace()
                .map(|w| {
                    w.trim_start_matches(['\'', '"', '`', '(', '[']).trim_end_matches(QUOTES).trim_start_matches("./")
                })
                .collect();
            // A name with an extension, or one in capitals the line calls a file (`VERSION file`; not "such file").
            let named: Vec<String> = words
                .iter()
                .enumerate()
                .filter(|(i, word)| {
                    looks_like_file(word)
                        || (word.len() > 1
                            && word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                            && words.get(i + 1) == Some(&"file"))
                })
                .map(|(_, word)| (*word).to_owned())
                .collect();
            named
        })
        .filter(|name| !name.is_empty() && !cwd.join(name).exists())
        .collect()
}

/// Quotes, brackets and punctuation around a name in an error line.
const QUOTES: [char; 11] = ['\'', '"', '`', '(', ')', '[', ']', '.', ',', ':', ';'];

/// A line that says something is missing.
static MISSING_LINE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:not\s+found|no\s+such\s+file|does\s+not\s+exist|doesn't\s+exist|is\s+missing|cannot\s+(?:open|find))\b",
    )
});

/// Where a `set` fix is made: the working directory, the subtask's records, the program and its error.
struct Place<'a> {
    cwd: &'a std::path::Path,
    records: &'a std::path::Path,
    program: &'a str,
    error: &'a str,
}

/// The command that makes `setting`'s edit: the file's new text, written to the records (`set-N.txt`, `n` the call
/// that asked for it), copied over the file. Why not, where the edit cannot be made: the file is the program, lies
/// outside the working directory, is missing and named by neither the error nor the task, or holds the value already.
fn setting_command(setting: &Setting, at: &Place<'_>, task: &str, n: u32) -> Result<String, String> {
    let file = setting.file.trim_start_matches("./");
    let program = program_file(at.program);
    let program = program.trim_start_matches("./");
    if file == program {
        return Err(format!("{file} is the program: `set` changes a config file it reads"));
    }
    if file.starts_with('/') || file.split('/').any(|part| part == "..") {
        return Err(format!("{file} is outside the working directory: name the file as the error does"));
    }
    let path = at.cwd.join(file);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(format!("{file} cannot be read as a config file ({error})")),
    };
    // A word of the error (`[server]`) is no file to make: a missing file is made only by a file's name.
    if text.is_none() && !(looks_like_file(file) && (at.error.contains(file) || task.contains(file))) {
        let named: Vec<String> =
            named_files(at.error).into_iter().filter(|f| f != program && at.cwd.join(f).is_file()).collect();
        // `set remote timeout 30` for "sync.ini: section [remote] has no 'timeout'": the word is a section of the
        // one file the error names, and the reading is offered whole (a 0.5B model repeated the reply told only
        // to name the file).
        if let [only] = named.as_slice()
            && std::fs::read_to_string(at.cwd.join(only))
                .is_ok_and(|t| t.lines().any(|l| l.trim() == format!("[{file}]")))
        {
            return Err(format!(
                "there is no file {file} here: [{file}] is a section of {only}, so write `set {only} [{file}] {} {}`",
                setting.key, setting.value
            ));
        }
        let hint = if named.is_empty() { String::new() } else { format!(" ({})", named.join(", ")) };
        return Err(format!(
            "there is no file {file} here, and neither the error nor the task names one: set the key in the file the \
             error names{hint}"
        ));
    }
    // A section the file lacks, where the error names one it has (`[SECTION]` copied from the prompt's form, or
    // another section): the error's is meant.
    if let (Some(section), Some(text)) = (&setting.section, &text) {
        let has = |name: &str| text.lines().any(|l| l.trim() == format!("[{name}]"));
        let says = |name: &str| at.error.contains(&format!("[{name}]"));
        if !has(section)
            && !says(section)
            && let Some(named) =
                super::stated::SECTION.captures_iter(at.error).map(|c| c["name"].to_owned()).find(|name| has(name))
        {
            return Err(format!(
                "{file} has no [{section}]; the error is about [{named}]: `set {file} [{named}] {} {}`",
                setting.key, setting.value
            ));
        }
    }
    // The error asks for a key the file lacks, and the reply changes another that it has (a 0.5B model, told
    // "has no 'target'", set `source` to the target's value): that key's value would be lost.
    if let (Some(missing), Some(text)) = (super::stated::missing_key(at.error), &text)
        && !missing.eq_ignore_ascii_case(&setting.key)
        && !super::stated::mentions(at.error, &setting.key)
        && setting.is_set_in(text)
    {
        let section = setting.section.as_ref().map(|s| format!("[{s}] ")).unwrap_or_default();
        return Err(format!(
            "{file} has {} already, and changing it loses its value; the error asks for {missing}, which {file} \
             lacks: `set {file} {section}{missing} VALUE`",
            setting.key
        ));
    }
    let setting = setting.for_shell(super::setting::sourced_by_shell(file, text.as_deref(), at.cwd));
    let new = setting.apply(text.as_deref())?;
    if text.as_deref() == Some(new.as_str()) {
        return Err(format!(
            "{file} has {} = {} already: do something else about the error above",
            setting.key, setting.value
        ));
    }
    let written = at.records.join(format!("set-{n}.txt"));
    std::fs::write(&written, new).map_err(|error| format!("the new text of {file} could not be kept ({error})"))?;
    Ok(format!("cat -- {} > {}", shell_quote(&written.display().to_string()), shell_quote(file)))
}

/// The files `error` names (the first three), as it writes them: `arguments` trims a path's leading `/`, which would
/// make it relative.
fn named_files(error: &str) -> Vec<String> {
    arguments(error, false)
        .into_iter()
        .filter(|w| looks_like_file(w))
        .take(3)
        .map(
            |w| {
                if error.contains(&format!("/{w}")) && !error.contains(&format!("./{w}")) { format!("/{w}") } else { w }
            },
        )
        .collect()
}

/// The words of a text, three characters or more; of a command line (`commands`) those of its commands' arguments,
/// read by the shell's parser (a `|` inside `'s|old|new|'` is no pipe): what it acts on.
fn arguments(text: &str, commands: bool) -> Vec<String> {
    let parts: Vec<String> = if commands {
        operands(text)
    } else {
        text.split(['\n', ';', '|', '&', '(', ')', '`']).map(str::to_owned).collect()
    };
    let mut words = Vec::new();
    for part in &parts {
        for word in part.split(|c: char| !(c.is_alphanumeric() || "._/-".contains(c))).filter(|w| !w.is_empty()) {
            let word = word.trim_matches(['.', '/', '-']);
            if word.chars().count() >= 3 && !words.iter().any(|w| w == word) {
                words.push(word.to_owned());
            }
        }
    }
    words
}

/// What the commands of `line` are given, quotes removed: the words after each program (wrappers skipped), the
/// targets of redirections, and the same of command substitutions.
fn operands(line: &str) -> Vec<String> {
    let mut all = Vec::new();
    for command in shell_syntax::parse(line).commands() {
        let (words, _) = shell_syntax::strip_prefixes(&command.words);
        all.extend(words.iter().skip(1).map(|w| w.text.clone()));
        all.extend(command.redirections.iter().filter_map(|r| r.target.as_ref()).map(|w| w.text.clone()));
        for inner in command.all_words().flat_map(|w| &w.substitutions) {
            all.extend(operands(inner));
        }
    }
    all
}

/// The directories a command line makes with `mkdir`.
fn made_directories(fix: &str) -> Vec<String> {
    program_words(fix)
        .into_iter()
        .filter(|words| words.first().is_some_and(|w| shell_syntax::program_name(w) == "mkdir"))
        .flat_map(|words| words.into_iter().skip(1).filter(|w| !w.starts_with('-')))
        .collect()
}

/// The words of each simple command of `line` from its program on (wrappers such as `sudo`, `time` and `env`
/// skipped), quotes removed; command substitutions' commands too.
fn program_words(line: &str) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    let parsed = shell_syntax::parse(line);
    for command in parsed.commands() {
        let (words, _) = shell_syntax::strip_prefixes(&command.words);
        all.push(words.iter().map(|w| w.text.clone()).collect());
        for inner in command.all_words().flat_map(|w| &w.substitutions) {
            all.extend(program_words(inner));
        }
    }
    all
}

/// A word that names a file: a name and an extension, or a path (not a version or a number).
pub(super) fn looks_like_file(word: &str) -> bool {
    word.contains('/')
        || word.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && ext.chars().any(char::is_alphabetic))
}

/// The program's file in its command line (`python3 tool.py` → `tool.py`).
fn program_file(program: &str) -> String {
    PROGRAM
        .captures(program)
        .and_then(|c| c.get(2))
        .map_or_else(|| program.trim().to_owned(), |m| m.as_str().trim_matches(['\'', '"']).to_owned())
}

/// Whether a simple command of `fix` runs the program `name` (directly, or with an interpreter).
fn runs_program(fix: &str, name: &str) -> bool {
    program_words(fix).iter().any(|words| runs(words, name))
}

/// Whether the words of a simple command (its program first, wrappers skipped) run the program `name`, directly or
/// with an interpreter.
pub(super) fn runs(words: &[String], name: &str) -> bool {
    let is_name = |word: &str| word.trim_start_matches("./") == name || word.ends_with(&format!("/{name}"));
    match words.split_first() {
        Some((first, _)) if is_name(first) => true,
        Some((first, rest)) => {
            matches!(
                shell_syntax::program_name(first),
                "bash" | "sh" | "python" | "python3" | "perl" | "ruby" | "node" | "source" | "."
            ) && rest.iter().find(|w| !w.starts_with('-')).is_some_and(|w| is_name(w))
        }
        None => false,
    }
}

/// Whether `fix` replaces the program `name` as a whole: writes it with `>`, `tee`, `cp` or `mv`, or holds three or
/// more of its lines.
fn rewrites(fix: &str, name: &str, program_text: Option<&str>) -> bool {
    let escaped = regex::escape(name);
    let writes = Regex::new(&format!(
        r#"(?:(?:^|[^>])>\s*|\btee\s+(?:-\S+\s+)*|\b(?:cp|mv|install)\s+(?:-\S+\s+)*\S+\s+)['"]?(?:\./)?{escaped}['"]?(?:\s|$|;|&|\|)"#
    ));
    if writes.is_ok_and(|re| re.is_match(fix)) {
        return true;
    }
    let Some(text) = program_text else { return false };
    let fix_lines: Vec<&str> = fix.lines().map(str::trim).collect();
    let copied = text
        .lines()
        .map(str::trim)
        .filter(|line| line.len() > 3 && !line.starts_with("#!"))
        .filter(|line| fix_lines.contains(line))
        .count();
    copied >= 3
}

/// How one run in the pane ended, for the loop.
enum Ran {
    /// It ended with this exit code and output; its changes are settled.
    Ended { exit_code: i32, output: String, settled: Settled },
    /// It asked something the task gives no answer for.
    Unanswered(String),
    /// It waited for input that is no question to answer (a password, a pager): the prompt line.
    Stuck(String),
    /// It ran past its own limit, shorter than the subtask's, and was stopped; nothing it changed is kept.
    OverLimit(Duration),
    /// The subtask ends here.
    End(RunOutcome),
}

/// Runs the fix-and-rerun loop for `program` (see the module's documentation).
pub(crate) async fn run_rerun(shared: &Shared, request: &RunRequest, program: &str) -> Result<RunOutcome, DagError> {
    let subtask = &request.subtask;
    let deadline = Instant::now() + request.timeout;
    let mode = subtask.mode;
    shared.ledger.update(&subtask.id, |s| s.mode = Some(mode));
    if shared.budget_spent() {
        return Ok(budget_outcome(false, "before this subtask started"));
    }
    let pane = shared.gated_pane(&subtask.pane).await?;
    let records = request.context.runner_dir()?;
    let no_pager = no_pager_file(&records)?;
    let caller = shared.caller(&subtask.id, Some(&request.context));
    let _lock = pane.pane().lock().await;
    let cwd = pane_directory(pane.pane()).await.unwrap_or_else(|| "unknown".into());
    let spec = crate::GoalSpec::parse(&subtask.description);
    let mut staging = Staging::new(shared, &subtask.pane, &spec, &cwd, &records);
    // What the goal says the program makes ("It should copy notes/ into backup/"): an exit 0 that made none of it
    // is no success.
    let promised = spec.required_writes(std::path::Path::new(&cwd));
    // The program is typed as the goal (or the subtask's command) names it: through the gate, as any command.
    if let Err(error) = gate_script(&pane, &Script::command_line(program), &cwd) {
        shared.ledger.update(&subtask.id, |s| s.refused_commands += 1);
        return Ok(RunOutcome::with_status(SubtaskStatus::Failed, format!("`{program}` was refused: {error}")));
    }
    let launch = Launch { request, records: &records, no_pager: &no_pager };
    let runs = Runs { shared, request, pane: &pane, caller: &caller, launch: &launch, deadline };
    let program_path = std::path::Path::new(&cwd).join(program_file(program));
    let mut fixes: Vec<(String, String)> = Vec::new();
    // What the program printed, every run: with the goal and the program's text, where a fix's words may come from.
    let mut printed = String::new();
    // What fixes wrote that nothing gave (`AgentConfig::trace_fixes`): the directory's names, before any run.
    let mut tracer =
        shared.config.trace_fixes.then(|| fix_sources::Tracer::new(std::path::Path::new(&cwd), &staging.skipped()));
    let mut calls = 0;
    // Calls since a fix last kept a change (`BARREN_CALLS`).
    let mut barren = 0;
    // The fixes the shell made as the errors stated them: no calls, but as many at most (a program whose every error
    // names another missing directory would otherwise be fixed until the deadline).
    let mut stated_made = 0;
    // Files the errors name as where a value is found: a fix that changes one is taken back (`value_source`).
    let mut sources: Vec<String> = Vec::new();
    let not_sources: Vec<String> =
        spec.changes.iter().chain(&spec.writes).cloned().chain([program_file(program)]).collect();
    let mut attempt = 0;
    loop {
        attempt += 1;
        progress(request, calls, caller.tokens_so_far(), format!("running {program}"));
        shared.ledger.update(&subtask.id, |s| s.last_command = Some(program.to_owned()));
        // Taken before each run: a file the program is to write counts only when this run wrote it (not a fix).
        let before = Before::of(&promised, &cwd);
        let (exit_code, output, settled) = match runs.run(&mut staging, attempt, program, request.timeout).await? {
            Ran::Ended { exit_code, output, settled } => {
                printed.push_str(&output);
                printed.push('\n');
                (exit_code, output, settled)
            }
            Ran::Unanswered(question) => return Ok(unanswered(program, &question)),
            Ran::Stuck(prompt) => {
                return Ok(RunOutcome::with_status(
                    SubtaskStatus::Failed,
                    format!("`{program}` waits for input the task does not give (`{}`)", one_line(&prompt, 80)),
                ));
            }
            // The program's limit is the subtask's own: it ended as timed out.
            Ran::OverLimit(_) => return Ok(timed_out(request)),
            Ran::End(outcome) => return Ok(outcome),
        };
        let how = match settled {
            Settled::Unavailable => {
                attempt -= 1;
                continue;
            }
            Settled::Refused(how) => how,
            Settled::Applied(applied) if exit_code == 0 => {
                let checked = check_result(&subtask.description, &[], &cwd, &output, false, &Before::default());
                let unmade = unmade(&promised, &before, std::path::Path::new(&cwd)).or_else(|| {
                    (output.trim().is_empty() && PRINTS.is_match(&subtask.description))
                        .then(|| "it printed nothing, and the task says the program prints its result".to_owned())
                });
                match checked.problem {
                    None if error_line(&output).is_none() && unmade.is_none() => {
                        let kept = staging.keep(applied);
                        let mut checks = vec![format!("`{program}` exited 0 and printed no error")];
                        checks.extend(promised.iter().map(|file| format!("it made {file}")));
                        // The program accepted what the fixes wrote; what they guessed, it cannot vouch for.
                        let doubt = tracer.as_ref().and_then(fix_sources::Tracer::doubt);
                        // A clean run shows the program works, not that what it prints or writes is right.
                        let unjudged = WANTS_RIGHT.is_match(&subtask.description).then(|| UNJUDGED.to_owned());
                        let verified = doubt.is_none() && unjudged.is_none();
                        checks.extend(doubt);
                        checks.extend(unjudged);
                        shared.ledger.update(&subtask.id, |s| {
                            s.verified = Some(verified);
                            s.checks = checks;
                            s.changes.extend(kept.changes);
                            s.journal = kept.journal.or(s.journal.take());
                        });
                        return Ok(RunOutcome::from_exit_code(0, output));
                    }
                    problem => {
                        staging.take_back(applied);
                        match (problem, unmade) {
                            (Some(problem), _) => format!("it exited 0, but {problem}"),
                            (None, Some(unmade)) if error_line(&output).is_none() => {
                                format!("it exited 0, but {unmade}")
                            }
                            (None, _) => "it exited 0, but printed an error".into(),
                        }
                    }
                }
            }
            Settled::Applied(applied) => {
                staging.take_back(applied);
                format!("exit code {exit_code}")
            }
        };
        // One fixing command, asked for until one is fit to run or the calls run out.
        let text = std::fs::read_to_string(&program_path).ok();
        let mut refused: Option<String> = None;
        let mut last_refused: Option<String> = None;
        // A fix the error states itself (a directory to make, a line to add) is the shell's, without a call: offered
        // first, once; refused or gated out, the model is asked as if it had not been.
        let scene =
            Scene { task: &subtask.description, program: &program_file(program), cwd: std::path::Path::new(&cwd) };
        let mut stated = (shared.config.shell_fixes && stated_made < shared.config.max_turns)
            .then(|| stated_fix(&output, &scene))
            .flatten();
        let found = super::looked::look(&output, std::path::Path::new(&cwd), &program_path);
        // The files the error says are missing: where a value goes, what a `mkdir` of a file's name may mean. A file
        // such an error names as where the value is found stays as it is from then on.
        let missing = missing_files(&output, std::path::Path::new(&cwd));
        if !missing.is_empty() {
            for file in value_sources(&output, std::path::Path::new(&cwd), &not_sources) {
                if !sources.contains(&file) {
                    sources.push(file);
                }
            }
        }
        // An error that points into a line of a file the goal asks to fix: that line is asked for (`line_fix`).
        // The files the goal asks to fix: those it names, and the program ("fix the script so it works").
        let own = program_file(program).trim_start_matches("./").to_owned();
        let named = spec.changes.iter().filter(|f| f.trim_start_matches("./") != own);
        let fixable: Vec<String> =
            named.chain([&own]).filter(|f| asks_to_fix(&subtask.description, f)).cloned().collect();
        let mut site =
            shared.config.shell_fixes.then(|| LineSite::find(&output, std::path::Path::new(&cwd), &fixable)).flatten();
        // A line the error and the file make certain (`LineSite::evident`): put in place first, without a call. So is
        // a variable read under a misspelled name, which no error names (`LineSite::misspelled`).
        let mut evident = site.as_ref().and_then(|site| site.evident(&output, std::path::Path::new(&cwd)));
        if shared.config.shell_fixes
            && evident.is_none()
            && stated.is_none()
            && let Some((misspelled, lines)) = LineSite::misspelled(std::path::Path::new(&cwd), &fixable)
        {
            site = Some(misspelled);
            evident = Some(lines);
        }
        let fix = loop {
            let from_error = stated.take();
            let mut edit: Option<Vec<(usize, String)>> = None;
            // A model's line outside the excerpt it was shown (`LineSite::not_shown`).
            let mut unshown: Option<String> = None;
            let command = if let Some(command) = &from_error {
                command.clone()
            } else if let (Some(site), Some(lines)) = (&site, evident.take()) {
                let shown: Vec<String> = lines.iter().map(|(n, text)| format!("{n}: {}", text.trim())).collect();
                edit = Some(lines);
                format!("{} line {}", site.file, shown.join("; line "))
            } else {
                if calls >= shared.config.max_turns.max(1) {
                    let last = one_line(&tail(&output, 300), 300);
                    return Ok(RunOutcome::with_status(
                        SubtaskStatus::Failed,
                        format!("`{program}` still fails after {calls} fixes ({how}); its output ends: {last}"),
                    ));
                }
                if barren >= BARREN_CALLS {
                    let last = one_line(&tail(&output, 300), 300);
                    return Ok(RunOutcome::with_status(
                        SubtaskStatus::Failed,
                        format!(
                            "`{program}` still fails ({how}): the last {barren} fixes offered changed nothing; its \
                             output ends: {last}"
                        ),
                    ));
                }
                if shared.budget_spent() {
                    return Ok(budget_outcome(true, "another call was refused"));
                }
                calls += 1;
                barren += 1;
                shared.ledger.update(&subtask.id, |s| s.turns = calls);
                progress(request, calls, caller.tokens_so_far(), "asking for a fix");
                let asked = FixPrompt {
                    task: subtask.description.trim(),
                    program,
                    fixes: &fixes,
                    how: &how,
                    output: &bound(&output, OUTPUT_CHARS),
                    refused: refused.as_deref(),
                    found: found.as_deref(),
                };
                let prompt = match &site {
                    Some(site) => line_fix_request(&asked, &site.file, site.line, &site.excerpt()),
                    None => fix_request(&asked),
                };
                // Asked again after a refusal: sampled, where a temperature is configured (greedy, a small model gives
                // the refused reply again).
                let temperature = refused.as_ref().and(shared.config.temperature).map(|t| t.max(REASK_TEMPERATURE));
                let reply = match runs.ask(&prompt, temperature, site.is_some()).await {
                    Ok(reply) => reply,
                    Err(outcome) => return Ok(outcome),
                };
                match site.as_ref().map(|site| (site, LineReply::read(&reply))) {
                    Some((site, LineReply::Lines(lines))) => {
                        let shown: Vec<String> =
                            lines.iter().map(|(n, text)| format!("{n}: {}", text.trim())).collect();
                        unshown = site.not_shown(&lines);
                        edit = Some(lines);
                        format!("{} line {}", site.file, shown.join("; line "))
                    }
                    Some((_, LineReply::Command(command))) => command,
                    None => fix_command(&reply),
                }
            };
            // `NAME=VALUE` written into another file while the file NAME is missing: the value is NAME's content (a
            // model's command only).
            let command = (shared.config.shell_fixes && edit.is_none() && from_error.is_none())
                .then(|| value_for_missing(&command, &missing))
                .flatten()
                .unwrap_or(command);
            // `set SECTION.KEY VALUE`, the file left out: the one file the error names that has the section.
            let command = shared
                .config
                .shell_fixes
                .then(|| Setting::dotted(&command, &named_files(&output), std::path::Path::new(&cwd)))
                .flatten()
                .unwrap_or(command);
            // A `set FILE [SECTION] KEY VALUE` reply: the edit is made here, and runs as a command that writes the
            // file's new text (staged and gated like any fix).
            let at = Place { cwd: std::path::Path::new(&cwd), records: &records, program, error: &output };
            // A line given back as it was: the fault is before it, and the next prompt shows the line above.
            let stepped = match (&edit, site.as_mut()) {
                (Some(lines), Some(site)) if site.unchanged(lines) => site.step_back(lines[0].0),
                _ => None,
            };
            let run = match (&edit, &site) {
                _ if stepped.is_some() => Err(stepped.clone().unwrap_or_default()),
                _ if unshown.is_some() => Err(unshown.clone().unwrap_or_default()),
                // Corrected lines: the file's new text, written to the records, copied over the file.
                (Some(lines), Some(site)) => site.apply(lines).and_then(|new| {
                    let written = records.join(format!("line-{calls}.txt"));
                    std::fs::write(&written, new)
                        .map_err(|error| format!("the new text of {} could not be kept ({error})", site.file))?;
                    Ok((site.put_in_place(&written, &output), None))
                }),
                _ => {
                    match refusal(&command, program, text.as_deref(), &fixes, &output, &missing, fixable.contains(&own))
                        .or_else(|| replaces_another_file(&command, std::path::Path::new(&cwd), &missing))
                        .or_else(|| writes_a_source(&command, &sources, &missing))
                    {
                        Some(why) => Err(why),
                        // A `sed -i` that substitutes a key's name alone (`s/^mode=/mode=fast/`) means to set it.
                        None => match Setting::parse(&command).or_else(|| {
                            shared
                                .config
                                .shell_fixes
                                .then(|| Setting::from_sed(&command, std::path::Path::new(&cwd)).map(Ok))
                                .flatten()
                        }) {
                            // A `sed -i` pattern copied from the file is matched as that text, a name with spaces quoted.
                            None if shared.config.shell_fixes => {
                                Ok((fitted_to_files(&subtask.description, &command, std::path::Path::new(&cwd)), None))
                            }
                            None => Ok((command.clone(), None)),
                            Some(parsed) => parsed.and_then(|setting| {
                                setting_command(&setting, &at, &subtask.description, attempt + 1)
                                    .map(|run| (run, Some(setting)))
                            }),
                        },
                    }
                }
            };
            let (run, setting) = match run {
                Ok(run) => run,
                Err(_) if from_error.is_some() => continue,
                Err(why) => {
                    shared.ledger.update(&subtask.id, |s| s.refused_commands += 1);
                    // The same refused reply again, told why: it will not change; the calls left would be spent on
                    // it.
                    if stepped.is_none() && last_refused.as_deref() == Some(command.as_str()) {
                        return Ok(RunOutcome::with_status(
                            SubtaskStatus::Failed,
                            format!("`{program}` fails ({how}) and the fix offered twice was not run: {why}"),
                        ));
                    }
                    last_refused = Some(command);
                    refused = Some(why);
                    continue;
                }
            };
            if let Err(error) = gate_script(&pane, &Script::command_line(&run), &cwd) {
                if from_error.is_none() {
                    shared.ledger.update(&subtask.id, |s| s.refused_commands += 1);
                    refused = Some(error.to_string());
                }
                continue;
            }
            break (command, run, setting, from_error.is_some(), edit.is_some());
        };
        let (fix, run, setting, from_error, edited) = fix;
        stated_made += u32::from(from_error);
        attempt += 1;
        let doing = if from_error { "fixing as the error says" } else { "fixing" };
        progress(request, calls, caller.tokens_so_far(), format!("{doing}: {}", one_line(&fix, 80)));
        let fix_wait = shared.config.fix_wait;
        let mut ran = runs.run(&mut staging, attempt, &run, fix_wait).await?;
        if matches!(ran, Ran::Ended { settled: Settled::Unavailable, .. }) {
            // Staging turned out unavailable and the fix never started: it runs again, unstaged (not a fix that
            // failed, which the next prompt would show and the same fix again would be refused as done already).
            attempt += 1;
            ran = runs.run(&mut staging, attempt, &run, fix_wait).await?;
        }
        let came = match ran {
            Ran::Ended { exit_code: 0, settled: Settled::Applied(applied), .. }
                if let Some(why) = applied.as_ref().and_then(|a| changes_a_source(a.changes(), &sources)) =>
            {
                if staging.take_back(applied) { why } else { format!("{why} (its change could not be taken back)") }
            }
            Ran::Ended { exit_code: 0, settled: Settled::Applied(applied), .. } => {
                // A line of a program the goal asks to fix is code, not a value to trace to a source.
                if let (Some(tracer), Some(applied), false) = (tracer.as_mut(), &applied, edited) {
                    let sources = format!("{}\n{}\n{printed}", subtask.description, text.as_deref().unwrap_or(""));
                    tracer.fix(&fix, applied.changes(), |rel| applied.pre_image(rel), &sources);
                    if let Some(setting) = &setting {
                        let program_text = text.as_deref().unwrap_or("");
                        tracer.set_value(&setting.key, &setting.value, &subtask.description, &output, program_text);
                    }
                }
                let kept = staging.keep(applied);
                for change in &kept.changes {
                    progress(request, calls, caller.tokens_so_far(), change.to_string());
                }
                // A fix that changed nothing (a `sed` whose pattern matched no line) is said so: the model took its
                // exit 0 for a change made.
                let came = if kept.changes.is_empty() {
                    "exit 0, but it changed no file".to_owned()
                } else {
                    barren = 0;
                    "exit 0".to_owned()
                };
                shared.ledger.update(&subtask.id, |s| {
                    s.changes.extend(kept.changes);
                    s.journal = kept.journal.or(s.journal.take());
                });
                came
            }
            Ran::Ended { settled: Settled::Unavailable, .. } => {
                "it did not run (staging was not available); run it again".into()
            }
            Ran::Ended { settled: Settled::Refused(how), .. } => how,
            Ran::Ended { exit_code, output, .. } => {
                format!("exit {exit_code}, nothing kept: {}", one_line(&tail(&output, 200), 200))
            }
            Ran::Unanswered(question) | Ran::Stuck(question) => {
                format!("it waited for input (`{}`) and was stopped", one_line(&question, 60))
            }
            Ran::OverLimit(limit) => {
                format!("it ran past {}s and was stopped; nothing kept", limit.as_secs())
            }
            Ran::End(outcome) => return Ok(outcome),
        };
        fixes.push((fix, came));
    }
}

/// What the loop's runs share.
struct Runs<'a> {
    shared: &'a Shared,
    request: &'a RunRequest,
    pane: &'a GatedPane,
    caller: &'a Caller,
    launch: &'a Launch<'a>,
    deadline: Instant,
}

impl Runs<'_> {
    /// Runs `command` as staged attempt `attempt`, for at most `limit` (its questions answered from the task), and
    /// settles its changes.
    async fn run(
        &self,
        staging: &mut Staging<'_>,
        attempt: u32,
        command: &str,
        limit: Duration,
    ) -> Result<Ran, DagError> {
        let request = self.request;
        let id = &request.subtask.id;
        if request.cancel.is_cancelled() {
            return Ok(Ran::End(RunOutcome::with_status(SubtaskStatus::Cancelled, "the run was cancelled")));
        }
        if Instant::now() >= self.deadline {
            return Ok(Ran::End(timed_out(request)));
        }
        let staged = staging.begin(attempt);
        self.shared.ledger.update(id, |s| s.staged = Some(staged.is_staged()));
        let (wrapper, line) =
            self.launch.command(&Script::command_line(command), &format!("run-{attempt}"), &staged)?;
        let until = self.deadline.min(Instant::now() + limit);
        let wakeups = Wakeups::new(self.pane, until).await;
        let running = self.pane.start(&line).await.map_err(|error| DagError::runner(id, error))?;
        let mut running = Command::new(command, running, until.saturating_duration_since(Instant::now()));
        let watch = Watch { patience: Patience::Prompt(PROMPT_QUIET), ..Watch::script(&request.cancel) };
        let seen = watch_command(self.pane, &mut running, wakeups, watch, until).await;
        let asker =
            Asker { caller: self.caller, goal: &request.subtask.description, cancel: &request.cancel, deadline: until };
        let prompted = answer_questions(self.pane, &mut running, &asker, seen, watch).await;
        self.shared.ledger.update(id, |s| s.command_ms += crate::model::millis(running.started.elapsed()));
        let seen = match prompted {
            Prompted::Seen(seen) => seen,
            Prompted::Unanswered(question) => {
                drop(running);
                self.pane.interrupt().await;
                staging.abandon(&staged);
                return Ok(Ran::Unanswered(question));
            }
        };
        Ok(match seen {
            Seen::Finished(output) => {
                let settled = staging.settle(&staged, output.exit_code, &output.output);
                let shown = without_wrapper(&output.output, &wrapper.display().to_string());
                Ran::Ended { exit_code: output.exit_code, output: shown, settled }
            }
            Seen::NeedsInput(found) => {
                drop(running);
                self.pane.interrupt().await;
                staging.abandon(&staged);
                Ran::Stuck(found.prompt)
            }
            Seen::WaitsUnseen => {
                drop(running);
                self.pane.interrupt().await;
                staging.abandon(&staged);
                Ran::Stuck(UNSEEN_QUESTION.into())
            }
            Seen::Cancelled => {
                drop(running);
                let how = self.pane.interrupt().await;
                staging.abandon(&staged);
                Ran::End(RunOutcome::with_status(SubtaskStatus::Cancelled, format!("the run was cancelled; {how}")))
            }
            Seen::Failed(tmux_habitat::Error::PaneDead { status, .. }) => {
                self.shared.forget_pane(&request.subtask.pane).await;
                let mut outcome = RunOutcome::with_status(SubtaskStatus::Failed, "the program ended the pane's shell");
                outcome.exit_code = status;
                Ran::End(outcome)
            }
            Seen::Failed(error)
                if !(matches!(error, tmux_habitat::Error::Timeout { .. }) && Instant::now() >= until) =>
            {
                return Err(DagError::runner(id, error));
            }
            // Its time ran out (the wait gave up at `until`, or saw the command still running then).
            Seen::Failed(_)
            | Seen::StillRunning
            | Seen::Appeared
            | Seen::Settled
            | Seen::Unchanged
            | Seen::Ended(_) => {
                drop(running);
                let how = self.pane.interrupt().await;
                staging.abandon(&staged);
                if until < self.deadline {
                    // Its own limit, shorter than the subtask's, cut it short: the subtask still has time.
                    return Ok(Ran::OverLimit(limit));
                }
                let mut outcome = timed_out(request);
                outcome.reason = Some(format!("timed out after {:.1}s; {how}", request.timeout.as_secs_f64()));
                Ran::End(outcome)
            }
        })
    }

    /// One call for a fixing command; the subtask's end when there is no reply.
    /// `line`: the reply is a corrected line (`{"line": N, "text": …}`), else a command.
    async fn ask(
        &self,
        prompt: &crate::prompt::Prompt,
        temperature: Option<f32>,
        line: bool,
    ) -> Result<String, RunOutcome> {
        let schema = if line {
            serde_json::json!({
                "type": "object",
                "properties": {"line": {"type": "integer"}, "text": {"type": "string"}},
                "required": ["line", "text"],
                "additionalProperties": false
            })
        } else {
            serde_json::json!({
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
                "additionalProperties": false
            })
        };
        let shape = CallShape {
            purpose: "fix",
            max_tokens: self.shared.config.action_tokens,
            schema: Some(("fix", &schema)),
            stop: &[],
            temperature,
        };
        crate::runners::call_within(self.caller, prompt, shape, self.request, self.deadline, true)
            .await
            .map(|reply| reply.text)
    }
}

/// The command of a fix reply: `{"command": …}`, else the first fenced block, else the text.
pub(super) fn fix_command(reply: &str) -> String {
    let value: Option<serde_json::Value> = serde_json::from_str(reply.trim()).ok();
    if let Some(command) = value.as_ref().and_then(|v| v.get("command")).and_then(|c| c.as_str()) {
        return command.trim().to_owned();
    }
    // Another JSON object (`{"action":"done"}`) holds no command: it is not shell text to run.
    if value.as_ref().is_some_and(|v| v.is_object() && v.get("answer").is_none()) {
        return String::new();
    }
    if let Some(answer) = answer_field(reply) {
        return answer.trim().to_owned();
    }
    match crate::runners::script::extract_script(reply) {
        Some(script) if reply.contains("```") => {
            script.text.lines().filter(|l| !l.starts_with("#!")).collect::<Vec<_>>().join("\n").trim().to_owned()
        }
        _ => reply.trim().trim_matches('`').trim().to_owned(),
    }
}

/// The end of a subtask whose program asks `question`, which the task gives no answer for: the question is the
/// person's to answer.
fn unanswered(program: &str, question: &str) -> RunOutcome {
    RunOutcome::with_status(SubtaskStatus::Failed, unanswered_reason(program, question))
}

/// Why a subtask stopped at a question the task does not answer.
pub(crate) fn unanswered_reason(program: &str, question: &str) -> String {
    format!(
        "`{}` asks `{}` and the task does not say what to answer: say it in the task",
        one_line(program, 80),
        one_line(question, 80)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rerun_patterns_compile() {
        for re in [
            &*RERUN,
            &*SAYS_FIX,
            &*PROGRAM,
            &*DESCRIBES_PROGRAM,
            &*WANTS_RIGHT,
            &*DENIED,
            &*MISSING_LINE,
            &*PRINTS,
            &*SO_IT_RUNS,
        ] {
            assert!(!re.as_str().is_empty());
        }
    }

    #[test]
    fn goals_to_fix_and_rerun_a_program_are_told_apart() {
        for goal in [
            "./kiln.py fails. Make it run and produce glaze.txt. Only kiln.conf is wrong.",
            "I can't run ./bake.sh. Make it work so that running ./bake.sh directly produces loaves.txt, and run it.",
            "Could you get ./mill.sh to run all the way through? The scripts are fine; the setup around them is not.",
            "Please get ./mill.sh working again without touching it.",
            "./kiln.py refuses to start because kiln.toml is broken. Fix kiln.toml so that ./kiln.py starts.",
            "Correct the settings so that bake.sh can run.",
            "Fix utils.py so that ./app.py starts.",
            "./pack.sh is meant to bundle conf/ but it doesn't work. Fix it so that running ./pack.sh works, and run it.",
            "sync.sh is supposed to mirror site/ into a public folder, but running ./sync.sh fails. Fix the script so it \
             works.",
        ] {
            assert!(rerun_program(goal, None).is_some(), "{goal}");
        }
        let program = |goal: &str| rerun_program(goal, None);
        assert_eq!(
            program("Start ./publish.sh; when it fails, fix what it complains about and start it again.").as_deref(),
            Some("./publish.sh")
        );
        assert_eq!(
            program("Run lint.py until it succeeds, fixing the problems it reports.").as_deref(),
            Some("python3 lint.py")
        );
        assert_eq!(program("Make it work: bash tools/pack.sh fails.").as_deref(), Some("bash tools/pack.sh"));
        assert_eq!(program("Run ./publish.sh and answer yes to its question."), None, "nothing to fix");
        assert_eq!(program("Fix what is wrong in notes.txt."), None, "no program");
        assert_eq!(program("Fix parse.py so it handles tabs."), None, "a change asked for, not a run");
        let named = "sync.sh is supposed to mirror site/ into a public folder, but running ./sync.sh fails. Fix the \
                     script so it works.";
        assert_eq!(program(named).as_deref(), Some("./sync.sh"), "run as the goal runs it");
        assert_eq!(program("Fix tidy.py so that it runs.").as_deref(), Some("python3 tidy.py"));
        assert_eq!(program("Fix deploy.sh so it runs as the deploy user."), None, "how it runs, not a run now");
        let argued = "`python3 sum.py a.csv` is meant to print the total, but it crashes. Fix sum.py so it works.";
        assert_eq!(program(argued).as_deref(), Some("python3 sum.py a.csv"), "its arguments");
        let piped = "`python3 sum.py a.csv | sort` is meant to print the totals. Fix sum.py so it works.";
        assert_eq!(program(piped).as_deref(), Some("python3 sum.py"), "no pipeline");
        let two = "`./sync.sh --dry-run` works, but `./sync.sh` fails. Fix sync.sh so it works.";
        assert_eq!(program(two).as_deref(), Some("./sync.sh"), "two written: neither taken whole");
        assert_eq!(program("Edit notes.txt so that it reads well."), None, "no program");
        assert_eq!(program("Fix utils.py so that ./app.py starts.").as_deref(), Some("./app.py"), "the one that runs");
        for goal in [
            "Fix the crontab so that backup.sh runs every night.",
            "Fix the permissions so deploy.sh can run as www-data.",
            "Fix the unit file so server.py starts on boot.",
            "Edit the settings so that ./app.py starts.",
            "Don't fix anything so that ./app.py runs.",
        ] {
            assert_eq!(program(goal), None, "{goal}");
        }
        assert_eq!(
            program("gen.py crashes. Fix the problem, run it and save what it prints to out.txt."),
            None,
            "a file to write besides the program's own"
        );
        // What the program is to make is the program's to write, not a file besides it.
        let goal = "Run python3 mirror.py. It should copy notes/ into the folder backup/. Fix what it complains about \
                    and run it again until it finishes.";
        assert_eq!(program(goal).as_deref(), Some("python3 mirror.py"));
        assert_eq!(
            rerun_program("Run ./publish.sh until it works.", Some("./publish.sh --verbose")).as_deref(),
            Some("./publish.sh --verbose")
        );
        // Other ways to say it: repeat until, what it complains about, until it no longer fails.
        for goal in [
            "./sync.py keeps failing on its config. Run it, fix the config according to what it complains about, \
             and repeat until it writes its report.",
            "Run ./pack.sh; correct the input it names and keep going until it stops complaining.",
            "Try ./pack.sh, change whatever it says is missing, then run it once more until it no longer fails.",
        ] {
            assert_eq!(program(goal).as_deref().map(|p| p.trim_start_matches("python3 ")), Some(goal_program(goal)));
        }
        let goal = "./sync.py keeps failing on sync.ini. Run it, fix sync.ini according to what it complains about, \
                    and repeat until it writes its plan. Leave sync.py alone.";
        assert_eq!(program(goal).as_deref(), Some("./sync.py"), "a file to fix is no file to write");
        assert_eq!(program("Repeat the header of a.csv until b.csv has 3 lines."), None, "no program");
        let goal = "Start ./pack.sh and keep repairing whatever it reports until it works.";
        assert_eq!(rerun_program(goal, Some("rm -rf . ; ./pack.sh")).as_deref(), Some("rm -rf . ; ./pack.sh"));
        assert_eq!(program("Fix the typo in pack.sh, but don't run it again."), None, "a rerun denied");
        assert_eq!(
            program("Run ./pack.sh; don't run it again blindly: fix what it complains about first.").as_deref(),
            Some("./pack.sh"),
            "another request stands"
        );
        assert!(says_to_fix("if it fails, fix what it complains about"));
        assert!(!says_to_fix("What is the first line of app.ini?"));
    }

    #[test]
    fn a_result_wanted_right_is_told_apart() {
        for goal in ["so it prints the right totals", "writes the rows correctly", "gives the expected output"] {
            assert!(WANTS_RIGHT.is_match(goal), "{goal}");
        }
        for goal in ["run it right away", "until it works", "the right file is report.py"] {
            assert!(!WANTS_RIGHT.is_match(goal), "{goal}");
        }
        for goal in ["totals.py is supposed to print the total per category", "it prints a report", "should show them"]
        {
            assert!(PRINTS.is_match(goal), "{goal}");
        }
        for goal in [
            "Fix it so that it runs.",
            "It writes out.txt.",
            "the printer script",
            "backup.sh is supposed to output a tarball into backups/",
            "I need to show the result to my boss",
        ] {
            assert!(!PRINTS.is_match(goal), "{goal}");
        }
    }

    /// The program `goal` names first (`./sync.py`, `./pack.sh`).
    fn goal_program(goal: &str) -> &str {
        goal.split_whitespace().find(|w| w.starts_with("./")).map_or("", |w| w.trim_end_matches(['.', ',', ';']))
    }

    #[test]
    fn the_shells_own_wrapper_is_not_shown_in_an_error() {
        let wrapper = "/tmp/runs/x/.runner/run-9.sh";
        let output = format!("{wrapper}: line 2: ./count.sh: cannot execute: required file not found\nlast");
        assert_eq!(without_wrapper(&output, wrapper), "./count.sh: cannot execute: required file not found\nlast");
        let other = "./count.sh: line 4: wc: command not found";
        assert_eq!(without_wrapper(other, wrapper), other, "the program's own line is kept");
    }

    #[test]
    fn a_file_written_over_while_another_is_missing_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("HISTORY.txt"), "1.2 - first\n").unwrap();
        std::fs::write(dir.path().join("kiln.cfg"), "heat=hot\n").unwrap();
        let error = "kiln: STAMP file not found. It holds the newest release in HISTORY.txt.\n";
        let refused =
            replaces_another_file("printf 'STAMP=1.2\\n' > HISTORY.txt", dir.path(), &missing_files(error, dir.path()))
                .unwrap();
        assert!(refused.contains("writes over HISTORY.txt") && refused.contains("write STAMP"), "{refused}");
        assert_eq!(
            replaces_another_file("printf '1.2\\n' > STAMP", dir.path(), &missing_files(error, dir.path())),
            None,
            "the missing file"
        );
        assert_eq!(
            replaces_another_file("echo 1.2 >> HISTORY.txt", dir.path(), &missing_files(error, dir.path())),
            None,
            "appended, not replaced"
        );
        let such = "FileNotFoundError: [Errno 2] No such file or directory: 'glaze.txt'\n";
        let refused = replaces_another_file("echo x > kiln.cfg", dir.path(), &missing_files(such, dir.path())).unwrap();
        assert!(refused.contains("write glaze.txt itself"), "{refused}");
        let named = "kiln: cannot open 'glaze.txt'\n";
        assert!(replaces_another_file("echo x > kiln.cfg", dir.path(), &missing_files(named, dir.path())).is_some());
        let wrong = "kiln: heat must be a number of degrees\n";
        assert_eq!(
            replaces_another_file("echo heat=900 > kiln.cfg", dir.path(), &missing_files(wrong, dir.path())),
            None,
            "nothing missing"
        );
    }

    #[test]
    fn a_fix_is_one_change_not_the_program() {
        let text = "#!/bin/bash\nset -eu\nsrc=input.cfg\nwhile read -r line; do\n  echo \"$line\"\ndone < \"$src\"\n";
        let error = "publish.sh: line 3: input.cfg: No such file or directory";
        let missing = ["input.cfg".to_owned()];
        let refused = |fix: &str| refusal(fix, "./publish.sh", Some(text), &[], error, &missing, false);
        assert!(refused("printf 'a=1\\n' > input.cfg").is_none());
        assert!(refused("sed -i '3s/input/inputs/' publish.sh").is_none());
        assert_eq!(
            refused("mkdir -p input.cfg").unwrap(),
            "input.cfg is a file's name, not a directory's: write the file (`printf '…\\n' > input.cfg`)"
        );
        assert!(refused("mkdir -p input.cfg.d/parts").unwrap().contains("acts on nothing"));
        // The program itself, where the goal asks for it to be fixed, whatever the error names.
        let silent = "cp: cannot stat '/*.txt': No such file or directory";
        let fix = "sed -i 's/SCR/SRC/' publish.sh";
        assert!(refusal(fix, "./publish.sh", Some(text), &[], silent, &[], false).unwrap().contains("acts on nothing"));
        assert!(refusal(fix, "./publish.sh", Some(text), &[], silent, &[], true).is_none());
        assert!(refused("mkdir -p conf/input.cfg").unwrap().contains("a file's name, not a directory's"));
        assert!(refused("mkdir -p \"$(sed -n 's/^dir=//p' input.cfg)\"").is_none(), "a directory read from the file");
        assert!(refused("chmod +x publish.sh").is_none());
        assert!(
            refused("sed -i 's|^src=.*|src=input.cfg|' settings").is_none(),
            "a `|` in a sed expression is no pipe"
        );
        assert!(refused("echo x | tee -a input.cfg").is_none());
        assert!(refused("touch input.cfg && ./publish.sh").unwrap().contains("runs the program"));
        assert!(refused("bash publish.sh").unwrap().contains("runs the program"));
        assert!(refused("./publish.sh").unwrap().contains("runs the program"));
        assert!(
            refused("cat > publish.sh <<'EOF'\n#!/bin/bash\necho ok\nEOF").unwrap().contains("writes publish.sh out")
        );
        assert!(
            refused("set -eu\nsrc=input.cfg\nwhile read -r line; do\ndone").unwrap().contains("writes publish.sh out")
        );
        assert!(refused("cp /tmp/x ./publish.sh").unwrap().contains("writes publish.sh out"));
        assert!(refused("").is_some());
        let made = [("touch input.cfg".to_owned(), "exit 0".to_owned())];
        assert!(
            refusal("touch input.cfg", "./publish.sh", None, &made, error, &missing, false)
                .unwrap()
                .contains("done already")
        );
        assert_eq!(
            refused("mkdir -p cache").unwrap(),
            "`mkdir -p cache` acts on nothing the error names (it names publish.sh, input.cfg)"
        );
        let absolute = "/srv/app/publish.sh: line 3: input.cfg: No such file or directory";
        assert_eq!(
            refusal("mkdir -p cache", "./publish.sh", None, &[], absolute, &missing, false).unwrap(),
            "`mkdir -p cache` acts on nothing the error names (it names /srv/app/publish.sh, input.cfg)",
            "a path as the error writes it"
        );
    }

    #[test]
    fn commands_that_run_the_program_are_seen_through_wrappers_quotes_and_substitutions() {
        for fix in [
            "./pack.sh",
            "touch a.lst; \"./pack.sh\"",
            "time bash -x pack.sh",
            "sudo env A=1 python3 tools/pack.sh",
            "echo $(./pack.sh)",
            "cat a | sh pack.sh",
        ] {
            assert!(runs_program(fix, "pack.sh"), "{fix}");
        }
        for fix in ["cat pack.sh", "echo ./pack.sh", "bash repack.sh", "grep pack.sh notes", "printf 'x\\n' > a.lst"] {
            assert!(!runs_program(fix, "pack.sh"), "{fix}");
        }
        assert_eq!(made_directories("mkdir -p 'app.conf' logs && touch x"), ["app.conf", "logs"]);
        assert_eq!(made_directories("sudo mkdir \"my dir\"; ls"), ["my dir"]);
        assert!(made_directories("echo mkdir a.conf").is_empty());
    }

    #[test]
    fn what_the_program_is_said_to_make_must_be_made_by_its_run() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        let goal = "Run ./pack.sh. It should write the list to out.txt and copy notes/ into backup/. Fix what it \
                    complains about and run it again until it succeeds.";
        let promised = crate::GoalSpec::parse(goal).required_writes(cwd);
        assert_eq!(promised, ["out.txt", "backup/"]);
        let cwd_text = cwd.to_str().unwrap();
        let before = Before::of(&promised, cwd_text);
        assert!(unmade(&promised, &before, cwd).unwrap().contains("out.txt is not there"));
        std::fs::write(cwd.join("out.txt"), "").unwrap();
        assert!(unmade(&promised, &before, cwd).unwrap().contains("out.txt is empty"));
        std::fs::write(cwd.join("out.txt"), "a\n").unwrap();
        assert!(unmade(&promised, &before, cwd).unwrap().contains("backup/ is not there"));
        std::fs::create_dir(cwd.join("backup")).unwrap();
        assert!(unmade(&promised, &before, cwd).unwrap().contains("backup/ is empty"));
        std::fs::write(cwd.join("backup/a.md"), "a\n").unwrap();
        assert_eq!(unmade(&promised, &before, cwd), None);
        // Written before this run (by a fix, or already there): not made by the run.
        let before = Before::of(&promised, cwd_text);
        assert!(unmade(&promised, &before, cwd).unwrap().contains("did not write out.txt"));
    }

    #[test]
    fn a_set_fix_becomes_a_command_that_writes_the_files_new_text() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::write(cwd.join("app.conf"), "MODE=prod\n").unwrap();
        let records = cwd.join(".records");
        std::fs::create_dir(&records).unwrap();
        let error = "app: MODE in app.conf must be staging or production; limits.conf is missing";
        let at = Place { cwd, records: &records, program: "./app.sh", error };
        let command = |line: &str| setting_command(&Setting::parse(line).unwrap().unwrap(), &at, "Run ./app.sh.", 3);
        let made = command("set app.conf MODE production").unwrap();
        let written = records.join("set-3.txt");
        assert_eq!(made, format!("cat -- '{}' > 'app.conf'", written.display()));
        assert_eq!(std::fs::read_to_string(&written).unwrap(), "MODE=production\n");
        assert_eq!(std::fs::read_to_string(cwd.join("app.conf")).unwrap(), "MODE=prod\n", "the shell makes the edit");
        assert!(command("set limits.conf max 3").is_ok(), "a missing file the error names is made");
        assert_eq!(
            command("set other.conf max 3").unwrap_err(),
            "there is no file other.conf here, and neither the error nor the task names one: set the key in the file \
             the error names (app.conf)"
        );
        std::fs::write(cwd.join("app.conf"), "[limits]\nMODE=prod\n").unwrap();
        assert_eq!(
            command("set limits max 3").unwrap_err(),
            "there is no file limits here: [limits] is a section of app.conf, so write `set app.conf [limits] max 3`"
        );
        std::fs::write(cwd.join("app.conf"), "MODE=prod\n").unwrap();
        assert!(command("set app.conf MODE prod").unwrap_err().contains("has MODE = prod already"));
        assert!(command("set ./app.sh MODE x").unwrap_err().contains("is the program"));
        assert!(command("set ../app.conf MODE x").unwrap_err().contains("outside the working directory"));
        assert!(command("set /etc/app.conf MODE x").unwrap_err().contains("outside the working directory"));
        // A section the file lacks, where the error names one it has.
        std::fs::write(cwd.join("shop.ini"), "[input]\npath = a.csv\n\n[output]\ndir = out\n").unwrap();
        let error = "shop: shop.ini: [output] has no 'format' setting";
        let at = Place { cwd, records: &records, program: "./shop.py", error };
        let set = |line: &str| setting_command(&Setting::parse(line).unwrap().unwrap(), &at, "Run ./shop.py.", 4);
        assert_eq!(
            set("set shop.ini [SECTION] format csv").unwrap_err(),
            "shop.ini has no [SECTION]; the error is about [output]: `set shop.ini [output] format csv`"
        );
        assert!(set("set shop.ini [output] format csv").is_ok());
        assert!(set("set shop.ini [extra] format csv").is_err());
        let refused = set("set shop.ini [input] path out.csv").unwrap_err();
        assert_eq!(
            refused,
            "shop.ini has path already, and changing it loses its value; the error asks for format, which shop.ini \
             lacks: `set shop.ini [input] format VALUE`",
            "another key the file has, overwritten"
        );
        assert!(set("set shop.ini [output] path out.csv").is_ok(), "a key of another section is a new key here");
        let at = Place { error: "shop: shop.ini: [output] has no 'format' setting; 'path' must end in .csv", ..at };
        let set = |line: &str| setting_command(&Setting::parse(line).unwrap().unwrap(), &at, "Run ./shop.py.", 6);
        assert!(set("set shop.ini [input] path a2.csv").is_ok(), "a key the error complains about too");
        let at = Place { error: "shop: no format given", ..at };
        let set = |line: &str| setting_command(&Setting::parse(line).unwrap().unwrap(), &at, "Run ./shop.py.", 5);
        assert!(set("set shop.ini [extra] format csv").is_ok(), "a new section where the error names none");
        // A file a shell script sources: a value with a blank is quoted.
        std::fs::write(cwd.join("run.sh"), "#!/bin/bash\n. ./shop.env.conf\necho \"$TITLE\"\n").unwrap();
        std::fs::write(cwd.join("shop.env.conf"), "TITLE=x\n").unwrap();
        set("set shop.env.conf TITLE Spring Sale").unwrap();
        assert_eq!(std::fs::read_to_string(records.join("set-5.txt")).unwrap(), "TITLE='Spring Sale'\n");
    }

    #[test]
    fn fix_replies_are_read_leniently() {
        assert_eq!(fix_command(r#"{"command":"touch a.txt"}"#), "touch a.txt");
        assert_eq!(fix_command("```bash\nmkdir -p out\n```"), "mkdir -p out");
        assert_eq!(fix_command("`chmod +x run.sh`"), "chmod +x run.sh");
        assert_eq!(fix_command(r#"{"action":"done","summary":"fixed"}"#), "", "no command: nothing to run");
    }
}
