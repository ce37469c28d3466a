//! No worked example and no prompt is an eval task renamed.
//!
//! The suite measures whether clive does ordinary work it was not tuned on; an example that is a suite task with
//! other nouns (a `.png` count for a `.log` count) turns that measure into a memory test, and the gains it shows
//! vanish on the held-out tasks. So every example of the script writer's cookbook, and every prompt file of the
//! agent and of the router, is checked against every eval task in `evals/tasks`, read here at run time: no
//! five-word phrase of a task's text, and no name of a task's fixture files (or of a file its text names).
//!
//! A failure names the example (or prompt file) and the task. For a held-out task it does not show the shared
//! phrase or name: held-out wording is not to be read, even through this test; rewrite the example in other words.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clive_agent::prompt::script_examples;

/// How many words in a row make a phrase that says where a text came from.
const PHRASE: usize = 5;

/// Names too common to say anything about where an example came from, each with why. Empty: every name the
/// examples and prompts use is one no task uses.
const GENERIC_NAMES: &[(&str, &str)] = &[];

/// Files that keep an empty fixture directory in git.
const PLACEHOLDERS: &[&str] = &[".keep", ".gitkeep"];

/// Tokens that look like file names and are not: abbreviations.
const NOT_NAMES: &[&str] = &["e.g", "i.e"];

/// One eval task, as the test reads it.
struct Task {
    /// Its directory's name.
    name: String,
    /// Tagged `heldout`: its wording is never shown.
    heldout: bool,
    /// The phrases of its text.
    phrases: BTreeSet<Vec<String>>,
    /// The names of its fixture files and directories, and of the files its text names, lower-cased.
    names: BTreeSet<String>,
}

fn workspace() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The suite's tasks, and the next held-out batch's while it waits outside the suite (`evals/heldout-next`).
fn tasks() -> Vec<Task> {
    let dir = workspace().join("evals/tasks");
    let next = workspace().join("evals/heldout-next/tasks");
    let mut tasks = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .chain(std::fs::read_dir(&next).into_iter().flatten())
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.join("task.toml").is_file())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().expect("a task directory").to_string_lossy().into_owned();
        let toml_path = path.join("task.toml");
        let source = std::fs::read_to_string(&toml_path).unwrap_or_else(|e| panic!("{}: {e}", toml_path.display()));
        let table: toml::Table = toml::from_str(&source).unwrap_or_else(|e| panic!("{}: {e}", toml_path.display()));
        let text = table.get("task").and_then(|t| t.as_str()).unwrap_or_default().to_owned();
        let tagged = table
            .get("tags")
            .and_then(|t| t.as_array())
            .is_some_and(|tags| tags.iter().any(|t| t.as_str() == Some("heldout")));
        let mut names: BTreeSet<String> = path_names(&text).into_iter().collect();
        names.insert(name.to_lowercase());
        fixture_names(&path.join("fixtures"), &mut names);
        tasks.push(Task { heldout: tagged, phrases: phrases(&text), names, name });
    }
    assert!(tasks.len() >= 30, "only {} eval tasks found under {}", tasks.len(), dir.display());
    tasks
}

/// The names of every file and directory under `dir`, lower-cased.
fn fixture_names(dir: &Path, names: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let entry = entry.expect("a fixture entry");
        let name = entry.file_name().to_string_lossy().to_lowercase();
        // A placeholder that keeps an empty directory in git is no name the task uses.
        if PLACEHOLDERS.contains(&name.as_str()) {
            continue;
        }
        names.insert(name);
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            fixture_names(&entry.path(), names);
        }
    }
}

/// The words of `text`: lower-cased runs of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// Every run of [`PHRASE`] words of `text`.
fn phrases(text: &str) -> BTreeSet<Vec<String>> {
    words(text).windows(PHRASE).map(<[String]>::to_vec).collect()
}

/// The parts of every path-like token of `text` (`a/b.txt` gives `a` and `b.txt`), lower-cased: a token with a `/`,
/// or a name with an extension that starts with a letter.
fn path_names(text: &str) -> Vec<String> {
    let separator = |c: char| c.is_whitespace() || "\"'`(),;:<>[]{}=|$!?*".contains(c);
    let mut names = Vec::new();
    for token in text.split(separator) {
        let token = token.trim_matches('.');
        let has_extension = token.rsplit_once('.').is_some_and(|(stem, extension)| {
            !stem.is_empty() && extension.len() <= 8 && extension.starts_with(|c: char| c.is_ascii_alphabetic())
        });
        if !(token.contains('/') || has_extension) || NOT_NAMES.contains(&token) {
            continue;
        }
        for part in token.split('/') {
            let part = part.to_lowercase();
            let plain = part.chars().any(|c| c.is_alphanumeric()) && part != "." && part != "..";
            if plain && !GENERIC_NAMES.iter().any(|(name, _)| *name == part) {
                names.push(part);
            }
        }
    }
    names
}

/// What `text` (called `what`) shares with the tasks, one line per task.
fn overlaps(what: &str, phrase_text: &str, name_text: &str, tasks: &[Task]) -> Vec<String> {
    let own_phrases = phrases(phrase_text);
    let own_names: BTreeSet<String> = path_names(name_text).into_iter().collect();
    let mut found = Vec::new();
    for task in tasks {
        let shared: Vec<&Vec<String>> = own_phrases.intersection(&task.phrases).collect();
        if let Some(first) = shared.first() {
            if task.heldout {
                found
                    .push(format!("{what} shares a {PHRASE}-word phrase with held-out task {} (not shown)", task.name));
            } else {
                found.push(format!("{what} shares the phrase \"{}\" with task {}", first.join(" "), task.name));
            }
        }
        let names: Vec<&String> = own_names.intersection(&task.names).collect();
        if !names.is_empty() {
            if task.heldout {
                found.push(format!("{what} names a file or directory of held-out task {} (not shown)", task.name));
            } else {
                let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
                found.push(format!("{what} names {}, as task {} does", names.join(", "), task.name));
            }
        }
    }
    found
}

#[test]
fn no_worked_example_is_an_eval_task() {
    let tasks = tasks();
    let mut found = Vec::new();
    for example in script_examples() {
        let title = example.goal.lines().next().unwrap_or_default();
        let both = format!("{}\n{}", example.goal, example.script);
        found.extend(overlaps(&format!("the example `{title}`"), example.goal, &both, &tasks));
    }
    assert!(found.is_empty(), "rewrite these examples in a domain of their own:\n{}", found.join("\n"));
}

#[test]
fn no_prompt_is_an_eval_task() {
    let tasks = tasks();
    let mut found = Vec::new();
    let mut files = 0;
    for dir in ["crates/agent/prompts", "crates/router/prompts"] {
        let dir = workspace().join(dir);
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a prompt file").path())
            .collect();
        paths.sort();
        for path in paths {
            // The cookbook is checked example by example above.
            if path.file_name().is_some_and(|n| n == "script_examples.md") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // `{{goal}}` is where the task goes, not a name the prompt uses.
            let text = text.replace("{{", " ").replace("}}", " ");
            let name = path.strip_prefix(workspace()).unwrap_or(&path).display().to_string();
            found.extend(overlaps(&format!("the prompt {name}"), &text, &text, &tasks));
            files += 1;
        }
    }
    assert!(files >= 10, "only {files} prompt files found");
    assert!(found.is_empty(), "rewrite these prompts in words of their own:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_renamed_task() {
    let task = Task {
        name: "count-things".into(),
        heldout: false,
        phrases: phrases("How many files ending in .log are there under logs/? Write it to n.txt."),
        names: ["logs", "app.log"].map(str::to_owned).into(),
    };
    let renamed = "How many files ending in .png are there under images/?";
    assert_eq!(
        overlaps("x", renamed, renamed, std::slice::from_ref(&task)),
        ["x shares the phrase \"how many files ending in\" with task count-things"]
    );
    let named = "Count the lines of logs/app.log.";
    assert_eq!(
        overlaps("x", named, named, std::slice::from_ref(&task)),
        ["x names app.log, logs, as task count-things does"]
    );
    let held = Task { name: "ho-x".into(), heldout: true, ..task };
    assert_eq!(
        overlaps("x", named, named, std::slice::from_ref(&held)),
        ["x names a file or directory of held-out task ho-x (not shown)"]
    );
    assert!(overlaps("x", "Sum the grams in recipe.txt.", "recipe.txt", &[held]).is_empty());
}
