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
    let reads: Vec<String> = names.iter().filter_map(|name| peek_command(name, fixing)).collect();
    if reads.is_empty() {
        return Vec::new();
    }
    let Ok(output) = pane.pane().run(&reads.join("\n"), Duration::from_secs(5)).await else {
        return Vec::new();
    };
    split_peeks(&output.output)
}

/// The shell text that shows what `name` holds, as a `==> label <==` section, when it is a file: an archive's
/// list of contents (what unpacking it makes: a small model otherwise guesses the folder it unpacks to), a
/// compressed file's first lines, a text file's first lines; nothing of a binary file (its bytes would only cost
/// tokens and confuse), nor of a program the goal only runs.
fn peek_command(name: &str, fixing: bool) -> Option<String> {
    let lines = match (is_code(name), fixing) {
        (false, _) => PEEK_LINES,
        (true, true) => CODE_PEEK_LINES,
        (true, false) => return None,
    };
    let lower = name.to_ascii_lowercase();
    let quoted = shell_quote(name);
    let label = |what: &str| shell_quote(&format!("{name}{what}"));
    let show = match archive_kind(&lower) {
        Some(Archive::Tar) => format!(
            "printf '==> %s <==\\n' {}; tar -tf {quoted} 2>&1 | head -n {ARCHIVE_ENTRIES}",
            label(" (the files it holds)")
        ),
        Some(Archive::Zip) => format!(
            "printf '==> %s <==\\n' {}; python3 -m zipfile -l {quoted} 2>&1 | head -n {ARCHIVE_ENTRIES}",
            label(" (the files it holds)")
        ),
        Some(Archive::Compressed(tool)) => format!(
            "printf '==> %s <==\\n' {}; {tool} -cd -- {quoted} 2>/dev/null | head -n {lines} | cut -c1-200",
            label(" (uncompressed)")
        ),
        // `grep -I` takes a file with NUL bytes for binary: it matches nothing in one. An empty file is shown empty.
        None => format!(
            "if [ ! -s {quoted} ] || grep -Iq . -- {quoted} 2>/dev/null; then printf '==> %s <==\\n' {quoted}; \
             head -n {lines} -- {quoted} | cut -c1-200; fi"
        ),
    };
    Some(format!("if [ -f {quoted} ]; then {show}; fi"))
}

/// The most entries of an archive's list shown.
const ARCHIVE_ENTRIES: usize = 15;

/// A file whose bytes are not its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Archive {
    /// A tar archive, compressed or not (`tar -tf` reads each kind).
    Tar,
    /// A zip archive.
    Zip,
    /// One compressed file, with the tool that uncompresses it.
    Compressed(&'static str),
}

fn archive_kind(lower: &str) -> Option<Archive> {
    const TAR: &[&str] = &[".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz", ".tar.zst"];
    if TAR.iter().any(|e| lower.ends_with(e)) {
        Some(Archive::Tar)
    } else if lower.ends_with(".zip") {
        Some(Archive::Zip)
    } else if lower.ends_with(".gz") {
        Some(Archive::Compressed("gzip"))
    } else if lower.ends_with(".bz2") {
        Some(Archive::Compressed("bzip2"))
    } else if lower.ends_with(".xz") {
        Some(Archive::Compressed("xz"))
    } else {
        None
    }
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
    fn archives_show_what_they_hold_and_binary_files_nothing() {
        assert_eq!(archive_kind("site.tar.gz"), Some(Archive::Tar));
        assert_eq!(archive_kind("b.tgz"), Some(Archive::Tar));
        assert_eq!(archive_kind("b.zip"), Some(Archive::Zip));
        assert_eq!(archive_kind("access.log.1.gz"), Some(Archive::Compressed("gzip")));
        assert_eq!(archive_kind("notes.txt"), None);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pack/docs")).unwrap();
        std::fs::write(root.join("pack/docs/a.md"), "# A\n").unwrap();
        std::fs::write(root.join("rows.csv"), "id,name\n1,x\n").unwrap();
        std::fs::write(root.join("blob.bin"), b"\x00\x01\x02binary\x00").unwrap();
        std::fs::write(root.join("empty.txt"), "").unwrap();
        let run =
            |script: &str| std::process::Command::new("bash").arg("-c").arg(script).current_dir(root).output().unwrap();
        assert!(
            run("tar -czf pack.tar.gz pack && rm -r pack && printf 'one\\ntwo\\n' | gzip > log.gz").status.success()
        );
        let peeks: Vec<String> = ["pack.tar.gz", "log.gz", "rows.csv", "blob.bin", "empty.txt", "gone.txt"]
            .iter()
            .filter_map(|name| peek_command(name, false))
            .collect();
        let output = run(&peeks.join("\n"));
        let inputs = split_peeks(&String::from_utf8_lossy(&output.stdout));
        let shown = |from: &str| inputs.iter().find(|i| i.from == from).map(|i| i.text.clone());
        assert!(shown("pack.tar.gz (the files it holds)").unwrap().contains("pack/docs/a.md"), "{inputs:?}");
        assert_eq!(shown("log.gz (uncompressed)").as_deref(), Some("one\ntwo\n"));
        assert_eq!(shown("rows.csv").as_deref(), Some("id,name\n1,x\n"));
        assert_eq!(shown("empty.txt").as_deref(), Some(""));
        assert_eq!(shown("blob.bin"), None, "{inputs:?}");
        assert_eq!(inputs.len(), 4, "nothing of a missing file: {inputs:?}");
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
