//! Whether a task names steps of its own: what separates work for a plan from one script's work when a small model's
//! classifier asks for a plan (see [`crate::RouterOptions::unplanned_single_steps`]).

/// Words that order steps. Ordinals are not among them: "the first line", "the second column" describe data.
const ORDER: &[&str] = &["then", "afterwards", "after that", "finally", "lastly"];

/// Whether `task` names steps of its own: more than one line, or a word that orders steps ("then", "after that",
/// "finally", …). Commas and "and" do not: "sort it and keep the first ten" is one script's work.
pub(crate) fn names_several_steps(task: &str) -> bool {
    let lower = task.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let spaced = format!(" {} ", words.join(" "));
    task.trim().lines().filter(|line| !line.trim().is_empty()).count() > 1
        || ORDER.iter().any(|order| spaced.contains(&format!(" {order} ")))
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
        ] {
            assert!(names_several_steps(task), "{task}");
        }
        for task in [
            "In kiosk.ini set volume to 7 and leave every other line as it is",
            "sum the second column of data.csv per month and write it to sums.txt",
            "print the first line of notes.md",
            "fetch the logs, find the errors and email a report",
            "Which is the thenar muscle?",
            "  one line with blank lines around\n\n",
        ] {
            assert!(!names_several_steps(task), "{task}");
        }
    }
}
