//! What the script writer is shown of the files a goal names, before its first attempt.

use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;

use crate::gate::GatedPane;
use crate::prompt::Input;
use tmux_habitat::shell_quote;

/// The most files of a goal whose first lines the script writer is shown, and how many lines of each: a data
/// file's first lines show its shape; a program the goal is to fix is shown whole (or nearly): the error is rarely
/// in its first lines. A program the goal only runs is not shown.
const PEEK_FILES: usize = 3;
const PEEK_LINES: usize = 5;
const CODE_PEEK_LINES: usize = 40;

/// A goal to fix a program, whose error may be anywhere in it. Only then is a program shown: a goal to run one,
/// shown its code, has a small model copy the code instead of running the program (`./build.sh` became its
/// `sleep 2; echo …` lines, `./show.sh` its `less report.txt`).
static FIXING: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:fix|bug|crash(?:es)?|fails|failing|broken|debug|repair)\b"));

/// Whether `name` is a program by its extension.
fn is_code(name: &str) -> bool {
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(extension, "sh" | "bash" | "py" | "pl" | "rb" | "js" | "ts" | "awk" | "sed")
}

/// What the script writer is shown of a binary file instead of its bytes.
const BINARY: &str = "(binary data, not shown)";

/// The names in a goal that look like files (`parcels.csv`, `var/tidy.log`, `./tidy.sh`): a word with an
/// extension, without the punctuation around it, at most three of them (the first).
pub fn named_files(goal: &str) -> Vec<String> {
    let mut names = crate::goal_spec::all_named_files(goal);
    names.truncate(PEEK_FILES);
    names
}

/// The first lines of the files the goal names that exist, read in the pane (so on the pane's machine), one input
/// named after each file: what a person looks at before writing a script for a CSV or a log. A small model that
/// has not seen the header guesses the column and the separator (`awk '{s += $3}'` on a CSV); it also copies
/// any label it sees, so the label is the file's name.
pub(crate) async fn peek_named_files(pane: &GatedPane, goal: &str) -> Vec<Input> {
    let names = named_files(goal);
    let fixing = FIXING.is_match(goal);
    let reads: Vec<String> = names
        .iter()
        .filter_map(|name| {
            let lines = match (is_code(name), fixing) {
                (false, _) => PEEK_LINES,
                (true, true) => CODE_PEEK_LINES,
                (true, false) => return None,
            };
            let name = shell_quote(name);
            // A binary file (an archive, an image) is named, not shown: its bytes are noise in a prompt.
            Some(format!(
                "if [ -f {name} ]; then printf '==> %s <==\\n' {name}; if [ -s {name} ] && ! LC_ALL=C grep -Iq '' -- \
                 {name} 2>/dev/null; then echo '{BINARY}'; else head -n {lines} -- {name} | cut -c1-200; fi; fi"
            ))
        })
        .collect();
    if reads.is_empty() {
        return Vec::new();
    }
    let Ok(output) = pane.pane().run(&reads.join("\n"), Duration::from_secs(5)).await else {
        return Vec::new();
    };
    split_peeks(&output.output)
}

/// The inputs of `==> name <==` sections (`head`'s own format), one per file.
fn split_peeks(output: &str) -> Vec<Input> {
    let mut inputs: Vec<Input> = Vec::new();
    for line in output.lines() {
        match line.strip_prefix("==> ").and_then(|rest| rest.strip_suffix(" <==")) {
            Some(name) => inputs.push(Input { from: name.to_owned(), text: String::new() }),
            None => {
                if let Some(input) = inputs.last_mut() {
                    input.text.push_str(line);
                    input.text.push('\n');
                }
            }
        }
    }
    inputs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_patterns_compile() {
        assert!(!FIXING.as_str().is_empty());
    }

    #[test]
    fn the_files_a_goal_names_are_words_with_an_extension() {
        assert_eq!(
            named_files("Write the mean of the weight column of parcels.csv to mean.out, with one decimal."),
            ["parcels.csv", "mean.out"]
        );
        assert_eq!(
            named_files("Run ./tidy.sh; read var/tidy.log (not 'x.y.z')."),
            ["./tidy.sh", "var/tidy.log", "x.y.z"]
        );
        assert_eq!(named_files("a.b c.d e.f g.h"), ["a.b", "c.d", "e.f"]);
        for none in ["count to 3.", "about 2.5 km", "see https://x.org/a.html?q=1 or $HOME/.bashrc", "-o.txt", "Done."]
        {
            let found = named_files(none);
            assert!(
                found.iter().all(|f| !f.starts_with('-') && !f.contains('$') && !f.contains('?')),
                "{none}: {found:?}"
            );
        }
        assert!(named_files("count to 3.").is_empty());
    }

    #[test]
    fn peeks_split_into_one_input_per_file() {
        let inputs = split_peeks("==> a.csv <==\nx,y\n1,2\n==> logs/b.log <==\nINFO up\n");
        assert_eq!(
            inputs,
            [
                Input { from: "a.csv".into(), text: "x,y\n1,2\n".into() },
                Input { from: "logs/b.log".into(), text: "INFO up\n".into() }
            ]
        );
        assert!(split_peeks("").is_empty());
    }
}
