//! A first step the shell takes itself: "Unpack bundle.tar.gz, then count the rows of the CSV files in it", "Run
//! ./export.sh first (it writes totals.csv). Then list the rows over 100". Written as one script, such a task asks a
//! small model to guess what the first step will make (a directory's name inside an archive, the columns of a file a
//! program writes): Qwen2.5-Coder-1.5B wrote `find bundle …` for an archive holding `export/`, and read a file the
//! program it never ran was to make. So the first step becomes a subtask of its own with its command given (no call),
//! and the rest of the task a script subtask after it, whose writer sees what the first step made (its output, the
//! directory as it then is). See [`crate::RouterOptions::shell_first_steps`].

use std::sync::LazyLock;

use dag_sched::{Mode, Plan, Subtask};
use regex::Regex;

use crate::classifier::SINGLE_SUBTASK_ID;
use crate::context::RouteContext;
use crate::route::{PlanRoute, Route};

/// The id of the first step's subtask: a step the shell took, whose result is no answer to the task.
pub const FIRST_STEP_ID: &str = "first-step";

/// Builds a constant pattern; the module's patterns test forces each, so a bad one fails at once.
#[allow(clippy::expect_used)] // constant patterns only
fn constant(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a constant pattern compiles (see the patterns test)")
}

/// Where a task's first step ends and its next begins: "…, then", ". Then", "; after that", "and then".
static NEXT: LazyLock<Regex> = LazyLock::new(|| {
    constant(r"(?i)(?:[.;!]\s+|,\s*(?:and\s+)?|\s+and\s+|\s+)(?:then|after\s+that|afterwards|next)\b[,:]?\s*")
});

/// A first step that unpacks an archive, with where to (nothing, "here", or a directory). A lead-in may come
/// first, in this pattern and the next ("For the choir: run ./roster.sh first").
static UNPACK: LazyLock<Regex> = LazyLock::new(|| {
    constant(
        r"(?ix)^(?:[^:.;]{1,40}:\s*)?(?:please\s+|first,?\s+)*(?:unpack|extract|untar|unzip|decompress|uncompress|expand)\s+
        (?:the\s+(?:archive|tarball|zip|bundle|file)\s+)?
        (?P<archive>[\w./-]*\w\.(?:tar\.gz|tgz|tar\.bz2|tbz2?|tar\.xz|txz|tar|zip|gz))
        (?:\s+(?:here|in\s+here|in\s+place|(?:in|into)\s+(?:the\s+)?(?:current|this|working)\s+(?:directory|folder|dir)
        |(?:in|into|to)\s+(?P<dir>[\w.-]+)/?))?
        (?:\s+first)?\s*[.!]?$",
    )
});

/// A first step that runs a program with no arguments: "run ./export.sh first", "Run sync.py (it writes out.csv)",
/// "Decode raw.log with ./decode.py (it makes readings.csv)".
static RUN: LazyLock<Regex> = LazyLock::new(|| {
    constant(
        r"(?ix)^(?:[^:.;]{1,40}:\s*)?(?:please\s+|first,?\s+)*
        (?:(?:run|execute|start)\s+(?P<run>\./[\w.-]*\w|[\w.-]*\w\.(?:sh|py))
        |[^()]{1,80}?\b(?:with|using)\s+(?P<with>\./[\w.-]*\w))
        (?:\s+first)?\s*(?:\([^()]*\))?(?:\s+first)?\s*[.!]?$",
    )
});

/// Words of a task that mean a program may ask something, or is to be fixed: a step for the runners that answer
/// programs' questions and fix what they complain about, not one command the shell takes blind.
static NOT_BLIND: LazyLock<Regex> = LazyLock::new(|| {
    constant(
        r"(?i)\b(?:answers?|repl(?:y|ies)|respond|type|enter|choose|pick|select|confirm|yes|no|prompts?|asks?|asking|questions?|fix|fixes|repair|until|fails?|error|broken|argument|options?|flags?)\b",
    )
});

/// `route`, but a classifier's one script subtask (no command of its own) whose task opens with a step the shell
/// can take itself ([`first_step`]) becomes that step, with its command, and the rest of the task after it.
pub(crate) fn shell_first_step(route: Route, task: &str, context: &RouteContext) -> Route {
    let Route::Plan(PlanRoute { plan }) = &route else { return route };
    let [subtask] = plan.subtasks.as_slice() else { return route };
    if subtask.mode != Mode::Script || subtask.command.is_some() || subtask.id != SINGLE_SUBTASK_ID {
        return route;
    }
    let Some(step) = first_step(task, context) else { return route };
    tracing::debug!(command = %step.command, rest = %step.rest, "the shell takes the task's first step itself");
    let first = Subtask {
        id: FIRST_STEP_ID.to_owned(),
        description: step.description,
        pane: subtask.pane.clone(),
        mode: Mode::Script,
        command: Some(step.command),
        depends_on: Vec::new(),
        timeout: None,
        host: None,
    };
    let rest = Subtask { description: step.rest, depends_on: vec![FIRST_STEP_ID.to_owned()], ..subtask.clone() };
    let split = Plan { subtasks: vec![first, rest], ..plan.clone() };
    match dag_sched::ValidatedPlan::new(split.clone()) {
        Ok(_) => Route::Plan(PlanRoute { plan: split }),
        Err(error) => {
            tracing::debug!(%error, "the split plan is not valid: one subtask as before");
            route
        }
    }
}

/// A task's first step, taken by the shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FirstStep {
    /// The step as the task words it.
    pub(crate) description: String,
    /// The command that takes it.
    pub(crate) command: String,
    /// The rest of the task.
    pub(crate) rest: String,
}

/// The first step of `task` when the shell can take it without a model: unpacking an archive the working directory
/// holds (`tar -xvf`, `unzip`, `gunzip -k`), or running a program it holds with no arguments, and then more work.
/// `None` when the task has one step, when the program might ask something or is to be fixed, or when the file is
/// not in the working directory's listing (an unknown listing: not there).
pub(crate) fn first_step(task: &str, context: &RouteContext) -> Option<FirstStep> {
    let task = task.trim();
    if task.lines().count() > 1 {
        return None;
    }
    let next = NEXT.find_iter(task).find(|m| m.start() > 0)?;
    let description = task[..next.start()].trim().trim_end_matches([',', ';', '.']).trim();
    let rest = task[next.end()..].trim();
    if description.is_empty() || rest.split_whitespace().count() < 2 {
        return None;
    }
    let listed = |name: &str| {
        let name = name.trim_start_matches("./");
        context.workdir.as_ref().is_some_and(|dir| dir.entries.iter().any(|entry| entry == name))
    };
    let command = if let Some(caps) = UNPACK.captures(description) {
        let archive = &caps["archive"];
        if !listed(archive) {
            return None;
        }
        unpack_command(archive, caps.name("dir").map(|d| d.as_str()))?
    } else if let Some(caps) = RUN.captures(description) {
        let program = caps.name("run").or_else(|| caps.name("with"))?.as_str();
        if NOT_BLIND.is_match(task) || !listed(program) {
            return None;
        }
        program_command(program)
    } else {
        return None;
    };
    let mut rest_chars = rest.chars();
    let rest = match rest_chars.next() {
        Some(first) => first.to_uppercase().chain(rest_chars).collect(),
        None => return None,
    };
    Some(FirstStep { description: format!("{description}."), command, rest })
}

/// The command that unpacks `archive` (a plain name: letters, digits, `._/-`) into `dir` or here, listing what it
/// makes; the archive stays.
fn unpack_command(archive: &str, dir: Option<&str>) -> Option<String> {
    let lower = archive.to_lowercase();
    let into = |flag: &str| dir.map(|d| format!(" {flag} {d}")).unwrap_or_default();
    let made = dir.map(|d| format!("mkdir -p {d} && ")).unwrap_or_default();
    let command = if lower.ends_with(".zip") {
        format!("unzip -o {archive}{}", into("-d"))
    } else if lower.ends_with(".gz") && !lower.ends_with(".tar.gz") {
        if dir.is_some() {
            return None;
        }
        format!("gunzip -kv {archive}")
    } else {
        format!("{made}tar -xvf {archive}{}", into("-C"))
    };
    Some(command)
}

/// The command that runs `program`: as named when it is a path (`./export.sh`), else through its interpreter.
fn program_command(program: &str) -> String {
    if program.starts_with("./") {
        program.to_owned()
    } else if program.ends_with(".py") {
        format!("python3 {program}")
    } else {
        format!("bash {program}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::WorkDir;

    fn here(entries: &[&str]) -> RouteContext {
        RouteContext {
            workdir: Some(WorkDir {
                name: "w".into(),
                entries: entries.iter().map(|e| e.to_string()).collect(),
                more: 0,
            }),
            ..RouteContext::default()
        }
    }

    fn step(task: &str, entries: &[&str]) -> Option<(String, String)> {
        first_step(task, &here(entries)).map(|s| (s.command, s.rest))
    }

    #[test]
    fn patterns_compile() {
        for pattern in [&NEXT, &UNPACK, &RUN, &NOT_BLIND] {
            LazyLock::force(pattern);
        }
    }

    #[test]
    fn unpacking_an_archive_here_is_the_shells_first_step() {
        assert_eq!(
            step("Unpack crates.tar.gz, then count the rows of the CSV files in it.", &["crates.tar.gz"]),
            Some(("tar -xvf crates.tar.gz".into(), "Count the rows of the CSV files in it.".into()))
        );
        assert_eq!(
            step("Extract the archive maps.zip here and then tell me which map is largest", &["maps.zip"]),
            Some(("unzip -o maps.zip".into(), "Tell me which map is largest".into()))
        );
        assert_eq!(
            step("Unzip fonts.zip into fonts/. Then list the bold ones in bold.txt.", &["fonts.zip"]),
            Some(("unzip -o fonts.zip -d fonts".into(), "List the bold ones in bold.txt.".into()))
        );
        assert_eq!(
            step("Decompress tally.csv.gz; after that, sum its second column", &["tally.csv.gz"]),
            Some(("gunzip -kv tally.csv.gz".into(), "Sum its second column".into()))
        );
        assert_eq!(
            step("untar kit.tgz into parts then count the screws", &["kit.tgz"]).map(|s| s.0),
            Some("mkdir -p parts && tar -xvf kit.tgz -C parts".into())
        );
    }

    #[test]
    fn running_a_program_first_is_the_shells_first_step() {
        assert_eq!(
            step("Run ./tally.sh first (it writes votes.csv). Then name the winner.", &["tally.sh"]),
            Some(("./tally.sh".into(), "Name the winner.".into()))
        );
        assert_eq!(
            step("Convert the ledger with ./convert.py (it makes ledger.csv). Then sum the debits.", &["convert.py"])
                .map(|s| s.0),
            Some("./convert.py".into())
        );
        assert_eq!(
            step("Run collect.py, then sort out.txt", &["collect.py"]).map(|s| s.0),
            Some("python3 collect.py".into())
        );
        // A lead-in naming whom it is for.
        assert_eq!(
            step("For the choir: run ./roster.sh first (it writes voices.txt). Then list the altos.", &["roster.sh"])
                .map(|s| s.0),
            Some("./roster.sh".into())
        );
    }

    #[test]
    fn anything_else_stays_one_script() {
        let entries = ["crates.tar.gz", "tally.sh"];
        // One step.
        assert_eq!(step("Unpack crates.tar.gz here.", &entries), None);
        // Not in the listing, or no listing at all.
        assert_eq!(step("Unpack other.tar.gz, then count its files.", &entries), None);
        assert_eq!(first_step("Unpack crates.tar.gz, then count its files.", &RouteContext::default()), None);
        // More to the first step than the shell can tell: a selection, a destination it cannot name, arguments.
        assert_eq!(step("Unpack only the CSV files of crates.tar.gz, then count them.", &entries), None);
        assert_eq!(step("Run ./tally.sh --all votes, then name the winner.", &entries), None);
        // A program that may ask, or is to be fixed.
        assert_eq!(step("Run ./tally.sh and answer yes, then name the winner.", &entries), None);
        assert_eq!(step("Run ./tally.sh first; if it fails, fix it. Then name the winner.", &entries), None);
        // Several lines.
        assert_eq!(step("Unpack crates.tar.gz\nthen count its files", &entries), None);
        // "then" at the start is no boundary.
        assert_eq!(step("Then unpack crates.tar.gz", &entries), None);
    }
}
