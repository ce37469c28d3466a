//! A loop over `$(ls GLOB)` where a name the glob matches holds a blank: the loop made over the glob itself, and
//! its variable quoted in the loop's body.
//!
//! `for f in $(ls docs/*.txt)` splits `meeting notes.txt` into `meeting` and `notes.txt`, and `wc -w < $f` then
//! fails on both halves (or counts the wrong files); the script still exits 0 with a wrong total. Asked to fix such a
//! script, Qwen2.5-Coder 1.5B gave it back unchanged. `for f in docs/*.txt` keeps each name whole, and `"$f"` passes
//! it on whole. Changed only where it matters: the glob matches a name with a blank here (otherwise the loop works
//! as it is), and `ls` is given no option but `-1` (`ls -t` orders the names; the glob would not). The bash form
//! `for … in $(ls …)` is the same in a heredoc that writes a script, so heredoc bodies are fitted too.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// `for VAR in $(ls ARGS); do` (or with backquotes), the `do` on the same line or the next.
static LS_LOOP: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"^(?P<head>\s*for\s+(?P<var>[A-Za-z_]\w*)\s+in\s+)(?:\$\(\s*ls\s+(?P<a>[^()`|;&<>]+?)\s*\)|`\s*ls\s+(?P<b>[^()`|;&<>]+?)\s*`)(?P<tail>\s*(?:;\s*do\b.*)?)$",
    )
});

/// `script` with each such loop over `$(ls …)` made over its glob, its variable quoted in its body.
pub(crate) fn loops_over_names(script: &str, cwd: &Path) -> String {
    if !script.contains("ls") {
        return script.to_owned();
    }
    let mut lines: Vec<String> = script.split('\n').map(str::to_owned).collect();
    let mut changed = false;
    for at in 0..lines.len() {
        if let Some((new, var)) = loop_line(&lines[at], cwd) {
            lines[at] = new;
            changed = true;
            quote_in_body(&mut lines, at, &var);
        }
    }
    if changed { lines.join("\n") } else { script.to_owned() }
}

/// The loop's line made over its glob, and its variable; `None` where the line is no such loop or nothing it lists
/// holds a blank.
fn loop_line(line: &str, cwd: &Path) -> Option<(String, String)> {
    let found = LS_LOOP.captures(line)?;
    let args = found.name("a").or_else(|| found.name("b"))?.as_str();
    let words: Vec<&str> = args.split_whitespace().filter(|w| *w != "-1").collect();
    if words.is_empty() || words.iter().any(|w| w.starts_with('-') || w.contains(['$', '"', '\'', '\\'])) {
        return None;
    }
    if !words.iter().any(|word| matches_spaced(word, cwd)) {
        return None;
    }
    let head = &found["head"];
    let tail = found.name("tail").map_or("", |t| t.as_str());
    let (tail, body) = match tail.find("do") {
        // A loop on one line: its body, after `do`, is quoted here.
        Some(at) => {
            let (keyword, body) = tail.split_at(at + 2);
            (keyword.to_owned(), quoted_var(body, &found["var"]))
        }
        None => (tail.to_owned(), String::new()),
    };
    Some((format!("{head}{}{tail}{body}", words.join(" ")), found["var"].to_owned()))
}

/// Whether `word` (a path or a glob in its last part) names something here with a blank in its name.
fn matches_spaced(word: &str, cwd: &Path) -> bool {
    let (folder, pattern) = match word.rsplit_once('/') {
        Some((folder, pattern)) => (cwd.join(folder), pattern),
        None => (cwd.to_path_buf(), word),
    };
    // A folder named whole (`ls inbox`) lists bare names, which the loop's body joins to the folder itself: the
    // glob would not be the same loop.
    if !pattern.contains(['*', '?', '[']) {
        return false;
    }
    let Some(glob) = glob_regex(pattern) else { return false };
    any_spaced(&folder, |name| glob.is_match(name))
}

/// Whether `folder` holds an entry with a blank in its name that `wanted` accepts.
fn any_spaced(folder: &Path, wanted: impl Fn(&str) -> bool) -> bool {
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries.flatten().take(2000).any(|entry| {
            entry.file_name().to_str().is_some_and(|name| name.contains(char::is_whitespace) && wanted(name))
        })
    })
}

/// A shell glob (`*`, `?`, `[…]`) as a regular expression over a whole name.
fn glob_regex(pattern: &str) -> Option<Regex> {
    let mut out = String::from("^");
    for c in pattern.chars() {
        match c {
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' | ']' => out.push(c),
            c => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out.push('$');
    Regex::new(&out).ok()
}

/// The loop's body (the lines after `at` up to its `done`) with `$var` quoted where it stands unquoted.
fn quote_in_body(lines: &mut [String], at: usize, var: &str) {
    let head = &lines[at];
    if head.contains("done") {
        return;
    }
    let mut depth = usize::from(DO.is_match(head));
    for line in lines.iter_mut().skip(at + 1) {
        let first = line.split_whitespace().next().unwrap_or("");
        if depth == 0 {
            // `do` on the line after the loop's head.
            if first == "do" {
                depth = 1;
                *line = quoted_var(line, var);
                continue;
            }
            return;
        }
        if first.starts_with("done") {
            depth -= 1;
            if depth == 0 {
                return;
            }
        }
        if DO.is_match(line) {
            depth += 1;
        }
        *line = quoted_var(line, var);
    }
}

/// `do` ending a line or followed by a command, as a word.
static DO: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"(?:^|[;\s])do(?:\s|$)"));

/// `line` with each `$var` or `${var}` outside quotes put in double quotes.
fn quoted_var(line: &str, var: &str) -> String {
    let (plain, braced) = (format!("${var}"), format!("${{{var}}}"));
    let mut out = String::with_capacity(line.len() + 4);
    let (mut single, mut double) = (false, false);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if !single && !double {
            let taken = if rest.starts_with(&braced) {
                Some(braced.len())
            } else if rest.starts_with(&plain)
                && !rest[plain.len()..].starts_with(|n: char| n.is_ascii_alphanumeric() || n == '_')
            {
                Some(plain.len())
            } else {
                None
            };
            if let Some(len) = taken {
                out.push('"');
                out.push_str(&rest[..len]);
                out.push('"');
                rest = &rest[len..];
                continue;
            }
        }
        match c {
            '\\' if !single => {
                // An escaped character is taken whole.
                let len = rest.chars().take(2).map(char::len_utf8).sum();
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && (out.is_empty() || out.ends_with(char::is_whitespace)) => {
                out.push_str(rest);
                break;
            }
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("logs")).unwrap();
        for (name, text) in [("logs/day one.log", "a b c\n"), ("logs/two.log", "d e\n"), ("logs/plain.txt", "f\n")] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn run(script: &str, cwd: &Path) -> String {
        let out = std::process::Command::new("bash").arg("-c").arg(script).current_dir(cwd).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    #[test]
    fn a_loop_over_ls_of_names_with_blanks_goes_over_the_glob() {
        let dir = world();
        let script = "#!/bin/bash\ntotal=0\nfor f in $(ls logs/*.log); do\n  n=$(wc -w < $f)\n  total=$((total + n))\n  \
                      echo \"$f\" # seen $f\ndone\necho $total\n";
        let fitted = loops_over_names(script, dir.path());
        assert_eq!(
            fitted,
            "#!/bin/bash\ntotal=0\nfor f in logs/*.log; do\n  n=$(wc -w < \"$f\")\n  total=$((total + n))\n  echo \
             \"$f\" # seen $f\ndone\necho $total\n"
        );
        assert_eq!(run(&fitted, dir.path()).lines().last(), Some("5"));
        let backquoted = "for name in `ls -1 logs/*.log`\ndo\n  cat ${name} >> all.txt\ndone\n";
        assert_eq!(
            loops_over_names(backquoted, dir.path()),
            "for name in logs/*.log\ndo\n  cat \"${name}\" >> all.txt\ndone\n"
        );
        let one_line = "for f in $(ls logs/*.log); do wc -l $f; done";
        assert_eq!(loops_over_names(one_line, dir.path()), "for f in logs/*.log; do wc -l \"$f\"; done");
    }

    #[test]
    fn other_loops_are_left_as_they_are() {
        let dir = world();
        for script in [
            "for f in $(ls logs/*.txt); do wc -w < $f; done\n",
            "for f in $(ls -t logs/*.log); do wc -w < $f; done\n",
            "for f in $(ls logs/*.log | head -1); do wc -w < $f; done\n",
            "for f in logs/*.log; do wc -w < \"$f\"; done\n",
            "for f in $(ls logs); do wc -w < logs/$f; done\n",
            "for f in $(ls $DIR); do wc -w < $f; done\n",
        ] {
            assert_eq!(loops_over_names(script, dir.path()), script, "{script}");
        }
    }

    #[test]
    fn the_variable_is_quoted_only_where_it_stands_bare() {
        assert_eq!(quoted_var("cp $f '$f' \"$f\" $fx ${f} \\$f", "f"), "cp \"$f\" '$f' \"$f\" $fx \"${f}\" \\$f");
    }
}
