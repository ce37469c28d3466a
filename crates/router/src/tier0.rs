//! Tier 0: tasks that are already shell commands go straight to the shell.

use crate::direct_commands::{self, ArgumentRule, DirectCommand};
use crate::installed::Installed;
use crate::route::{Decline, DirectRoute, Escalation, Route};
use crate::shell_syntax::{self, Token, Word};

/// Routes `task` with tier 0 alone: [`Route::Direct`] when it is a direct command, otherwise
/// [`Route::NeedsModel`] (a model tier must decide; [`crate::Router::route`] goes on from here).
///
/// Fast, and no model call: the only I/O is looking a program outside the table up on `PATH` (or a path
/// like `./build.sh` from the working directory, [`Installed::from_env`]).
///
/// ```
/// use clive_router::route;
/// assert_eq!(route("ls -la | wc -l").as_direct().unwrap().programs, ["ls", "wc"]);
/// assert_eq!(route("seq 1 5").as_direct().unwrap().programs, ["seq"]);
/// assert!(route("find the largest file").needs_model());
/// ```
pub fn route(task: &str) -> Route {
    route_with(task, &Installed::from_env())
}

/// [`route`], with the programs outside the table looked up in `installed` ([`Installed::none`]: the table
/// alone, pure).
pub fn route_with(task: &str, installed: &Installed) -> Route {
    match decide(task, installed) {
        Ok(route) => route,
        Err(declined) => Route::NeedsModel(Escalation { task: task.to_string(), declined }),
    }
}

/// Tier 0's route for `task`: a direct command, or the exact answer to an arithmetic question
/// ([`crate::arithmetic_answer`]); otherwise why tier 0 declines (the command rules' reason).
pub(crate) fn decide(task: &str, installed: &Installed) -> Result<Route, Decline> {
    match direct_route_with(task, installed) {
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
/// `timeout`, with a program from [`direct_commands::DIRECT_COMMANDS`] or an installed program
/// ([`Installed::from_env`]) that [`direct_commands::DECLINED_PROGRAMS`] does not name, and its
/// arguments must pass that program's [`ArgumentRule`] (an installed program's: [`ArgumentRule::Plain`]
/// with [`direct_commands::INSTALLED_FILLER_WORDS`] too).
pub fn direct_route(task: &str) -> Result<DirectRoute, Decline> {
    direct_route_with(task, &Installed::from_env())
}

/// [`direct_route`], with the programs outside the table looked up in `installed`.
pub fn direct_route_with(task: &str, installed: &Installed) -> Result<DirectRoute, Decline> {
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
            if first.quoted {
                return Err(Decline::UnknownCommand { word: first.text.clone() });
            }
            let stdin_is_terminal = position == 0 && !simple.redirections.iter().any(|r| r.operator.starts_with('<'));
            let output_is_piped = position + 1 < pipeline.commands.len();
            if let Some(entry) = direct_commands::lookup(program) {
                judge_arguments(entry, &rest[1..], stdin_is_terminal, output_is_piped)?;
            } else if let Some(why) = direct_commands::declined(program) {
                return Err(Decline::NotDirect { program: program.to_string(), why: why.reason().to_string() });
            } else if installed.has(&first.text) {
                judge_installed(program, &rest[1..])?;
            } else {
                return Err(Decline::UnknownCommand { word: first.text.clone() });
            }
            programs.push(program.to_string());
        }
    }
    Ok(DirectRoute { command: command.to_string(), programs, privileged })
}

fn judge_arguments(
    entry: &DirectCommand,
    args: &[Word],
    stdin_is_terminal: bool,
    output_is_piped: bool,
) -> Result<(), Decline> {
    let program = entry.name;
    match entry.rule {
        ArgumentRule::Piped if !output_is_piped => Err(Decline::NotDirect {
            program: program.to_string(),
            why: "it prints without end unless its output is piped into another command".to_string(),
        }),
        ArgumentRule::Piped => judge_plain(program, args),
        ArgumentRule::OptionFirst => match args.first() {
            Some(first) if first.quoted || first.text.starts_with('-') => judge_plain(program, args),
            _ => Err(Decline::NotDirect {
                program: program.to_string(),
                why: "its name is an English verb; it is taken with an option first (`install -m 755 a b`)".to_string(),
            }),
        },
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

/// An installed program outside the table: judged like [`ArgumentRule::Plain`] with more filler words; one
/// named like a filler word (`who wrote Hamlet`) only bare or with an option first (`who -b`).
fn judge_installed(program: &str, args: &[Word]) -> Result<(), Decline> {
    let option_first = args.first().is_none_or(|first| first.text.starts_with('-'));
    if direct_commands::is_installed_filler_word(program) && !option_first {
        return Err(Decline::NotDirect {
            program: program.to_string(),
            why: "its name is an English word, and its first argument is no option".to_string(),
        });
    }
    judge_words(program, args, direct_commands::is_installed_filler_word)
}

/// English filler words or a trailing question mark among unquoted, non-option arguments
/// make the task natural language.
fn judge_plain(program: &str, args: &[Word]) -> Result<(), Decline> {
    judge_words(program, args, direct_commands::is_filler_word)
}

/// [`judge_plain`] with the filler words `is_filler` knows.
fn judge_words(program: &str, args: &[Word], is_filler: fn(&str) -> bool) -> Result<(), Decline> {
    for arg in args {
        if arg.quoted || arg.text.starts_with('-') {
            continue;
        }
        let text = arg.text.as_str();
        let question =
            text.len() > 1 && text.ends_with('?') && text.chars().rev().nth(1).is_some_and(char::is_alphabetic);
        if question || is_filler(text) {
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
            let route = route_with(task, &Installed::none());
            assert!(route.as_direct().is_some(), "{task:?} should be direct, got {route:?}");
        }
    }

    #[test]
    fn natural_language_goes_to_a_model() {
        for task in MODEL {
            for installed in [Installed::none(), Installed::from_env()] {
                let route = route_with(task, &installed);
                assert!(route.needs_model(), "{task:?} should need a model, got {route:?}");
            }
        }
    }

    /// A directory of stand-in programs (empty scripts), on the search path of the returned [`Installed`], and
    /// a working directory holding `build.sh`.
    fn installed(programs: &[&str]) -> (Installed, tempfile::TempDir, tempfile::TempDir) {
        use std::os::unix::fs::PermissionsExt as _;
        let bin = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let paths = programs.iter().map(|p| bin.path().join(p)).chain([work.path().join("build.sh")]);
        for path in paths {
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        (Installed::with_path(bin.path(), work.path()), bin, work)
    }

    #[test]
    fn installed_programs_outside_the_table_are_direct() {
        let (installed, _bin, _work) =
            installed(&["seq", "npm", "pytest", "docker", "go", "count", "rename", "convert", "vim", "write", "who"]);
        for task in [
            "seq 1 5",
            "npm test",
            "npm run build -- --watch=false",
            "pytest -q",
            "docker ps",
            "go test ./...",
            "./build.sh",
            "./build.sh --release && npm test",
            "seq 1 100 | yes | head -3",
            "yes | head -3",
            "install -m 755 build/app /tmp/app",
            "test -f Cargo.toml",
            "npm",
            "who",
            "who -b",
        ] {
            let route = route_with(task, &installed);
            assert!(route.as_direct().is_some(), "{task:?} should be direct, got {route:?}");
        }
        assert_eq!(direct_route_with("./build.sh | seq 3", &installed).unwrap().programs, ["build.sh", "seq"]);
        for task in [
            "count the lines of x",
            "rename files to lowercase",
            "convert logo.svg to png",
            "npm test and then deploy",
            "pytest the new module",
            "vim Cargo.toml",
            "write a poem",
            "yes",
            "yes > out.txt",
            "install ripgrep",
            "test",
            "./missing.sh",
            "nosuchprogram -x",
            "'seq' 1 5",
            "who wrote Hamlet",
        ] {
            let route = route_with(task, &installed);
            assert!(route.needs_model(), "{task:?} should need a model, got {route:?}");
        }
    }

    #[test]
    fn everyday_commands_need_no_model_on_this_machine() {
        // coreutils' `seq` is installed wherever the tests run, and is not in the table.
        assert!(direct_commands::lookup("seq").is_none());
        assert_eq!(route("seq 1 5").as_direct().map(|d| d.programs.clone()), Some(vec!["seq".to_owned()]));
        assert!(route("seq the numbers from one to five").needs_model());
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
        assert!(matches!(direct_route("yes"), Err(Decline::NotDirect { program, .. }) if program == "yes"));
        assert!(matches!(direct_route("less log"), Err(Decline::NotDirect { program, .. }) if program == "less"));
        assert_eq!(direct_route("what's up"), Err(Decline::UnterminatedQuote));
    }
}
