//! The script writer's worked examples: a cookbook of short scripts for common goals, of which the few that share
//! the most telling words with a goal are shown before it.
//!
//! A small model copies the shape of what it has seen (Qwen2.5-Coder-0.5B wrote `du -sh` where a byte count was
//! asked for until it had seen a script that sums sizes), and every example shown costs its tokens on every first
//! attempt. So the cookbook is long and the prompt is short: the examples are ranked by the words their goals share
//! with this goal, each word weighted by how rare it is in the cookbook (`csv` and `json` say more than `lines`),
//! and the best few are sent, the best last, nearest the goal.
//!
//! The examples are everyday requests in a project directory, each answered with the plainest idiom an engineer
//! reaches for first: counts (`wc -l <`, `grep -c`, `find … | wc -l`), top-N (`sort | uniq -c | sort -rn`), log
//! date ranges, sizes in bytes (`find -printf '%s'`, `stat -c %s`, `-size +Nc` for "more than" and "at least"),
//! renames and moves of names with spaces, in-place edits of a config (`sed -i`, a line added once), python
//! heredocs with the csv or json module (a header, quoted commas, one field changed and the rest kept), a broken
//! script fixed then run, a program's output saved or read, and a program's questions answered through a pipe.
//! A result is either printed bare or written alone to the file the goal names. Each is in a domain of its own:
//! none is an eval task renamed, and `tests/cookbook_is_not_the_suite.rs` fails when an example shares a phrase or
//! a file name with any eval task.

use std::collections::{HashMap, HashSet};

const SCRIPT_EXAMPLES: &str = include_str!("../prompts/script_examples.md");

/// How many examples a first attempt is shown. Two cost 55 fewer tokens a call and passed as many visible tasks, but
/// lost a held-out one with the 0.5B; one lost the visible fix-a-script tasks (docs/evals.md, the thirty-first
/// session).
pub const EXAMPLES_SHOWN: usize = 3;

/// Words that say nothing about which script fits: they are in most goals of every kind.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "then", "its", "are", "was", "were", "from", "into", "each", "one",
    "per", "all", "any", "not", "but", "only", "just", "write", "reply", "number", "file", "files",
];

/// One worked example of the script writer: a goal (with inputs, as the runner shows them) and its script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptExample {
    /// The user message.
    pub goal: &'static str,
    /// The script, without its fence.
    pub script: &'static str,
}

/// The whole cookbook (`prompts/script_examples.md`: examples between `===` lines, goal and script split by a
/// `---` line), in its order.
pub fn script_examples() -> Vec<ScriptExample> {
    SCRIPT_EXAMPLES
        .split("\n===\n")
        .filter_map(|example| {
            let (goal, script) = example.split_once("\n---\n")?;
            Some(ScriptExample { goal: goal.trim(), script: script.trim() })
        })
        .collect()
}

/// The `count` examples of the cookbook that fit `goal` best, the best last. Deterministic: ties go to the earlier
/// example, and a goal that shares no word with any example gets the first ones.
pub fn pick_examples(goal: &str, count: usize) -> Vec<ScriptExample> {
    let examples = script_examples();
    let words: Vec<HashSet<String>> = examples.iter().map(|e| goal_words(e.goal)).collect();
    let mut documents: HashMap<&str, usize> = HashMap::new();
    for word in words.iter().flatten() {
        *documents.entry(word.as_str()).or_default() += 1;
    }
    let total = examples.len() as f64;
    let wanted = goal_words(goal);
    let mut scored: Vec<(f64, usize)> = words
        .iter()
        .enumerate()
        .map(|(index, words)| {
            let score = words
                .intersection(&wanted)
                .map(|word| (total / documents.get(word.as_str()).copied().unwrap_or(1) as f64).ln())
                .sum();
            (score, index)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(count);
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, index)| examples[index]).collect()
}

/// The telling words of a goal: lower-cased runs of letters and digits of three or more, without its inputs and
/// without [`STOP_WORDS`].
fn goal_words(goal: &str) -> HashSet<String> {
    let goal = goal.split("\nInputs").next().unwrap_or_default().to_lowercase();
    goal.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| word.len() >= 3 && !STOP_WORDS.contains(word))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookbook_parses_whole() {
        let examples = script_examples();
        assert!(examples.len() >= 12, "{}", examples.len());
        for example in &examples {
            assert!(example.goal.starts_with("Goal: ") && !example.script.is_empty(), "{example:?}");
            assert!(!example.script.contains("```"), "{example:?}");
        }
    }

    #[test]
    fn the_examples_nearest_a_goal_come_last() {
        let picked = pick_examples("Print the dependencies listed in manifest.json, sorted.", 4);
        assert_eq!(picked.len(), 4);
        assert!(picked[3].script.contains("json.load"), "{picked:#?}");
        let csv = pick_examples("For every player in rounds.csv, write the player and its best score.", 4);
        assert!(csv[3].script.contains("csv.DictReader"), "{csv:#?}");
        assert_eq!(pick_examples("zzz", 2), script_examples()[..2].to_vec(), "nothing shared: the first ones");
    }
}
