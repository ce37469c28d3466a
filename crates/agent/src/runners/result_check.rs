//! Checking a script's result against what its goal asks for, after it exited 0: the shell's judgement, no model.
//!
//! A small model's script often exits 0 with the wrong result in a way the goal alone rules out: the file it was to
//! write is missing or empty, or holds `12 notes.txt` where the goal asked for the number; a question's answer was
//! written to a file nobody named, so nothing was printed. Each such result is sent back for repair with what is
//! wrong and how to fix it. A last attempt is not thrown away for an empty or non-numeric result (the empty one may
//! be right); a missing file is always a failure.

use std::fmt;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::claims::{goal_destinations, resolve};
use crate::goal_question::asks_question;
use crate::goal_shape;
use crate::runners::peek::named_files;

/// Goals whose result is one number: "write the number to", "how many … write", "answer with the number only".
static ASKS_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:the number\b|how many\b|number only\b)"));

/// A number the goal asks to be told, not written ("…, then tell me how many there are"): the rest of its sentence
/// is checked for a file before it is taken as the user's alone.
static TOLD_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:tell\s+(?:me|us)|let\s+(?:me|us)\s+know|say)\s+(?:also\s+)?(?:how\s+many|the\s+number)\b",
    )
});

/// The end of a sentence, for [`TOLD_NUMBER`]'s rest.
static SENTENCE_END: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"[.!?;](?:\s|$)|\n"));

/// A goal asking for something printed: `print`, `tell me`, `show me`, `display`.
static ASKS_TO_PRINT: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:print|prints|tell\s+me|show\s+me|display|echo)\b"));

/// A file the goal says something makes: `(it makes readings.csv)`, `which writes out.txt`, `generates the file
/// index.html`.
static MADE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?i)\b(?:makes?|made|creates?|created|writes?|wrote|produces?|produced|generates?|generated|builds?|built|outputs?|exports?)\s+(?:(?:a|an|the|new|file|its|their)\s+)*[`'"]?([\w./~-]+)"#,
    )
});

/// A condition in the goal ("if data/input.txt does not exist, write MISSING"): then the result may be a word.
static CONDITIONAL: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:if|unless|otherwise)\b"));

/// A program's error line: a program naming a file it cannot use, bash's own diagnostic about a line of the script
/// (`script.sh: line 18: warning: here-document at line 2 delimited by end-of-file`, `line 3: x: unbound variable`),
/// or the start of a Python traceback.
static PROGRAM_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"^(?:[\w./-]+: .*(?:No such file or directory|cannot access|cannot open|command not found|Permission denied|Is a directory)|\S+: line \d+: |Traceback \(most recent call last\):$)",
    )
});

/// Words of a goal that asks for something in a directory it names ("copy … into backup/", "a folder with the
/// logs"): then that the directory is there is no check of the result.
static FILLS_A_DIRECTORY: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:cop(?:y|ies)|mov(?:e|es)|put|puts|into|in it|inside|extract|unpack|unzip|untar|sav(?:e|es)|writ(?:e|es)|place|fill|sort|organi[sz]e|mirror|back(?:s)? up|archive|link|download|clone|with|containing|holding|of the|files?)\b",
    )
});

/// The most bytes of a destination read to judge it.
const READ_LIMIT: u64 = 256 * 1024;

/// The files a goal names as they were before an attempt: a repair that prints instead of writing must not pass
/// (or fail) on what an earlier attempt left there.
#[derive(Debug, Default)]
pub(crate) struct Before(Vec<(String, std::time::SystemTime, u64)>);

impl Before {
    /// The destinations of `goal` under `cwd` that exist now, with their modification time and size.
    pub(crate) fn take(goal: &str, cwd: &str) -> Before {
        Before::of(&goal_destinations(goal), cwd)
    }

    /// `files` (as a goal names them) under `cwd` that exist now, with their modification time and size.
    pub(crate) fn of(files: &[String], cwd: &str) -> Before {
        let stamp = |file: &String| {
            let meta = std::fs::metadata(resolve(file, Path::new(cwd))).ok()?;
            Some((file.clone(), meta.modified().ok()?, meta.len()))
        };
        Before(files.iter().filter_map(stamp).collect())
    }

    /// Whether `file` (as the goal names it) is as it was, by `meta` of it now.
    pub(crate) fn unchanged(&self, file: &str, meta: &std::fs::Metadata) -> bool {
        self.0.iter().any(|(name, modified, len)| {
            name == file && meta.modified().is_ok_and(|m| m == *modified) && meta.len() == *len
        })
    }
}

/// What is wrong with a script's result, in terms a repair can act on; shown (with the fix, where the mistake is a
/// known one) in the repair prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
    /// A destination the goal names was not written by this attempt.
    NotWritten {
        /// The destination, as the goal names it.
        file: String,
    },
    /// A folder the goal asks for was not made by this attempt ("unpack it into a new folder called march").
    NotMade {
        /// The folder, as the goal names it.
        folder: String,
    },
    /// A destination holds nothing but white space.
    Empty {
        /// The destination.
        file: String,
    },
    /// A destination that should hold one number holds more (or something else).
    NotJustANumber {
        /// The destination.
        file: String,
        /// What it holds, trimmed.
        text: String,
    },
    /// A result does not have the shape the goal states (one item per line, without the header, sorted, …).
    Shape {
        /// The destination, or `None` for what the script printed.
        file: Option<String>,
        /// What is wrong, with how to fix it.
        problems: Vec<String>,
    },
    /// The output holds a program's error line although the script exited 0.
    PrintedError {
        /// The error line.
        line: String,
    },
    /// A question's script printed nothing.
    PrintedNothing,
    /// A question whose answer is a number only was answered with something else.
    PrintedNotANumber {
        /// What it printed, trimmed.
        printed: String,
    },
    /// The goal asks to be told a number ("…, then tell me how many"), and what was printed holds none.
    PrintedNoNumber {
        /// What it printed, trimmed.
        printed: String,
    },
    /// The goal asks for a program to be fixed, and the script did its work another way, never naming it.
    NotFixed {
        /// The program, as the goal names it.
        file: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Said with the fix: a small model that printed its result repeats the script unless told how.
            Problem::NotWritten { file } => write!(f, "{file} was not written (write the result there: `> {file}`)"),
            // Not `> march`: told that for a folder, Qwen2.5-Coder 1.5B wrote the count into a file of that name.
            Problem::NotMade { folder } => write!(
                f,
                "the folder {folder} was not made (make it with `mkdir -p {folder}` and put what the goal asks for in \
                 it)"
            ),
            Problem::Empty { file } => write!(f, "{file} is empty"),
            Problem::NotJustANumber { file, text } => f.write_str(&not_just_a_number(file, text)),
            Problem::PrintedError { line } => write!(f, "it printed an error: `{}`", excerpt(line)),
            Problem::Shape { file: Some(file), problems } => {
                write!(f, "{file} is not as the goal asks: {}", problems.join("; "))
            }
            Problem::Shape { file: None, problems } => {
                write!(f, "what it printed is not as the goal asks: {}", problems.join("; "))
            }
            Problem::PrintedNothing => f.write_str("it printed nothing: print the answer"),
            Problem::PrintedNotANumber { printed } => {
                write!(f, "it printed `{}`, not just the number", excerpt(printed))
            }
            Problem::PrintedNoNumber { printed } => {
                write!(f, "it printed `{}`, and no number: print the number the goal asks to be told", excerpt(printed))
            }
            Problem::NotFixed { file } => write!(
                f,
                "it left {file} as it was, and the goal asks for {file} to be fixed: change the lines of {file} \
                 that are wrong (`sed -i …` on {file}, or write the whole corrected file), then run {file}"
            ),
        }
    }
}

/// What the check of a result found: what is wrong, or what it checked (nothing: the result is unchecked).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Checked {
    /// What is wrong, if anything.
    pub problem: Option<Problem>,
    /// What was checked and held, in words (`lines.txt was written`, `lines.txt holds one number`).
    pub checks: Vec<String>,
    /// Whether a check looked at the content (a number, a stated shape), not only that a file is there.
    pub content_checked: bool,
    /// Whether the checks cover the whole result, not only its shape: a directory asked for with nothing in it, made.
    pub whole: bool,
}

/// The program `spec` asks to be fixed (a file it changes that is a program and existed before the attempt,
/// `before`) that a script exiting 0 left as it was without naming it: it did the program's work itself instead, so
/// the program is as broken as before (a small model, asked to fix a backup script and run it, wrote a backup script
/// of its own). `script` is the attempt's text.
pub(crate) fn not_fixed(spec: &crate::GoalSpec, script: &str, cwd: &str, before: &Before) -> Option<String> {
    spec.changes.iter().find_map(|file| {
        let name = file.trim_start_matches("./");
        let base = name.rsplit('/').next().unwrap_or(name);
        let meta = std::fs::metadata(resolve(file, Path::new(cwd))).ok()?;
        (crate::goal_spec::is_program(name) && before.unchanged(file, &meta) && !script.contains(base))
            .then(|| file.clone())
    })
}

/// Why a result only its shape vouches for stays unchecked for a model whose right-shaped results are often wrong
/// (`AgentConfig::consensus`) when no second result can be compared with it: a file that existed and was changed,
/// a result reached step by step in a pane.
pub(crate) const SHAPE_ONLY: &str = "the shell checked only its shape, and no second result could be compared with it";

/// Whether `path` is a directory with nothing in it.
pub(crate) fn empty_directory(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

/// What is wrong with the result of a script for `goal` that exited 0 in `cwd` after printing `printed`, and what
/// held. `required`: the files the goal asks to be written (existing guessed destinations left out,
/// [`crate::GoalSpec::required_writes`]); `last`: this was the last attempt (an empty or non-numeric result then
/// stands, unchecked, since it may be right; a missing file or a printed error never does); `before`: the files as
/// they were before it (a file this attempt did not touch was not written by it).
pub(crate) fn check_result(
    goal: &str,
    required: &[String],
    cwd: &str,
    printed: &str,
    last: bool,
    before: &Before,
) -> Checked {
    let wants_number = asks_number(goal);
    // A file holds the number only when the number is not only the user's ("write the list to a.txt, then tell me
    // how many": a.txt holds the list).
    // A file whose header the goal states is a table ("errors_by_hour.csv with the header `hour,errors`"): the
    // numbers the goal asks for are its rows', not one for the whole file.
    let shapes = goal_shape::shapes(goal);
    let tabular = shapes.iter().any(|shape| matches!(shape, goal_shape::Shape::Header(_)));
    let asked_of_a_file = number_asked_of_a_file(goal);
    let file_wants_number = wants_number && asked_of_a_file && !tabular;
    let mut checks = Vec::new();
    // A directory the goal asks for and nothing in it ("make a directory named build"), made and empty: that is
    // all of the result.
    let mut whole_directory = false;
    let fail =
        |problem: Problem| Checked { problem: Some(problem), checks: Vec::new(), content_checked: false, whole: false };
    // The shapes the goal states about its result, checked on the one file it asks for (or on what a question's
    // script printed): a wrong shape is wrong on any attempt.
    let shapes = if required.len() <= 1 { shapes } else { Vec::new() };
    let spec = crate::GoalSpec::parse(goal);
    let headers: Vec<String> =
        spec.reads.iter().filter_map(|file| goal_shape::input_header(&resolve(file, Path::new(cwd)))).collect();
    let context = goal_shape::ShapeContext { cwd: Path::new(cwd), input_headers: &headers };
    // "Write the list to a.csv. Then tell me the total": the number is the one told, not a.csv's shape; nor is it
    // a table's.
    let told_apart = tabular || (tells_a_number(goal) && !asked_of_a_file);
    let file_shapes: Vec<goal_shape::Shape> = shapes
        .iter()
        .filter(|shape| !(told_apart && matches!(shape, goal_shape::Shape::Number { .. } | goal_shape::Shape::Numbers)))
        .cloned()
        .collect();
    let shaped = |text: &str, checks: &mut Vec<String>, file: Option<&String>| -> Option<Problem> {
        let shapes = if file.is_some() { &file_shapes } else { &shapes };
        let problems = goal_shape::problems(shapes, text, &context);
        if problems.is_empty() {
            checks.extend(shapes.iter().map(|shape| format!("{}: {shape}", file.map_or("the output", |f| f.as_str()))));
            None
        } else {
            Some(Problem::Shape { file: file.cloned(), problems })
        }
    };
    for file in required {
        let path = resolve(file, Path::new(cwd));
        let written = std::fs::metadata(&path).ok().filter(|meta| !before.unchanged(file, meta));
        let Some(meta) = written else {
            return fail(if names_a_folder(goal, file) {
                Problem::NotMade { folder: file.trim_end_matches('/').to_owned() }
            } else {
                Problem::NotWritten { file: file.clone() }
            });
        };
        if !meta.is_file() {
            checks.push(format!("{file} was made"));
            whole_directory |= required.len() == 1 && !matches(&FILLS_A_DIRECTORY, goal) && empty_directory(&path);
            continue;
        }
        if meta.len() > READ_LIMIT {
            checks.push(format!("{file} was written"));
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_default();
        // Bytes that are no text (an archive, an image) are a file written, not an empty one: no text check fits.
        let Ok(text) = String::from_utf8(bytes) else {
            checks.push(format!("{file} was written"));
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            if last {
                continue;
            }
            return fail(Problem::Empty { file: file.clone() });
        }
        if file_wants_number && !is_number(text) {
            if last {
                continue;
            }
            return fail(Problem::NotJustANumber { file: file.clone(), text: text.to_owned() });
        }
        if let Some(problem) = shaped(text, &mut checks, Some(file)) {
            return fail(problem);
        }
        checks.push(if file_wants_number { format!("{file} holds one number") } else { format!("{file} was written") });
    }
    // An exit 0 that hides a program's error (`ls: cannot access '.log'` before `| wc -l` prints 0): the pipeline's
    // last command succeeded, the work did not. Never a success, not even on the last attempt.
    if let Some(line) = error_line(printed) {
        return fail(Problem::PrintedError { line: line.to_owned() });
    }
    // A number told alone ("list them in a.txt, then tell me how many, just the number"): what the script printed
    // is that answer, and a list printed too is not it. (A question's printed answer is checked below.)
    if told_number_alone(goal) && !(required.is_empty() && asks_question(goal)) {
        let printed = printed.trim();
        if is_number(printed) {
            checks.push("the answer is one number".into());
        } else if !last {
            return fail(if printed.is_empty() {
                Problem::PrintedNothing
            } else {
                Problem::PrintedNotANumber { printed: printed.to_owned() }
            });
        }
    } else if must_tell_a_number(goal) && !last {
        // A number to be told in words of the user's choosing ("then tell me how many people that is"): what was
        // printed must hold one at least; a script that only wrote the file told nothing.
        let printed = printed.trim();
        if printed.is_empty() {
            return fail(Problem::PrintedNothing);
        }
        if !printed.chars().any(|c| c.is_ascii_digit()) {
            return fail(Problem::PrintedNoNumber { printed: printed.to_owned() });
        }
        // The files themselves, named one per line, are not how many there are, though their names hold digits
        // (`2024-03-report.txt`).
        if lists_files(printed, Path::new(cwd)) {
            return fail(Problem::PrintedNotANumber { printed: printed.to_owned() });
        }
    }
    // A question's script prints the answer; other goals (rename, replace) may rightly print nothing.
    if required.is_empty() && asks_question(goal) {
        let printed = printed.trim();
        if printed.is_empty() {
            if !last {
                return fail(Problem::PrintedNothing);
            }
        } else if wants_number && !is_number(printed) {
            if !last && (goal.to_ascii_lowercase().contains("number only") || number_alone(goal)) {
                return fail(Problem::PrintedNotANumber { printed: printed.to_owned() });
            }
        } else if wants_number {
            checks.push("the answer is one number".into());
        }
    }
    let printed = printed.trim();
    // A goal that repairs files in place ("fix services.json so deploy.sh runs") has them for its result: what the
    // script printed is a program's output, which the goal's shapes (of the repaired file) do not describe; unless
    // the goal asks for something printed too ("fix tally.py and print the total").
    if required.is_empty()
        && (spec.changes.is_empty() || asks_question(goal) || matches(&ASKS_TO_PRINT, goal))
        && !printed.is_empty()
        && !shapes.is_empty()
        && let Some(problem) = shaped(printed, &mut checks, None)
    {
        return fail(problem);
    }
    // A file's existence is not its content, nor is a directory's ("copy … into backup/": which files?), but for a
    // directory that is the whole result: what else was checked says something about the result itself.
    let content_checked =
        whole_directory || checks.iter().any(|c| !c.ends_with(" was written") && !c.ends_with(" was made"));
    Checked { problem: None, checks, content_checked, whole: whole_directory }
}

/// [`check_result`] with the goal's own destinations, for the tests written before [`crate::GoalSpec`].
#[cfg(test)]
pub(crate) fn result_problem(goal: &str, cwd: &str, printed: &str, last: bool, before: &Before) -> Option<Problem> {
    let required = crate::GoalSpec::parse(goal).required_writes(Path::new(cwd));
    check_result(goal, &required, cwd, printed, last, before).problem
}

/// Whether `goal` names `file` as a folder: `march/`, "a folder called march", "a new subfolder uploads/large", "the
/// march directory".
pub(crate) fn names_a_folder(goal: &str, file: &str) -> bool {
    if file.ends_with('/') {
        return true;
    }
    let name = regex::escape(file.trim_start_matches("./"));
    Regex::new(&format!(
        r"(?i)\b(?:(?:sub)?folder|(?:sub)?directory|dir)\s+(?:named\s+|called\s+)?[`'\x22]?(?:\./)?{name}(?:[`'\x22/]|\b)|(?:^|[\s`'\x22])(?:\./)?{name}[`'\x22]?\s+(?:folder|directory)\b"
    ))
    .is_ok_and(|re| re.is_match(goal))
}

/// Whether the result `goal` asks for is one number (and nothing else in any case: a conditional goal may want a
/// word instead, and a goal that asks for a name names its number only to choose by).
pub(crate) fn asks_number(goal: &str) -> bool {
    matches(&ASKS_NUMBER, goal) && !matches(&CONDITIONAL, goal) && !goal_shape::asks_name(goal)
}

/// Whether a number `goal` asks for (by [`ASKS_NUMBER`]) may be asked of a file: some mention of it is not one the
/// user is to be told ([`TOLD_NUMBER`] with no file named in the rest of its sentence).
fn number_asked_of_a_file(goal: &str) -> bool {
    let told = told_spans(goal);
    ASKS_NUMBER.find_iter(goal).any(|m| !told.iter().any(|&(start, end)| start <= m.start() && m.end() <= end))
}

/// Whether `goal` asks for a number the user is to be told ("…, then tell me how many"), apart from any file.
pub(crate) fn tells_a_number(goal: &str) -> bool {
    !told_spans(goal).is_empty()
}

/// Whether a number the user is to be told must be printed: asked for, not on a condition ("if there are any, tell
/// me how many") and not declined ("no need to tell me how many").
fn must_tell_a_number(goal: &str) -> bool {
    if matches(&CONDITIONAL, goal) {
        return false;
    }
    // The spans of a told number (`told_spans`) open with the words that ask for it, or with the next sentence.
    let told = told_spans(goal);
    TOLD_NUMBER.find_iter(goal).filter(|found| told.iter().any(|&(start, _)| start == found.start())).any(|found| {
        let clause_start = goal[..found.start()].rfind(['.', '!', '?', ';', ',']).map_or(0, |at| at + 1);
        !DECLINED.is_match(&goal[clause_start..found.start()])
    })
}

/// The most printed lines [`lists_files`] looks up.
const LISTED_LINES: usize = 200;

/// Whether `printed` names files here, one per line and two or more: each line, no number, is a file under `cwd`
/// (by its path, or by its name a few folders down: `ls inbox` prints names without their folder).
fn lists_files(printed: &str, cwd: &Path) -> bool {
    let lines: Vec<&str> = printed.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    if !(2..=LISTED_LINES).contains(&lines.len()) || lines.iter().any(|line| is_number(line)) {
        return false;
    }
    // The files here are walked once, for the first line that is no path from here.
    let mut here = None;
    lines.iter().all(|line| {
        let name = line.rsplit('/').next().unwrap_or(line);
        resolve(line, cwd).is_file()
            || (!name.is_empty() && here.get_or_insert_with(|| crate::runners::looked::file_names(cwd)).contains(name))
    })
}

/// Words declining what follows in their clause: "no need to", "don't", "never".
static DECLINED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)\b(?:no\s+need|not|never|don['’]?t|do\s+not|needn['’]?t|without)\b")
});

/// Whether the number the user is to be told is to be told alone ("…, then tell me how many, just the number").
fn told_number_alone(goal: &str) -> bool {
    told_spans(goal).into_iter().any(|(start, end)| {
        // "not just the number, list them too" asks for more than the number.
        number_alone(&goal[start..end])
    })
}

/// Whether `goal` asks for the number alone anywhere ("Reply with just the number of bytes"), not "not just the
/// number".
fn number_alone(goal: &str) -> bool {
    NUMBER_ALONE.find_iter(goal).any(|found| {
        let before = goal[..found.start()].trim_end().to_lowercase();
        !["not", "n't", "more than", "rather than", "instead of", "not only", "besides", "beyond"]
            .iter()
            .any(|more| before.ends_with(more))
    })
}

/// "just the number", "only the count", "number only", "nothing but the number".
static NUMBER_ALONE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:just|only|nothing\s+but)\s+the\s+(?:number|count|total)\b|\b(?:number|count)\s+only\b",
    )
});

/// The spans of `goal` about a number the user is to be told ([`TOLD_NUMBER`] with no file named in the rest of
/// its sentence).
fn told_spans(goal: &str) -> Vec<(usize, usize)> {
    // A told number covers the rest of its sentence ("tell me how many there are, just the number"), and the next
    // sentence when that names no file ("Then tell me how many. Just the number, please.").
    let sentence_end = |from: usize| SENTENCE_END.find(&goal[from..]).map_or(goal.len(), |end| from + end.end());
    let mut told: Vec<(usize, usize)> = Vec::new();
    for found in TOLD_NUMBER.find_iter(goal) {
        let end = sentence_end(found.end());
        // A file the rest says to write makes the number the file's ("… and write that to n.txt"); one it names as
        // what is counted does not ("how many addresses show up in ten.log": no verb writes it, so no destination
        // guessed from "in" either).
        let rest = crate::GoalSpec::parse(&goal[found.end()..end]);
        if !rest.writes.is_empty() || !rest.changes.is_empty() {
            continue;
        }
        told.push((found.start(), end));
        let next_end = sentence_end(end);
        if end < goal.len() && named_files(&goal[end..next_end]).is_empty() {
            told.push((end, next_end));
        }
    }
    told
}

/// A file `goal` reads that is not in `cwd`, as a failed attempt's output `printed` says
/// (`cat: settings.ini: No such file or directory`, python's `FileNotFoundError: … 'settings.ini'`): no script
/// makes it appear, so the goal fails with that at once, said plainly, instead of after two repairs whose last
/// error may be another one. `None` for a goal that says what to do when it is missing (`if …`), or asks for what
/// fails to be fixed or made to work (then the missing file is for the fix to make).
pub(crate) fn missing_input(goal: &str, cwd: &str, printed: &str) -> Option<String> {
    if matches(&CONDITIONAL, goal) || crate::runners::rerun::says_to_fix(goal) {
        return None;
    }
    let destinations = goal_destinations(goal);
    // "Run ./decode.py (it makes readings.csv)": a file the goal says something makes is not there before it is made.
    let made: Vec<&str> = MADE.captures_iter(goal).filter_map(|c| c.get(1)).map(|m| m.as_str()).collect();
    let missing_here = |file: &String| {
        let name = file.trim_start_matches("./");
        !destinations.contains(file)
            && !made.iter().any(|m| crate::goal_spec::same_file(m.trim_end_matches(['.', ',', ';', ':', ')']), file))
            && !resolve(file, Path::new(cwd)).exists()
            && printed.lines().any(|line| {
                names(line, name) && (line.contains("No such file") || line.contains("FileNotFoundError"))
            })
            // Elsewhere below: the script looked in the wrong place, which a repair can fix.
            && !found_below(Path::new(cwd), name)
    };
    named_files(goal).into_iter().find(missing_here)
}

/// Whether `line` names `path` as a whole (`a.txt` in `'a.txt'` or `/w/a.txt`, not in `data.txt`).
fn names(line: &str, path: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || "_-.".contains(c);
    line.match_indices(path).any(|(at, _)| {
        !line[..at].chars().next_back().is_some_and(part) && !line[at + path.len()..].chars().next().is_some_and(part)
    })
}

/// The most directory entries looked at for a missing input elsewhere under the working directory.
const SEARCH_LIMIT: usize = 2000;

/// Whether a file named like `path`'s last part is anywhere under `root`, three levels down at most.
fn found_below(root: &Path, path: &str) -> bool {
    let Some(name) = Path::new(path).file_name() else { return false };
    let mut queue = vec![(root.to_path_buf(), 0)];
    let mut seen = 0;
    while let Some((dir, depth)) = queue.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > SEARCH_LIMIT {
                return false;
            }
            if entry.file_name() == name {
                return true;
            }
            if depth < 3 && entry.file_type().is_ok_and(|t| t.is_dir()) {
                queue.push((entry.path(), depth + 1));
            }
        }
    }
    false
}

/// Whether `goal` asks for a number anywhere ("write the number of lines … if it is missing, write MISSING").
pub(crate) fn mentions_number(goal: &str) -> bool {
    matches(&ASKS_NUMBER, goal)
}

/// The first line of `printed` that is a program's error.
pub(crate) fn error_line(printed: &str) -> Option<&str> {
    printed.lines().find(|line| matches(&PROGRAM_ERROR, line))
}

/// A count followed by a name (`12 notes.txt`, `28K\tdata/`): what `wc FILE` and `du` print.
static COUNT_AND_NAME: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"^\d[\d.,]*[KMGT]?\s+(\S+)$"));

/// The problem of a file that should hold a number, said with the fix when the mistake is a known one: a small
/// model repeats `wc -l notes.txt` three times when told only that the file holds more than the number.
fn not_just_a_number(file: &str, text: &str) -> String {
    let name = COUNT_AND_NAME.captures(text).and_then(|c| c.get(1)).map(|m| m.as_str());
    match name {
        Some(name) if !name.ends_with('/') => format!(
            "{file} holds `{}`: the number and a name; write only the number (read the file on stdin: `wc -l < \
             {name}`, or cut the name off: `| awk '{{print $1}}'`)",
            excerpt(text)
        ),
        Some(_) => format!(
            "{file} holds `{}`: the number and a name; write only the number (cut the name off: `| awk '{{print \
             $1}}'`)",
            excerpt(text)
        ),
        None => format!("{file} holds `{}`, not just the number", excerpt(text)),
    }
}

fn matches(re: &LazyLock<Regex>, text: &str) -> bool {
    re.is_match(text)
}

pub(crate) use crate::goal_shape::is_number;

fn excerpt(text: &str) -> String {
    let line: String = text.lines().next().unwrap_or_default().chars().take(60).collect();
    if line.len() < text.len() { format!("{line}…") } else { line }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_to_fix_left_alone_and_unnamed_is_not_fixed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sow.sh"), "#!/bin/bash\necho $SEEDS\n").unwrap();
        let cwd = dir.path().to_str().unwrap();
        let spec = crate::GoalSpec::parse("sow.sh dies at once. Fix the script and run it so the beds are sown.");
        let before = Before::of(&spec.changes, cwd);
        assert_eq!(not_fixed(&spec, "mkdir -p beds\ncp seeds/* beds/\n", cwd, &before).as_deref(), Some("sow.sh"));
        assert_eq!(not_fixed(&spec, "sed -i 's/SEEDS/SEED/' sow.sh\n./sow.sh\n", cwd, &before), None, "named");
        std::fs::write(dir.path().join("sow.sh"), "#!/bin/bash\necho ok\n").unwrap();
        assert_eq!(not_fixed(&spec, "python3 - <<'EOF'\n…\nEOF\n", cwd, &before), None, "changed");
        std::fs::write(dir.path().join("rows.csv"), "a,b\n").unwrap();
        let data = crate::GoalSpec::parse("Fix rows.csv so that it parses.");
        assert_eq!(data.changes, ["rows.csv"]);
        assert_eq!(not_fixed(&data, "true", cwd, &Before::of(&data.changes, cwd)), None, "no program");
    }

    #[test]
    fn result_check_patterns_compile() {
        for re in [
            &*ASKS_NUMBER,
            &*TOLD_NUMBER,
            &*SENTENCE_END,
            &*CONDITIONAL,
            &*PROGRAM_ERROR,
            &*COUNT_AND_NAME,
            &*FILLS_A_DIRECTORY,
        ] {
            assert!(!re.as_str().is_empty());
        }
    }

    fn check(goal: &str, files: &[(&str, &str)], printed: &str, last: bool) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        result_problem(goal, dir.path().to_str().unwrap(), printed, last, &Before::default()).map(|p| p.to_string())
    }

    #[test]
    fn what_a_repair_in_place_prints_is_no_result_to_shape() {
        // The repaired file is the result; the program run after the fix prints its own text.
        let goal = "ship.sh fails because routes.json has a trailing comma. Fix routes.json so ship.sh runs; don't \
                    edit ship.sh. Run it at the end.";
        let fixed = [("routes.json", "{\"a\": 1}\n")];
        assert_eq!(check(goal, &fixed, "shipped 3 routes\n", false), None);
        // Asked to print, the printed answer keeps the goal's shape though a file is repaired.
        let goal = "tally.py crashes. Fix it and print the totals of sales.csv as a JSON object.";
        assert!(check(goal, &[("sales.csv", "a,1\n")], "total 3\n", false).is_some());
        // A question's printed answer keeps its shape.
        let goal = "Which hosts in hosts.txt are down? Print them as a JSON array.";
        assert!(check(goal, &[("hosts.txt", "a\n")], "a b\n", false).is_some());
    }

    #[test]
    fn a_directory_being_there_checks_it_only_when_nothing_was_to_go_in_it() {
        let checked = |goal: &str, required: &str, files: &[&str]| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join(required.trim_end_matches('/'))).unwrap();
            for name in files {
                std::fs::write(dir.path().join(name), "x\n").unwrap();
            }
            let cwd = dir.path().to_str().unwrap();
            let result = check_result(goal, &[required.to_owned()], cwd, "", false, &Before::default());
            assert_eq!(result.problem, None, "{goal}");
            assert_eq!(result.checks, [format!("{required} was made")], "{goal}");
            result.content_checked
        };
        assert!(checked("Create a directory named build.", "build", &[]));
        assert!(checked("Make an empty folder called cache/ here.", "cache/", &[]));
        // Which files went in, the shell did not look.
        assert!(!checked("Copy the .txt files into backup/.", "backup/", &["backup/a.txt"]));
        assert!(!checked("Make a folder logs/ holding the old logs.", "logs/", &["logs/x.log"]));
        assert!(!checked("Copy the .txt files into backup/.", "backup/", &[]), "made, but empty");
        assert!(!checked("Create a directory named build.", "build", &["build/stray"]), "not empty: what is in it?");
    }

    #[test]
    fn named_files_must_be_there_and_hold_something() {
        let goal = "Write the distinct addresses of a.txt to unique.txt, one per line.";
        assert_eq!(
            check(goal, &[], "", false).unwrap(),
            "unique.txt was not written (write the result there: `> unique.txt`)"
        );
        assert!(check(goal, &[], "", true).is_some(), "a missing file fails the last attempt too");
        let unpack =
            "First unpack logs.tar.gz into a new folder called march. Then tell me how many WARN lines it has.";
        assert_eq!(
            check(unpack, &[], "4\n", false).unwrap(),
            "the folder march was not made (make it with `mkdir -p march` and put what the goal asks for in it)"
        );
        assert!(names_a_folder("Put them in the march directory.", "march"));
        assert!(names_a_folder("Copy it to `out/`.", "out/"));
        assert!(!names_a_folder("Write the count to march.", "march"), "a file");
        assert_eq!(check(goal, &[("unique.txt", " \n")], "", false).unwrap(), "unique.txt is empty");
        assert_eq!(check(goal, &[("unique.txt", " \n")], "", true), None, "an empty result may be the right one");
        assert_eq!(check(goal, &[("unique.txt", "a@x\n")], "", false), None);
        // Bytes that are no text are something written, not nothing.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("photos.tar.gz"), [0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00]).unwrap();
        let goal = "Pack the photos folder into photos.tar.gz.";
        let cwd = dir.path().to_str().unwrap();
        assert_eq!(result_problem(goal, cwd, "", false, &Before::default()).map(|p| p.to_string()), None);
    }

    #[test]
    fn a_polite_request_for_work_prints_nothing_and_is_done() {
        let goal = "render.py fails on layout.ini. Could you sort out the config so it renders?";
        assert_eq!(check(goal, &[], "", false), None);
        let question = "Could you tell me how many lines of kiln.log are warnings?";
        assert_eq!(check(question, &[], "", false).unwrap(), "it printed nothing: print the answer");
    }

    #[test]
    fn a_number_is_just_a_number() {
        let goal = "Put the line count of poem.md into n.txt, just the number.";
        assert_eq!(
            check(goal, &[("n.txt", "12 poem.md\n")], "", false).unwrap(),
            "n.txt holds `12 poem.md`: the number and a name; write only the number (read the file on stdin: \
             `wc -l < poem.md`, or cut the name off: `| awk '{print $1}'`)"
        );
        assert_eq!(
            check(goal, &[("n.txt", "about twelve")], "", false).unwrap(),
            "n.txt holds `about twelve`, not just the number"
        );
        for number in ["12\n", "-3", "1,024", "3875.50"] {
            assert_eq!(check(goal, &[("n.txt", number)], "", false), None, "{number}");
        }
        assert_eq!(
            check("How big is cache/? Write the number to used.txt.", &[("used.txt", "28K\tcache/")], "", false)
                .unwrap(),
            "used.txt holds `28K\tcache/`: the number and a name; write only the number (cut the name off: \
             `| awk '{print $1}'`)"
        );
        let conditional = "Write the number of lines in in.txt to n.txt, or NONE if there is no in.txt.";
        assert_eq!(check(conditional, &[("n.txt", "NONE\n")], "", false), None);
        assert_eq!(
            check("Write the word count to n.txt.", &[("n.txt", "about 40")], "", false),
            None,
            "no number asked for"
        );
    }

    #[test]
    fn a_count_to_be_told_is_not_what_the_listed_file_holds() {
        let listed = "ann\nbo\ncy\n";
        for goal in [
            "Put the hosts of net.log in hosts.txt, one per line, then tell me how many hosts there are.",
            "Save every tag from a.md to tags.txt, one per line. Then let me know how many tags that makes.",
            "Collect the owners in pets.csv into owners.txt, one per line, and say how many owners there are.",
            "List the hosts of net.log in hosts.txt, one per line, then tell me how many there are, just the number.",
            "Put the tags of a.md in tags.txt, one per line. Then tell me how many there are. The number only.",
            "Put the tags of a.md in tags.txt, then tell me how many there are - not just the number, name them too.",
            "First copy the hosts of net.log into hosts.txt. Then tell me how many different hosts show up in hosts.txt.",
        ] {
            let files = [("hosts.txt", listed), ("tags.txt", listed), ("owners.txt", listed)];
            assert_eq!(check(goal, &files, "3\n", false), None, "{goal}");
            // Told alone, the count is all the script prints.
            if goal.contains("number") && !goal.contains("not just") {
                let problem = check(goal, &files, "ann\nbo\ncy\n3\n", false).unwrap();
                assert!(
                    problem.starts_with("it printed `ann") && problem.ends_with("not just the number"),
                    "{problem}"
                );
                assert_eq!(check(goal, &files, "", false).unwrap(), "it printed nothing: print the answer", "{goal}");
            }
        }
        // The number written to the file is still the file's, whether or not the user is told too.
        for goal in [
            "How many hosts are in net.log? Write the number to n.txt.",
            "Tell me how many hosts net.log has and write that to n.txt.",
            "Tell me how many hosts net.log has. Also write the number of hosts to n.txt.",
        ] {
            assert!(check(goal, &[("n.txt", listed)], "", false).unwrap().contains("not just the number"), "{goal}");
        }
    }

    #[test]
    fn a_name_asked_for_with_a_unit_is_a_name() {
        let goal = "Which track under music/ has the largest size (the number of bytes)? Write its name to a.txt.";
        assert!(!asks_number(goal));
        assert_eq!(check(goal, &[("a.txt", "intro.flac\n")], "", false), None);
        let question = "Which clip lasts longest, in seconds? Answer with its name.";
        assert_eq!(check(question, &[], "intro.mov\n", false), None);
        assert!(asks_number("How many clips last over 10 seconds? Write the number to a.txt."));
    }

    #[test]
    fn a_file_an_earlier_attempt_left_is_not_this_attempts_result() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        let goal = "Put the line count of poem.md into n.txt, just the number.";
        std::fs::write(dir.path().join("n.txt"), "12 poem.md\n").unwrap();
        let before = Before::take(goal, cwd);
        assert!(
            result_problem(goal, cwd, "12\n", false, &before).unwrap().to_string().starts_with("n.txt was not written")
        );
        std::fs::write(dir.path().join("n.txt"), "12\n").unwrap();
        assert_eq!(result_problem(goal, cwd, "", false, &before), None);
    }

    #[test]
    fn an_error_hidden_by_a_pipeline_is_a_failure() {
        let question = "How many .log files are in this directory? Answer with the number.";
        let printed = "ls: cannot access '.log': No such file or directory\n0\n";
        assert_eq!(
            check(question, &[], printed, false).unwrap(),
            "it printed an error: `ls: cannot access '.log': No such file or directory`"
        );
        assert!(check(question, &[], printed, true).is_some(), "not even on the last attempt");
        assert_eq!(check(question, &[], "2\n", false), None);
        for printed in [
            "/run/s/script-3.sh: line 18: warning: here-document at line 2 delimited by end-of-file (wanted `EOF')\n",
            "run-1.sh: line 3: total: unbound variable\n4\n",
            "Traceback (most recent call last):\n  File \"stats.py\", line 9, in <module>\nTypeError: x\n",
        ] {
            assert!(error_line(printed).is_some(), "{printed}");
        }
        assert_eq!(error_line("the first line: 4\nline 2: ok\n"), None);
        let prose = check(question, &[], "no such file here: 0\n", false).unwrap();
        assert!(
            prose.starts_with("what it printed is not as the goal asks"),
            "not an error line, nor the number: {prose}"
        );
    }

    #[test]
    fn a_missing_input_is_named_once_an_attempt_trips_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        let goal = "What is the first line of settings.ini?";
        let python = "Traceback (most recent call last):\nFileNotFoundError: [Errno 2] No such file or directory: \
                      'settings.ini'\n";
        assert_eq!(missing_input(goal, cwd, python).as_deref(), Some("settings.ini"));
        let cat = "cat: settings.ini: No such file or directory\n";
        assert_eq!(missing_input(goal, cwd, cat).as_deref(), Some("settings.ini"));
        let fixing = "Run ./index.sh on settings.ini and fix whatever it complains about.";
        assert_eq!(missing_input(fixing, cwd, cat), None, "a goal to fix it: the fix makes what is missing");
        assert_eq!(missing_input(goal, cwd, "KeyError: 'settings'\n"), None, "another error");
        let other = "cat: mysettings.ini: No such file or directory\n";
        assert_eq!(missing_input(goal, cwd, other), None, "another file");
        let made = "Run ./fetch.sh (it makes settings.ini), then print its first line.";
        assert_eq!(missing_input(made, cwd, cat), None, "something the goal runs makes it");
        std::fs::create_dir_all(dir.path().join("conf/old")).unwrap();
        std::fs::write(dir.path().join("conf/old/settings.ini"), "a=1\n").unwrap();
        assert_eq!(missing_input(goal, cwd, cat), None, "it is below: the repair may find it");
        std::fs::write(dir.path().join("settings.ini"), "a=1\n").unwrap();
        assert_eq!(missing_input(goal, cwd, cat), None, "it is there: the script got the path wrong");
        let fallback = "Count the lines of in.txt into n.txt; if in.txt does not exist, write MISSING.";
        assert_eq!(missing_input(fallback, cwd, "cat: in.txt: No such file or directory"), None);
    }

    #[test]
    fn a_path_asked_with_a_number_takes_both_in_any_layout() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        std::fs::create_dir_all(dir.path().join("vault/old set")).unwrap();
        std::fs::write(dir.path().join("vault/old set/clip one.mov"), "0123456789").unwrap();
        std::fs::write(dir.path().join("vault/tiny.mov"), "01").unwrap();
        let problem = |goal: &str, printed: &str| {
            result_problem(goal, cwd, printed, false, &Before::default()).map(|p| p.to_string())
        };
        for question in [
            "Which clip inside vault/ is the heaviest, and how many bytes does it weigh? Reply with its path.",
            "What is the bulkiest file under vault/? Print its path and its size in bytes.",
            "Tell me the byte count and the full path of the largest file in vault/.",
        ] {
            assert!(!asks_number(question), "{question}");
            for printed in [
                "10\tvault/old set/clip one.mov\n",
                "vault/old set/clip one.mov: 10 bytes\n",
                "The heaviest is vault/old set/clip one.mov, at 10 bytes.\n",
                "vault/old set/clip one.mov\n10\n",
            ] {
                assert_eq!(problem(question, printed), None, "{question} / {printed}");
            }
            let only_number = problem(question, "10\n").unwrap();
            assert!(only_number.contains("no path"), "{question}: {only_number}");
            let only_path = problem(question, "vault/old set/clip one.mov\n").unwrap();
            assert!(only_path.contains("no number"), "{question}: {only_path}");
        }
        // A list of paths picked by size is still checked as paths.
        let listing = "List the paths of the files in vault/ over 5 bytes, one per line.";
        assert_eq!(problem(listing, "vault/old set/clip one.mov\n"), None);
        let wrong = problem(listing, "vault/old set/clip two.mov\n").unwrap();
        assert!(wrong.contains("not an existing path"), "{wrong}");
    }

    #[test]
    fn names_of_files_printed_for_a_number_told_are_no_number() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("tray/kept")).unwrap();
        std::fs::create_dir(dir.path().join("old")).unwrap();
        for name in ["tray/2024-05-scan.pdf", "tray/note 7.txt", "tray/kept/7.pdf"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let cwd = dir.path().to_str().unwrap();
        let goal = "Move the 2023 scans out of tray/ into old/, then tell me how many files stay in tray/.";
        let spec = crate::GoalSpec::parse(goal);
        let required = spec.required_writes(dir.path());
        let before = Before::of(&spec.changes, cwd);
        let problem = |printed: &str| check_result(goal, &required, cwd, printed, false, &before).problem;
        let found = problem("2024-05-scan.pdf\nnote 7.txt\n");
        assert!(matches!(found, Some(Problem::PrintedNotANumber { .. })), "names found a folder down: {found:?}");
        assert!(matches!(problem("tray/2024-05-scan.pdf\ntray/kept/7.pdf\n"), Some(Problem::PrintedNotANumber { .. })));
        assert_eq!(problem("2\n"), None);
        assert_eq!(problem("2024-05-scan.pdf\n"), None, "one name is not a list (it may be the count's words)");
        assert_eq!(problem("tray: 2 files\n2024-05-scan.pdf\n"), None, "a line that names no file");
        assert_eq!(problem("7.pdf\n2\n"), None, "a number among them");
    }

    #[test]
    fn a_question_prints_its_answer() {
        let question = "How many tickets are still open? Answer with the number only.";
        assert_eq!(check(question, &[], "\n", false).unwrap(), "it printed nothing: print the answer");
        assert_eq!(check(question, &[], "t-028\nt-031\n", false).unwrap(), "it printed `t-028…`, not just the number");
        assert_eq!(check(question, &[], "15\n", false), None);
        assert_eq!(check(question, &[], "", true), None, "the last attempt stands");
        assert_eq!(check("Which shell does profile.rc start?", &[], "it starts zsh", false), None);
        // A number to be told after a file written: the script that only writes the file told nothing.
        let told =
            "Write the distinct callsigns of radio.log to calls.txt, one per line, then tell me how many there are.";
        let calls = [("calls.txt", "g4abc\nm0xyz\n")];
        assert_eq!(check(told, &calls, "", false).unwrap(), "it printed nothing: print the answer");
        assert!(check(told, &calls, "done", false).unwrap().contains("and no number"));
        assert_eq!(check(told, &calls, "There are 2 callsigns.", false), None);
        assert_eq!(check(told, &calls, "", true), None, "the last attempt stands");
        let conditional = "Write the failed logins of auth.log to calls.txt; if there are any, tell me how many.";
        assert_eq!(check(conditional, &calls, "No failed logins.", false), None);
        assert!(!must_tell_a_number("Write the names to calls.txt. No need to tell me how many."));
        assert!(must_tell_a_number("Write the names to calls.txt. Then tell me how many."));
        assert!(!number_alone("How many rows? I need more than just the number: list the regions too."));
        assert!(number_alone("How many rows? Reply with just the number."));
        // "just the number" asks for it alone, as "the number only" does.
        let sizes = "How many bytes do the .wav files under takes/ use in all? Reply with just the number of bytes.";
        let listing = "8.0K\ttakes/a.wav\n4.0K\ttakes/b.wav\n";
        assert_eq!(check(sizes, &[], listing, false).unwrap(), "it printed `8.0K\ttakes/a.wav…`, not just the number");
        assert_eq!(check(sizes, &[], "12288\n", false), None);
        assert_eq!(
            check("In songs/, give every .aif file the extension .aiff.", &[], "", false),
            None,
            "not a question"
        );
    }
}
