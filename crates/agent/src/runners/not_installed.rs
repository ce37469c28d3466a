//! A program a failed script ran that is not installed here, named in what the next attempt is told.
//!
//! A script that calls a program this machine lacks (`rename`, `jq`, `sponge`) fails with `rename: command not
//! found`, or, run through `find -exec` or `xargs`, `find: 'rename': No such file or directory`, which reads like a
//! missing file. Told only that, Qwen2.5-Coder 1.5B wrote the same script again. The next attempt is told that the
//! program is not installed here, so that it does the work with other commands.

use std::sync::LazyLock;

use regex::Regex;
use router::Installed;

/// `rename: command not found` (bash, with its `line N:` before it), and a program that `find -exec`, `xargs` and
/// the like could not start: `find: ‘rename’: No such file or directory`.
static NOT_FOUND: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?m)(?:^|:\s)(?P<a>[\w.+-]+): command not found|\b(?:find|xargs|env|nohup|timeout|nice|exec|sudo): [‘'"`]?(?P<b>[\w.+-]+)[’'"`]?: No such file or directory"#,
    )
});

/// The programs `output` says could not be started that `script` names and that are not installed here.
pub(crate) fn missing_programs(output: &str, script: &str) -> Vec<String> {
    let installed = Installed::from_env();
    let mut found: Vec<String> = Vec::new();
    for caught in NOT_FOUND.captures_iter(output) {
        let (name, started_by) = match (caught.name("a"), caught.name("b")) {
            (Some(name), _) => (name.as_str(), false),
            (None, Some(name)) => (name.as_str(), true),
            (None, None) => continue,
        };
        // Through `find -exec` or `xargs`, the name must be what they start: `find: ‘notes’: …` is a missing folder.
        let named = if started_by {
            Regex::new(&format!(
                r"(?:-exec|-execdir|-ok|\bxargs(?:\s+-\S+)*|\benv|\bnohup|\btimeout\s+\S+|\bnice|\bexec|\bsudo)\s+{}\b",
                regex::escape(name)
            ))
            .is_ok_and(|starts| starts.is_match(script))
        } else {
            script.split(|c: char| !(c.is_alphanumeric() || "._+-".contains(c))).any(|word| word == name)
        };
        if named && !installed.has(name) && !found.iter().any(|f| f == name) {
            found.push(name.to_owned());
        }
    }
    found
}

/// `how` a script failed, with the programs it needs that are not installed named.
pub(crate) fn told(how: &str, output: &str, script: &str) -> String {
    match missing_programs(output, script).as_slice() {
        [] => how.to_owned(),
        [one] => format!("{how}; `{one}` is not installed here: do it with other commands"),
        many => {
            let names: Vec<String> = many.iter().map(|m| format!("`{m}`")).collect();
            format!("{how}; {} are not installed here: do it with other commands", names.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "find notes -name '*.txt' -exec surely-no-renamer 's/x/y/' {} \\;\nsurely-no-jq . a.json";

    #[test]
    fn a_program_that_is_not_installed_is_named() {
        let output = "find: ‘surely-no-renamer’: No such file or directory\nfind: ‘surely-no-renamer’: No such file \
                      or directory\nscript.sh: line 2: surely-no-jq: command not found\n";
        assert_eq!(missing_programs(output, SCRIPT), ["surely-no-renamer", "surely-no-jq"]);
        assert_eq!(
            told("exit code 127", "bash: surely-no-jq: command not found", SCRIPT),
            "exit code 127; `surely-no-jq` is not installed here: do it with other commands"
        );
    }

    #[test]
    fn a_missing_file_or_an_installed_program_is_not_named() {
        // A file the script reads, not a program; a program that is there; a name the script does not use.
        for output in [
            "cat: notes.txt: No such file or directory",
            "find: ‘notes’: No such file or directory",
            "find: ‘sh’: No such file or directory",
            "bash: other-thing: command not found",
        ] {
            let script = "cat notes.txt; find notes -exec sh {} \\;";
            assert!(missing_programs(output, script).is_empty(), "{output}");
        }
        assert_eq!(told("exit code 1", "all fine", SCRIPT), "exit code 1");
    }
}
