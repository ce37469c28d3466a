//! Script mode's refusal of full-screen and interactive programs.
//!
//! A script runs unattended: a program that takes over the screen (`vim`, `less`, `top`) or waits at a prompt
//! (`python3` with no script) would sit there until the deadline. [`find_full_screen`] finds such a program
//! in a shell script before it runs, with the reason and what to use instead. Interactive mode may drive the
//! same programs on purpose, with keys; this check is for scripts only.

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;
use router::shell_syntax::{self, SimpleCommand, Word};

/// A full-screen or interactive program found in a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullScreen {
    /// The program as named in the script (its basename).
    pub program: String,
    /// The command it appeared in, as written.
    pub command: String,
    /// Why it cannot run in a script, and what to do instead.
    pub reason: String,
}

impl fmt::Display for FullScreen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` cannot run in a script: {} (in `{}`)", self.program, self.reason, self.command)
    }
}

/// When a program is a problem in a script.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// Always (unless it only prints help or its version).
    Always,
    /// A pager: unless its output goes to a pipe or a file (then it copies its input through).
    Pager,
    /// Unless one of these arguments is given (a word equal to it, or for `-b`-style flags a cluster with it).
    Unless(&'static [&'static str]),
    /// A prompt: unless it gets a script or command argument or its input is redirected.
    Prompt { max_operands: usize },
}

const EDIT: &str = "it is a full-screen editor; write files with `cat > f <<'EOF'`, `printf` or `sed -i`";
const PAGE: &str = "it is a pager waiting for keys; print the text, or cut it with `head`/`tail`/`grep`";
const MONITOR: &str = "it redraws the screen until stopped; take one sample (`ps`, `top -b -n 1`, `free`)";
const BROWSE: &str = "it is a full-screen browser; print pages with `-dump` (`lynx -dump -nolist URL`)";
const TUI: &str = "it is a full-screen program waiting for keys; use its command-line form";
const PROMPT: &str = "without a script or command it waits at a prompt; pass one (`-c '…'`, a file, or a query)";

/// The programs script mode refuses, and when.
const PROGRAMS: &[(&str, Rule, &str)] = &[
    ("vi", Rule::Always, EDIT),
    ("vim", Rule::Always, EDIT),
    ("nvim", Rule::Always, EDIT),
    ("view", Rule::Always, EDIT),
    ("vimdiff", Rule::Always, EDIT),
    ("emacs", Rule::Unless(&["--batch", "-batch", "--script"]), EDIT),
    ("nano", Rule::Always, EDIT),
    ("pico", Rule::Always, EDIT),
    ("micro", Rule::Always, EDIT),
    ("joe", Rule::Always, EDIT),
    ("mcedit", Rule::Always, EDIT),
    ("less", Rule::Pager, PAGE),
    ("more", Rule::Pager, PAGE),
    ("most", Rule::Pager, PAGE),
    ("top", Rule::Unless(&["-b"]), MONITOR),
    ("iotop", Rule::Unless(&["-b", "--batch"]), MONITOR),
    ("htop", Rule::Always, MONITOR),
    ("btop", Rule::Always, MONITOR),
    ("atop", Rule::Always, MONITOR),
    ("watch", Rule::Always, MONITOR),
    ("ncdu", Rule::Unless(&["-o"]), TUI),
    ("lynx", Rule::Unless(&["-dump", "-source", "-head", "-crawl", "-traversal", "-listonly"]), BROWSE),
    ("w3m", Rule::Unless(&["-dump", "-dump_source", "-dump_head", "-dump_extra"]), BROWSE),
    ("links", Rule::Unless(&["-dump", "-source"]), BROWSE),
    ("elinks", Rule::Unless(&["-dump", "-source"]), BROWSE),
    ("mc", Rule::Always, TUI),
    ("ranger", Rule::Always, TUI),
    ("nnn", Rule::Always, TUI),
    ("tig", Rule::Always, TUI),
    ("lazygit", Rule::Always, TUI),
    ("gitui", Rule::Always, TUI),
    ("mutt", Rule::Unless(&["-s", "-Q", "-D"]), TUI),
    ("neomutt", Rule::Unless(&["-s", "-Q", "-D"]), TUI),
    ("nmtui", Rule::Always, TUI),
    ("screen", Rule::Unless(&["-ls", "-list", "-dm", "-d", "-X"]), TUI),
    ("python", Rule::Prompt { max_operands: 0 }, PROMPT),
    ("python3", Rule::Prompt { max_operands: 0 }, PROMPT),
    ("ipython", Rule::Prompt { max_operands: 0 }, PROMPT),
    ("node", Rule::Prompt { max_operands: 0 }, PROMPT),
    ("irb", Rule::Prompt { max_operands: 0 }, PROMPT),
    ("sqlite3", Rule::Prompt { max_operands: 1 }, PROMPT),
];

/// Arguments after which any program only prints and exits.
const ONLY_PRINTS: &[&str] = &["--help", "-h", "--version", "-V", "-version"];

/// Options of the prompt programs that take a value (so the value is not an operand).
const PROMPT_OPTIONS_WITH_VALUE: &[&str] = &["-W", "-X", "-cmd", "-separator", "-newline", "--require", "-r"];

/// Finds the first full-screen or interactive program a shell script would run, looking into command
/// substitutions too. Python scripts (a `#!…python` first line) are not shell and are not checked.
pub fn find_full_screen(script: &str) -> Option<FullScreen> {
    if script.lines().next().is_some_and(|first| first.starts_with("#!") && first.contains("python")) {
        return None;
    }
    check_shell(&without_heredoc_bodies(script), 0)
}

fn check_shell(text: &str, depth: usize) -> Option<FullScreen> {
    let line = shell_syntax::parse(text);
    for pipeline in &line.pipelines {
        let count = pipeline.commands.len();
        for (index, command) in pipeline.commands.iter().enumerate() {
            let stdin_redirected = index > 0 || command.redirections.iter().any(|r| r.operator.contains('<'));
            let stdout_redirected = index + 1 < count || command.redirections.iter().any(writes_stdout);
            if let Some(found) = check_command(command, stdin_redirected, stdout_redirected) {
                return Some(found);
            }
            if depth < 4 {
                let inner = command.all_words().flat_map(|w| w.substitutions.iter());
                if let Some(found) = inner.into_iter().find_map(|s| check_shell(s, depth + 1)) {
                    return Some(found);
                }
            }
        }
    }
    None
}

fn writes_stdout(redirection: &shell_syntax::Redirection) -> bool {
    matches!(redirection.operator.as_str(), ">" | ">>" | ">|" | "1>" | "1>>" | "&>" | "&>>")
}

fn check_command(command: &SimpleCommand, stdin_redirected: bool, stdout_redirected: bool) -> Option<FullScreen> {
    let (words, _) = shell_syntax::strip_prefixes(&command.words);
    let first = words.first()?;
    let program = shell_syntax::program_name(&first.text);
    let (_, rule, reason) = PROGRAMS.iter().find(|(name, _, _)| *name == program)?;
    let args = &words[1..];
    if args.iter().any(|w| ONLY_PRINTS.contains(&w.text.as_str())) {
        return None;
    }
    let refused = match rule {
        Rule::Always => true,
        Rule::Pager => !stdout_redirected,
        Rule::Unless(flags) => !args.iter().any(|w| has_flag(w, flags)),
        Rule::Prompt { max_operands } => !stdin_redirected && operands(args) <= *max_operands,
    };
    refused.then(|| FullScreen {
        program: program.to_owned(),
        command: command.display(),
        reason: (*reason).to_owned(),
    })
}

/// Whether `word` is one of `flags`, or `-b`-style flags clustered with others (`-bn1` holds `-b`).
fn has_flag(word: &Word, flags: &[&str]) -> bool {
    let text = word.text.as_str();
    flags.iter().any(|flag| {
        text == *flag
            || text.starts_with(&format!("{flag}="))
            || (flag.len() == 2
                && !text.starts_with("--")
                && text.starts_with('-')
                && text[1..].chars().take_while(char::is_ascii_alphabetic).any(|c| flag.ends_with(c)))
    })
}

/// Counts operands: words that are not options (nor an option's value); `-c`/`-e`/`-m` bring a command.
fn operands(args: &[Word]) -> usize {
    let mut count = 0;
    let mut skip_next = false;
    for word in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        match word.text.as_str() {
            "-c" | "-e" | "-m" | "-" | "--eval" | "--print" | "-p" => return usize::MAX,
            option if PROMPT_OPTIONS_WITH_VALUE.contains(&option) => skip_next = true,
            option if option.starts_with('-') => {}
            _ => count += 1,
        }
    }
    count
}

static HEREDOC: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::unwrap_used, reason = "a constant pattern, tested")]
    Regex::new(r#"(?:^|[^<])<<(-?)\s*(?:'([^']+)'|"([^"]+)"|\\?([A-Za-z_][A-Za-z0-9_]*))"#).unwrap()
});

/// The script with the bodies of its here-documents blanked: their lines are data, not commands.
fn without_heredoc_bodies(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut pending: Vec<(String, bool)> = Vec::new();
    for line in script.lines() {
        if let Some((delimiter, strip_tabs)) = pending.first() {
            let candidate = if *strip_tabs { line.trim_start_matches('\t') } else { line };
            if candidate == delimiter {
                pending.remove(0);
            }
            out.push('\n');
            continue;
        }
        for captures in HEREDOC.captures_iter(line) {
            let delimiter = captures.get(2).or(captures.get(3)).or(captures.get(4));
            if let Some(delimiter) = delimiter {
                pending.push((delimiter.as_str().to_owned(), captures.get(1).is_some_and(|m| !m.is_empty())));
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(script: &str) -> Option<String> {
        find_full_screen(script).map(|f| f.program)
    }

    #[test]
    fn full_screen_programs_are_refused_with_a_reason() {
        let found = find_full_screen("set -euo pipefail\ncd src\nvim main.rs\n").unwrap();
        assert_eq!(found.program, "vim");
        assert!(found.to_string().contains("cat > f <<'EOF'"), "{found}");
        assert_eq!(refused("sudo -u bob nano /etc/hosts"), Some("nano".into()));
        assert_eq!(refused("git log | less"), Some("less".into()));
        assert_eq!(refused("top"), Some("top".into()));
        assert_eq!(refused("htop -d 5"), Some("htop".into()));
        assert_eq!(refused("lynx http://example.org"), Some("lynx".into()));
        assert_eq!(refused("echo \"$(vim x)\""), Some("vim".into()));
        assert_eq!(refused("if true; then watch date; fi"), Some("watch".into()));
        assert_eq!(refused("python3"), Some("python3".into()));
        assert_eq!(refused("sqlite3 db.sqlite"), Some("sqlite3".into()));
        assert_eq!(refused("/usr/bin/less -R notes.txt"), Some("less".into()));
    }

    #[test]
    fn the_same_programs_in_their_printing_forms_pass() {
        for script in [
            "top -b -n 1 | head -n 20",
            "top -bn1",
            "lynx -dump -nolist http://example.org",
            "w3m -dump http://example.org",
            "git log | less | head -n 5",
            "less notes.txt > copy.txt",
            "vim --version",
            "emacs --batch -l x.el",
            "python3 script.py",
            "python3 -c 'print(1)'",
            "python3 - <<'EOF'\nimport sys\nEOF",
            "echo 'print(2)' | python3",
            "sqlite3 db.sqlite 'select 1;'",
            "sqlite3 -header -column db.sqlite 'select 1;'",
            "echo vim less top",
            "grep -n less notes.txt",
            "cat > notes.md <<'EOF'\nvim is an editor\nless\nEOF\necho done",
            "cat <<-END\n\tless is more\n\tEND\nls",
            "# vim is not run here\nls",
        ] {
            assert_eq!(refused(script), None, "{script}");
        }
    }

    #[test]
    fn python_scripts_are_not_shell() {
        assert_eq!(refused("#!/usr/bin/env python3\nimport os\nos.system('true')\nless = 1\n"), None);
    }

    #[test]
    fn a_heredoc_does_not_hide_what_follows_it() {
        assert_eq!(refused("cat > f <<EOF\nx\nEOF\nless f"), Some("less".into()));
        assert_eq!(refused("cat <<< 'here string'\nvi f"), Some("vi".into()));
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_judged_without_panicking(text in "\\PC{0,200}") {
            let _ = find_full_screen(&text);
        }
    }
}
