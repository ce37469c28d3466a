//! Tier 0: tasks that are already shell commands go straight to the shell.

use crate::direct_commands::{self, ArgumentRule, DirectCommand};
use crate::route::{Decline, DirectRoute, Escalation, Route};
use crate::shell_syntax::{self, Token, Word};

/// Routes `task` with tier 0 alone: [`Route::Direct`] when it is a direct command, otherwise
/// [`Route::NeedsModel`] (a model tier must decide; [`crate::Router::route`] goes on from here).
///
/// Pure and fast: no I/O, no model call.
///
/// ```
/// use router::route;
/// assert_eq!(route("ls -la | wc -l").as_direct().unwrap().programs, ["ls", "wc"]);
/// assert!(route("find the largest file").needs_model());
/// ```
pub fn route(task: &str) -> Route {
    match decide(task) {
        Ok(route) => route,
        Err(declined) => Route::NeedsModel(Escalation { task: task.to_string(), declined }),
    }
}

/// Tier 0's route for `task`: a direct command, or the exact answer to an arithmetic question
/// ([`crate::arithmetic_answer`]); otherwise why tier 0 declines (the command rules' reason).
pub(crate) fn decide(task: &str) -> Result<Route, Decline> {
    match direct_route(task) {
        Ok(direct) => Ok(Route::Direct(direct)),
        Err(Decline::Empty) => Err(Decline::Empty),
        Err(declined) => match crate::arithmetic::arithmetic_answer(task) {
            Some(text) => Ok(Route::Answer(crate::route::Answer { text })),
            None => Err(declined),
        },
    }
}

/// The tier 0 decision alone: the direct route, or why tier 0 declines.
///
/// Rules (docs/router.md): every simple command of the line (split on `|`, `&&`, `||`, `;`,
/// `&`) must start, after `VAR=value` assignments and wrappers such as `sudo`, `env`, `nohup`,
/// `timeout`, with a program from [`direct_commands::DIRECT_COMMANDS`], and its arguments must
/// pass that program's [`ArgumentRule`].
pub fn direct_route(task: &str) -> Result<DirectRoute, Decline> {
    let command = task.trim();
    if command.is_empty() {
        return Err(Decline::Empty);
    }
    let line = shell_syntax::parse(command);
    if line.unterminated {
        return Err(Decline::UnterminatedQuote);
    }
    if line.has_parentheses || !matches!(line.tokens.first(), Some(Token::Word(_))) {
        return Err(Decline::UnsupportedSyntax);
    }
    let mut programs = Vec::new();
    let mut privileged = false;
    for pipeline in &line.pipelines {
        for (position, simple) in pipeline.commands.iter().enumerate() {
            if simple.words.is_empty() {
                // A bare assignment (`A=1`) or redirection (`> file`): plain shell.
                continue;
            }
            let (rest, prefixes) = shell_syntax::strip_prefixes(&simple.words);
            privileged |= prefixes.privileged;
            let Some(first) = rest.first() else {
                let word = prefixes.wrappers.last().cloned().unwrap_or_default();
                return Err(Decline::UnknownCommand { word });
            };
            let program = shell_syntax::program_name(&first.text);
            let entry = match direct_commands::lookup(program) {
                Some(entry) if !first.quoted => entry,
                _ => return Err(Decline::UnknownCommand { word: first.text.clone() }),
            };
            let stdin_is_terminal = position == 0 && !simple.redirections.iter().any(|r| r.operator.starts_with('<'));
            judge_arguments(entry, &rest[1..], stdin_is_terminal)?;
            programs.push(program.to_string());
        }
    }
    Ok(DirectRoute { command: command.to_string(), programs, privileged })
}

fn judge_arguments(entry: &DirectCommand, args: &[Word], stdin_is_terminal: bool) -> Result<(), Decline> {
    let program = entry.name;
    match entry.rule {
        ArgumentRule::FreeText => Ok(()),
        ArgumentRule::Plain => judge_plain(program, args),
        ArgumentRule::NeedsOperand => {
            if args.is_empty() && stdin_is_terminal {
                return Err(Decline::MissingOperand { program: program.to_string() });
            }
            judge_plain(program, args)
        }
        ArgumentRule::Subcommand => judge_plain(program, args.get(1..).unwrap_or_default()),
        ArgumentRule::FindExpression => {
            if let Some(first) = args.first() {
                let has_predicate = args.iter().any(|a| !a.quoted && a.text.starts_with('-'));
                if !has_predicate && !looks_like_path(first) {
                    return Err(Decline::NaturalLanguage { program: program.to_string(), word: first.text.clone() });
                }
            }
            judge_plain(program, args)
        }
        ArgumentRule::RequiresShortFlag(flag) => {
            let has_flag = args.iter().any(|a| {
                !a.quoted && a.text.starts_with('-') && !a.text.starts_with("--") && a.text[1..].contains(flag)
            });
            if !has_flag {
                return Err(Decline::Interactive { program: program.to_string(), needs_flag: format!("-{flag}") });
            }
            judge_plain(program, args)
        }
    }
}

/// English filler words or a trailing question mark among unquoted, non-option arguments
/// make the task natural language.
fn judge_plain(program: &str, args: &[Word]) -> Result<(), Decline> {
    for arg in args {
        if arg.quoted || arg.text.starts_with('-') {
            continue;
        }
        let text = arg.text.as_str();
        let question =
            text.len() > 1 && text.ends_with('?') && text.chars().rev().nth(1).is_some_and(char::is_alphabetic);
        if question || direct_commands::is_filler_word(text) {
            return Err(Decline::NaturalLanguage { program: program.to_string(), word: text.to_string() });
        }
    }
    Ok(())
}

fn looks_like_path(word: &Word) -> bool {
    let text = word.text.as_str();
    word.quoted || text.starts_with(['.', '/', '~', '$']) || text.contains(['/', '*'])
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIRECT: &[&str] = &[
        "ls",
        "ls -la",
        "  ls -la /tmp  ",
        "ls | wc -l",
        "ls -1 | sort | uniq -c",
        "cat Cargo.toml",
        "cat < Cargo.toml",
        "find . -name '*.rs'",
        "find src -name x",
        "find /var/log -mtime -1",
        "find",
        "sort file.txt",
        "date",
        "date +%s",
        "date -u",
        "top -b -n 1",
        "top -bn1 | head -20",
        "grep -rn TODO src",
        "grep 'the' notes.txt",
        "echo the quick brown fox",
        "printf '%s\\n' a b",
        "git status",
        "git log --oneline -5",
        "ip a",
        "ss -tlnp",
        "df -h",
        "du -sh .",
        "free -h",
        "ps aux | grep tmux",
        "uname -a",
        "whoami",
        "LANG=C ls",
        "A=1 B=2 env",
        "sudo ls /root",
        "sudo -u postgres ls",
        "cd src && ls",
        "mkdir -p build; cd build",
        "python3 -c 'print(1)'",
        "curl -s https://example.invalid | jq .",
        "wget -qO- https://example.invalid | head",
        "/usr/bin/ls -l",
        "jq '.a' x.json",
        "ls > out.txt",
        "rm -rf /",
        "which python3",
        "type ls",
        "dig example.invalid",
        "ping -c 1 localhost",
        "env | sort",
        "hostname",
        "uptime",
        "id -u",
        "pwd",
        "readlink -f x",
        "realpath .",
        "basename /a/b",
        "dirname /a/b",
        "stat Cargo.toml",
        "file /bin/ls",
        "tail -n 5 log",
        "head -3 log",
        "awk '{print $1}' f",
        "sed -n 1p f",
        "cut -d: -f1 /etc/passwd",
        "tr a-z A-Z < f",
        "printenv HOME",
        "mount",
        "node script.js",
        "perl -e 'print 1'",
        "ls -la ~/Downloads",
        "git log --oneline | head -5",
        "echo $PATH",
        "df -h /",
        "find . -type f | wc -l",
        "ps aux --sort=-%mem | head",
        "du -sh * | sort -h",
        "grep -r 'foo' .",
        "curl -I https://example.invalid",
        "kill 1234",
        "date +%Y-%m-%d",
        "uptime -p",
        "ls; pwd",
        "ls && echo done",
        "echo hello > file.txt",
        "top -b -n 1 | head -15",
        "ss -tlnp | grep 8080",
        "sudo du -sh /var/log",
        "TZ=UTC date",
        "echo",
        "du",
    ];

    const MODEL: &[&str] = &[
        "",
        "   ",
        "find the largest file",
        "find largest files",
        "what is my ip address",
        "what's using port 8080",
        "check disk usage",
        "list all rust files",
        "sort these files by size",
        "date of the last commit",
        "top",
        "top 10 largest files",
        "which files are the largest",
        "free up disk space",
        "git commit all my changes",
        "Find the largest file",
        "show me the logs",
        "cat",
        "python3",
        "node",
        "grep",
        "ls the directory",
        "ls | sort by size",
        "who am i?",
        "whoami?",
        "sudo",
        "(cd src && ls)",
        "vim Cargo.toml",
        "less log",
        ":(){ :|:& };:",
        "> out.txt",
        "please run ls",
        "type hello into the editor",
        "kill the process on port 80",
        "ip of this machine",
        "what time is it",
        "how much disk is free",
        "show running processes",
        "date of my birthday",
        "ps what is running",
        "df for the root partition",
        "cat the readme",
        "head of the log file",
        "tail the log",
    ];

    #[test]
    fn direct_commands_go_to_tier_zero() {
        for task in DIRECT {
            let route = route(task);
            assert!(route.as_direct().is_some(), "{task:?} should be direct, got {route:?}");
        }
    }

    #[test]
    fn natural_language_goes_to_a_model() {
        for task in MODEL {
            let route = route(task);
            assert!(route.needs_model(), "{task:?} should need a model, got {route:?}");
        }
    }

    #[test]
    fn direct_route_lists_programs_and_privilege() {
        let direct = direct_route(" sudo LANG=C ls | wc -l ").unwrap();
        assert_eq!(direct.command, "sudo LANG=C ls | wc -l");
        assert_eq!(direct.programs, ["ls", "wc"]);
        assert!(direct.privileged);
    }

    #[test]
    fn declines_say_why() {
        assert_eq!(
            direct_route("find the largest file"),
            Err(Decline::NaturalLanguage { program: "find".into(), word: "the".into() })
        );
        assert_eq!(direct_route("top"), Err(Decline::Interactive { program: "top".into(), needs_flag: "-b".into() }));
        assert_eq!(direct_route("cat"), Err(Decline::MissingOperand { program: "cat".into() }));
        assert_eq!(direct_route("check disk"), Err(Decline::UnknownCommand { word: "check".into() }));
        assert_eq!(direct_route("what's up"), Err(Decline::UnterminatedQuote));
    }
}
