//! Fixes the shell reads off a failed program's error, with no call: where the error itself says what the fix is.
//!
//! Two shapes of error carry their own fix, and small models got both wrong on untuned tasks (a `sed` on another
//! word, an invented file):
//! - **A value the program does not accept, and the values it does**: `modlist.txt line 3: no mod named
//!   'fast_fog' (have: fast-fog, fog-lite)`, `unknown colour 'gren', did you mean 'green'?`. The quoted value is
//!   replaced, in the one file the error names that holds it (on the one line, or the line the error gives), by the
//!   accepted value nearest to it in spelling — when exactly one is nearest, and near enough to be a slip.
//! - **A missing file whose compressed copy is at hand**: `missing input file data/day2.csv` with
//!   `incoming/day2.csv.gz` under the directory (the only one of that name): it is decompressed into place. So is a
//!   missing file with a template beside it (`app.ini` and `app.ini.example`): the template is copied.
//!
//! The fix is a command like any other: it passes the gate and runs staged, and is kept only when it exits 0. The
//! loop shows it to the model among the fixes made, and a fix already made is never proposed again.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use tmux_habitat::shell_quote;

/// The last lines of the output an error is looked for in.
const ERROR_LINES: usize = 20;

/// The largest file a value is replaced in.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// How deep, and over how many names, a compressed copy is looked for.
const SEARCH_DEPTH: usize = 4;
const SEARCH_NAMES: usize = 2_000;

/// A fix the error itself gives, as a command line; `None` when it gives none (or only one already made).
pub(crate) fn from_error(output: &str, cwd: &Path, program_file: &str, made: &[String]) -> Option<String> {
    let lines: Vec<&str> = output.lines().rev().take(ERROR_LINES).collect();
    let fixes = nearest_accepted(&lines, cwd, program_file).into_iter().chain(copy_of_missing(&lines, cwd));
    fixes.into_iter().find(|fix| !made.iter().any(|done| done == fix))
}

/// `did you mean 'x'?`, `did you mean x`.
static DID_YOU_MEAN: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"(?i)\bdid\s+you\s+mean:?\s+['"`]?([\w.-]+)"#));

/// A list of the accepted values: `(have: a, b)`, `expected one of: a, b`, `valid values are a, b or c`,
/// `must be one of [a, b]`, `available: a, b`, `choose from a, b`.
static ACCEPTED_LIST: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)(?:\b(?:have|has|available|known|valid|allowed|supported|possible)(?:\s+(?:values?|options?|choices?|names?|ones?|keys?|mods?|items?))?\s*(?:are|is)?\s*:|\bone\s+of\s*:?|\bvalid\s+(?:values?|options?|choices?|names?|keys?)\s+(?:are|is)\s*:?|\bchoose\s+from\s*:?|\bexpected\s*:)\s*\[?([^\])]+)",
    )
});

/// A quoted value: `'x'`, `"x"`, `` `x` ``.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r#"['"`]([\w./-]{2,60})['"`]"#));

/// `line 3`, `theme.conf:3` (a file's name before the colon: `[12:02:33]` is a time).
static LINE_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)(?:\bline\s+(\d{1,6})\b|[\w-]\.[A-Za-z][\w]{0,7}:(\d{1,6})\b)"));

/// A line about a file that cannot be written: no input is missing there.
static NOT_WRITABLE: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)for\s+writing|permission\s+denied|read-only|not\s+writable"));

/// A line that says a file is missing.
static MISSING: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)no\s+such\s+file|\bnot\s+found\b|\bmissing\b|does\s*n[o']t\s+exist|\b(?:cannot|can't|could\s+not|unable\s+to)\s+(?:open|find|read|load)\b|FileNotFoundError",
    )
});

/// Characters a value or a path may hold for the shell to write it into a command without doubt.
fn plain(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || "_.-/".contains(c))
}

/// Path-like words of `line` (trimmed of quotes and punctuation).
fn paths_in(line: &str) -> Vec<String> {
    line.split(|c: char| c.is_whitespace() || "'\"`()[]{}<>,;:=".contains(c))
        .map(|word| word.trim_end_matches([':', '.', '!', '?']).trim_start_matches("./"))
        .filter(|word| plain(word) && super::rerun::looks_like_file(word) && !word.starts_with(['/', '-']))
        .filter(|word| !word.contains("..") && word.chars().any(char::is_alphabetic))
        .map(str::to_owned)
        .collect()
}

/// The accepted values a line lists, each once.
fn accepted_values(line: &str) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    let mut add = |value: &str| {
        let value = value.trim().trim_matches(['\'', '"', '`', '.', ' ']);
        if plain(value) && !values.iter().any(|v| v == value) {
            values.push(value.to_owned());
        }
    };
    for captures in DID_YOU_MEAN.captures_iter(line) {
        if let Some(value) = captures.get(1) {
            add(value.as_str().trim_end_matches(['.', '?']));
        }
    }
    for captures in ACCEPTED_LIST.captures_iter(line) {
        let Some(list) = captures.get(1) else { continue };
        for item in list.as_str().split([',', '|']).flat_map(|part| part.split(" or ")).flat_map(|p| p.split(" and ")) {
            // `a, b, c` — an item of more than one word ends the list (`…, c; see the docs`).
            if item.split_whitespace().count() == 1 {
                add(item);
            }
        }
    }
    values
}

/// Levenshtein distance, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// The one accepted value nearest to `wrong`, when it is near enough to be a slip (one edit in a word of four
/// characters, else at most 2 edits or a third of the word) and no other is as near. A word of three characters
/// or fewer is too short to tell a slip from another value (`xl` is no slip for `l`).
fn nearest<'a>(wrong: &str, accepted: &'a [String]) -> Option<&'a String> {
    let length = wrong.chars().count();
    if length <= 3 {
        return None;
    }
    let limit = if length == 4 { 1 } else { (length / 3).max(2) };
    let mut scored: Vec<(usize, &String)> = accepted
        .iter()
        .map(|value| (distance(&wrong.to_lowercase(), &value.to_lowercase()), value))
        .filter(|(d, value)| *d <= limit && value.as_str() != wrong)
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    match scored.as_slice() {
        [(best, value), rest @ ..] if rest.first().is_none_or(|(next, _)| next > best) => Some(value),
        _ => None,
    }
}

/// The 1-based lines of `text` holding `word` as a whole token (not inside a longer name), each with how many
/// times.
fn lines_holding(text: &str, word: &str) -> Vec<(usize, usize)> {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "_.-".contains(c));
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let times = line
                .match_indices(word)
                .filter(|(at, _)| {
                    !part(line[..*at].chars().next_back()) && !part(line[at + word.len()..].chars().next())
                })
                .count();
            (index + 1, times)
        })
        .filter(|(_, times)| *times > 0)
        .collect()
}

/// The `sed` command replacing the token `wrong` (whole, as [`lines_holding`] finds it: `-` and `.` are part of a
/// name, unlike for `\b`) by `right` on line `line` of `file`. `#` delimits: [`plain`] words never hold it.
fn sed_replacement(line: usize, wrong: &str, right: &str, file: &str) -> String {
    let edge = "[^[:alnum:]_.-]";
    let expression = format!("{line}s#\\(^\\|{edge}\\){}\\({edge}\\|$\\)#\\1{right}\\2#", wrong.replace('.', r"\."));
    format!("sed -i {} {}", shell_quote(&expression), shell_quote(&format!("./{}", file.trim_start_matches("./"))))
}

/// The replacement of a value the error says is not accepted by the accepted one nearest to it.
fn nearest_accepted(lines: &[&str], cwd: &Path, program_file: &str) -> Vec<String> {
    let named: Vec<String> = lines.iter().flat_map(|line| paths_in(line)).collect();
    let mut fixes = Vec::new();
    for line in lines {
        let accepted = accepted_values(line);
        if accepted.is_empty() {
            continue;
        }
        let given_line = LINE_NUMBER
            .captures(line)
            .and_then(|c| c.get(1).or_else(|| c.get(2)))
            .and_then(|m| m.as_str().parse::<usize>().ok());
        // The files this line names first, then those of the other error lines.
        let mut files: Vec<String> = paths_in(line);
        files.extend(named.iter().cloned());
        files.retain(|file| file != program_file.trim_start_matches("./"));
        for wrong in QUOTED.captures_iter(line).filter_map(|c| c.get(1)).map(|m| m.as_str()) {
            if accepted.iter().any(|value| value == wrong) {
                continue;
            }
            let Some(right) = nearest(wrong, &accepted) else { continue };
            let holding: Vec<(&String, Vec<(usize, usize)>)> = unique(&files)
                .into_iter()
                .filter_map(|file| {
                    let path = cwd.join(file);
                    let small = std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= MAX_FILE_BYTES);
                    let text = small.then(|| std::fs::read_to_string(&path).ok()).flatten()?;
                    let lines = lines_holding(&text, wrong);
                    (!lines.is_empty()).then_some((file, lines))
                })
                .collect();
            let [(file, at)] = holding.as_slice() else { continue };
            // One line, holding it once (the line the error gives, where it holds it elsewhere too).
            let line_number = match (at.as_slice(), given_line) {
                ([(only, 1)], _) => *only,
                (_, Some(given)) if at.contains(&(given, 1)) => given,
                _ => continue,
            };
            fixes.push(sed_replacement(line_number, wrong, right, file));
        }
    }
    fixes
}

/// Each name once, in order.
fn unique(names: &[String]) -> Vec<&String> {
    let mut seen: Vec<&String> = Vec::new();
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen
}

/// Decompressing (or copying the template of) a file an error says is missing.
fn copy_of_missing(lines: &[&str], cwd: &Path) -> Vec<String> {
    let mut fixes = Vec::new();
    for line in lines.iter().filter(|line| MISSING.is_match(line) && !NOT_WRITABLE.is_match(line)) {
        for missing in paths_in(line) {
            let path = cwd.join(&missing);
            if path.exists() || path.parent().is_some_and(|parent| parent.is_file()) {
                continue;
            }
            let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else { continue };
            let make_parent = match Path::new(&missing).parent().map(|p| p.to_string_lossy().into_owned()) {
                Some(parent) if !parent.is_empty() && !cwd.join(&parent).is_dir() => {
                    format!("mkdir -p {} && ", shell_quote(&format!("./{parent}")))
                }
                _ => String::new(),
            };
            let target = shell_quote(&format!("./{missing}"));
            // A template beside it: `app.ini.example` for `app.ini`.
            let templates: Vec<String> = ["example", "sample", "dist", "template", "default"]
                .iter()
                .map(|ending| format!("{missing}.{ending}"))
                .filter(|candidate| cwd.join(candidate).is_file())
                .collect();
            if let [template] = templates.as_slice() {
                fixes.push(format!("{make_parent}cp {} {target}", shell_quote(&format!("./{template}"))));
                continue;
            }
            let compressed = files_named(cwd, &[format!("{name}.gz"), format!("{name}.bz2"), format!("{name}.xz")]);
            if let [source] = compressed.as_slice() {
                let tool = match source.rsplit_once('.').map(|(_, e)| e) {
                    Some("gz") => "gzip",
                    Some("bz2") => "bzip2",
                    _ => "xz",
                };
                fixes.push(format!("{make_parent}{tool} -dc {} > {target}", shell_quote(&format!("./{source}"))));
            }
        }
    }
    fixes
}

/// The files under `cwd` (relative paths) whose name is one of `names`: hidden directories skipped, a bounded walk
/// (none when the bound was reached: what was not seen may hold another).
fn files_named(cwd: &Path, names: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let mut queue = vec![(cwd.to_path_buf(), 0)];
    let mut seen = 0;
    while let Some((dir, depth)) = queue.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > SEARCH_NAMES {
                return Vec::new();
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() && depth + 1 < SEARCH_DEPTH => queue.push((path, depth + 1)),
                Ok(kind) if kind.is_file() && names.contains(&name) => {
                    if let Ok(relative) = path.strip_prefix(cwd) {
                        found.push(relative.to_string_lossy().into_owned());
                    }
                }
                _ => {}
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        dir
    }

    /// Runs `fix` in `dir` with a real shell; its exit code.
    fn run(fix: &str, dir: &Path) -> i32 {
        let status = std::process::Command::new("bash").arg("-c").arg(fix).current_dir(dir).status().unwrap();
        status.code().unwrap_or(-1)
    }

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap()
    }

    #[test]
    fn a_value_not_accepted_is_replaced_by_the_nearest_accepted_one_on_its_line() {
        let dir = dir_with(&[("plugins.txt", b"# load order\nfast-fog\nsky_box\nrain\n"), ("load.py", b"")]);
        let error = "load.py: plugins.txt line 3: no plugin named 'sky_box' (have: fast-fog, rain, skybox-hd, sky-box)";
        let fix = from_error(error, dir.path(), "./load.py", &[]).unwrap();
        assert_eq!(run(&fix, dir.path()), 0, "{fix}");
        assert_eq!(read(dir.path(), "plugins.txt"), "# load order\nfast-fog\nsky-box\nrain\n");
        // The same fix is not proposed twice.
        assert_eq!(from_error(error, dir.path(), "./load.py", &[fix]), None);
    }

    #[test]
    fn only_the_whole_token_is_replaced_whatever_its_characters() {
        for (text, error, after) in [
            (
                "gren-shade = gren\n",
                "paint: theme.conf:1: unknown colour 'gren', did you mean 'green'?",
                "gren-shade = green\n",
            ),
            ("ver = 1.2.x 1.2y\n", "theme.conf: version '1.2y' unknown (known: 1.2, 1.3)", "ver = 1.2.x 1.2\n"),
            ("flag = --fsat\n", "theme.conf: option '--fsat' unknown, did you mean '--fast'?", "flag = --fast\n"),
            (
                "type = text/plian\n",
                "theme.conf: 'text/plian' (supported: text/plain, text/html)",
                "type = text/plain\n",
            ),
        ] {
            let dir = dir_with(&[("theme.conf", text.as_bytes())]);
            let fix = from_error(error, dir.path(), "paint", &[]).unwrap_or_else(|| panic!("{error}"));
            assert_eq!(run(&fix, dir.path()), 0, "{fix}");
            assert_eq!(read(dir.path(), "theme.conf"), after, "{fix}");
        }
    }

    #[test]
    fn nothing_when_the_error_leaves_a_choice_or_names_no_file_holding_the_value() {
        let dir = dir_with(&[("a.cfg", b"mode = fats\nsize = xl\n"), ("b.cfg", b"mode = fats\n")]);
        for error in [
            // Two accepted values as near: which one is not for the shell.
            "a.cfg: mode 'fats' is not valid; expected one of: fate, fat",
            // The value far from every accepted one.
            "a.cfg: mode 'fats' is not valid; valid values are slow, careful or thorough",
            // A short value one letter from another is no slip to mend unasked.
            "a.cfg: size 'xl' is not valid; expected one of: s, m, l",
            // Two files hold it and the error names neither.
            "mode 'fats' is not valid (have: fast, slow)",
            // No list of accepted values at all.
            "a.cfg: mode 'fats' is not valid",
        ] {
            assert_eq!(from_error(error, dir.path(), "./run", &[]), None, "{error}");
        }
        // A value held twice on its line: which one the error means is not known.
        let dir = dir_with(&[("c.cfg", b"pair = fats fats\n")]);
        assert_eq!(from_error("c.cfg: 'fats' unknown (have: fast)", dir.path(), "./run", &[]), None);
    }

    #[test]
    fn a_time_is_no_line_number() {
        let dir = dir_with(&[("c.conf", b"a = gren\nb = gren\n")]);
        let error = "[12:02:33] c.conf: unknown colour 'gren', did you mean 'green'?";
        assert_eq!(from_error(error, dir.path(), "./paint", &[]), None, "two lines hold it and none is named");
        let error = "c.conf:2: unknown colour 'gren', did you mean 'green'?";
        let fix = from_error(error, dir.path(), "./paint", &[]).unwrap();
        assert_eq!(run(&fix, dir.path()), 0);
        assert_eq!(read(dir.path(), "c.conf"), "a = gren\nb = green\n");
    }

    #[test]
    fn a_missing_file_is_decompressed_from_its_one_compressed_copy_or_copied_from_its_template() {
        let gzip = |text: &[u8]| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("x"), text).unwrap();
            assert_eq!(run("gzip x", dir.path()), 0);
            std::fs::read(dir.path().join("x.gz")).unwrap()
        };
        let day2 = gzip(b"id,v\n2,9\n");
        let day20 = gzip(b"id,v\n20,1\n");
        let dir = dir_with(&[
            ("inbox/day2.csv.gz", &day2),
            ("inbox/day20.csv.gz", &day20),
            ("data/day1.csv", b"x\n"),
            ("settings.ini.example", b"[a]\n"),
        ]);
        let fix = |error: &str| from_error(error, dir.path(), "./report.py", &[]);
        let made = fix("report.py: missing input file data/day2.csv").unwrap();
        assert_eq!(run(&made, dir.path()), 0, "{made}");
        assert_eq!(read(dir.path(), "data/day2.csv"), "id,v\n2,9\n");
        let made = fix("FileNotFoundError: [Errno 2] No such file or directory: 'out/day2.csv'").unwrap();
        assert_eq!(run(&made, dir.path()), 0, "{made}");
        assert_eq!(read(dir.path(), "out/day2.csv"), "id,v\n2,9\n");
        let made = fix("error: cannot open settings.ini").unwrap();
        assert_eq!(run(&made, dir.path()), 0, "{made}");
        assert_eq!(read(dir.path(), "settings.ini"), "[a]\n");
        // No copy of it, the file is there, or it is a file to write: nothing.
        assert_eq!(fix("report.py: missing input file data/day3.csv"), None);
        assert_eq!(fix("report.py: data/day1.csv not found"), None);
        assert_eq!(fix("report.py: could not open rep/day2.csv for writing"), None);
    }

    #[test]
    fn two_compressed_copies_of_the_name_are_a_choice_left_to_the_model() {
        let dir = dir_with(&[("a/day2.csv.gz", b""), ("b/day2.csv.gz", b"")]);
        assert_eq!(from_error("missing input file data/day2.csv", dir.path(), "./r", &[]), None);
    }

    #[test]
    fn distances_count_edits() {
        assert_eq!(distance("sky_box", "sky-box"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
    }
}
