//! What the script writer is shown of the files and directories a goal names, before its first attempt.

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
/// any label it sees, so the label is the file's name. Where the goal names a directory, or no file it names is
/// shown, a listing of what is there ([`LISTED_DIRECTORIES`]).
pub(crate) async fn peek_named_files(pane: &GatedPane, goal: &str) -> Vec<Input> {
    let Ok(output) = pane.pane().run(&peek_script(goal), Duration::from_secs(5)).await else {
        return Vec::new();
    };
    split_peeks(&output.output)
}

/// The most directories a goal names that are listed, and the most entries of each listing: what a person sees
/// with `ls` before writing a script over a folder (the names, their extensions, the subfolders, names with
/// spaces), which a model otherwise guesses.
const LISTED_DIRECTORIES: usize = 2;
const LISTED_ENTRIES: usize = 20;

/// The shell script that prints the peeks of [`peek_named_files`], as `==> name <==` sections. Files first (the
/// ones that exist), then the directories the goal names (at most [`LISTED_DIRECTORIES`], two levels deep), and,
/// when neither printed anything, the current directory's listing.
fn peek_script(goal: &str) -> String {
    let names = named_files(goal);
    let fixing = FIXING.is_match(goal);
    let mut lines: Vec<String> = vec!["shown=0".into()];
    for name in &names {
        let count = match (is_code(name), fixing) {
            (false, _) => PEEK_LINES,
            (true, true) => CODE_PEEK_LINES,
            (true, false) => continue,
        };
        let name = shell_quote(name);
        lines.push(format!(
            "if [ -f {name} ]; then shown=1; printf '==> %s <==\\n' {name}; head -n {count} -- {name} | cut -c1-200; fi"
        ));
    }
    let directories: Vec<String> = directory_words(goal)
        .iter()
        .map(|word| match word.strip_prefix("~/") {
            // Quoted, `~` would not be the home directory.
            Some(rest) => format!("~/{}", shell_quote(rest)),
            None => shell_quote(word),
        })
        .collect();
    if !directories.is_empty() {
        lines.push(format!("listed=0; for d in {}; do", directories.join(" ")));
        lines.push(format!(
            "  if [ \"$listed\" -lt {LISTED_DIRECTORIES} ] && [ -d \"$d\" ]; then listed=$((listed + 1)); shown=1; \
             printf '==> %s/ <==\\n' \"$d\"; {}; fi",
            listing("\"$d\"", "%p")
        ));
        lines.push("done".into());
    }
    lines.push(format!("if [ \"$shown\" = 0 ]; then printf '==> ./ <==\\n'; {}; fi", listing(".", "%P")));
    // A subshell: the pane's own shell keeps none of the variables.
    format!("(\n{}\n)", lines.join("\n"))
}

/// A listing of `directory` two levels deep, hidden entries left out, a directory's name ending in `/`, sorted, at
/// most [`LISTED_ENTRIES`] of them and then how many more there are. `path` is find's `%p` (the path as named) or
/// `%P` (relative to the directory).
fn listing(directory: &str, path: &str) -> String {
    format!(
        "find {directory} -mindepth 1 -maxdepth 2 -name '.*' -prune -o \\( -type d -printf '{path}/\\n' -o -printf \
         '{path}\\n' \\) 2>/dev/null | head -n 500 | LC_ALL=C sort | awk 'NR <= {LISTED_ENTRIES}; END {{ if (NR > \
         {LISTED_ENTRIES}) print \"... and \" (NR < 500 ? NR - {LISTED_ENTRIES} : \"many\") \" more\" }}'"
    )
}

/// The words of a goal that may name a directory (`reports/`, `logs`, `~/inbox`), without the punctuation around
/// them and a trailing `/`: the shell lists those that are directories. Words with an extension are files, and
/// words of fewer than three characters or starting with `-` or `$` are left out.
fn directory_words(goal: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in goal.split_whitespace() {
        let around = |c: char| "\"'`,;:()[]{}<>!?".contains(c);
        let word = word.trim_start_matches(around).trim_end_matches(|c: char| around(c) || c == '.');
        let word = if word.len() > 1 { word.trim_end_matches('/') } else { word };
        let plain = |c: char| c.is_ascii_alphanumeric() || "._-/~".contains(c);
        if word.len() < 3
            || !word.chars().all(plain)
            || word.starts_with('-')
            || word.contains("..")
            || named_files(word).first().is_some_and(|file| file == word)
            || words.iter().any(|w| w == word)
        {
            continue;
        }
        words.push(word.to_owned());
    }
    words
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

    /// The peeks of `goal` in `dir`, by running [`peek_script`] in bash there (as the pane's shell would).
    fn peeks_in(dir: &std::path::Path, goal: &str) -> Vec<Input> {
        let output = std::process::Command::new("bash")
            .arg("-c")
            .arg(peek_script(goal))
            .current_dir(dir)
            .env("HOME", dir)
            .output()
            .expect("bash runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        split_peeks(&String::from_utf8_lossy(&output.stdout))
    }

    #[test]
    fn the_words_that_may_name_a_directory() {
        assert_eq!(
            directory_words("Count the files in reports/ and ~/inbox, not in \"old logs\" or -rf or a.csv."),
            ["Count", "the", "files", "reports", "and", "~/inbox", "not", "old", "logs"]
        );
        assert!(directory_words("a b .. ../x -x $HOME/y").is_empty());
    }

    #[test]
    fn named_directories_are_listed_and_else_the_current_one() {
        let dir = tempfile::tempdir().unwrap();
        for file in ["data.csv", "logs/a.log", "logs/sub/b.log", "logs/sub/deep/c.log", "my docs/x y.txt", ".git/HEAD"]
        {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "id,name\n1,ann\n").unwrap();
        }
        let peeks = peeks_in(dir.path(), "Count the .log files under logs/ and write it to total.txt.");
        assert_eq!(
            peeks,
            [Input { from: "logs/".into(), text: "logs/a.log\nlogs/sub/\nlogs/sub/b.log\nlogs/sub/deep/\n".into() }]
        );
        let peeks = peeks_in(dir.path(), "Sum the ids of data.csv.");
        assert_eq!(peeks, [Input { from: "data.csv".into(), text: "id,name\n1,ann\n".into() }], "a file: no listing");
        let peeks = peeks_in(dir.path(), "How many files are there here, hidden ones aside?");
        assert_eq!(
            peeks,
            [Input {
                from: "./".into(),
                text: "data.csv\nlogs/\nlogs/a.log\nlogs/sub/\nmy docs/\nmy docs/x y.txt\n".into()
            }],
            "nothing named: the current directory, two levels, no hidden entries"
        );
        let home = dir.path().display();
        let peeks = peeks_in(dir.path(), "List ~/logs/sub.");
        assert_eq!(
            peeks,
            [Input {
                from: format!("{home}/logs/sub/"),
                text: format!("{home}/logs/sub/b.log\n{home}/logs/sub/deep/\n{home}/logs/sub/deep/c.log\n")
            }],
            "a path in the home directory, which is hidden itself"
        );
        for many in 0..30 {
            std::fs::write(dir.path().join(format!("many-{many:02}.txt")), "").unwrap();
        }
        let listed = peeks_in(dir.path(), "Tidy up.");
        assert_eq!(listed[0].text.lines().count(), LISTED_ENTRIES + 1, "{listed:?}");
        assert!(listed[0].text.ends_with("... and 16 more\n"), "{listed:?}");
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
