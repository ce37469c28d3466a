//! A `sed -i` substitution whose pattern is a piece of the file copied as it stands (`s/int(row["amount"])/…/`),
//! made to match it: the pattern's special characters escaped.
//!
//! Asked to change a line of a program, small models copy the line's text into `sed -i 's/OLD/NEW/' FILE`. Where
//! the text holds `[`, `]`, `*` or `.`, sed reads a regular expression instead (`["amount"]` is one character of
//! a set), matches nothing, and exits 0: the fix is silently not made, and the same failure comes back (Qwen2.5-Coder
//! 1.5B on two programs to fix, in two batches of tasks). The pattern is taken as the text it was copied from only
//! when that cannot be a mistake: the text is in the file word for word, and the pattern, read as sed reads it,
//! matches nothing there.

use std::path::Path;

use regex::Regex;
use router::shell_syntax;

/// `script` with each such `sed -i` pattern escaped. Lines without one are kept byte for byte.
pub(crate) fn literal_seds(script: &str, cwd: &Path) -> String {
    let mut changed = false;
    let lines: Vec<String> = script
        .split('\n')
        .map(|line| match literal_line(line, cwd) {
            Some(new) => {
                changed = true;
                new
            }
            None => line.to_owned(),
        })
        .collect();
    if changed { lines.join("\n") } else { script.to_owned() }
}

/// `line` with the expression of its `sed -i` command escaped, where it needs it.
fn literal_line(line: &str, cwd: &Path) -> Option<String> {
    if !line.contains("sed") {
        return None;
    }
    let parsed = shell_syntax::parse(line);
    let mut out = line.to_owned();
    let mut changed = false;
    for command in parsed.commands() {
        let (words, _) = shell_syntax::strip_prefixes(&command.words);
        let Some((program, args)) = words.split_first() else { continue };
        if shell_syntax::program_name(&program.text) != "sed" {
            continue;
        }
        let Some(call) = SedCall::read(args) else { continue };
        let Some(literal) = call.literal(cwd) else { continue };
        // Only an expression written in single quotes is rewritten: its text is in the line as it stands.
        let (old, new) = (format!("'{}'", call.expression), format!("'{literal}'"));
        if out.matches(&old).count() == 1 {
            out = out.replace(&old, &new);
            changed = true;
        }
    }
    changed.then_some(out)
}

/// A `sed` command that edits files in place with one `s` expression.
pub(crate) struct SedCall {
    pub(crate) expression: String,
    /// `-E` / `-r`: extended regular expressions.
    extended: bool,
    pub(crate) files: Vec<String>,
}

impl SedCall {
    pub(crate) fn read(args: &[shell_syntax::Word]) -> Option<Self> {
        let (mut in_place, mut extended, mut expression, mut files) = (false, false, None, Vec::new());
        let mut words = args.iter().map(|w| w.text.as_str());
        while let Some(word) = words.next() {
            if word == "-e" || word == "--expression" {
                if expression.is_some() {
                    return None;
                }
                expression = Some(words.next()?.to_owned());
            } else if word.starts_with("--in-place") {
                in_place = true;
            } else if word == "--regexp-extended" {
                extended = true;
            } else if let Some(flags) = word.strip_prefix('-').filter(|f| !f.is_empty() && !f.starts_with('-')) {
                // `-i`, `-i.bak`, `-Ei`, `-n`: letters before an `i` are flags; after it, a backup suffix.
                let letters = flags.split('i').next().unwrap_or_default();
                in_place |= flags.contains('i');
                extended |= letters.contains(['E', 'r']);
                if letters.contains(['f', 'l']) {
                    return None;
                }
            } else if expression.is_none() {
                expression = Some(word.to_owned());
            } else {
                files.push(word.to_owned());
            }
        }
        let expression = expression?;
        (in_place && !files.is_empty()).then_some(Self { expression, extended, files })
    }

    /// The expression with its pattern made literal, when the pattern is text of a file it edits that, read as a
    /// regular expression, it does not match in any of them.
    fn literal(&self, cwd: &Path) -> Option<String> {
        let (pattern, replacement, flags) = substitution(&self.expression)?;
        let special: &[char] = if self.extended { &EXTENDED_SPECIAL } else { &BASIC_SPECIAL };
        if pattern.contains('\\') || !pattern.contains(special) {
            return None;
        }
        let texts: Vec<String> = self
            .files
            .iter()
            .filter(|file| !file.contains(['$', '*', '?', '`']))
            .filter_map(|file| std::fs::read_to_string(cwd.join(file)).ok())
            .collect();
        if texts.len() != self.files.len() || !texts.iter().any(|text| text.contains(pattern)) {
            return None;
        }
        // Read as sed reads it, the pattern matches somewhere: it may be meant as a pattern; left alone.
        if let Some(read) = as_regex(pattern, self.extended)
            && texts.iter().any(|text| read.is_match(text))
        {
            return None;
        }
        let delimiter = self.expression.chars().nth(1)?;
        let escaped: String =
            pattern.chars().flat_map(|c| if special.contains(&c) { vec!['\\', c] } else { vec![c] }).collect();
        Some(format!("s{delimiter}{escaped}{delimiter}{replacement}{delimiter}{flags}"))
    }
}

/// Characters with a meaning in a basic regular expression.
const BASIC_SPECIAL: [char; 6] = ['[', ']', '*', '.', '^', '$'];

/// Characters with a meaning in an extended regular expression.
const EXTENDED_SPECIAL: [char; 13] = ['[', ']', '*', '.', '^', '$', '(', ')', '+', '?', '{', '}', '|'];

/// The pattern, replacement and flags of an `s` expression (`s/a/b/g`, `s|a|b|`); `None` for anything else.
pub(crate) fn substitution(expression: &str) -> Option<(&str, &str, &str)> {
    let rest = expression.strip_prefix('s')?;
    let delimiter = rest.chars().next().filter(|d| !d.is_alphanumeric() && *d != '\\' && *d != '\n')?;
    let body = &rest[delimiter.len_utf8()..];
    let mut parts = Vec::new();
    let (mut start, mut escaped) = (0, false);
    for (at, c) in body.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delimiter {
            parts.push(&body[start..at]);
            start = at + c.len_utf8();
        }
    }
    let flags = &body[start..];
    match parts.as_slice() {
        [pattern, replacement] if !pattern.is_empty() && flags.chars().all(|f| f.is_ascii_alphanumeric()) => {
            Some((pattern, replacement, flags))
        }
        _ => None,
    }
}

/// `pattern` as sed would read it, as a Rust regular expression over whole lines; `None` where it does not compile.
fn as_regex(pattern: &str, extended: bool) -> Option<Regex> {
    let translated: String = if extended {
        pattern.to_owned()
    } else {
        // In a basic expression these stand for themselves.
        pattern.chars().flat_map(|c| if "(){}+?|".contains(c) { vec!['\\', c] } else { vec![c] }).collect()
    };
    Regex::new(&format!("(?m){translated}")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(script: &str, file: &str, text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(file), text).unwrap();
        literal_seds(script, dir.path())
    }

    const PROGRAM: &str = "for row in rows:\n    total += int(row[\"amount\"])\n    seen.add(row['id'])\n";

    #[test]
    fn text_copied_from_the_file_is_matched_as_text() {
        let script = "sed -i 's/int(row[\"amount\"])/float(row[\"amount\"])/g' report.py\npython3 report.py";
        assert_eq!(
            fixed(script, "report.py", PROGRAM),
            "sed -i 's/int(row\\[\"amount\"\\])/float(row[\"amount\"])/g' report.py\npython3 report.py"
        );
        // Extended syntax: its parentheses are escaped too. Another delimiter, `-e`, a backup suffix.
        let script = "sed -E -i.bak -e 's|add(row[.id.])|add(row)|' report.py";
        assert_eq!(
            fixed(script, "report.py", "seen.add(row[.id.])\n"),
            "sed -E -i.bak -e 's|add\\(row\\[\\.id\\.\\]\\)|add(row)|' report.py"
        );
        let script = "sed -Ei 's|int(row[\"amount\"])|x|' report.py && echo ok";
        assert_eq!(
            fixed(script, "report.py", PROGRAM),
            "sed -Ei 's|int\\(row\\[\"amount\"\\]\\)|x|' report.py && echo ok"
        );
    }

    #[test]
    fn a_pattern_that_matches_or_is_not_in_the_file_is_left_alone() {
        for script in [
            // Meant as a pattern: it matches.
            "sed -i 's/[0-9][0-9]*/N/g' report.py",
            "sed -i 's/row\\[.amount.\\]/r/' report.py",
            "sed -i 's/seen.add/seen.put/' report.py",
            // Not the file's text.
            "sed -i 's/int(row[\"price\"])/x/' report.py",
            // No special character: sed matches it as it is.
            "sed -i 's/total/sum/' report.py",
            // Not in place, a file from a variable, no file, double quotes.
            "sed 's/int(row[\"amount\"])/x/' report.py",
            "sed -i 's/int(row[\"amount\"])/x/' \"$f\"",
            "echo 'int(row[\"amount\"])' | sed 's/int(row[\"amount\"])/x/'",
            "sed -i \"s/int(row\\[.amount.\\])/x/\" report.py",
        ] {
            assert_eq!(fixed(script, "report.py", PROGRAM), script, "{script}");
        }
    }

    #[test]
    fn substitutions_are_read_with_their_delimiters() {
        assert_eq!(substitution("s/a/b/g"), Some(("a", "b", "g")));
        assert_eq!(substitution("s|a/b|c|"), Some(("a/b", "c", "")));
        assert_eq!(substitution("s/a\\/b/c/"), Some(("a\\/b", "c", "")));
        assert_eq!(substitution("y/ab/cd/"), None);
        assert_eq!(substitution("s/a/b"), None);
        assert_eq!(substitution("s//b/"), None);
    }
}
