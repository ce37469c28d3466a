//! Whether a command line a model wrote is a command at all: prose must never be typed into a shell.

use crate::direct_commands::{ArgumentRule, is_filler_word, lookup};
use crate::shell_syntax;

/// Why `command` reads as prose rather than a command line, if it does: it starts like a sentence
/// (`Use wc -l to count`), two or more English filler words stand unquoted among its words (`find the largest
/// file`; one is a file name as often as not: `wc -l a`), or a quote is left open.
pub(crate) fn prose_reason(command: &str) -> Option<String> {
    let first = command.split_whitespace().next()?;
    let mut chars = first.chars();
    let sentence_like = chars.next().is_some_and(char::is_uppercase)
        && first.chars().count() > 1
        && chars.all(|c| c.is_lowercase() || ",:".contains(c));
    if sentence_like {
        return Some(format!("it starts like a sentence (`{first}`)"));
    }
    let line = shell_syntax::parse(command);
    if line.unterminated {
        return Some("a quote is left open".to_owned());
    }
    let fillers: Vec<&str> = line
        .commands()
        .flat_map(|simple| {
            let (words, _) = shell_syntax::strip_prefixes(&simple.words);
            // What `echo` and `printf` print is text, not the command's arguments.
            let program = words.first().map(|w| shell_syntax::program_name(&w.text));
            let free_text = program.and_then(lookup).is_some_and(|entry| entry.rule == ArgumentRule::FreeText);
            if free_text { &[] } else { words }
        })
        .filter(|word| !word.quoted && !word.text.starts_with('-') && is_filler_word(&word.text))
        .map(|word| word.text.as_str())
        .collect();
    if fillers.len() >= 2 {
        return Some(format!("English words among its arguments (`{}`)", fillers.join("`, `")));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_told_from_commands() {
        for prose in [
            "Use wc -l /etc/passwd",
            "To count the lines, run wc",
            "find the largest file",
            "echo 'unterminated",
            "Run: ls",
        ] {
            assert!(prose_reason(prose).is_some(), "{prose}");
        }
        for command in [
            "wc -l /etc/passwd",
            "ls -l | sort -nr | head -n 1",
            "docker ps --format '{{.Names}}'",
            "LANG=C sort data.txt",
            "git log --oneline -3",
            "echo the answer is 4",
            "R -e 'print(1)'",
            "wc -l a > n.txt",
            "grep -rn 'the end' .",
        ] {
            assert_eq!(prose_reason(command), None, "{command}");
        }
    }
}
