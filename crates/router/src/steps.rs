//! Whether a task names steps of its own: what separates work for a plan from one script's work when a small model's
//! classifier asks for a plan (see [`crate::RouterOptions::unplanned_single_steps`]).

/// Words that order steps. Ordinals are not among them: "the first line", "the second column" describe data.
const ORDER: &[&str] = &["then", "afterwards", "after that", "finally", "lastly"];

/// What a word that orders steps may be followed by and still name none: running the same program again ("fix what it
/// says, then run it again until it works") is the fix-and-rerun loop's own step, which a plan would cut in two (a
/// subtask that runs the program, another that fixes it, and nothing that runs it again).
const AGAIN: &[&str] = &[
    "run it again",
    "run again",
    "rerun",
    "re run",
    "retry",
    "try again",
    "try it again",
    "execute it again",
    "start it again",
];

/// What a word that orders steps may be followed by and name no step of its own either: leaving the program the task
/// runs ("use its menu to back up the photos, then quit"), which ends the same session; a plan would run the quitting
/// in a pane where the program has gone.
const LEAVE: &[&str] = &[
    "quit",
    "exit",
    "leave the menu",
    "leave the program",
    "leave it",
    "close the menu",
    "close the program",
    "choose quit",
    "choose exit",
    "pick quit",
    "pick exit",
    "select quit",
    "select exit",
];

/// Whether `task` names steps of its own: more than one line, or a word that orders steps ("then", "after that",
/// "finally", …), but for running the program again (`AGAIN`) or leaving it (`LEAVE`). Commas and "and" do not: "sort it and keep the first
/// ten" is one script's work.
pub(crate) fn names_several_steps(task: &str) -> bool {
    let lower = unquoted(&task.to_lowercase());
    // A word named as one ("the lines with the word then") orders nothing; "into words, then" does.
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    let named = |token: &str| matches!(token, "word" | "words" | "term" | "string");
    let words: Vec<&str> = tokens
        .iter()
        .enumerate()
        .filter(|&(i, _)| i == 0 || !named(tokens[i - 1]))
        .flat_map(|(_, token)| token.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let spaced = format!(" {} ", words.join(" "));
    task.trim().lines().filter(|line| !line.trim().is_empty()).count() > 1
        || ORDER.iter().any(|order| {
            spaced.match_indices(&format!(" {order} ")).any(|(at, found)| {
                let after = &spaced[at + found.len()..];
                !AGAIN.iter().chain(LEAVE).any(|again| after.starts_with(&format!("{again} ")))
            })
        })
}

/// `text` without its quoted stretches (`"and then"`, `'finally'`, `` `then` ``), each closed within 40 characters
/// on its line: a quoted word orders nothing. An apostrophe inside a word (`don't`) opens none.
fn unquoted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let opens =
            c == '"' || c == '`' || (c == '\'' && !at.checked_sub(1).is_some_and(|p| chars[p].is_alphanumeric()));
        let close =
            opens.then(|| chars[at + 1..].iter().take(40).take_while(|&&n| n != '\n').position(|&n| n == c)).flatten();
        match close {
            Some(length) => at += length + 2,
            None => {
                out.push(c);
                at += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::names_several_steps;

    #[test]
    fn steps_are_named_by_lines_and_words_that_order_them() {
        for task in [
            "list the files, then count them",
            "Download the page. After that, count its links.",
            "Sort names.txt; finally print the top line",
            "sort a.txt\ncount b.txt",
            "Build it and afterwards run the tests",
            "Unpack the '90s archive, then count its files",
            "Don't stop: fix it, then test it",
            "Fix config.ini, then run ./build.sh",
            "Run ./a.sh, then rerun it, then count the lines of out.txt",
            "Split notes.txt into words, then count them",
            "Run ./kennel.sh and feed the dogs, then quitclaim the deed",
            "Quit the menu, then count the lines of log.txt",
        ] {
            assert!(names_several_steps(task), "{task}");
        }
        for task in [
            "In kiosk.ini set volume to 7 and leave every other line as it is",
            "sum the second column of data.csv per month and write it to sums.txt",
            "print the first line of notes.md",
            "fetch the logs, find the errors and email a report",
            "Which is the thenar muscle?",
            "How many lines of story.txt contain the word then?",
            "Count the lines of notes.txt that say \"and then\".",
            "Count the lines of notes.txt that say 'then'.",
            "  one line with blank lines around\n\n",
            "Run ./release.sh; if it fails, fix the cause it reports, then run it again until it succeeds.",
            "Start tool.py. Fix whatever it complains about and then rerun it until it works.",
            "Don't stop: fix it, then re-run it",
            "Start ./kennel.sh and use its menu to feed the dogs (answer yes when it asks), then quit the menu.",
            "Run garden.py, pick 'Water' from its menu, then exit.",
        ] {
            assert!(!names_several_steps(task), "{task}");
        }
    }
}
