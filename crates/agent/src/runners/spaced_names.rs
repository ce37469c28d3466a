//! A path with spaces that a script writes unquoted (`for f in old photos/*.png`): quoted where it stands.
//!
//! Names with spaces are the trap of shell scripting that small models fall into most: bash splits `old
//! photos/*.png` into `old` and `photos/*.png`, and the script fails (`mv: cannot stat 'old'`) or, worse, works on
//! the wrong files. Asked for a corrected script, Qwen2.5-Coder 1.5B gave the same one back. The fix is certain only
//! when the words are a name that exists: a file or folder in the working directory (or one level down) whose name
//! holds a space, written unquoted in a command, at the start of a word, and ending where the word or a path
//! component ends. It is then quoted as one word (`"old photos"/*.png`: the glob after it still expands). Text in
//! quotes, escaped spaces and heredoc bodies (python code, a program's input) are left alone.

use std::path::Path;

use crate::runners::script_fix::in_heredoc;

/// How many entries of the working directory (and of each folder in it) are looked at for names with spaces.
const MOST_ENTRIES: usize = 500;

/// `script` with each unquoted occurrence of an existing path with spaces quoted. Other lines are kept byte for byte.
pub(crate) fn quoted_spaced_names(script: &str, cwd: &Path) -> String {
    if !script.contains(' ') {
        return script.to_owned();
    }
    let mut names = spaced_names(cwd);
    if names.is_empty() {
        return script.to_owned();
    }
    // The longest first: `old photos/best of` before `old photos`.
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    let heredoc = in_heredoc(script);
    // Quotes open at a line's end stay open on the next (a string over several lines).
    let mut open = (false, false);
    let lines: Vec<String> = script
        .split('\n')
        .enumerate()
        .map(|(i, line)| if heredoc[i] { line.to_owned() } else { quoted_line(line, &names, &mut open) })
        .collect();
    lines.join("\n")
}

/// Relative paths under `cwd`, one or two levels deep, that hold a space and can be written in double quotes as they
/// are.
fn spaced_names(cwd: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let Ok(entries) = std::fs::read_dir(cwd) else { return names };
    for entry in entries.flatten().take(MOST_ENTRIES) {
        let Ok(name) = entry.file_name().into_string() else { continue };
        let spaced = name.contains(' ');
        if spaced {
            names.push(name.clone());
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) && !name.starts_with('.') {
            let Ok(inner) = std::fs::read_dir(entry.path()) else { continue };
            for child in inner.flatten().take(MOST_ENTRIES) {
                let Ok(child) = child.file_name().into_string() else { continue };
                if spaced || child.contains(' ') {
                    names.push(format!("{name}/{child}"));
                }
            }
        }
    }
    names.retain(|name| quotable(name));
    names
}

/// A name double quotes keep as it is: no `"`, `$`, `` ` ``, `\` or `!`, and no run of spaces or a space at an end
/// (a model writing it unquoted would not have kept those).
fn quotable(name: &str) -> bool {
    !name.contains(['"', '$', '`', '\\', '!', '\t', '\n'])
        && !name.contains("  ")
        && !name.starts_with(' ')
        && !name.ends_with(' ')
}

/// `line` with each unquoted occurrence of one of `names` quoted; `open`: the single and double quotes open where it
/// starts, and where it ends.
fn quoted_line(line: &str, names: &[String], open: &mut (bool, bool)) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len() + 4);
    let ((mut single, mut double), mut at) = (*open, 0);
    while at < bytes.len() {
        let c = bytes[at];
        if !single
            && !double
            && starts_word(bytes, at)
            && let Some(name) = names.iter().find(|name| ends_name(line, at, name))
        {
            out.push('"');
            out.push_str(name);
            out.push('"');
            at += name.len();
            continue;
        }
        match c {
            b'\\' if !single => {
                // An escaped character is taken as it is, with its backslash.
                let next = line[at + 1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&line[at..at + 1 + next]);
                at += 1 + next;
                continue;
            }
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            _ => {}
        }
        let width = line[at..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&line[at..at + width]);
        at += width;
    }
    *open = (single, double);
    out
}

/// Whether a word starts at byte `at`: the line's start, after a blank or an operator, or after a word's `./`.
fn starts_word(bytes: &[u8], at: usize) -> bool {
    let after_blank =
        |i: usize| i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b';' | b'|' | b'&' | b'(' | b'<' | b'>' | b'=');
    after_blank(at) || at >= 2 && &bytes[at - 2..at] == b"./" && after_blank(at - 2)
}

/// Whether `name` is written at byte `at` of `line` and ends there as a word or a path component does.
fn ends_name(line: &str, at: usize, name: &str) -> bool {
    line[at..].starts_with(name)
        && line[at + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| matches!(c, '/' | ' ' | '\t' | ';' | '|' | '&' | ')' | '<' | '>' | '*'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(script: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("old photos/best of")).unwrap();
        std::fs::write(dir.path().join("old photos/cat one.png"), "").unwrap();
        std::fs::write(dir.path().join("tax return 2023.pdf"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("plain")).unwrap();
        std::fs::write(dir.path().join("plain/a b.txt"), "").unwrap();
        quoted_spaced_names(script, dir.path())
    }

    #[test]
    fn an_unquoted_name_that_exists_is_quoted_where_it_stands() {
        for (before, after) in [
            ("for f in old photos/*.png; do mv \"$f\" x; done", "for f in \"old photos\"/*.png; do mv \"$f\" x; done"),
            ("ls old photos", "ls \"old photos\""),
            ("cp tax return 2023.pdf archive/", "cp \"tax return 2023.pdf\" archive/"),
            ("cd old photos/best of && ls", "cd \"old photos/best of\" && ls"),
            ("wc -c < plain/a b.txt", "wc -c < \"plain/a b.txt\""),
            ("find ./old photos -name '*.png'", "find ./\"old photos\" -name '*.png'"),
            ("mv old photos/cat one.png out.png", "mv \"old photos/cat one.png\" out.png"),
        ] {
            assert_eq!(fixed(before), after, "{before}");
        }
    }

    #[test]
    fn quoted_escaped_and_other_words_are_left_alone() {
        for kept in [
            "for f in \"old photos\"/*.png; do echo \"$f\"; done",
            "ls 'old photos'",
            "ls old\\ photos",
            "ls bold photos",
            "ls old photosets",
            "grep -c 'old photos' notes.txt",
            "python3 - <<'EOF'\nprint(open('x').read())\nfor f in old photos: pass\nEOF",
            "echo \"moving\nold photos to archive\"",
        ] {
            assert_eq!(fixed(kept), kept, "{kept}");
        }
    }

    #[test]
    fn a_directory_without_names_with_spaces_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        assert_eq!(quoted_spaced_names("ls old photos", dir.path()), "ls old photos");
    }
}
