//! Whether a task is one step of work on the files here, which a small model's classifier call cannot route
//! anywhere but to one script (see [`crate::RouterOptions::unclassified_file_work`]).
//!
//! For a `small` model, every kind the classifier can answer for such a task ends in the same place: a command is
//! set aside for the script writer's first attempt, `program` is one script subtask, `plan` is one script subtask
//! when the task names no steps, `drive` is one when it names nothing to drive. The kinds that would go elsewhere —
//! an answer from the model's knowledge, text written without looking, a question back — are wrong for a task about
//! files that are here. So the call (a few hundred prompt tokens, seconds on two cores) decides nothing, and the
//! rule below stands in for it. Everything it is unsure of goes to the classifier as before.

use crate::classifier;
use crate::context::RouteContext;
use crate::drive::{names_something_to_drive, words};
use crate::steps::names_several_steps;

/// Whether `task` is one step of file work here: it names a file or directory the working directory holds
/// ([`names_something_here`]), names no steps of its own, nothing to drive (no program it runs, no prompt, no page),
/// and asks for no prose ([`asks_for_prose`]).
pub(crate) fn one_step_file_work(task: &str, context: &RouteContext) -> bool {
    names_something_here(task, context)
        && !names_several_steps(task)
        && !names_something_to_drive(task)
        && !asks_for_prose(task)
}

/// Whether `task` names a file or a directory (`notes.txt`, `inbox/`, `logs/app.log`) whose first part the working
/// directory's listing holds. A listing cut short holds only some entries: then a name shaped like a file is enough.
fn names_something_here(task: &str, context: &RouteContext) -> bool {
    let Some(dir) = &context.workdir else { return false };
    words(task).filter(|word| classifier::file_name(word) || classifier::directory_name(word)).any(|word| {
        let first = word.trim_start_matches("./").split('/').next().unwrap_or_default();
        !first.is_empty() && (dir.more > 0 || dir.entries.iter().any(|entry| entry.trim_end_matches('/') == first))
    })
}

/// Words that ask for text a person would write, or for an explanation: work for the model's words, not a script's.
const PROSE_WORDS: &[&str] = &[
    "summarise",
    "summarize",
    "summary",
    "summaries",
    "translate",
    "translation",
    "explain",
    "explanation",
    "describe",
    "description",
    "rewrite",
    "rephrase",
    "paraphrase",
    "proofread",
    "compose",
    "draft",
    "essay",
    "poem",
    "haiku",
    "story",
    "letter",
    "email",
    "e-mail",
    "reply",
    "review",
    "advice",
    "advise",
    "suggest",
    "recommend",
    "opinion",
    "why",
    "mean",
    "means",
    "meaning",
];

/// Whether `task` asks for prose or an explanation ([`PROSE_WORDS`], "what does … do", "how does … work"). File
/// names are not words here (`summary.txt` asks for nothing).
fn asks_for_prose(task: &str) -> bool {
    let lower = task.to_lowercase();
    let plain: Vec<&str> =
        words(&lower).filter(|word| !classifier::file_name(word) && !classifier::directory_name(word)).collect();
    plain.iter().any(|word| PROSE_WORDS.contains(&word.trim_end_matches("'s")))
        || plain.windows(2).any(|pair| matches!(pair, ["what" | "how", "does" | "do" | "did"]))
}

#[cfg(test)]
mod tests {
    use super::one_step_file_work;
    use crate::context::{RouteContext, WorkDir};

    fn here(entries: &[&str], more: usize) -> RouteContext {
        let mut context = RouteContext::new();
        context.workdir =
            Some(WorkDir { name: "work".into(), entries: entries.iter().map(|e| e.to_string()).collect(), more });
        context
    }

    #[test]
    fn one_step_on_files_that_are_here_is_file_work() {
        let context = here(&["inbox/", "orders.tsv", "notes.md"], 0);
        for task in [
            "Sum the third column of orders.tsv and write the total to total.txt",
            "How many files under inbox/ are empty?",
            "Print the longest line of notes.md",
            "Move every .md file in inbox/archive/ up into inbox/",
            "Which lines of notes.md mention a deadline?",
        ] {
            assert!(one_step_file_work(task, &context), "{task}");
        }
    }

    #[test]
    fn anything_else_goes_to_the_classifier() {
        let context = here(&["inbox/", "orders.tsv", "notes.md", "setup.sh"], 0);
        for task in [
            // Nothing here is named.
            "What is the speed of light?",
            "Write the date to today.txt",
            "Count the lines of report.csv",
            // Several steps.
            "Sort orders.tsv by date, then keep the first ten rows",
            "Sort orders.tsv\nCount notes.md",
            // Something to drive.
            "Run ./setup.sh and answer its questions",
            "Open notes.md in vim and fix the typo",
            "Fix setup.sh so it stops failing",
            // Prose.
            "Summarise notes.md in three sentences",
            "Translate notes.md to French",
            "Write a polite letter to the customer in orders.tsv's first row",
            "What does the second column of orders.tsv mean?",
            "Why is orders.tsv so large?",
            "What does notes.md say about the budget?",
        ] {
            assert!(!one_step_file_work(task, &context), "{task}");
        }
    }

    #[test]
    fn file_names_are_not_prose_words() {
        let context = here(&["inbox/", "notes.md"], 0);
        assert!(one_step_file_work("Count the lines of notes.md and write the count to summary.txt", &context));
    }

    #[test]
    fn a_listing_cut_short_takes_a_name_shaped_like_a_file() {
        assert!(one_step_file_work("Count the lines of report.csv", &here(&["a/"], 40)));
        assert!(!one_step_file_work("Count the lines of report.csv", &RouteContext::new()));
    }
}
