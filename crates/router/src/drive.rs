//! Whether a task names something to drive step by step: what separates work for the interactive runner from one
//! script's work when a small model's classifier answers `drive` (see
//! [`crate::RouterOptions::drives_need_a_program`]).

use dag_sched::{Mode, Plan};

use crate::classifier::{self, Verdict};
use crate::context::RouteContext;
use crate::route::{PlanRoute, Route};

/// `route`, but a classifier's one interactive subtask on the default pane becomes one script subtask when `task`
/// is file work: it names a file or a directory (`notes.txt`, `inbox/`) and nothing to drive
/// ([`names_something_to_drive`]).
pub(crate) fn scripted_unless_driven(route: Route, task: &str, context: &RouteContext) -> Route {
    let Route::Plan(PlanRoute { plan }) = &route else { return route };
    let [subtask] = plan.subtasks.as_slice() else { return route };
    if subtask.mode != Mode::Interactive
        || subtask.pane != context.default_pane()
        || !names_files(task, context)
        || names_something_to_drive(task)
    {
        return route;
    }
    tracing::debug!("the task names nothing to drive: one script subtask");
    match classifier::one_subtask(task, context, Mode::Script, None) {
        Verdict::Decided(scripted) => scripted,
        Verdict::Escalate(_) => route,
    }
}

/// `plan`, but each of a planner's interactive subtasks on the default pane (with no command of its own) becomes a
/// script subtask when its description is file work naming nothing to drive, as [`scripted_unless_driven`] does
/// for the classifier's one subtask: a small model's planner made "make reorder.txt listing …" an interactive
/// step, whose runner listed the directory and stopped there.
///
/// A step addressed to a program already running there stays: "give it data/ as the folder", "choose backups/",
/// "add a line to notes.txt and quit" after "open notes.txt in vim" would be typed into that program.
pub(crate) fn planned_scripts_unless_driven(mut plan: Plan, context: &RouteContext) -> Plan {
    let pane = context.default_pane();
    for subtask in &mut plan.subtasks {
        let description = subtask.description.as_str();
        if subtask.mode == Mode::Interactive
            && subtask.pane == pane
            && subtask.command.as_deref().is_none_or(|command| command.trim().is_empty())
            && names_files(description, context)
            && !names_something_to_drive(description)
            && !addressed_to_a_program(description)
        {
            tracing::debug!(subtask = %subtask.id, "the subtask names nothing to drive: a script subtask");
            subtask.mode = Mode::Script;
        }
    }
    plan
}

/// Whether `description` speaks to a program that is running: "give it …", "tell it …", "enter …", "choose …",
/// "quit".
fn addressed_to_a_program(description: &str) -> bool {
    let lower = description.to_lowercase();
    let words: Vec<&str> = words(&lower).collect();
    words.windows(2).any(|pair| matches!(pair, ["give" | "tell" | "show", "it" | "them"]))
        || words.iter().any(|word| ADDRESSING.contains(word))
}

/// Words of answering a running program.
const ADDRESSING: &[&str] =
    &["enter", "select", "choose", "pick", "quit", "exit", "wants", "asks", "confirm", "accept", "decline"];

/// The words of `task` without the punctuation around them; a leading dot stays (`./setup.sh`, `.env`).
fn words(task: &str) -> impl Iterator<Item = &str> {
    task.split_whitespace().map(|word| word.trim_matches(|c: char| ",;:!?()[]{}'\"`".contains(c)).trim_end_matches('.'))
}

/// Whether `task` names a file or a directory (`notes.txt`, `inbox/`, a kind of file by its extension: `every .jpeg
/// file`, or an entry of the working directory's listing: `the photos folder`): work on files, which a script does.
fn names_files(task: &str, context: &RouteContext) -> bool {
    let extension = |word: &str| {
        word.strip_prefix('.').is_some_and(|ext| {
            (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        })
    };
    words(task).any(|word| {
        classifier::file_name(word) || classifier::directory_name(word) || extension(word) || context.lists(word)
    })
}

/// Whether `task` is file work a script does, with nothing for a model to decide first: it names a file of its own
/// ([`names_own_files`]), nothing to drive ([`names_something_to_drive`]), no steps of its own
/// ([`crate::steps::names_several_steps`]), asks no how-to question and no prose to write ([`asks_for_prose`]).
pub(crate) fn is_file_work(task: &str, context: &RouteContext) -> bool {
    names_own_files(task, context)
        && !names_something_to_drive(task)
        && !crate::steps::names_several_steps(task)
        && !asks_how(task)
        && !asks_for_prose(task)
}

/// Whether `task` names a file or a directory of its own: a name with an extension (`notes.txt`), a directory by
/// its slash (`inbox/`), or an entry of the working directory's listing called a file or folder (`the photos
/// folder`). A kind of file alone (`.tmp files`) or a listed word used as a word (`build` beside `build/`) is no
/// file of the task's: "how do I delete all .tmp files?" and "what does a build system do?" are questions.
fn names_own_files(task: &str, context: &RouteContext) -> bool {
    let words: Vec<&str> = words(task).collect();
    words.iter().enumerate().any(|(at, word)| {
        let called_a_file = words.get(at + 1).is_some_and(|next| FILE_NOUNS.contains(&next.to_lowercase().as_str()));
        (classifier::file_name(word) && !ABBREVIATIONS.contains(&word.to_lowercase().as_str()))
            || classifier::directory_name(word)
            || (context.lists(word) && called_a_file)
    })
}

/// Nouns that call the word before them a file or a directory.
const FILE_NOUNS: &[&str] = &["file", "files", "folder", "folders", "directory", "directories", "dir"];

/// Abbreviations that look like a file's name once their last full stop is trimmed.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "a.m", "p.m"];

/// Whether `task` asks how to do something, rather than to do it ("how do I …", "how to …").
fn asks_how(task: &str) -> bool {
    let lower = task.trim_start().to_lowercase();
    ["how do ", "how does ", "how can ", "how could ", "how should ", "how would ", "how to "]
        .iter()
        .any(|start| lower.starts_with(start))
}

/// Whether `task` asks for text a model writes from judgement (a summary, a translation, an explanation, a letter)
/// rather than a result a script computes. Generous: a task read as prose only costs the classifier's call.
fn asks_for_prose(task: &str) -> bool {
    let lower = task.to_lowercase();
    lower.contains("in your own words")
        || lower.contains("sum up")
        || words(&lower).filter(|word| !word.contains(['.', '/'])).any(|word| {
            PROSE_STEMS.iter().any(|stem| word.starts_with(stem)) || PROSE_WORDS.contains(&word.trim_end_matches("'s"))
        })
}

/// The beginnings of words that ask for prose.
const PROSE_STEMS: &[&str] = &[
    "summar",
    "translat",
    "explain",
    "explanation",
    "describ",
    "paraphras",
    "rephras",
    "reword",
    "proofread",
    "critiq",
    "criticis",
    "criticiz",
    "compos",
    "draft",
    "review",
];

/// Words that ask for prose, or for judgement in words.
const PROSE_WORDS: &[&str] =
    &["why", "poem", "haiku", "limerick", "essay", "story", "stories", "letter", "advice", "opinion", "grammar"];

/// Programs people drive at their own prompt or screen, rather than run once for their output.
const INTERACTIVE_PROGRAMS: &[&str] = &[
    "vim",
    "vi",
    "nvim",
    "nano",
    "emacs",
    "less",
    "more",
    "man",
    "top",
    "htop",
    "psql",
    "mysql",
    "sqlite3",
    "redis-cli",
    "mongo",
    "mongosh",
    "python",
    "python3",
    "ipython",
    "node",
    "irb",
    "ghci",
    "bc",
    "ssh",
    "telnet",
    "ftp",
    "sftp",
    "gdb",
    "lynx",
    "w3m",
    "links",
    "tmux",
    "screen",
    "repl",
];

/// Words that say something runs and is attended to: a program started, a prompt answered, keys pressed, a page
/// visited.
const DRIVING_WORDS: &[&str] = &[
    "run",
    "runs",
    "running",
    "start",
    "launch",
    "execute",
    "open",
    "interrupt",
    "stop",
    "press",
    "type",
    "answer",
    "respond",
    "reply",
    "prompt",
    "prompts",
    "asks",
    "question",
    "questions",
    "interactive",
    "interactively",
    "wizard",
    "menu",
    "browse",
    "visit",
    "website",
    "page",
    "browser",
    "login",
    "connect",
    "server",
    "shell",
    "terminal",
    "session",
    "ctrl-c",
    "c-c",
];

/// Whether `task` names something to drive: a program it runs by path (`./setup.sh`), a script file
/// (`.sh`, `.py`, …), a program people use interactively (`psql`, `vim`, `python`), a web address, or a word that
/// says something runs and is attended to ("run", "start", "answer", "prompt", "page", …). File work named by its
/// files alone ("rename the files in inbox/ …", "what differs between a/ and b/?") names nothing to drive.
pub(crate) fn names_something_to_drive(task: &str) -> bool {
    let lower = task.to_lowercase();
    if lower.contains("://") || lower.contains("www.") {
        return true;
    }
    words(&lower).any(|word| {
        let bare = word.trim_end_matches("'s");
        word.starts_with("./")
            || [".sh", ".bash", ".py", ".pl", ".rb", ".js", ".exp"].iter().any(|ext| word.ends_with(ext))
            || INTERACTIVE_PROGRAMS.contains(&bare)
            || DRIVING_WORDS.contains(&bare)
    })
}

#[cfg(test)]
mod tests {
    use super::{names_files, names_something_to_drive};
    use crate::context::RouteContext;

    #[test]
    fn programs_pages_and_prompts_are_things_to_drive() {
        for task in [
            "Run ./install.sh and accept the licence",
            "open vim and fix the typo in main.c",
            "log in to the router's web page and check the firmware",
            "Start the dev server, wait for it to listen, then stop it",
            "query the inventory database with psql: how many rows has parts?",
            "check https://status.example.net for an outage",
            "bin/migrate asks three questions; give it staging, yes and 4",
            "deploy.py needs a token: give it abc123",
            "In the python REPL, compute 2**100",
            "build it with ./configure, then count the warnings in build.log",
        ] {
            assert!(names_something_to_drive(task), "{task}");
        }
    }

    #[test]
    fn file_work_names_files_or_directories() {
        let none = RouteContext::new();
        assert!(names_files("rename every file in scans/ to lower case", &none));
        assert!(names_files("count the lines of notes.txt.", &none));
        assert!(!names_files("tidy up a bit", &none));
        assert!(!names_files("list this directory", &none));
        // A kind of file by its extension, or a folder the listing shows.
        assert!(names_files("give every .TIF file a lower-case .tif ending", &none));
        let listing = RouteContext::new().workdir(crate::context::WorkDir {
            name: "w".into(),
            entries: vec!["albums/".into()],
            more: 0,
        });
        assert!(names_files("In the albums folder, drop the year from each name", &listing));
        assert!(!names_files("In the albums folder, drop the year from each name", &none));
    }

    #[test]
    fn file_work_is_one_scripts_work_without_steps_prose_or_a_program() {
        let none = RouteContext::new();
        for task in [
            "sum the second column of data.csv per month and write it to sums.txt",
            "Move the files larger than 1 MB from inbox/ into big/",
            "How many distinct hosts appear in uptime.log? Tell me the count.",
        ] {
            assert!(super::is_file_work(task, &none), "{task}");
        }
        // A listed entry is a file of the task's when it is called one.
        let listing = RouteContext::new().workdir(crate::context::WorkDir {
            name: "w".into(),
            entries: vec!["albums/".into(), "build/".into()],
            more: 0,
        });
        assert!(super::is_file_work("In the albums folder, drop the year from each name", &listing));
        assert!(!super::is_file_work("what does a build system do?", &listing));
        for task in [
            "tidy up a bit",
            "How do I delete all .tmp files?",
            "give every .TIF file a lower-case .tif ending",
            "What is the difference between .jpg and .png files?",
            "what does a build system do?",
            "Is e.g. a Latin abbreviation?",
            "how to count the lines of notes.txt",
            "Run ./import.sh and answer its questions about quotas.csv",
            "Summarise minutes.md in three sentences",
            "Translate greeting.txt into German and save it as gruss.txt",
            "Explain what crontab.txt schedules",
            "Why is the total in ledger.csv negative?",
            "Sort names.txt, then mail the first ten to me",
            "copy a.txt to b.txt\ncount the words of b.txt",
        ] {
            assert!(!super::is_file_work(task, &none), "{task}");
        }
    }

    #[test]
    fn file_work_named_by_its_files_is_not() {
        for task in [
            "rename every file in scans/ to lower case",
            "What's different between drafts/ and published/? One path per line.",
            "delete the .bak files under build/ that are older than the sources",
            "For each group of identical images in pics/, keep the first name and delete the rest",
            "Move the files larger than 1 MB from inbox/ into big/",
            "sum the second column of data.csv per month and write it to sums.txt",
        ] {
            assert!(!names_something_to_drive(task), "{task}");
        }
    }
}
