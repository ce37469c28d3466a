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

/// The lines of a configuration file shown: its first lines are mostly comments and the first section, and the key
/// a goal changes ("the database port") is further down; a small model then guesses its spelling and spacing.
const CONFIG_PEEK_LINES: usize = 30;

/// Whether `name` is a configuration file by its extension.
fn is_config(name: &str) -> bool {
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    matches!(extension.as_str(), "ini" | "conf" | "cfg" | "cnf" | "toml" | "yaml" | "yml" | "env" | "properties")
}

/// Beyond a data file's first lines, at most this many later lines holding a text the goal quotes ("the section
/// after '## [2.1.0]'", "lines with 'disk full'"): the lines the script must find, which the first lines rarely
/// show, so a small model guesses their form.
const QUOTED_LINES: usize = 3;

/// The most characters of a JSON file shown, written compactly: pretty-printed JSON's first lines show a brace
/// and a key or two, never a record's fields, which a small model then guesses.
const JSON_CHARS: usize = 600;

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
    let quoted = quoted_in(goal, &names);
    let reads: Vec<String> = names
        .iter()
        .filter_map(|name| {
            if let Some(list) = archive_listing(name) {
                let name = shell_quote(name);
                return Some(format!("if [ -f {name} ]; then printf '==> %s <==\\n' {name}; {list}; fi"));
            }
            let show = match (is_code(name), fixing) {
                (false, _) => data_view(name, &quoted),
                (true, true) => head(name, CODE_PEEK_LINES),
                (true, false) => return None,
            };
            let name = shell_quote(name);
            // A binary file (an archive, an image) is named, not shown: its bytes are noise in a prompt.
            Some(format!(
                "if [ -f {name} ]; then printf '==> %s <==\\n' {name}; if [ -s {name} ] && ! LC_ALL=C grep -Iq '' -- \
                 {name} 2>/dev/null; then echo '{BINARY}'; else {show}; fi; fi"
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

/// The most entries of an archive shown.
const ARCHIVE_ENTRIES: usize = 20;

/// The shell that lists what an archive named `name` holds (its first [`ARCHIVE_ENTRIES`] paths, after a line saying
/// so), when its name says it is one: where its files land when it is unpacked. Shown as bytes, a small model guessed
/// a folder named after the archive (`find logs-archive …`) for files that unpacked under `var/log/`.
fn archive_listing(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let file = shell_quote(name);
    let tar = [".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst"];
    let list = if tar.iter().any(|ext| lower.ends_with(ext)) {
        format!("tar -tf {file} 2>/dev/null")
    } else if lower.ends_with(".zip") {
        format!(
            "{{ unzip -Z1 {file} 2>/dev/null || python3 -c 'import sys, zipfile; print(\"\\n\".join(zipfile.ZipFile(sys.argv[1]).namelist()))' {file} 2>/dev/null; }}"
        )
    } else {
        return None;
    };
    Some(format!("echo '(an archive; the paths it holds, as they unpack:)'; {list} | head -n {ARCHIVE_ENTRIES}"))
}

/// The filter that writes a data file's tabs as `\t`.
const TABS_SHOWN: &str = r#"awk '{ gsub(/\t/, "\\t"); print }'"#;

/// The shell that prints the first `lines` lines of `name`, each cut to 200 characters.
fn head(name: &str, lines: usize) -> String {
    format!("head -n {lines} -- {} | cut -c1-200", shell_quote(name))
}

/// The texts `goal` quotes that may be found in a file's lines: not the files it names, not one character, not
/// a long sentence.
fn quoted_in<'g>(goal: &'g str, names: &[String]) -> Vec<&'g str> {
    crate::goal_shape::quoted_texts(goal)
        .into_iter()
        .filter(|text| (2..=60).contains(&text.chars().count()) && !text.contains('\n'))
        .filter(|text| !names.iter().any(|name| name == text))
        .collect()
}

/// The shell that shows a data file: a JSON file written compactly (by python3, where there is one; else its first
/// lines); any other its first lines and, after a `...` line, up to [`QUOTED_LINES`] later lines holding a text
/// the goal `quoted`.
fn data_view(name: &str, quoted: &[&str]) -> String {
    let lines = if is_config(name) { CONFIG_PEEK_LINES } else { PEEK_LINES };
    // A tab reaches the model as `\t`: the pane shows it as spaces, and a small model shown a TSV's first lines
    // with spaces split its columns on commas or blanks.
    let first = format!("{} | {TABS_SHOWN}", head(name, lines));
    let file = shell_quote(name);
    if name.to_ascii_lowercase().ends_with(".json") {
        return format!(
            "python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), ensure_ascii=False)[:{JSON_CHARS}])' \
             {file} 2>/dev/null || {first}"
        );
    }
    if quoted.is_empty() {
        return first;
    }
    let patterns: Vec<String> = quoted.iter().map(|text| format!("-e {}", shell_quote(text))).collect();
    format!(
        "{first}; tail -n +{} -- {file} | grep -m {QUOTED_LINES} -F {} | cut -c1-200 | {TABS_SHOWN} | awk 'NR == 1 {{ print \"...\" }} 1'",
        lines + 1,
        patterns.join(" ")
    )
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

    /// What bash prints for `data_view(name, quoted)` in `dir`.
    fn shown(dir: &std::path::Path, name: &str, quoted: &[&str]) -> String {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(data_view(name, quoted))
            .current_dir(dir)
            .output()
            .expect("bash runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    #[test]
    fn an_archive_shows_the_paths_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("srv/notes")).unwrap();
        std::fs::write(dir.path().join("srv/notes/a.md"), "a\n").unwrap();
        let run = |script: &str| {
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(script)
                .current_dir(dir.path())
                .output()
                .expect("bash");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        run("tar -czf bundle.tar.gz srv && python3 -m zipfile -c bundle.zip srv");
        for name in ["bundle.tar.gz", "bundle.zip"] {
            let shown = run(&archive_listing(name).unwrap());
            assert!(shown.starts_with("(an archive; the paths it holds"), "{name}: {shown}");
            assert!(shown.contains("srv/notes/a.md"), "{name}: {shown}");
        }
        assert!(archive_listing("notes.md").is_none());
    }

    #[test]
    fn a_data_file_shows_its_first_lines_and_the_later_lines_the_goal_quotes() {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (1..=30).map(|n| format!("row {n}")).collect();
        let mut text = lines.join("\n");
        text.push_str("\n== part two ==\nrow 31\n== part three ==\n");
        std::fs::write(dir.path().join("notes.txt"), &text).unwrap();
        let goal = "Copy the lines after '== part two' in notes.txt up to the next '== ' line into two.txt.";
        let names = named_files(goal);
        let quoted = quoted_in(goal, &names);
        assert_eq!(quoted, ["== part two", "== "]);
        assert_eq!(
            shown(dir.path(), "notes.txt", &quoted),
            "row 1\nrow 2\nrow 3\nrow 4\nrow 5\n...\n== part two ==\n== part three ==\n"
        );
        // A tab is shown as `\t`, in the first lines and the quoted ones.
        std::fs::write(dir.path().join("marks.tsv"), "name\tmark\nAda\t7\nBo\t\nCy\t5\nDi\t6\nEd\t4\nFay\t9\n")
            .unwrap();
        assert_eq!(
            shown(dir.path(), "marks.tsv", &["Fay"]),
            "name\\tmark\nAda\\t7\nBo\\t\nCy\\t5\nDi\\t6\n...\nFay\\t9\n"
        );
        // A configuration file is shown further: the key to change is rarely in its first lines.
        let config: String = (1..=40).map(|n| format!("key{n} = {n}\n")).collect();
        std::fs::write(dir.path().join("app.ini"), &config).unwrap();
        assert_eq!(shown(dir.path(), "app.ini", &[]).lines().count(), CONFIG_PEEK_LINES);
        // Nothing quoted, or nothing found: the first lines alone.
        assert_eq!(shown(dir.path(), "notes.txt", &[]), "row 1\nrow 2\nrow 3\nrow 4\nrow 5\n");
        assert_eq!(shown(dir.path(), "notes.txt", &["absent"]), "row 1\nrow 2\nrow 3\nrow 4\nrow 5\n");
        // A quoted text that starts like an option is a pattern, not an option of grep.
        assert_eq!(shown(dir.path(), "notes.txt", &["-v"]), "row 1\nrow 2\nrow 3\nrow 4\nrow 5\n");
    }

    #[test]
    fn a_json_file_is_shown_compactly_so_its_records_fields_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let pretty = "{\n  \"made\": \"2024\",\n  \"boxes\": [\n    {\n      \"label\": \"b-1\",\n      \"weight_kg\": 4.5\n    }\n  ]\n}\n";
        std::fs::write(dir.path().join("boxes.json"), pretty).unwrap();
        assert_eq!(
            shown(dir.path(), "boxes.json", &[]),
            "{\"made\": \"2024\", \"boxes\": [{\"label\": \"b-1\", \"weight_kg\": 4.5}]}\n"
        );
        // Not JSON after all: its first lines.
        std::fs::write(dir.path().join("broken.json"), "{ \"a\": 1,\n oops\n").unwrap();
        assert_eq!(shown(dir.path(), "broken.json", &[]), "{ \"a\": 1,\n oops\n");
    }

    #[test]
    fn the_goal_quotes_only_short_texts_that_are_not_its_files() {
        let goal = "Count the lines of 'app.log' that hold \"timed out\" or `x`, not 'a very long quoted sentence that goes on and on and on well past sixty characters'.";
        assert_eq!(quoted_in(goal, &named_files(goal)), ["timed out"]);
    }
}
