//! A fix made line by line, where the error points into a file the goal asks to fix.
//!
//! A traceback (`File "stock.py", line 7`) or a shell's syntax error (`deploy.sh: line 6: …`) names the line at
//! fault, or one just after it. Asked for one shell command, a small model cannot make that change: Qwen2.5-Coder
//! 1.5B answered a program's `TypeError` with `set` replies for a config file eight times, and its `sed -i` fixes of
//! program lines in two batches of tasks were wrong. Shown the file's lines around the one named, numbered, it is
//! asked for the corrected lines only (`7:     total += count`); the shell puts them in place, keeping a line's
//! indentation where the reply dropped it, and the program runs again. Only a file the goal asks to be fixed or
//! changed: a program that fails on a missing input points into its own code too, and that code is not at fault.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use tmux_habitat::shell_quote;

/// The most lines a reply may replace.
const MOST_LINES: usize = 6;

/// Lines shown before the line named (a syntax error is often noticed a few lines after its cause) and after it.
const BEFORE: usize = 8;
const AFTER: usize = 3;

/// The most bytes of a file fixed this way.
const MOST_BYTES: usize = 64 * 1024;

/// Where an error points into a file: a python traceback's frame, a shell's `FILE: line N:`, perl's `at FILE line
/// N.`, and the common `FILE:N:` (awk, node, compilers).
static POINTS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r#"File "([^"\n]+)", line (\d+)"#,
        r"(?m)^([^\s:]+): line (\d+): ",
        r"\bat (\S+) line (\d+)\.",
        r"(?m)(?:^|\s)([\w./-]+\.\w+):(\d+):",
    ]
    .iter()
    .map(|p| crate::patterns::constant(p))
    .collect()
});

/// A parser's position without a file in front of it: TOML's `(at line 3, column 16)`, JSON's `line 3 column 5 (char
/// 20)`, YAML's `line 3, column 5`. The file is the one the same output line names, or the only one to fix.
static LINE_COLUMN: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"(?i)\bline (\d+),? column \d+"));

/// A line the error points at, in a file the goal asks to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineSite {
    /// The file, relative to the working directory.
    pub(crate) file: String,
    /// The line named, from 1.
    pub(crate) line: usize,
    /// The file's text when the error was seen.
    text: String,
    /// Whether the error is about indentation (then a line's leading blanks are what changes).
    indentation: bool,
    /// Whether the error was raised as the program ran, not found in its form (python's traceback, bash's `ambiguous
    /// redirect` or `command not found`, not its parser's `syntax error near unexpected token`): the line named is
    /// where it failed, not a line after the fault.
    raised: bool,
}

impl LineSite {
    /// The last place `output` points at that is a line of one of `fixable` (files the goal asks to fix, relative
    /// to `cwd`), where that file is text and the line exists.
    pub(crate) fn find(output: &str, cwd: &Path, fixable: &[String]) -> Option<LineSite> {
        let wanted: Vec<String> = fixable.iter().map(|f| plain(f)).collect();
        let mut found: Vec<(usize, String, usize)> = POINTS
            .iter()
            .flat_map(|re| re.captures_iter(output))
            .filter_map(|c| {
                let at = c.get(0)?.start();
                let file = relative(&c[1], cwd)?;
                let line = c[2].parse::<usize>().ok()?;
                wanted.contains(&file).then_some((at, file, line))
            })
            .collect();
        let lower = output.to_lowercase();
        found.extend(LINE_COLUMN.captures_iter(output).filter_map(|c| {
            let at = c.get(0)?.start();
            let line = c[1].parse::<usize>().ok()?;
            let said = output[..at].rsplit('\n').next().unwrap_or("");
            let named = PATH_WORD
                .find_iter(said)
                .filter_map(|word| relative(word.as_str().trim_end_matches('.'), cwd))
                .find(|file| wanted.contains(file));
            // No file named: the only file to fix, where the parser's words are its format's (a JSON error from a
            // web reply says nothing of config.toml).
            let only = match wanted.as_slice() {
                [only] if parser_of(only).is_some_and(|format| lower.contains(format)) => Some(only.clone()),
                _ => None,
            };
            Some((at, named.or(only)?, line))
        }));
        found.sort_by_key(|(at, _, _)| *at);
        let (_, file, line) = found.pop()?;
        let text = std::fs::read_to_string(cwd.join(&file)).ok()?;
        // A shell that reached the end of the file looking for a closing quote or `fi` names the line after it.
        let count = text.lines().count();
        // Bash's parser stops at its first error, so one anywhere in the output is the one pointed at (its second
        // line repeats the line's text). A runtime error inside a multi-line `$( … )` names the line that closes it.
        let closes = text.lines().nth(line.saturating_sub(1)).is_some_and(|l| l.trim_start().starts_with(')'));
        let raised =
            (file.ends_with(".py") && output.contains("Traceback (most recent call last)") && !SYNTAX.is_match(output))
                || (is_shell(&file, &text) && !SHELL_SYNTAX.is_match(output) && !closes);
        (text.len() <= MOST_BYTES && line >= 1 && line <= count + 1).then(|| LineSite {
            file,
            line: line.min(count),
            text,
            indentation: lower.contains("indent"),
            raised,
        })
    }

    /// A shell script of `fixable` (relative to `cwd`) that reads a misspelled variable, with its corrected lines
    /// ([`corrected_reads`](super::misspelled::corrected_reads)): the site is the first line that reads it.
    pub(crate) fn misspelled(cwd: &Path, fixable: &[String]) -> Option<(LineSite, Vec<(usize, String)>)> {
        fixable.iter().find_map(|file| {
            let file = plain(file);
            let text = std::fs::read_to_string(cwd.join(&file)).ok()?;
            if text.len() > MOST_BYTES || !is_shell(&file, &text) {
                return None;
            }
            let lines = super::misspelled::corrected_reads(&text)?;
            let line = lines.first()?.0;
            Some((LineSite { file, line, text, indentation: false, raised: true }, lines))
        })
    }

    /// The lines around the one named, each as `N: text`.
    pub(crate) fn excerpt(&self) -> String {
        let lines: Vec<&str> = self.text.lines().collect();
        let (from, to) = self.shown();
        (from..=to).map(|n| format!("{n}: {}", lines[n - 1])).collect::<Vec<_>>().join("\n")
    }

    /// Why a model's `replaced` lines are not put in place, where one is a line it was not shown: no correction of
    /// what it was shown (a 0.5B model put a `print` over the `if __name__ == "__main__":` ten lines down, and the
    /// program then did nothing, without an error). The shell's own corrections ([`evident`](Self::evident),
    /// [`misspelled`](Self::misspelled)) may be anywhere.
    pub(crate) fn not_shown(&self, replaced: &[(usize, String)]) -> Option<String> {
        let (from, to) = self.shown();
        let count = self.text.lines().count();
        let (n, _) = replaced.iter().find(|(n, _)| (*n < from || *n > to) && (1..=count).contains(n))?;
        Some(format!("line {n} was not shown: correct one of the lines shown, {from} to {to}"))
    }

    /// The first and last line numbers [`excerpt`](Self::excerpt) shows.
    fn shown(&self) -> (usize, usize) {
        let count = self.text.lines().count();
        (self.line.saturating_sub(BEFORE).max(1), (self.line + AFTER).min(count))
    }

    /// Whether `replaced` leaves every line it names as it is (the model gave the line the error named back).
    pub(crate) fn unchanged(&self, replaced: &[(usize, String)]) -> bool {
        let lines: Vec<&str> = self.text.lines().collect();
        !replaced.is_empty()
            && replaced.iter().all(|(n, new)| lines.get(n.wrapping_sub(1)).is_some_and(|old| self.same(old, new)))
    }

    /// Whether `new` is the line `old` again: the same words, with other blanks around them only, unless the error is
    /// about indentation (a model's `    fi` for `fi` was no fix of a syntax error two lines up).
    fn same(&self, old: &str, new: &str) -> bool {
        if self.indentation { new.trim_end() == old.trim_end() } else { new.trim() == old.trim() }
    }

    /// Moves to the line before (blank ones skipped), where a line given back unchanged says the fault is not in the
    /// line named (bash names the line after a `for … do` without its `;`): what the model is told, or `None` at
    /// the file's first line.
    pub(crate) fn step_back(&mut self, given: usize) -> Option<String> {
        // A python error raised as the program ran is about the line it names (a 0.5B model, its `float(…)` of a
        // value with a thousands comma given back, was sent up the file and wrote over the loop's head).
        if self.raised {
            return None;
        }
        let lines: Vec<&str> = self.text.lines().collect();
        let before = (1..self.line.min(given.max(1))).rev().find(|&n| !lines[n - 1].trim().is_empty())?;
        let told =
            format!("line {given} is right as it is, so the fault is before it: correct line {before} or one above it");
        self.line = before;
        Some(told)
    }

    /// The file's text with `replaced` lines (number, text) put in place, or why they cannot be.
    pub(crate) fn apply(&self, replaced: &[(usize, String)]) -> Result<String, String> {
        let mut lines: Vec<String> = self.text.lines().map(str::to_owned).collect();
        if replaced.is_empty() {
            return Err(format!(
                "it held no line: reply with the corrected line of {} as {{\"line\":N,\"text\":\"…\"}}",
                self.file
            ));
        }
        if replaced.len() > MOST_LINES {
            return Err(format!("it replaces {} lines: reply with only the lines that are wrong", replaced.len()));
        }
        let mut changed = false;
        for (n, new) in replaced {
            let n = *n;
            let Some(old) = lines.get_mut(n.wrapping_sub(1)) else {
                return Err(format!("{} has no line {n}: use the numbers shown", self.file));
            };
            if !self.same(old, new) {
                // A neighbour's text put over a line (the loop's head replaced by the line under it) is no
                // correction; a short line (`fi`, `done`, `}`) may well repeat the next.
                let copied = [n.wrapping_sub(1), n + 1].into_iter().find(|&m| {
                    let original = self.text.lines().nth(m.wrapping_sub(1)).map(str::trim);
                    let rewritten = replaced.iter().any(|(k, _)| *k == m);
                    m != n && !rewritten && original == Some(new.trim()) && new.trim().len() >= 16
                });
                if let Some(m) = copied {
                    return Err(format!("it puts line {m}'s text over line {n}: correct line {n} itself"));
                }
                changed = true;
                // An error about indentation is fixed by the blanks the reply gives, none included.
                *old = if self.indentation { new.trim_end().to_owned() } else { with_indentation(old, new) };
            }
        }
        if !changed {
            return Err("its lines are the file's lines as they are: change what the error is about".into());
        }
        // Windows line ends stay as they were.
        let end = if self.text.contains("\r\n") { "\r\n" } else { "\n" };
        let mut text = lines.join(end);
        if self.text.ends_with('\n') {
            text.push_str(end);
        }
        Ok(text)
    }
}

/// A compound command's head without the `;` before its `then` or `do` (`if [ $# -ne 1 ] then`). A `#` inside a
/// word (`$#`, `${#name}`) is part of it; one that starts a word starts a comment, which ends the head.
static NO_SEMICOLON: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"^(?P<head>\s*(?:(?:if|elif|while|until)\s+[^;#\s](?:[^;#]|[^;\s|&()<>]#)*?(?:[^;#\s]|[^;\s|&()<>]#)\s+(?P<then>then)|(?:for|while|until|select)\s+[^;#\s](?:[^;#]|[^;\s|&()<>]#)*?(?:[^;#\s]|[^;\s|&()<>]#)\s+(?P<do>do)))(?P<rest>\s.*|)$",
    )
});

/// Python's error for a word read as a number: `could not convert string to float: 'score'`, `invalid literal for
/// int() with base 10: 'qty'`.
static WORD_AS_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?:could not convert string to float|invalid literal for int\(\) with base \d+): '(?P<word>[A-Za-z][A-Za-z _-]*)'",
    )
});

/// A loop over a CSV reader or a file's lines: `for row in csv.reader(f):`, `for line in f:`.
static ROW_LOOP: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"^(?P<head>\s*for\s+[\w, ()]+?\s+in\s+)(?P<rows>csv\.reader\([^()]*\)|[A-Za-z_]\w*)(?P<tail>\s*:\s*(?:#.*)?)$",
    )
});

/// Python's error for a key a dict lacks, on a line of its own: `KeyError: 'north'`.
static KEY_ERROR: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"(?m)^KeyError: "));

/// A running total kept in a dict, `totals[key] += float(amount)` (or `-=`): a number added, a call of a function that
/// makes one or a literal, so the total starts at 0 (a list or a text would start otherwise); or a name, where the
/// code sets that name from such a call (`amount = float(row[3])`).
static DICT_TOTAL: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(&format!(
        r"^(?P<indent>\s*)(?P<dict>[A-Za-z_][\w.]*)\[(?P<key>[^\[\]]+)\]\s*(?P<op>[+-])=\s*(?P<value>{NUMBER}|(?P<name>[A-Za-z_]\w*))\s*(?P<comment>#.*)?$",
    ))
});

/// A value that is a number: a call of a function that makes one, or a literal.
const NUMBER: &str = r"(?:float|int|len|round|abs|Decimal)\(.*\)|\d+(?:\.\d+)?";

/// `NAME = VALUE` at a line's start, for [`sets_a_number`]: the value, a comment aside.
static ASSIGNED_NUMBER: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(&format!(r"^(?:{NUMBER})$")));

impl LineSite {
    /// A correction the error and the file make certain, made without a call: a shell's syntax error where a line
    /// above it lacks the `;` before `then` or `do` (Qwen2.5-Coder 1.5B, shown `if [ $# -ne 1 ] then`, rewrote the
    /// line after it four times); python reading a header's word as a number in a loop over a CSV reader or a
    /// file's lines (the loop skips its first row; the 1.5B gave the failing line back); a TOML line corrected
    /// keeping its value ([`super::toml_line`]); python's `KeyError` for a running total kept in a dict
    /// (`totals[key] += float(x)` becomes `totals[key] = totals.get(key, 0) + float(x)`; Qwen2.5-Coder-0.5B gave the
    /// failing line back three times).
    pub(crate) fn evident(&self, output: &str, cwd: &Path) -> Option<Vec<(usize, String)>> {
        let lines: Vec<&str> = self.text.lines().collect();
        if self.file.ends_with(".py")
            && KEY_ERROR.is_match(output)
            && let Some(found) =
                self.line.checked_sub(1).and_then(|at| lines.get(at)).and_then(|line| DICT_TOTAL.captures(line))
            && found.name("name").is_none_or(|name| sets_a_number(&self.text, name.as_str()))
        {
            let (dict, key) = (&found["dict"], found["key"].trim());
            let comment = found.name("comment").map_or(String::new(), |c| format!("  {}", c.as_str()));
            let total = format!(
                "{}{dict}[{key}] = {dict}.get({key}, 0) {} {}{comment}",
                &found["indent"], &found["op"], &found["value"]
            );
            return Some(vec![(self.line, total)]);
        }
        // Bash's own syntax errors, not a runtime one of `expr` or `$(( ))`.
        if is_shell(&self.file, &self.text)
            && (output.contains("syntax error near unexpected token") || output.contains("unexpected end of file"))
        {
            let heredoc = crate::runners::script_fix::in_heredoc(&self.text);
            return lines.iter().take(self.line).enumerate().find_map(|(at, line)| {
                if heredoc.get(at).copied().unwrap_or(false) {
                    return None;
                }
                let found = NO_SEMICOLON.captures(line)?;
                let head = &found["head"];
                let keyword = found.name("then").or_else(|| found.name("do"))?;
                // A quote open before the keyword: it is inside a string.
                let before = &line[..keyword.start()];
                if before.matches('"').count() % 2 == 1 || before.matches('\'').count() % 2 == 1 {
                    return None;
                }
                let (cond, word) = head.split_at(keyword.start());
                Some(vec![(at + 1, format!("{}; {word}{}", cond.trim_end(), &found["rest"]))])
            });
        }
        // A TOML line that parses once a bare word is quoted or an array's commas are put in: the line named, or
        // the one above it (a parser may notice the fault where the next line starts). The file's lines up to the
        // one corrected must parse once it is corrected, and must not before: a line inside a multi-line string or
        // array is not corrected on its own. (Of several faults the `toml` crate may report a later one, so a
        // whole-file parse would not show that this one was mended.)
        if self.file.ends_with(".toml") {
            let at = self.line.min(lines.len());
            return [at, at.saturating_sub(1)].into_iter().filter(|&n| n >= 1).find_map(|n| {
                let new = super::toml_line::corrected(lines[n - 1])?;
                let head = |line: &str| {
                    let mut head: Vec<&str> = lines[..n - 1].to_vec();
                    head.push(line);
                    head.join("\n").parse::<toml::Table>().is_ok()
                };
                (!head(lines[n - 1]) && head(&new)).then(|| vec![(n, new)])
            });
        }
        // The word must be a header's: a field of the first line of a file here. A reader whose header is skipped
        // already (`next(…)`, a `DictReader`) is not at fault.
        if self.file.ends_with(".py")
            && let Some(word) = WORD_AS_NUMBER.captures(output).map(|c| c["word"].to_owned())
            && !self.text.contains("DictReader")
            && heads_a_file(cwd, &word)
        {
            let from = self.line.saturating_sub(6).max(1);
            return (from..=self.line.min(lines.len())).rev().find_map(|n| {
                let found = ROW_LOOP.captures(lines[n - 1])?;
                if lines[n.saturating_sub(4)..n - 1].iter().any(|l| l.contains("next(")) {
                    return None;
                }
                Some(vec![(n, format!("{}list({})[1:]{}", &found["head"], &found["rows"], &found["tail"]))])
            });
        }
        None
    }
}

/// Whether python `code` sets `name` to a number: `name = float(…)` (`int`, `round`, `abs`, `Decimal`, `len`) or a
/// literal number, and to nothing else.
fn sets_a_number(code: &str, name: &str) -> bool {
    let Ok(set) = Regex::new(&format!(r"(?m)^\s*{}\s*=\s*(.+?)\s*(?:#.*)?$", regex::escape(name))) else {
        return false;
    };
    let values: Vec<String> = set.captures_iter(code).map(|c| c[1].to_owned()).collect();
    !values.is_empty() && values.iter().all(|v| ASSIGNED_NUMBER.is_match(v))
}

/// Whether `word` is a field of the first line of a file here (two levels down at most): a header's name.
fn heads_a_file(cwd: &Path, word: &str) -> bool {
    crate::runners::looked::files_under(cwd, 2, 500, |path, _| {
        use std::io::{BufRead, Read};
        let Ok(file) = std::fs::File::open(path) else { return false };
        let mut first = String::new();
        if std::io::BufReader::new(file).take(4096).read_line(&mut first).is_err() {
            return false;
        }
        first.split([',', '\t', ';', '|']).any(|field| field.trim().trim_matches(['"', '\'']) == word)
    })
}

/// A python error about the code's form, not what it did when it ran.
static SYNTAX: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"\b(?:SyntaxError|IndentationError|TabError)\b"));

/// Bash's parser's errors, which it may notice lines after the fault (an arithmetic `syntax error: operand
/// expected` is a runtime one, about the line it names), and a here-document its end line never closed (named at the
/// file's end).
static SHELL_SYNTAX: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"syntax error near unexpected token|syntax error: unexpected end of file|unexpected EOF while looking for matching|here-document at line \d+ delimited by end-of-file",
    )
});

/// Whether `file` (its `text`) is a shell script: by its extension, or a `#!` line naming a shell.
fn is_shell(file: &str, text: &str) -> bool {
    file.ends_with(".sh")
        || file.ends_with(".bash")
        || text.lines().next().is_some_and(|l| l.starts_with("#!") && l.contains("sh"))
}

impl LineSite {
    /// The command that puts `written` (the file's new text, from [`LineSite::apply`]) over the file. A python
    /// file that failed as it ran (not on its form: `error`, what it printed) is replaced only if the new text still
    /// compiles: a corrected line that breaks the indentation or the syntax is not kept (Qwen2.5-Coder 1.5B's lines
    /// did both), and the parser's error, naming the file, is what the model is shown.
    pub(crate) fn put_in_place(&self, written: &Path, error: &str) -> String {
        let copy = format!("cat -- {} > {}", shell_quote(&written.display().to_string()), shell_quote(&self.file));
        if !self.file.ends_with(".py") || SYNTAX.is_match(error) {
            return copy;
        }
        format!(
            "python3 -c 'import sys; compile(open(sys.argv[1], \"rb\").read(), sys.argv[2], \"exec\")' {} {} && {copy}",
            shell_quote(&written.display().to_string()),
            shell_quote(&self.file)
        )
    }
}

/// Whether `goal` asks for `file` itself to be fixed: `fix total.py`, `repair the script`, `fix what's wrong with
/// lines.sh`, `debug the program` (not "fix whatever it complains about": then the fault is where the error says,
/// often a missing input, and the program's own code is to stay as it is).
pub(crate) fn asks_to_fix(goal: &str, file: &str) -> bool {
    let base = regex::escape(file.rsplit('/').next().unwrap_or(file));
    // "The script" or "the program" names this file only when it is a program's.
    let generic = if crate::goal_spec::is_program(file) { "|script|program|code" } else { "" };
    let pattern = format!(
        r"(?i)\b(?:fix|fixes|fixing|repair|repairs|debug|patch)\s+(?:(?:what'?s|what\s+is)\s+(?:wrong|broken)\s+(?:with|in)\s+|the\s+(?:bugs?|errors?|mistakes?)\s+in\s+)?(?:the\s+)?(?:(?:bash|shell|python|broken|buggy)\s+)?(?:`?(?:\./)?(?:[\w.-]+/)*{base}`?{generic})(?:'s\b(?P<owned>)|\W|$)"
    );
    let Ok(re) = Regex::new(&pattern) else { return false };
    // "Fix the script's config file" fixes another file, not the script.
    re.captures_iter(goal).any(|found| {
        found.name("owned").is_none()
            && found.get(0).is_some_and(|m| !super::rerun::DENIED.is_match(&goal[..m.start()]))
    })
}

/// What a reply to the line prompt holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineReply {
    /// Lines to put in place: `{"line": N, "text": …}`, or `N: text` lines (in a fenced block or not).
    Lines(Vec<(usize, String)>),
    /// A command instead (`{"command": "sed -i …"}`, or text without a numbered line): run as any fix.
    Command(String),
}

impl LineReply {
    /// Reads a reply.
    pub(crate) fn read(reply: &str) -> LineReply {
        let value: Option<serde_json::Value> = serde_json::from_str(reply.trim()).ok();
        if let Some(object) = value.as_ref().and_then(|v| v.as_object()) {
            let line = object.get("line").and_then(|l| l.as_u64().or_else(|| l.as_str()?.trim().parse().ok()));
            if let (Some(line), Some(text)) = (line, object.get("text").and_then(|t| t.as_str())) {
                return LineReply::Lines(vec![(usize::try_from(line).unwrap_or(usize::MAX), text.to_owned())]);
            }
            if object.contains_key("line") || object.contains_key("text") {
                return LineReply::Lines(Vec::new());
            }
        }
        let lines = replacement_lines(reply);
        if lines.is_empty() && value.is_none() || value.as_ref().is_some_and(|v| v.get("command").is_some()) {
            return LineReply::Command(super::rerun::fix_command(reply));
        }
        LineReply::Lines(lines)
    }
}

/// `new` with `old`'s indentation where it has none of its own (a model copying `total += x` out of an indented
/// block drops the indentation python needs).
fn with_indentation(old: &str, new: &str) -> String {
    let indent = &old[..old.len() - old.trim_start().len()];
    if new.starts_with([' ', '\t']) || indent.is_empty() || new.trim().is_empty() {
        new.trim_end().to_owned()
    } else {
        format!("{indent}{}", new.trim_end())
    }
}

/// The `N: text` lines of a reply: those of its first fenced block when it has one. The one space after the colon
/// is the format's; more is the line's own indentation.
fn replacement_lines(reply: &str) -> Vec<(usize, String)> {
    let body = match reply.split_once("```") {
        Some((_, rest)) => {
            let rest = rest.split_once('\n').map_or("", |(_, body)| body);
            rest.split("```").next().unwrap_or(rest)
        }
        None => reply,
    };
    body.lines()
        .filter_map(|line| {
            let (number, text) = line.trim_start().split_once(':')?;
            let n = number.trim().trim_start_matches(['L', 'l']).parse::<usize>().ok()?;
            Some((n, text.strip_prefix(' ').unwrap_or(text).to_owned()))
        })
        .collect()
}

/// `path` as it names a file under `cwd`, relative (`./stock.py` and `/work/x/stock.py` are `stock.py`).
fn relative(path: &str, cwd: &Path) -> Option<String> {
    let path = Path::new(path);
    let rel = if path.is_absolute() { path.strip_prefix(cwd).ok()? } else { path };
    let rel = plain(&rel.to_string_lossy());
    (!rel.is_empty() && !rel.split('/').any(|p| p == "..")).then_some(rel)
}

/// A word that may be a path, in an error line.
static PATH_WORD: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"[\w./-]+"));

/// The word a parser of `file`'s format uses in its errors (`toml`, `json`, `yaml`), by the file's extension.
fn parser_of(file: &str) -> Option<&'static str> {
    match file.rsplit_once('.')?.1 {
        "toml" => Some("toml"),
        "json" => Some("json"),
        "yaml" | "yml" => Some("yaml"),
        _ => None,
    }
}

/// A relative path without its leading `./`.
fn plain(path: &str) -> String {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    path.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STOCK: &str = "import json\n\n\ndef total(items):\n    sum_ = 0\n    for item in items:\n        count = \
                         int(item[\"count\"])\n        sum_ += qty\n    return sum_\n";

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("stock.py"), STOCK).unwrap();
        std::fs::write(
            dir.path().join("deploy.sh"),
            "#!/bin/bash\ndest=$1\necho \"copying to $dest\ncp -r site \"$dest\"\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn an_error_points_at_a_line_of_a_file_to_fix() {
        let dir = world();
        let fixable = vec!["stock.py".to_owned(), "./deploy.sh".to_owned()];
        let traceback = format!(
            "Traceback (most recent call last):\n  File \"{}/stock.py\", line 8, in total\n    sum_ += qty\nNameError: \
             name 'qty' is not defined\n",
            dir.path().display()
        );
        let site = LineSite::find(&traceback, dir.path(), &fixable).expect("a site");
        assert_eq!((site.file.as_str(), site.line), ("stock.py", 8));
        assert!(site.excerpt().starts_with("1: import json\n"), "{}", site.excerpt());
        assert!(site.excerpt().ends_with("8:         sum_ += qty\n9:     return sum_"), "{}", site.excerpt());
        let shell = "./deploy.sh: line 5: unexpected EOF while looking for matching `\"'\n";
        let site = LineSite::find(shell, dir.path(), &fixable).expect("a site");
        assert_eq!((site.file.as_str(), site.line), ("deploy.sh", 4));
        let shell = "./deploy.sh: line 4: syntax error\n";
        assert_eq!(LineSite::find(shell, dir.path(), &fixable).map(|s| s.line), Some(4));
    }

    #[test]
    fn a_parsers_line_and_column_point_into_the_file_named_or_the_only_one_to_fix() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kiln.toml"), "# kiln\nname = \"k\"\nheat = hot\n").unwrap();
        std::fs::write(dir.path().join("glaze.json"), "{\n  \"a\": 1\n  \"b\": 2\n}\n").unwrap();
        let both = ["kiln.toml".to_owned(), "glaze.json".to_owned()];
        let toml = "fire: kiln.toml is not valid TOML: Invalid value (at line 3, column 8)\n";
        let site = LineSite::find(toml, dir.path(), &both).expect("a site");
        assert_eq!((site.file.as_str(), site.line), ("kiln.toml", 3));
        let json = "fire: cannot read glaze.json: Expecting ',' delimiter: line 3 column 3 (char 14)\n";
        assert_eq!(LineSite::find(json, dir.path(), &both).map(|s| (s.file, s.line)), Some(("glaze.json".into(), 3)));
        let bare = "Expecting ',' delimiter: line 3 column 3 (char 14)\n";
        assert_eq!(LineSite::find(bare, dir.path(), &both), None, "two files, none named");
        let only = ["glaze.json".to_owned()];
        assert_eq!(LineSite::find(bare, dir.path(), &only), None, "no parser's word: maybe another input's error");
        let decoder = "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 3 column 3 (char 14)\n";
        assert_eq!(LineSite::find(decoder, dir.path(), &only).map(|s| s.line), Some(3), "the only file to fix");
        std::fs::write(dir.path().join("fire.py"), "import json\nprint(1)\nprint(2)\n").unwrap();
        assert_eq!(
            LineSite::find(decoder, dir.path(), &["fire.py".to_owned()]),
            None,
            "a program is not a parser's input"
        );
        assert_eq!(LineSite::find(decoder, dir.path(), &["kiln.toml".to_owned()]), None, "JSON's error, a TOML file");
        let dotted = "fire: ./kiln.toml. Invalid value (at line 3, column 8)\n";
        assert_eq!(LineSite::find(dotted, dir.path(), &both).map(|s| s.line), Some(3), "a path and a full stop");
        let absolute = format!("fire: {}/kiln.toml: Invalid value (at line 3, column 8)\n", dir.path().display());
        assert_eq!(LineSite::find(&absolute, dir.path(), &both).map(|s| s.line), Some(3), "an absolute path");
        let longer = "old-kiln.toml.bak: Invalid value (at line 3, column 8)\n";
        assert_eq!(LineSite::find(longer, dir.path(), &both), None, "another file's name");
    }

    #[test]
    fn a_file_the_goal_does_not_fix_or_a_line_it_lacks_is_no_site() {
        let dir = world();
        let traceback = "  File \"stock.py\", line 8, in total\nNameError: name 'qty' is not defined\n";
        assert_eq!(LineSite::find(traceback, dir.path(), &["deploy.sh".to_owned()]), None);
        let past = "  File \"stock.py\", line 80, in total\n";
        assert_eq!(LineSite::find(past, dir.path(), &["stock.py".to_owned()]), None);
        let outside = "  File \"/usr/lib/python3/json/__init__.py\", line 8, in loads\n";
        assert_eq!(LineSite::find(outside, dir.path(), &["stock.py".to_owned()]), None);
    }

    #[test]
    fn a_goal_that_asks_for_the_file_itself_to_be_fixed_is_told_apart() {
        for goal in [
            "`python3 stock.py` crashes. Fix stock.py so it works.",
            "./deploy.sh site fails with a syntax error. Fix the script so that command works.",
            "Repair the broken program bin/stock.py.",
            "Fix what's wrong with stock.py, then run it.",
            "Debug the code in stock.py until it prints the total.",
        ] {
            assert!(asks_to_fix(goal, "stock.py") || asks_to_fix(goal, "deploy.sh"), "{goal}");
        }
        for goal in [
            "Run python3 stock.py and fix whatever it complains about until it works.",
            "Run ./stock.py; if it fails, fix what it complains about and run it again.",
            "./stock.py fails: fix the script's config file so it works.",
            "Fix the config so that stock.py starts.",
            "Fix stock.json so that stock.py reads it.",
            "Don't fix the script; run ./stock.py as it is.",
            "The report must show the correct code for stock.py.",
        ] {
            assert!(!asks_to_fix(goal, "stock.py"), "{goal}");
        }
    }

    #[test]
    fn an_evident_correction_needs_no_call() {
        let dir = tempfile::tempdir().unwrap();
        let sh = "#!/bin/bash\nif [ -z \"$1\" ] then\n  echo usage\nfi\nfor f in a b do echo $f; done\n";
        std::fs::write(dir.path().join("tidy.sh"), sh).unwrap();
        let site = |output: &str, file: &str| LineSite::find(output, dir.path(), &[file.to_owned()]).unwrap();
        let error = "./tidy.sh: line 4: syntax error near unexpected token `fi'\n";
        assert_eq!(
            site(error, "tidy.sh").evident(error, dir.path()),
            Some(vec![(2, "if [ -z \"$1\" ]; then".to_owned())])
        );
        let error = "./tidy.sh: line 5: syntax error near unexpected token `echo'\n";
        let fixed =
            site("./tidy.sh: line 4: x\n", "tidy.sh").evident("syntax error near unexpected token `fi'", dir.path());
        assert_eq!(fixed, Some(vec![(2, "if [ -z \"$1\" ]; then".to_owned())]), "the first such line");
        std::fs::write(dir.path().join("tidy.sh"), sh.replace("] then", "]; then")).unwrap();
        assert_eq!(
            site(error, "tidy.sh").evident(error, dir.path()),
            Some(vec![(5, "for f in a b; do echo $f; done".to_owned())])
        );
        assert_eq!(
            site(error, "tidy.sh").evident("./tidy.sh: line 5: x: command not found", dir.path()),
            None,
            "no syntax error"
        );
        // `$#` is a word of the condition, not a comment (Qwen2.5-Coder-0.5B, not given this, rewrote the `fi`).
        std::fs::write(dir.path().join("count.sh"), "#!/bin/bash\nif [ $# -ne 1 ] then\n  exit 2\nfi\n").unwrap();
        let error = "./count.sh: line 4: syntax error near unexpected token `fi'\n";
        assert_eq!(
            site(error, "count.sh").evident(error, dir.path()),
            Some(vec![(2, "if [ $# -ne 1 ]; then".to_owned())])
        );
        // A `then` in a comment, after a blank or a `)`.
        for head in ["if [ x ] # then", "if (true)#c then"] {
            std::fs::write(dir.path().join("note.sh"), format!("{head}\n  :\nfi\n")).unwrap();
            let note = site("./note.sh: line 3: syntax error", "note.sh");
            assert_eq!(note.evident("syntax error near unexpected token `fi'", dir.path()), None, "{head}");
        }
        std::fs::write(dir.path().join("say.sh"), "echo \"if so then\"\nif [ x ]; then :; fi\n").unwrap();
        assert_eq!(
            site("say.sh: line 2: syntax error", "say.sh")
                .evident("syntax error near unexpected token `fi'", dir.path()),
            None,
            "in a string"
        );
        // A header's word read as a number in a loop over rows.
        let py = "import csv\n\ntotal = 0\nwith open('t.csv') as f:\n    for row in csv.reader(f):\n        total += \
                  float(row[1])\nprint(total)\n";
        std::fs::write(dir.path().join("sum.py"), py).unwrap();
        std::fs::write(dir.path().join("t.csv"), "item,price\nnut,2\n").unwrap();
        let error = "  File \"sum.py\", line 6, in <module>\nValueError: could not convert string to float: 'price'\n";
        assert_eq!(
            site(error, "sum.py").evident(error, dir.path()),
            Some(vec![(5, "    for row in list(csv.reader(f))[1:]:".to_owned())])
        );
        let number = "  File \"sum.py\", line 6, in <module>\nValueError: could not convert string to float: '4,5'\n";
        assert_eq!(site(number, "sum.py").evident(number, dir.path()), None, "not a word");
        let data = "  File \"sum.py\", line 6, in <module>\nValueError: could not convert string to float: 'TBD'\n";
        assert_eq!(site(data, "sum.py").evident(data, dir.path()), None, "a value, not a header's word");
        let skipped = py.replace("    for row", "    next(f)\n    for row");
        std::fs::write(dir.path().join("sum.py"), skipped).unwrap();
        let error = "  File \"sum.py\", line 7, in <module>\nValueError: could not convert string to float: 'price'\n";
        assert_eq!(site(error, "sum.py").evident(error, dir.path()), None, "the header skipped already");
        // A running total in a dict whose key is new: it starts at 0.
        let py = "import csv, sys\n\nby_kind = {}\nfor kind, n in csv.reader(open(sys.argv[1])):\n    by_kind[kind] += \
                  int(n)  # add\nprint(by_kind)\n";
        std::fs::write(dir.path().join("tally.py"), py).unwrap();
        let error = "  File \"tally.py\", line 5, in <module>\n    by_kind[kind] += int(n)\nKeyError: 'kind'\n";
        assert_eq!(
            site(error, "tally.py").evident(error, dir.path()),
            Some(vec![(5, "    by_kind[kind] = by_kind.get(kind, 0) + int(n)  # add".to_owned())])
        );
        let other = "  File \"tally.py\", line 5, in <module>\nTypeError: unsupported operand\n";
        assert_eq!(site(other, "tally.py").evident(other, dir.path()), None, "no KeyError");
        std::fs::write(dir.path().join("tally.py"), py.replace("int(n)", "[n]")).unwrap();
        assert_eq!(site(error, "tally.py").evident(error, dir.path()), None, "a list added: not a number's total");
        // A name added, which the code sets from a number.
        let named = "import csv, sys\n\nby_kind = {}\nfor kind, n in csv.reader(open(sys.argv[1])):\n    k = int(n)\n    \
                     by_kind[kind] += k\nprint(by_kind)\n";
        std::fs::write(dir.path().join("tally.py"), named).unwrap();
        let error = "  File \"tally.py\", line 6, in <module>\n    by_kind[kind] += k\nKeyError: 'kind'\n";
        assert_eq!(
            site(error, "tally.py").evident(error, dir.path()),
            Some(vec![(6, "    by_kind[kind] = by_kind.get(kind, 0) + k".to_owned())])
        );
        std::fs::write(dir.path().join("tally.py"), named.replace("k = int(n)", "k = [n]")).unwrap();
        assert_eq!(site(error, "tally.py").evident(error, dir.path()), None, "a name set to a list");
        // A `then` in a comment is no head without its `;`.
        std::fs::write(dir.path().join("c.sh"), "if [ -f x ]; then  # load it, then go on\n  . x\nfi\nfi\n").unwrap();
        let error = "./c.sh: line 4: syntax error near unexpected token `fi'";
        assert_eq!(site(error, "c.sh").evident(error, dir.path()), None);
    }

    #[test]
    fn a_toml_line_is_corrected_where_the_parser_points_or_just_above() {
        let dir = tempfile::tempdir().unwrap();
        let toml = "# kiln\nname = \"k\"\nheat = hot\n\n[glaze]\ncolours = [\"red\" \"blue\"]\nlayers = 2\n";
        std::fs::write(dir.path().join("kiln.toml"), toml).unwrap();
        let evident = |error: &str| {
            let site = LineSite::find(error, dir.path(), &["kiln.toml".to_owned()]).expect("a site");
            site.evident(error, dir.path())
        };
        let error = "kiln.toml: Expected newline or end of document after a statement (at line 3, column 11)";
        assert_eq!(evident(error), Some(vec![(3, "heat = \"hot\"".to_owned())]));
        let error = "kiln.toml: Unclosed array (at line 6, column 20)";
        assert_eq!(evident(error), None, "a fault further up: the lines above do not parse");
        std::fs::write(dir.path().join("kiln.toml"), toml.replace("= hot", "= \"hot\"")).unwrap();
        assert_eq!(evident(error), Some(vec![(6, "colours = [\"red\", \"blue\"]".to_owned())]));
        let error = "kiln.toml: Invalid key (at line 7, column 1)";
        assert_eq!(evident(error), Some(vec![(6, "colours = [\"red\", \"blue\"]".to_owned())]), "the line above");
        let error = "kiln.toml: Invalid value (at line 2, column 8)";
        assert_eq!(evident(error), None, "lines that parse are left to the model");
        // A line inside a multi-line string is not corrected on its own.
        std::fs::write(dir.path().join("kiln.toml"), "note = \"\"\"\nheat = hot\n\"\"\"\nheat = hot\n").unwrap();
        assert_eq!(evident("kiln.toml: Invalid value (at line 2, column 8)"), None);
        assert_eq!(
            evident("kiln.toml: Invalid value (at line 4, column 8)"),
            Some(vec![(4, "heat = \"hot\"".to_owned())])
        );
    }

    #[test]
    fn a_python_line_that_breaks_the_syntax_is_not_put_in_place() {
        let dir = world();
        let error = "  File \"stock.py\", line 8, in total\nNameError: name 'qty' is not defined\n";
        let site = LineSite::find(error, dir.path(), &["stock.py".to_owned()]).unwrap();
        let put = |reply: &str, error: &str| {
            let LineReply::Lines(lines) = LineReply::read(reply) else { panic!("{reply}") };
            let written = dir.path().join("new.txt");
            std::fs::write(&written, site.apply(&lines).unwrap()).unwrap();
            let command = site.put_in_place(&written, error);
            let gate = router::safety::check(&command, router::safety::GatePolicy { allow_destructive: false });
            assert!(matches!(gate, Ok(router::safety::GateDecision::Clear)), "{command}: {gate:?}");
            let out = std::process::Command::new("bash").arg("-c").arg(&command).current_dir(dir.path()).output();
            let out = out.unwrap();
            (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
        };
        let (kept, said) = put("8: sum_ += count)", error);
        assert!(!kept && said.contains("stock.py") && said.contains("SyntaxError"), "{said}");
        assert_eq!(std::fs::read_to_string(dir.path().join("stock.py")).unwrap(), STOCK, "left as it was");
        assert!(put("8: sum_ += count", error).0);
        assert!(std::fs::read_to_string(dir.path().join("stock.py")).unwrap().contains("sum_ += count\n"));
        // A file that did not parse before may need more than one line: each is put in place as it comes.
        let (kept, _) = put("8: sum_ += (count", "SyntaxError: invalid syntax\n");
        assert!(kept);
    }

    #[test]
    fn a_reply_puts_its_lines_in_place_keeping_the_indentation() {
        let dir = world();
        let site = LineSite::find("  File \"stock.py\", line 8\n", dir.path(), &["stock.py".to_owned()]).unwrap();
        let fixed = STOCK.replace("sum_ += qty", "sum_ += count");
        let apply = |reply: &str| match LineReply::read(reply) {
            LineReply::Lines(lines) => site.apply(&lines),
            LineReply::Command(command) => Err(format!("a command: {command}")),
        };
        for reply in [
            r#"{"line": 8, "text": "        sum_ += count"}"#,
            r#"{"line": "8", "text": "sum_ += count"}"#,
            "```text\n8:         sum_ += count\n```",
            "8: sum_ += count",
            "```python\n8: sum_ += count\n```\nThis uses the count.",
            "L8: sum_ += count",
        ] {
            assert_eq!(apply(reply).as_deref(), Ok(fixed.as_str()), "{reply}");
        }
        assert!(apply(r#"{"line": 8}"#).unwrap_err().contains("held no line"));
        assert!(apply("8:         sum_ += qty").unwrap_err().contains("as they are"));
        assert!(apply("80: x = 1").unwrap_err().contains("has no line 80"));
        let long = format!("{STOCK}\n\n\n\nprint(total([]))\n");
        std::fs::write(dir.path().join("stock.py"), &long).unwrap();
        let far = LineSite::find("  File \"stock.py\", line 8\n", dir.path(), &["stock.py".to_owned()]).unwrap();
        assert_eq!(
            far.not_shown(&[(14, "print(1)".into())]).as_deref(),
            Some("line 14 was not shown: correct one of the lines shown, 1 to 11")
        );
        assert_eq!(far.not_shown(&[(9, "    return 0".into())]), None);
        std::fs::write(dir.path().join("stock.py"), STOCK).unwrap();
        // Windows line ends stay; an error about indentation takes the reply's blanks as they are.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("w.py"), "x = 1\r\n    y = 2\r\n").unwrap();
        let indent = "  File \"w.py\", line 2\n    y = 2\nIndentationError: unexpected indent\n";
        let crlf = LineSite::find(indent, dir.path(), &["w.py".to_owned()]).unwrap();
        assert_eq!(crlf.apply(&[(2, "y = 2".into())]).as_deref(), Ok("x = 1\r\ny = 2\r\n"));
        // The line given back as it was: the fault is before it.
        let mut site = site.clone();
        assert!(site.unchanged(&[(8, "sum_ += qty".into())]));
        assert!(site.unchanged(&[(8, "  sum_ += qty".into())]), "blanks moved only: no fix of a name");
        assert!(!site.unchanged(&[(8, "sum_ += count".into())]));
        assert!(
            site.step_back(8).unwrap().contains("line 8 is right as it is, so the fault is before it: correct line 7")
        );
        assert_eq!(site.line, 7);
        assert!(
            site.excerpt()
                .ends_with("7:         count = int(item[\"count\"])\n8:         sum_ += qty\n9:     return sum_")
        );
        // A python error raised as the program ran is about the line it names: no step back.
        let raised =
            "Traceback (most recent call last):\n  File \"stock.py\", line 8, in total\nNameError: name 'qty'\n";
        let stock = world();
        let mut at_run = LineSite::find(raised, stock.path(), &["stock.py".to_owned()]).unwrap();
        assert_eq!(at_run.step_back(8), None);
        assert_eq!(at_run.line, 8);
        // So is bash's, where its parser found nothing wrong (a 1.5B model, its unquoted `$f` given back, was sent up
        // the file and wrote over `total=0`); its parser's errors may be noticed lines late.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("wc.sh"), "#!/bin/bash\ntotal=0\nfor f in d/*; do\n  n=$(wc -w < $f)\ndone\n")
            .unwrap();
        let wc = |output: &str| LineSite::find(output, dir.path(), &["wc.sh".to_owned()]).unwrap();
        let mut at_run = wc("./wc.sh: line 4: $f: ambiguous redirect\ntotal: 0\n");
        assert_eq!(at_run.step_back(4), None);
        // A `$( … )` over lines: bash names the line that closes it.
        std::fs::write(dir.path().join("wc.sh"), "#!/bin/bash\nn=$(\n  nosuch x\n)\necho $n\n").unwrap();
        let mut closing = wc("./wc.sh: line 4: nosuch: command not found\n");
        assert!(closing.step_back(4).is_some());
        std::fs::write(dir.path().join("wc.sh"), "#!/bin/bash\ntotal=0\nfor f in d/*; do\n  n=$(wc -w < $f)\ndone\n")
            .unwrap();
        let mut parsed = wc("./wc.sh: line 5: syntax error near unexpected token `done'\n./wc.sh: line 5: `done'\n");
        assert_eq!(
            parsed.step_back(5),
            Some("line 5 is right as it is, so the fault is before it: correct line 4 or one above it".into())
        );
        // A neighbour's text put over the line is no correction; two lines swapped are.
        assert_eq!(
            site.apply(&[(8, "        count = int(item[\"count\"])".into())]),
            Err("it puts line 7's text over line 8: correct line 8 itself".into())
        );
        let swapped = [(7, "        sum_ += qty".to_owned()), (8, "        count = int(item[\"count\"])".to_owned())];
        assert!(site.apply(&swapped).is_ok());
        // A command is run as any fix.
        assert_eq!(
            apply(r#"{"command": "sed -i 's/qty/count/' stock.py"}"#),
            Err("a command: sed -i 's/qty/count/' stock.py".into())
        );
        assert_eq!(apply("sed -i 's/qty/count/' stock.py"), Err("a command: sed -i 's/qty/count/' stock.py".into()));
    }
}
