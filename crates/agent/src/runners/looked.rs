//! What the shell finds when it looks into a program's error, told to the model that fixes it as a fact instead of
//! left to a guess:
//!
//! - a file the error says is missing, found under another path (`input file data/contacts.csv not found` where the
//!   working directory holds `contacts.csv`): a small model answered that error by making a directory named
//!   `data/contacts.csv`, then a file of that name holding its own path, while the file it wanted sat one level up;
//! - a program that cannot be started because of its first line (`cannot execute: required file not found`): an
//!   interpreter that does not exist (`#!/usr/bin/evn bash`) or Windows line endings (`#!/bin/bash\r`); a small
//!   model answered with `chmod +x` again and again;
//! - the first lines of a file the error points to for what to write (`It must contain the newest version in
//!   CHANGELOG.md`).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// An error line that says something is missing.
static MISSING: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:not\s+found|no\s+such\s+file|does\s+not\s+exist|doesn't\s+exist|cannot\s+(?:open|find|read)|can't\s+(?:open|find|read)|could\s+not\s+(?:open|find|read)|unable\s+to\s+(?:open|find|read)|missing)\b",
    )
});

/// A path in an error line: a name with an extension, or with a directory.
static PATH: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"[\w.~/-]*[\w-]+(?:/[\w.-]+|\.[A-Za-z]\w{0,7})"));

/// The most lines at the end of the output looked at.
const TAIL_LINES: usize = 15;

/// The deepest a file of the same name is looked for, and the most entries read.
const DEPTH: usize = 3;
const ENTRIES: usize = 2000;

/// An error that says a program could not be started: bash's `cannot execute: required file not found`, `bad
/// interpreter`.
static NOT_STARTED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)cannot\s+execute|bad\s+interpreter|required\s+file\s+not\s+found")
});

/// What the shell found about `output`, the error of the program at `program` run in `cwd`: why it could not be
/// started ([`first_line_fault`]), else a missing file found under another path ([`found_elsewhere`]), else the
/// first lines of a file the error points to for what to write ([`named_file_head`]).
pub(crate) fn look(output: &str, cwd: &Path, program: &Path) -> Option<String> {
    if NOT_STARTED.is_match(output)
        && let Some(fault) = first_line_fault(program)
    {
        return Some(fault);
    }
    found_elsewhere(output, cwd).or_else(|| named_file_head(output, cwd, program)).or_else(|| value_fault(output))
}

/// Python's `ValueError` about a value it could not read as a number, with what the value is.
static NOT_A_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?m)^ValueError: (?:invalid literal for int\(\) with base 10|could not convert string to float): '(?P<value>[^'\n]{1,60})'",
    )
});

/// A number with commas between groups of three digits (`1,200.00`; not a decimal comma, `3,5`).
static THOUSANDS: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$"));

/// Python's `TypeError` for text added to a number.
static TEXT_AND_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?m)^TypeError: (?:unsupported operand type\(s\) for [^:]+: '(?:int|float)' and 'str'|can only concatenate str \(not \x22(?:int|float)\x22\) to str)",
    )
});

/// What the value a python program could not use is, told as a fact: a decimal that `int()` cannot read, a word
/// (a header's name, a label) where a number was read, text added to a number. The 1.5B answered `invalid literal for
/// int() with base 10: '145.20'` with `int(...)` again, and a header's name read as a score by skipping nothing.
fn value_fault(output: &str) -> Option<String> {
    if let Some(found) = NOT_A_NUMBER.captures_iter(output).last() {
        let value = &found["value"];
        let told = if value.contains('.') && value.trim().parse::<f64>().is_ok_and(f64::is_finite) {
            format!("'{value}' has a decimal point: int() cannot read it, float() can")
        } else if THOUSANDS.is_match(value.trim()) {
            format!(
                "'{value}' has a comma between its digits: remove the commas first (`.replace(',', '')`), then convert"
            )
        } else if value.chars().any(|c| c.is_alphabetic()) {
            format!(
                "'{value}' is a word, not a number: a header line or a label was read as a value, and is to be skipped"
            )
        } else {
            return None;
        };
        return Some(told);
    }
    TEXT_AND_NUMBER.is_match(output).then(|| {
        "a value read from a file is text (str): it is added as a number only once converted (float(…) or int(…))"
            .to_owned()
    })
}

/// An error about a file's mode: `Permission denied`, `is not executable`.
static UNRUNNABLE: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)permission\s+denied|not\s+(?:an\s+)?executable"));

/// The most lines and characters of a file the error points to.
const HEAD_LINES: usize = 8;
const HEAD_CHARS: usize = 500;

/// The first lines of a text file that the last error line names and that exists (not the program): "VERSION file
/// not found. It must contain the newest version in CHANGELOG.md" needs CHANGELOG.md read, which the fix prompt
/// does not show (a small model answered `set VERSION file CHANGELOG.md` four times).
fn named_file_head(output: &str, cwd: &Path, program: &Path) -> Option<String> {
    let line = output.lines().rev().find(|l| !l.trim().is_empty())?;
    // A file that cannot be run is about its mode or its first line, not its content.
    if NOT_STARTED.is_match(line) || UNRUNNABLE.is_match(line) {
        return None;
    }
    for found in PATH.find_iter(line) {
        let Some(name) = relative(found.as_str(), cwd) else { continue };
        let path = cwd.join(&name);
        if name.is_empty() || path == program || program.ends_with(&name) || !path.is_file() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let head: Vec<&str> = text.lines().take(HEAD_LINES).collect();
        let head = crate::text::bound(&head.join("\n"), HEAD_CHARS);
        if head.trim().is_empty() {
            continue;
        }
        return Some(format!("`{name}` begins:\n{head}"));
    }
    None
}

/// What is wrong with the first line of the program at `path`, if it names an interpreter: Windows line endings,
/// or an interpreter that does not exist.
fn first_line_fault(path: &Path) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    let first = text.split(|b| *b == b'\n').next()?;
    let first = String::from_utf8_lossy(first);
    let interpreter = first.strip_prefix("#!")?;
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    if interpreter.ends_with('\r') {
        return Some(format!(
            "{name} has Windows line endings (its first line ends in \\r), so the system looks for an interpreter \
             whose name ends in \\r"
        ));
    }
    let program = interpreter.split_whitespace().next()?;
    (program.starts_with('/') && !Path::new(program).exists())
        .then(|| format!("the first line of {name}, `{}`, names `{program}`, which does not exist", first.trim_end()))
}

/// What the shell found about a file `output` says is missing in `cwd`: "`data/contacts.csv` does not exist; a file
/// of that name is at `contacts.csv`". `None` when no missing path is named, or none of its name is anywhere else.
pub(crate) fn found_elsewhere(output: &str, cwd: &Path) -> Option<String> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].iter().rev().find_map(|line| {
        let (missing, places) = missing_found(line, cwd)?;
        let places: Vec<String> = places.iter().take(3).map(|p| format!("`{p}`")).collect();
        let verb = if places.len() == 1 { "a file of that name is at" } else { "files of that name are at" };
        Some(format!("`{missing}` does not exist; {verb} {}", places.join(", ")))
    })
}

/// A file `line` says is missing (a name with an extension, relative to `cwd`), and where files of its name are
/// under `cwd` (shallowest first): `None` where the line says nothing is missing or no such file is found.
pub(crate) fn missing_found(line: &str, cwd: &Path) -> Option<(String, Vec<String>)> {
    if !MISSING.is_match(line) {
        return None;
    }
    PATH.find_iter(line).find_map(|found| {
        let missing = relative(found.as_str(), cwd)?;
        if missing.is_empty() || cwd.join(&missing).exists() {
            return None;
        }
        let name = Path::new(&missing).file_name().and_then(|n| n.to_str())?;
        if !name.contains('.') {
            return None;
        }
        let places = same_name(cwd, name);
        (!places.is_empty()).then_some((missing, places))
    })
}

/// `path` as a path relative to `cwd` (`./` dropped); `None` for a path outside it.
fn relative(path: &str, cwd: &Path) -> Option<String> {
    let path = path.trim_end_matches(['.', ',', ':', ';']);
    if path.starts_with('/') {
        let inside = Path::new(path).strip_prefix(cwd).ok()?;
        return inside.to_str().map(str::to_owned);
    }
    if path.starts_with('~') || path.split('/').any(|part| part == "..") {
        return None;
    }
    Some(path.trim_start_matches("./").to_owned())
}

/// The files named `name` under `cwd`, at most [`DEPTH`] levels down (hidden directories skipped), as paths
/// relative to it, shallowest first.
pub(crate) fn same_name(cwd: &Path, name: &str) -> Vec<String> {
    let mut found = Vec::new();
    files_under(cwd, DEPTH, ENTRIES, |path, entry_name| {
        if entry_name == name
            && let Ok(inside) = path.strip_prefix(cwd)
            && let Some(inside) = inside.to_str()
        {
            found.push(inside.to_owned());
        }
        false
    });
    found.sort_by_key(|p| (p.matches('/').count(), p.clone()));
    found
}

/// The names of the files under `cwd`, as far down as [`same_name`] looks.
pub(crate) fn file_names(cwd: &Path) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    files_under(cwd, DEPTH, ENTRIES, |_, name| {
        names.insert(name.to_owned());
        false
    });
    names
}

/// Calls `visit` with each file under `cwd` (its path and name), `depth` levels down at most, hidden directories
/// skipped, level by level, until it returns true (then true) or `most` entries were read (then false).
pub(crate) fn files_under(cwd: &Path, depth: usize, most: usize, mut visit: impl FnMut(&Path, &str) -> bool) -> bool {
    let mut level = vec![cwd.to_path_buf()];
    let mut read = 0;
    for _ in 0..depth {
        let mut next = Vec::new();
        for dir in &level {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            for entry in entries.flatten() {
                read += 1;
                if read > most {
                    return false;
                }
                let entry_name = entry.file_name();
                let Some(entry_name) = entry_name.to_str() else { continue };
                let Ok(kind) = entry.file_type() else { continue };
                if kind.is_dir() && !entry_name.starts_with('.') {
                    next.push(entry.path());
                } else if kind.is_file() && visit(&entry.path(), entry_name) {
                    return true;
                }
            }
        }
        level = next;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_python_could_not_use_as_a_number_is_told_what_it_is() {
        let decimal = "  File \"w.py\", line 4\nValueError: invalid literal for int() with base 10: '12.75'\n";
        assert!(
            value_fault(decimal).unwrap().contains("'12.75' has a decimal point: int() cannot read it, float() can")
        );
        let grouped = "ValueError: could not convert string to float: '3,450.10'\n";
        assert!(value_fault(grouped).unwrap().contains("'3,450.10' has a comma between its digits: remove the commas"));
        assert_eq!(value_fault("ValueError: could not convert string to float: '3,5'\n"), None, "a decimal comma");
        let word = "ValueError: could not convert string to float: 'weight'\n";
        assert!(value_fault(word).unwrap().contains("'weight' is a word, not a number: a header line"));
        let text = "TypeError: unsupported operand type(s) for +=: 'int' and 'str'\n";
        assert!(value_fault(text).unwrap().contains("converted"));
        let concat = "TypeError: can only concatenate str (not \"int\") to str\n";
        assert!(value_fault(concat).is_some());
        assert_eq!(value_fault("ValueError: could not convert string to float: ''\n"), None);
        assert_eq!(value_fault("KeyError: 'amount'\n"), None);
    }

    #[test]
    fn a_missing_file_found_under_another_path_is_told() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("seeds.csv"), "a\n").unwrap();
        std::fs::create_dir_all(dir.path().join("old/.trash")).unwrap();
        std::fs::write(dir.path().join("old/.trash/seeds.csv"), "a\n").unwrap();
        let output = "loading...\nplant.py: input file beds/seeds.csv not found\n";
        assert_eq!(
            found_elsewhere(output, dir.path()).unwrap(),
            "`beds/seeds.csv` does not exist; a file of that name is at `seeds.csv`"
        );
        let absolute =
            format!("FileNotFoundError: [Errno 2] No such file or directory: '{}/in/seeds.csv'", dir.path().display());
        assert_eq!(
            found_elsewhere(&absolute, dir.path()).unwrap(),
            "`in/seeds.csv` does not exist; a file of that name is at `seeds.csv`"
        );
    }

    #[test]
    fn a_program_that_cannot_start_is_told_why() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("tally.sh");
        let error = "./tally.sh: cannot execute: required file not found";
        std::fs::write(&program, "#!/usr/bin/evn bash\necho hi\n").unwrap();
        assert_eq!(
            look(error, dir.path(), &program).unwrap(),
            "the first line of tally.sh, `#!/usr/bin/evn bash`, names `/usr/bin/evn`, which does not exist"
        );
        std::fs::write(&program, "#!/bin/bash\r\necho hi\r\n").unwrap();
        assert!(look(error, dir.path(), &program).unwrap().starts_with("tally.sh has Windows line endings"));
        std::fs::write(&program, "#!/bin/bash\necho hi\n").unwrap();
        assert_eq!(look(error, dir.path(), &program), None, "nothing wrong with it");
        assert_eq!(look("tally.sh: line 2: oops", dir.path(), &program), None, "it started");
    }

    #[test]
    fn a_file_the_error_points_to_is_shown() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("ship.sh");
        std::fs::write(&program, "#!/bin/bash\n").unwrap();
        std::fs::write(dir.path().join("HISTORY.md"), "# History\n## 3.1.0\n- faster\n").unwrap();
        let error = "ship: TAG file not found. It must hold the newest version in HISTORY.md.";
        assert_eq!(look(error, dir.path(), &program).unwrap(), "`HISTORY.md` begins:\n# History\n## 3.1.0\n- faster");
        assert_eq!(look("ship.sh: line 3: oops", dir.path(), &program), None, "the program is not shown");
        assert_eq!(look("./ship.sh: line 6: ./HISTORY.md: Permission denied", dir.path(), &program), None, "its mode");
    }

    #[test]
    fn nothing_is_told_without_a_file_of_that_name_or_a_missing_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("seeds.csv"), "a\n").unwrap();
        assert!(found_elsewhere("input file beds/bulbs.csv not found", dir.path()).is_none(), "no such name here");
        assert!(found_elsewhere("seeds.csv: 3 rows read, column 'kg' missing", dir.path()).is_none(), "it exists");
        assert!(found_elsewhere("beds/seeds.csv: bad row 3", dir.path()).is_none(), "not said to be missing");
        assert!(found_elsewhere("/etc/seeds.csv not found", dir.path()).is_none(), "outside the directory");
    }
}
