//! Fixes the shell makes to a model's script, without another call.
//!
//! A small model's scripts fail in a few ways that are mechanical: `wc -l notes.txt` where the goal wants the number
//! alone, a python heredoc that uses `csv.` without `import csv`, a result printed instead of written to the file
//! the goal names, the list of matches printed where "how many" asked for their count. Each is fixed here for free
//! and for certain, where a repair call to Qwen2.5-Coder-0.5B tends to return the same script or a worse one.
//!
//! [`tidy`] runs on every script before it is checked and run: it changes only what cannot be meant. [`repair`]
//! runs after a result check failed: it makes the next attempt out of what the failed script printed, where the
//! failure says what it lacked.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use tmux_habitat::shell_quote;

use crate::claims::goal_destinations;
use crate::goal_spec::GoalSpec;
use crate::runners::python_readers::listed_readers;
use crate::runners::result_check::{Problem, asks_number, error_line, is_number, mentions_number, tells_a_number};
use crate::runners::script::{Language, Script};
use crate::runners::size_bound::inclusive_sizes;
use crate::runners::tab_separated::tab_delimited;

/// `wc` with options and one file operand that ends its command (`wc -l notes.txt > n`, `$(wc -w a.txt)`): it
/// prints the name after the count. Read on stdin, it prints the count alone.
/// The file is a literal path or one double-quoted word (`"$f"`); an unquoted variable or a glob may be several
/// files, which `<` refuses. Never across lines: `wc -l` at the end of one line is followed by `done` on the next.
static WC_ONE_FILE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?m)\bwc((?:[ \t]+-[a-zA-Z]+)+)[ \t]+([A-Za-z0-9_./][A-Za-z0-9_./-]*|"[^"`*?\[]*")([ \t]*(?:$|[|>;&)]))"#,
    )
});

/// A line that starts a python heredoc (`python3 - <<'EOF'`, `python -u <<EOF`), with its delimiter. Not
/// `python3 prog.py <<EOF`: that heredoc is the program's input, not code.
static PYTHON_HEREDOC: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"^\s*python3?((?:[ \t]+-\S*)*)[ \t]*<<-?[ \t]*['"]?(\w+)['"]?\s*$"#));

/// Where a heredoc starts (`<<'EOF'`, `<< "END"`, `<<-EOT`), with its delimiter: a word that starts with a letter
/// (so `$((1 << 3))` is none), not `<<<` (a here-string).
static HEREDOC: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r#"(?:^|[^<])<<(-?)[ \t]*(?:'([A-Za-z_]\w*)'|"([A-Za-z_]\w*)"|([A-Za-z_]\w*))"#)
});

/// Names python code uses without importing them, how a use looks, and the import that defines each.
const IMPORT_TABLE: &[(&str, &str, &str)] = &[
    ("csv", r"csv\.", "import csv"),
    ("json", r"json\.", "import json"),
    ("re", r"re\.", "import re"),
    ("os", r"os\.", "import os"),
    ("sys", r"sys\.", "import sys"),
    ("math", r"math\.", "import math"),
    ("statistics", r"statistics\.", "import statistics"),
    ("glob", r"glob\.", "import glob"),
    ("shutil", r"shutil\.", "import shutil"),
    ("subprocess", r"subprocess\.", "import subprocess"),
    ("collections", r"collections\.", "import collections"),
    ("configparser", r"configparser\.", "import configparser"),
    ("datetime", r"datetime\.", "import datetime"),
    ("itertools", r"itertools\.", "import itertools"),
    ("hashlib", r"hashlib\.", "import hashlib"),
    ("time", r"time\.", "import time"),
    ("random", r"random\.", "import random"),
    ("string", r"string\.", "import string"),
    ("Counter", r"Counter\(", "from collections import Counter"),
    ("defaultdict", r"defaultdict\(", "from collections import defaultdict"),
    ("Path", r"Path\(", "from pathlib import Path"),
];

/// [`IMPORT_TABLE`] with each use compiled once: a use is the name as its own (not `self.re.` or `score.`).
static IMPORTS: LazyLock<Vec<(&str, Regex, &str)>> = LazyLock::new(|| {
    IMPORT_TABLE
        .iter()
        .map(|(name, used, import)| (*name, crate::patterns::constant(&format!(r"(?:^|[^\w.]){used}")), *import))
        .collect()
});

/// `script` with what cannot be meant fixed: a lone file operand of `wc` is read on stdin when the goal wants a
/// number, so the count is not followed by the name; `mkdir` makes missing parents, and the directory of a file
/// the goal names is made before the script writes it; python code gets the standard imports it uses and lacks, and
/// a CSV reader it reads again is read into a list ([`listed_readers`]), and one of a `.tsv` file splits at tabs
/// ([`tab_delimited`]); `find -size` includes a bound in bytes the
/// goal includes ([`inclusive_sizes`]).
pub(crate) fn tidy(goal: &str, script: &Script) -> Script {
    let mut text = script.text.clone();
    if script.language == Language::Bash {
        if mentions_number(goal) {
            text = stdin_for_wc(&text);
        }
        text = with_parents(goal, &text);
        text = inclusive_sizes(goal, &text);
        text = crate::runners::kind_glob::kind_globs(goal, &text);
        text = without_endless_yes(goal, &text);
    }
    text = match script.language {
        Language::Python => with_imports(&listed_readers(&tab_delimited(&text)), 1),
        Language::Bash => heredoc_imports(&shell_after_python(&closed_heredoc(&text))),
    };
    Script { language: script.language, text }
}

/// A bash script (or one command) for `goal` fitted to the files it works on: a `sed -i` pattern copied from a file
/// is matched as that text ([`literal_seds`](crate::runners::literal_sed::literal_seds)), a name with spaces written
/// unquoted is quoted ([`quoted_spaced_names`](crate::runners::spaced_names::quoted_spaced_names)), a loop over
/// `$(ls GLOB)` whose names hold blanks goes over the glob
/// ([`loops_over_names`](crate::runners::word_split::loops_over_names)), and a folder's
/// glob copied or moved takes its hidden files ([`with_hidden`](crate::runners::dot_glob::with_hidden)), and a
/// count of a CSV file's rows counts its records ([`records_counted`](crate::runners::header_count::records_counted)),
/// and a `grep` for a word the goal writes in lower case matches it in any case
/// ([`any_case_greps`](crate::runners::any_case::any_case_greps)), and a `grep` for one column's value tests that
/// column ([`field_greps`](crate::runners::field_grep::field_greps)).
pub(crate) fn fitted_to_files(goal: &str, text: &str, cwd: &std::path::Path) -> String {
    let text = crate::runners::literal_sed::literal_seds(text, cwd);
    let text = crate::runners::spaced_names::quoted_spaced_names(&text, cwd);
    let text = crate::runners::word_split::loops_over_names(&text, cwd);
    let text = crate::runners::dot_glob::with_hidden(goal, &text, cwd);
    let text = crate::runners::header_count::records_counted(goal, &text, cwd);
    let text = crate::runners::any_case::any_case_greps(goal, &text, cwd);
    crate::runners::field_grep::field_greps(goal, &text, cwd)
}

/// The most bytes of printed output the shell writes to a file for a script.
const MAX_WRITTEN: usize = 16 * 1024;

/// The next attempt made without a model from what the failed script printed (`printed`, all of it: not cut short
/// by the pane's history), where `problem` says what it lacked: a result printed instead of written is written to
/// the one file the goal names; a list printed where the goal asks "how many" is counted. The failed script is not
/// run again (it may have moved or deleted files on the way). `None` when no such fix applies.
///
/// A printed result is written only to the one file the goal asks to be made (`spec.writes`, or a guessed
/// destination that did not exist when the subtask started): never to a file the goal reads or asks to be changed
/// in place, which a plain write would replace.
pub(crate) fn repair(
    goal: &str,
    spec: &GoalSpec,
    required: &[String],
    problem: &Problem,
    printed: &str,
    replay: Replay<'_>,
) -> Option<Script> {
    let result = printed.trim();
    if result.is_empty() || result.len() > MAX_WRITTEN || error_line(printed).is_some() {
        return None;
    }
    let number = |text: &str| is_number(text) || !asks_number(goal);
    let text = match problem {
        Problem::NotWritten { file } => {
            // A name without an extension may be the directory the goal asks for ("a directory named build").
            let a_file = std::path::Path::new(file).extension().is_some();
            let made = spec.writes.iter().chain(&spec.guessed).any(|f| f == file);
            // "Write the names to users.txt, then tell me how many": a number printed is the one told, not the
            // file's content.
            if required.len() != 1
                || !made
                || !a_file
                || !number(result)
                || tells_a_number(goal)
                || tells_something(goal)
            {
                return None;
            }
            format!(
                "#!/bin/bash\n# The shell's repair: what the last script printed, written to {file}.\nprintf '%s\\n' {} > \
                 {}\n",
                shell_quote(result),
                shell_path(file)
            )
        }
        Problem::PrintedNotANumber { .. } => {
            let lines: Vec<&str> = result.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            let counts = goal.to_ascii_lowercase().contains("how many");
            if !counts || lines.len() < 2 || lines.iter().any(|l| is_number(l)) {
                return None;
            }
            match replay {
                Replay::NothingChanged => format!(
                    "#!/bin/bash\n# The shell's repair: the {} lines the last script printed, counted.\necho {}\n",
                    lines.len(),
                    lines.len()
                ),
                // Its changes were taken back with the failed check: the script runs again, what it prints counted
                // ("move the old ones to archive/, then tell me how many are left" printed the names left).
                Replay::Undone(script) if script.language == Language::Bash => format!(
                    "#!/bin/bash\n# The shell's repair: the last script again, the lines it prints counted (it \
                     printed {} names, not how many).\nset -o pipefail\n{{\n{}\n}} | grep -c .\n",
                    lines.len(),
                    script.text.trim_end()
                ),
                // A count told without the changes the script made would lose them.
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(Script { language: Language::Bash, text })
}

/// What running a failed script again would do, for a repair that needs its changes as well as its output.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Replay<'a> {
    /// It changed no file: its output is all there is to it.
    NothingChanged,
    /// Its changes were all taken back (a staged attempt's journal): running it again makes them again.
    Undone(&'a Script),
    /// Its changes may not have been taken back in full: it is not run again.
    Unsafe,
}

/// Words that ask for something to be told besides a file ("then tell me which", "let me know who"): what a
/// script prints may be that answer, not the file's content.
static TELLS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)\b(?:(?:tell|show|give)\s+(?:me|us)|let\s+(?:me|us)\s+know|answer\s+(?:me|with))\b")
});

/// Whether `goal` asks to be told something besides what it writes, in words that ask it ([`TELLS`]). Not a
/// question as such: "How many requests got a 410? Put the count in gone.txt." asks for the file.
fn tells_something(goal: &str) -> bool {
    TELLS.is_match(goal)
}

/// `yes |` (or `yes y |`) before a program the goal runs, at a line's start.
static YES_INTO: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?m)^(?P<indent>[ \t]*)yes(?:[ \t]+(?:y|Y|yes))?[ \t]*\|[ \t]*(?P<run>(?:(?:bash|sh|python3?)[ \t]+)?(?P<file>\./[\w./-]*\w|[\w./-]*\w\.(?:sh|py|bash)))(?:[ \t]|$)",
    )
});

/// `text` without `yes |` in front of a program the goal names: endless "y" lines answer every question the same
/// way, a menu's too (`yes | ./maint.sh` for "use its menu to clear the cache, say yes when it asks": the menu read
/// `y` as an unknown item, over and over, until the time limit). The program then runs in the pane, where each
/// question it asks is answered from the task.
fn without_endless_yes(goal: &str, text: &str) -> String {
    YES_INTO
        .replace_all(text, |c: &Captures<'_>| {
            let file = c["file"].trim_start_matches("./");
            let named = !file.is_empty() && goal.contains(file.rsplit('/').next().unwrap_or(file));
            if named { format!("{}{}", &c["indent"], &c["run"]) } else { c[0].to_owned() }
        })
        .into_owned()
}

/// A path quoted for bash, with a leading `~/` left to the shell to expand.
fn shell_path(path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) => format!("~/{}", shell_quote(rest)),
        None => shell_quote(path),
    }
}

/// `text` with `mkdir -p` for a plain `mkdir` line (`mkdir build/output` fails on a missing parent; not where its
/// status is used: `mkdir lock || exit`), and a first line that makes the directory of each file the goal names
/// and the script writes (`> reports/2024/summary.txt` fails while `reports/2024` is missing), and of each folder
/// it names as one (`into a new subfolder uploads/large`) that the script writes in.
fn with_parents(goal: &str, text: &str) -> String {
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let plain = trimmed
                .strip_prefix("mkdir ")
                .filter(|rest| !rest.trim_start().starts_with('-') && !line.contains("||") && !line.contains("&&"));
            match plain {
                Some(rest) => format!("{}mkdir -p {}", &line[..line.len() - trimmed.len()], rest.trim_start()),
                None => line.to_owned(),
            }
        })
        .collect();
    let joined = lines.join("\n");
    let parents: Vec<String> = goal_destinations(goal)
        .iter()
        .filter(|file| joined.contains(file.as_str()))
        // A destination written as a folder (`into archive/2023/`) is made itself: files go into it.
        .filter_map(|file| match file.strip_suffix('/') {
            Some(folder) => Some(folder.to_owned()),
            // So is one the goal calls a folder ("into a new subfolder uploads/large"): `mv` of many files into
            // a missing `uploads/large` renamed each in turn to that one file.
            None if crate::runners::result_check::names_a_folder(goal, file) => Some(file.clone()),
            None => std::path::Path::new(file).parent().map(|p| p.display().to_string()),
        })
        .filter(|parent| {
            let made = |name: &str| joined.contains(&format!("mkdir -p {name}"));
            // `./report.txt`'s parent is the working directory: nothing to make.
            !parent.is_empty() && parent != "." && !made(parent) && !made(&shell_path(parent))
        })
        .collect();
    if !parents.is_empty() {
        let line = format!("mkdir -p {}", parents.iter().map(|p| shell_path(p)).collect::<Vec<_>>().join(" "));
        let at = usize::from(lines.first().is_some_and(|l| l.starts_with("#!")));
        lines.insert(at, line);
    }
    rejoin(&lines, text)
}

/// `text` with the delimiter line of its last heredoc added at the end where the script lacks it. Bash reads such a
/// heredoc to the end of the script, so the line changes nothing it runs; without it bash warns (`warning:
/// here-document at line 2 delimited by end-of-file`), and a warning printed is an error printed: the attempt
/// failed, and a small model's repair gave the same script back.
fn closed_heredoc(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    // The heredoc open at the end: each one found starts after the delimiter line of the one before.
    let mut at = 0;
    let mut open: Option<String> = None;
    while at < lines.len() {
        let Some(c) = HEREDOC.captures(lines[at]) else {
            at += 1;
            continue;
        };
        let tabs = !c[1].is_empty();
        let delimiter = (2..=4).find_map(|i| c.get(i)).map_or("", |m| m.as_str()).to_owned();
        let ends = |line: &str| if tabs { line.trim_start_matches('\t') } else { line } == delimiter;
        match (at + 1..lines.len()).find(|&i| ends(lines[i])) {
            Some(end) => at = end + 1,
            None => {
                open = Some(delimiter);
                break;
            }
        }
    }
    match open {
        Some(delimiter) => {
            let mut closed = text.trim_end_matches('\n').to_owned();
            closed.push('\n');
            closed.push_str(&delimiter);
            closed.push('\n');
            closed
        }
        None => text.to_owned(),
    }
}

/// For each line of a bash script, whether it is inside a heredoc's body (text, not commands). The delimiter line
/// counts as the body's: it is no command either.
pub(crate) fn in_heredoc(text: &str) -> Vec<bool> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut inside = vec![false; lines.len()];
    let mut at = 0;
    while at < lines.len() {
        let Some(c) = HEREDOC.captures(lines[at]) else {
            at += 1;
            continue;
        };
        let tabs = !c[1].is_empty();
        let delimiter = (2..=4).find_map(|i| c.get(i)).map_or("", |m| m.as_str());
        let ends = |line: &str| if tabs { line.trim_start_matches('\t') } else { line }.trim_end() == delimiter;
        let end = (at + 1..lines.len()).find(|&i| ends(lines[i])).unwrap_or(lines.len() - 1);
        inside[at + 1..=end].iter_mut().for_each(|b| *b = true);
        at = end + 1;
    }
    inside
}

/// A line of bash that runs a program by its path (`python3 deploy.py`, `./deploy.py --dry-run`, `bash x.sh`):
/// never a line of python.
static RUNS_A_PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"^(?:(?:python3?|bash|sh)[ \t]+[\w./-]+\.(?:py|sh)|\./[\w./-]+)(?:[ \t]+[^()=:]*)?$")
});

/// `text` with the lines that run a program, at the end of a python heredoc's code, moved after its delimiter: where
/// the script meant them (`python3 - <<'EOF'` … edit a file … `python3 deploy.py` then `EOF`, the program's line
/// run as python: `SyntaxError`). A small model wrote that twice in a row, and also left the heredoc open with such
/// a line last, which [`closed_heredoc`] closes after it.
fn shell_after_python(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut at = 0;
    while at < lines.len() {
        out.push(lines[at]);
        let Some(delimiter) = PYTHON_HEREDOC.captures(lines[at]).map(|c| c[2].to_owned()) else {
            at += 1;
            continue;
        };
        let Some(end) = (at + 1..lines.len()).find(|&i| lines[i] == delimiter) else {
            out.extend(&lines[at + 1..]);
            break;
        };
        let body = &lines[at + 1..end];
        let code = body.len() - body.iter().rev().take_while(|l| RUNS_A_PROGRAM.is_match(l)).count();
        out.extend(&body[..code]);
        out.push(lines[end]);
        out.extend(&body[code..]);
        at = end + 1;
    }
    rejoin(&out, text)
}

fn stdin_for_wc(text: &str) -> String {
    let re = &*WC_ONE_FILE;
    re.replace_all(text, |c: &Captures<'_>| format!("wc{} < {}{}", &c[1], &c[2], &c[3])).into_owned()
}

/// Each python heredoc of a bash script with the imports it lacks.
fn heredoc_imports(text: &str) -> String {
    let start = &*PYTHON_HEREDOC;
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut at = 0;
    while at < lines.len() {
        out.push(lines[at].to_owned());
        let Some(delimiter) = start.captures(lines[at]).map(|c| c[2].to_owned()) else {
            at += 1;
            continue;
        };
        let end = (at + 1..lines.len()).find(|&i| lines[i].trim() == delimiter).unwrap_or(lines.len());
        let code = lines[at + 1..end].join("\n");
        out.push(with_imports(&listed_readers(&tab_delimited(&code)), 0));
        if end < lines.len() {
            out.push(lines[end].to_owned());
        }
        at = end + 1;
    }
    rejoin(&out, text)
}

/// Python `code` with the imports it uses and lacks inserted after its first `skip` lines (a shebang).
fn with_imports(code: &str, skip: usize) -> String {
    let imported = |name: &str| {
        code.lines().any(|line| {
            let line = line.trim_start();
            (line.starts_with("import ") || line.starts_with("from ")) && line.split([' ', ',']).any(|w| w == name)
        })
    };
    let missing: Vec<&str> = IMPORTS
        .iter()
        .filter(|(name, used, _)| !imported(name) && used.is_match(code))
        .map(|(_, _, import)| *import)
        .collect();
    if missing.is_empty() {
        return code.to_owned();
    }
    let lines: Vec<&str> = code.lines().collect();
    let skip = skip.min(lines.len());
    let mut out: Vec<&str> = lines[..skip].to_vec();
    out.extend(&missing);
    out.extend(&lines[skip..]);
    rejoin(&out, code)
}

/// `lines` joined back into a text that ends in a line end where `like` did.
fn rejoin<S: AsRef<str>>(lines: &[S], like: &str) -> String {
    let mut text = lines.iter().map(AsRef::as_ref).collect::<Vec<&str>>().join("\n");
    if like.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_fix_patterns_compile() {
        for re in [&*WC_ONE_FILE, &*PYTHON_HEREDOC, &*HEREDOC, &*RUNS_A_PROGRAM] {
            assert!(!re.as_str().is_empty());
        }
    }

    fn bash(body: &str) -> Script {
        Script { language: Language::Bash, text: format!("#!/bin/bash\n{body}\n") }
    }

    #[test]
    fn wc_reads_its_one_file_on_stdin_when_a_number_is_wanted() {
        let goal = "Count the lines in notes.txt and write just the number to lines.txt.";
        for (before, after) in [
            ("wc -l notes.txt > lines.txt", "wc -l < notes.txt > lines.txt"),
            ("n=$(wc -w data/a.txt)", "n=$(wc -w < data/a.txt)"),
            ("wc -l notes.txt | awk '{print $1}'", "wc -l < notes.txt | awk '{print $1}'"),
            ("wc -l notes.txt", "wc -l < notes.txt"),
            ("for f in *.log; do wc -l \"$f\"; done", "for f in *.log; do wc -l < \"$f\"; done"),
            ("wc -l < notes.txt > lines.txt", "wc -l < notes.txt > lines.txt"),
            ("wc -l a.txt b.txt", "wc -l a.txt b.txt"),
            ("wc -l -- notes.txt", "wc -l -- notes.txt"),
            ("wc -l *.txt | tail -n 1", "wc -l *.txt | tail -n 1"),
            ("wc -l $files", "wc -l $files"),
            ("cat notes.txt | wc -l > lines.txt", "cat notes.txt | wc -l > lines.txt"),
            ("for f in a b; do\n  cat \"$f\" | wc -l\ndone", "for f in a b; do\n  cat \"$f\" | wc -l\ndone"),
            ("if true; then\n  cat a | wc -l\nfi", "if true; then\n  cat a | wc -l\nfi"),
        ] {
            assert_eq!(tidy(goal, &bash(before)).text, bash(after).text, "{before}");
        }
        let listing = "Show the line count of notes.txt with its name.";
        assert_eq!(tidy(listing, &bash("wc -l notes.txt")).text, bash("wc -l notes.txt").text);
    }

    #[test]
    fn endless_yes_into_a_program_the_goal_runs_is_left_out() {
        let goal = "Run ./tidy.sh and use its menu to sweep the porch (say yes when it asks), then quit.";
        assert_eq!(tidy(goal, &bash("yes | ./tidy.sh")).text, bash("./tidy.sh").text);
        assert_eq!(tidy(goal, &bash("  yes y | bash tidy.sh")).text, bash("  bash tidy.sh").text);
        for kept in [
            "yes | ./other.sh",
            "printf '2\\ny\\n' | ./tidy.sh",
            "echo yes | ./tidy.sh",
            "yes n | ./tidy.sh",
            "yes | head -n 10 > ys.txt",
        ] {
            assert_eq!(tidy(goal, &bash(kept)).text, bash(kept).text, "{kept}");
        }
    }

    #[test]
    fn directories_are_made_before_they_are_written_in() {
        let goal = "Write the line 'hello' to the file reports/2024/summary.txt.";
        assert_eq!(
            tidy(goal, &bash("echo hello > reports/2024/summary.txt")).text,
            bash("mkdir -p 'reports/2024'\necho hello > reports/2024/summary.txt").text
        );
        let twice = tidy(goal, &tidy(goal, &bash("echo hello > reports/2024/summary.txt")));
        assert_eq!(twice.text.matches("mkdir").count(), 1, "{}", twice.text);
        let made = bash("mkdir -p reports/2024\necho hello > reports/2024/summary.txt");
        assert_eq!(tidy(goal, &made), made);
        let home = tidy("Write hi to ~/notes/today.txt.", &bash("echo hi > ~/notes/today.txt"));
        assert_eq!(home.text, bash("mkdir -p ~/'notes'\necho hi > ~/notes/today.txt").text, "~ is the shell's");
        assert_eq!(tidy("Create build/output.", &bash("mkdir build/output")).text, bash("mkdir -p build/output").text);
        for kept in ["mkdir lock || exit 1", "if mkdir lock && true; then :; fi", "echo mkdir x", "mkdir -m 700 x"] {
            assert_eq!(tidy("Create x.", &bash(kept)), bash(kept), "its status is used, or no mkdir: {kept}");
        }
        let top = bash("echo hi > notes.txt");
        assert_eq!(tidy("Write hi to notes.txt.", &top), top, "no directory to make");
        let folder = "Move every file in tray/ whose name starts with old- into kept/2019/ (create it).";
        assert_eq!(
            tidy(folder, &bash("mv tray/old-* kept/2019/")).text,
            bash("mkdir -p 'kept/2019'\nmv tray/old-* kept/2019/").text,
            "a folder written as one is made itself"
        );
        let called = "In the uploads folder, move every .iso file into a new subfolder uploads/big.";
        assert_eq!(
            tidy(called, &bash("find uploads -name '*.iso' -exec mv -- {} uploads/big \\;")).text,
            bash("mkdir -p 'uploads/big'\nfind uploads -name '*.iso' -exec mv -- {} uploads/big \\;").text,
            "so is one the goal calls a folder"
        );
    }

    #[test]
    fn python_gets_the_imports_it_uses() {
        let goal = "Convert a.csv to a.json.";
        let script = bash(
            "python3 - <<'EOF'\nimport json\nrows = list(csv.DictReader(open('a.csv')))\njson.dump(rows, \
             open('a.json', 'w'))\nEOF\necho done",
        );
        assert_eq!(
            tidy(goal, &script).text,
            bash(
                "python3 - <<'EOF'\nimport csv\nimport json\nrows = list(csv.DictReader(open('a.csv')))\n\
                 json.dump(rows, open('a.json', 'w'))\nEOF\necho done"
            )
            .text
        );
        let python = Script {
            language: Language::Python,
            text: "#!/usr/bin/env python3\nprint(Counter(re.findall('a', 'aa')))\n".into(),
        };
        assert_eq!(
            tidy(goal, &python).text,
            "#!/usr/bin/env python3\nimport re\nfrom collections import Counter\nprint(Counter(re.findall('a', \
             'aa')))\n"
        );
        let fine = bash("python3 - <<'EOF'\nimport os, re\nprint(os.getcwd(), self.csv.x, score.real)\nEOF");
        assert_eq!(tidy(goal, &fine), fine, "imported, or not a module");
        let input = bash("python3 prog.py <<EOF\ncsv.x\nEOF");
        assert_eq!(tidy(goal, &input), input, "a program's input, not code");
    }

    /// [`repair`] for `goal` in an empty directory.
    fn fix(goal: &str, problem: &Problem, printed: &str) -> Option<Script> {
        let spec = GoalSpec::parse(goal);
        let required = spec.required_writes(std::path::Path::new("/nonexistent-clive-test-dir"));
        repair(goal, &spec, &required, problem, printed, Replay::NothingChanged)
    }

    #[test]
    fn a_printed_result_never_replaces_a_file_the_goal_reads_or_changes() {
        // `diff a.txt b.txt || true` printed the differences; "to b.txt" is what is compared with, not a destination.
        let compare = "Compare a.txt to b.txt and show the differences";
        assert_eq!(fix(compare, &Problem::NotWritten { file: "b.txt".into() }, "< x\n---\n> y\n"), None);
        let append = "Append the date to log.txt";
        assert_eq!(
            fix(append, &Problem::NotWritten { file: "log.txt".into() }, "2026-12-02\n"),
            None,
            "replaced, not appended"
        );
        let fixing = "Fix run.sh so that it prints 3";
        assert_eq!(fix(fixing, &Problem::NotWritten { file: "run.sh".into() }, "3\n"), None);
    }

    #[test]
    fn a_printed_result_is_written_to_the_one_file_the_goal_names() {
        let goal = "Write the number of lines in in.txt to out/lines.txt. If in.txt does not exist, write MISSING.";
        let problem = Problem::NotWritten { file: "out/lines.txt".into() };
        let fixed = fix(goal, &problem, "MISSING\n").unwrap();
        assert_eq!(
            fixed.text,
            "#!/bin/bash\n# The shell's repair: what the last script printed, written to out/lines.txt.\nprintf \
             '%s\\n' 'MISSING' > 'out/lines.txt'\n"
        );
        assert!(tidy(goal, &fixed).text.contains("mkdir -p 'out'\n"), "its directory is made before it runs");
        assert_eq!(fix(goal, &problem, "\n"), None, "nothing printed, nothing to write");
        assert_eq!(fix(goal, &problem, "cat: in.txt: No such file or directory\n"), None, "an error");
        // bash's own diagnostic about the script is never a result (it was once written as one).
        let warning =
            "/run/s/script-3.sh: line 18: warning: here-document at line 2 delimited by end-of-file (wanted `EOF')\n";
        assert_eq!(fix(goal, &problem, warning), None, "a shell diagnostic");
        let two = "Write the total to a.txt and the count to b.txt.";
        assert_eq!(fix(two, &Problem::NotWritten { file: "a.txt".into() }, "3\n"), None, "which one?");
        let directory = "Make a directory named build and list it.";
        assert_eq!(fix(directory, &Problem::NotWritten { file: "build".into() }, "made\n"), None, "a directory");
        let number = "Count the lines of a.txt and write the number to n.txt.";
        assert_eq!(fix(number, &Problem::NotWritten { file: "n.txt".into() }, "counting\n"), None, "not a number");
        let told =
            "Write the distinct callsigns of radio.log to calls.txt, one per line, then tell me how many there are.";
        assert_eq!(fix(told, &Problem::NotWritten { file: "calls.txt".into() }, "4\n"), None, "the number told");
        let answer = "First merge crew.csv and ships.csv into roster.csv with a header line. Then tell me which ship \
                      has the largest crew.";
        let problem = Problem::NotWritten { file: "roster.csv".into() };
        assert_eq!(fix(answer, &problem, "Endeavour\n"), None, "the name told, not the file's content");
        let asked = "How many requests got a 410? Put the count in gone.txt.";
        assert!(fix(asked, &Problem::NotWritten { file: "gone.txt".into() }, "2\n").is_some(), "the file answers it");
    }

    #[test]
    fn a_list_printed_for_how_many_is_counted() {
        let goal = "How many tickets are still open? Answer with the number only.";
        let problem = Problem::PrintedNotANumber { printed: "o-1\no-2\no-3".into() };
        let fixed = fix(goal, &problem, "o-1\n\no-2\no-3\n").unwrap();
        assert_eq!(
            fixed.text,
            "#!/bin/bash\n# The shell's repair: the 3 lines the last script printed, counted.\necho 3\n"
        );
        let one = Problem::PrintedNotANumber { printed: "three".into() };
        assert_eq!(fix(goal, &one, "three\n"), None, "one line is not a list");
        let which = "Which tickets are open? Answer with the number only.";
        assert_eq!(fix(which, &problem, "o-1\no-2\no-3\n"), None, "not a count");
    }

    #[test]
    fn a_list_printed_after_changes_is_counted_by_running_the_script_again() {
        let goal = "Move the 2023 scans out of tray/ into old/, then tell me how many files stay in tray/.";
        let spec = GoalSpec::parse(goal);
        let problem = Problem::PrintedNotANumber { printed: "a.pdf\nb.pdf".into() };
        let moved = bash("mkdir -p old\nmv tray/2023-* old/\nls tray\n");
        let fixed = repair(goal, &spec, &[], &problem, "a.pdf\nb.pdf\n", Replay::Undone(&moved)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tray")).unwrap();
        for name in ["2023-1.pdf", "2023-2.pdf", "a.pdf", "b.pdf"] {
            std::fs::write(dir.path().join("tray").join(name), "x").unwrap();
        }
        let out =
            std::process::Command::new("bash").arg("-c").arg(&fixed.text).current_dir(dir.path()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2", "{}", fixed.text);
        assert!(dir.path().join("old/2023-2.pdf").is_file(), "the moves are made again");
        assert_eq!(repair(goal, &spec, &[], &problem, "a.pdf\nb.pdf\n", Replay::Unsafe), None, "the moves kept");
        let python = Script { language: Language::Python, text: "import os\n".into() };
        assert_eq!(repair(goal, &spec, &[], &problem, "a.pdf\nb.pdf\n", Replay::Undone(&python)), None);
    }

    #[test]
    fn a_heredoc_left_open_at_the_end_gets_its_delimiter_line() {
        let open = bash("python3 - <<'EOF'\nprint(sum(range(4)))");
        assert_eq!(tidy("Print a sum.", &open).text, "#!/bin/bash\npython3 - <<'EOF'\nprint(sum(range(4)))\nEOF\n");
        let second = bash("cat > a.txt <<EOF\nx\nEOF\nsort <<-\"END\"\n\tb\n\ta");
        assert_eq!(closed_heredoc(&second.text), format!("{}END\n", second.text));
        for closed in [
            "#!/bin/bash\npython3 - <<'EOF'\nprint(1)\nEOF\n",
            "#!/bin/bash\nsort <<-END\n\tb\n\tEND\necho done\n",
            "#!/bin/bash\necho $((1<<3))\n",
            "#!/bin/bash\ngrep -c x <<< \"$line\"\n",
        ] {
            assert_eq!(closed_heredoc(closed), closed, "{closed}");
        }
    }

    #[test]
    fn a_program_run_at_the_end_of_python_code_runs_after_it() {
        let code =
            "python3 - <<'EOF'\nimport json\nd = json.load(open('kiln.json'))\njson.dump(d, open('kiln.json', 'w'))";
        let after = "#!/bin/bash\npython3 - <<'EOF'\nimport json\nd = json.load(open('kiln.json'))\njson.dump(d, open('kiln.json', 'w'))\nEOF\npython3 fire.py\n./glaze.sh --dry-run\n";
        for script in [
            format!("{code}\npython3 fire.py\n./glaze.sh --dry-run\nEOF"),
            format!("{code}\npython3 fire.py\n./glaze.sh --dry-run"),
        ] {
            assert_eq!(tidy("Fix kiln.json, then run ./fire.py.", &bash(&script)).text, after, "{script}");
        }
        for kept in [
            "#!/bin/bash\npython3 - <<'EOF'\nimport os\nos.system('./a.sh')\nEOF\n",
            "#!/bin/bash\npython3 - <<'EOF'\nfor f in files:\n    print(f)\nEOF\n./a.sh\n",
            "#!/bin/bash\ncat > run.sh <<'EOF'\n./a.sh\nEOF\n",
        ] {
            assert_eq!(shell_after_python(kept), kept, "{kept}");
        }
    }
}
