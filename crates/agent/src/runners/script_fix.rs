//! Fixes the shell makes to a model's script, without another call.
//!
//! A small model's scripts fail in a few ways that are mechanical: `wc -l notes.txt` where the goal wants the number
//! alone, a python heredoc that uses `csv.` without `import csv`, a result printed instead of written to the file
//! the goal names, the list of matches printed where "how many" asked for their count. Each is fixed here for free
//! and for certain, where a repair call to Qwen2.5-Coder-0.5B tends to return the same script or a worse one.
//!
//! [`tidy`] runs on every script before it is checked and run: it changes only what cannot be meant. [`repair`]
//! runs after a result check failed: it turns the failed script into the next attempt, once, where the failure
//! says what the script lacked.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use tmux_habitat::shell_quote;

use crate::claims::goal_destinations;
use crate::runners::result_check::{Problem, error_line, is_number, mentions_number};
use crate::runners::script::{Language, Script};

/// `wc` with options and one file operand that ends its command (`wc -l notes.txt > n`, `$(wc -w a.txt)`): it
/// prints the name after the count. Read on stdin, it prints the count alone.
static WC_ONE_FILE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?m)\bwc((?:\s+-[a-zA-Z]+)+)\s+([^\s|<>;&()\-][^\s|<>;&()]*)([ \t]*(?:$|[|>;&)]))").ok()
});

/// A line that starts a python heredoc (`python3 - <<'EOF'`, `python <<EOF`), with its delimiter.
static PYTHON_HEREDOC: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"^\s*python3?\b[^\n<]*<<-?\s*['"]?(\w+)['"]?\s*$"#).ok());

/// Names python code uses without importing them, how a use looks, and the import that defines each.
const IMPORTS: &[(&str, &str, &str)] = &[
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

/// `script` with what cannot be meant fixed: a lone file operand of `wc` is read on stdin when the goal wants a
/// number, so the count is not followed by the name; `mkdir` makes missing parents, and the directory of a file
/// the goal names is made before the script writes it; python code gets the standard imports it uses and lacks.
pub(crate) fn tidy(goal: &str, script: &Script) -> Script {
    let mut text = script.text.clone();
    if script.language == Language::Bash {
        if mentions_number(goal) {
            text = stdin_for_wc(&text);
        }
        text = with_parents(goal, &text);
    }
    text = match script.language {
        Language::Python => with_imports(&text, 1),
        Language::Bash => heredoc_imports(&text),
    };
    Script { language: script.language, text }
}

/// The next attempt made of `failed` without a model, where `problem` says what it lacked and `printed` (its
/// output) holds the missing piece: a result printed instead of written goes to the one file the goal names; a
/// list printed where the goal asks "how many" is counted. `None` when no such fix applies.
pub(crate) fn repair(goal: &str, failed: &Script, problem: &Problem, printed: &str) -> Option<Script> {
    if failed.language != Language::Bash || error_line(printed).is_some() {
        return None;
    }
    let body = body(&failed.text);
    let text = match problem {
        Problem::NotWritten { file } => {
            let destinations = goal_destinations(goal);
            if destinations.len() != 1 || printed.trim().is_empty() {
                return None;
            }
            let parent = std::path::Path::new(file).parent().filter(|p| !p.as_os_str().is_empty());
            let mkdir =
                parent.map(|p| format!("mkdir -p {}\n", shell_quote(&p.display().to_string()))).unwrap_or_default();
            format!("#!/bin/bash\n{mkdir}{{\n{body}\n}} > {}\n", shell_quote(file))
        }
        Problem::PrintedNotANumber { printed } => {
            let lines: Vec<&str> = printed.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            let counts = goal.to_ascii_lowercase().contains("how many");
            if !counts || lines.len() < 2 || lines.iter().any(|l| is_number(l)) {
                return None;
            }
            format!("#!/bin/bash\n{{\n{body}\n}} | wc -l\n")
        }
        _ => return None,
    };
    Some(Script { language: Language::Bash, text })
}

/// The script without its shebang line, trailing blank lines trimmed.
fn body(text: &str) -> &str {
    let text = if text.starts_with("#!") { text.split_once('\n').map_or("", |(_, rest)| rest) } else { text };
    text.trim_end()
}

/// `mkdir` without options, which fails on a missing parent (`mkdir build/output`).
static PLAIN_MKDIR: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\bmkdir[ \t]+([^-\s])").ok());

/// `text` with `mkdir -p` for plain `mkdir`, and a first line that makes the directory of each file the goal names
/// and the script writes (`> reports/2024/summary.txt` fails while `reports/2024` is missing).
fn with_parents(goal: &str, text: &str) -> String {
    let mut text = match PLAIN_MKDIR.as_ref() {
        Some(re) => re.replace_all(text, "mkdir -p $1").into_owned(),
        None => text.to_owned(),
    };
    let parents: Vec<String> = goal_destinations(goal)
        .iter()
        .filter(|file| text.contains(file.as_str()))
        .filter_map(|file| std::path::Path::new(file).parent().map(|p| p.display().to_string()))
        .filter(|parent| {
            let made = |name: &str| text.contains(&format!("mkdir -p {name}"));
            !parent.is_empty() && !made(parent) && !made(&shell_quote(parent))
        })
        .collect();
    if !parents.is_empty() {
        let line = format!("mkdir -p {}\n", parents.iter().map(|p| shell_quote(p)).collect::<Vec<_>>().join(" "));
        let at = if text.starts_with("#!") { text.find('\n').map_or(text.len(), |i| i + 1) } else { 0 };
        text.insert_str(at, &line);
    }
    text
}

fn stdin_for_wc(text: &str) -> String {
    let Some(re) = WC_ONE_FILE.as_ref() else { return text.to_owned() };
    re.replace_all(text, |c: &Captures<'_>| format!("wc{} < {}{}", &c[1], &c[2], &c[3])).into_owned()
}

/// Each python heredoc of a bash script with the imports it lacks.
fn heredoc_imports(text: &str) -> String {
    let Some(start) = PYTHON_HEREDOC.as_ref() else { return text.to_owned() };
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut at = 0;
    while at < lines.len() {
        out.push(lines[at].to_owned());
        let Some(delimiter) = start.captures(lines[at]).map(|c| c[1].to_owned()) else {
            at += 1;
            continue;
        };
        let end = (at + 1..lines.len()).find(|&i| lines[i].trim() == delimiter).unwrap_or(lines.len());
        let code = lines[at + 1..end].join("\n");
        out.push(with_imports(&code, 0));
        if end < lines.len() {
            out.push(lines[end].to_owned());
        }
        at = end + 1;
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
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
        .filter(|(name, used, _)| !imported(name) && uses(code, used))
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
    let mut joined = out.join("\n");
    if code.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Whether `code` uses `pattern` as a name of its own (not `self.re.` or `score.`).
fn uses(code: &str, pattern: &str) -> bool {
    Regex::new(&format!(r"(?:^|[^\w.]){pattern}")).is_ok_and(|re| re.is_match(code))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("wc -l < notes.txt > lines.txt", "wc -l < notes.txt > lines.txt"),
            ("wc -l a.txt b.txt", "wc -l a.txt b.txt"),
            ("cat notes.txt | wc -l > lines.txt", "cat notes.txt | wc -l > lines.txt"),
        ] {
            assert_eq!(tidy(goal, &bash(before)).text, bash(after).text, "{before}");
        }
        let listing = "Show the line count of notes.txt with its name.";
        assert_eq!(tidy(listing, &bash("wc -l notes.txt")).text, bash("wc -l notes.txt").text);
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
        assert_eq!(tidy("Create build/output.", &bash("mkdir build/output")).text, bash("mkdir -p build/output").text);
        let top = bash("echo hi > notes.txt");
        assert_eq!(tidy("Write hi to notes.txt.", &top), top, "no directory to make");
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
    }

    #[test]
    fn a_printed_result_goes_to_the_one_file_the_goal_names() {
        let goal = "Write the number of lines in in.txt to out/lines.txt. If in.txt does not exist, write MISSING.";
        let failed = bash("if [ ! -f in.txt ]; then\n  echo MISSING\nfi");
        let problem = Problem::NotWritten { file: "out/lines.txt".into() };
        assert_eq!(
            repair(goal, &failed, &problem, "MISSING\n").unwrap().text,
            "#!/bin/bash\nmkdir -p 'out'\n{\nif [ ! -f in.txt ]; then\n  echo MISSING\nfi\n} > 'out/lines.txt'\n"
        );
        assert_eq!(repair(goal, &failed, &problem, "\n"), None, "nothing printed, nothing to write");
        assert_eq!(repair(goal, &failed, &problem, "cat: in.txt: No such file or directory\n"), None, "an error");
        let two = "Write the total to a.txt and the count to b.txt.";
        assert_eq!(repair(two, &failed, &Problem::NotWritten { file: "a.txt".into() }, "3\n"), None, "which one?");
    }

    #[test]
    fn a_list_printed_for_how_many_is_counted() {
        let goal = "How many orders have the status shipped? Reply with the number only.";
        let failed = bash("grep shipped orders.txt | cut -d' ' -f1");
        let problem = Problem::PrintedNotANumber { printed: "o-1\no-2\no-3".into() };
        assert_eq!(
            repair(goal, &failed, &problem, "o-1\no-2\no-3\n").unwrap().text,
            "#!/bin/bash\n{\ngrep shipped orders.txt | cut -d' ' -f1\n} | wc -l\n"
        );
        let one = Problem::PrintedNotANumber { printed: "three".into() };
        assert_eq!(repair(goal, &failed, &one, "three\n"), None, "one line is not a list");
        let which = "Which orders shipped? Reply with the number only.";
        assert_eq!(repair(which, &failed, &problem, "o-1\no-2\no-3\n"), None, "not a count");
    }
}
