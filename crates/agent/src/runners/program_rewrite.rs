//! A small model asked to fix a program often replies with the program itself, corrected (or not), as its script:
//! run as a script, it never changes the program the goal names, so the fix is lost however right it is, and the
//! error the next attempt is shown names clive's own script file instead of the program.
//!
//! So where the goal asks for a program to be fixed and the model's script is that program written out again (most
//! of the program's lines are in it, and it never names the program), the shell takes it for what it is: the new
//! text of the program. The attempt writes it over the program (staged, like every attempt: a failed one is taken
//! back) and runs the program when the goal asks for it to run, so its output and errors are the program's own.

use std::path::Path;

use tmux_habitat::shell_quote;

use crate::goal_spec::GoalSpec;
use crate::runners::script::{Language, Script};

/// The largest program looked at, in bytes.
const MAX_PROGRAM: u64 = 64 * 1024;

/// The fewest lines of code a program must have for a script to be taken for it.
const MIN_LINES: usize = 3;

/// What the heredoc that writes the program ends with: a line no program holds.
const END_MARK: &str = "CLIVE_FIXED_PROGRAM_END";

/// Whether `goal` asks for the program to run (after its fix).
pub(crate) fn goal_runs(goal: &str) -> bool {
    static RUNS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::patterns::constant(r"(?i)\b(?:run|runs|rerun|re-run|execute|start|launch)\b")
    });
    RUNS.is_match(goal)
}

/// `script` as an attempt to fix the program the goal names, when it is that program written out again: a bash
/// script that writes it over the program and runs the program if the goal says to (`goal_runs`). `None` when
/// the script is something else (it names the program, is another language, or shares too little with it).
pub(crate) fn as_program_fix(spec: &GoalSpec, cwd: &Path, script: &Script, goal_runs: bool) -> Option<Script> {
    if script.text.contains(END_MARK) {
        return None;
    }
    spec.changes.iter().find_map(|file| {
        let language = match file.rsplit_once('.').map(|(_, extension)| extension) {
            Some("sh" | "bash") => Language::Bash,
            Some("py") => Language::Python,
            _ => return None,
        };
        let name = Path::new(file).file_name()?.to_str()?;
        if language != script.language || script.text.contains(name) {
            return None;
        }
        let path = crate::claims::resolve(file, cwd);
        // `cat >` keeps the program's mode: an executable stays one.
        std::fs::metadata(&path).ok().filter(|m| m.is_file() && m.len() <= MAX_PROGRAM)?;
        let program = std::fs::read_to_string(&path).ok()?;
        if !rewrites(&program, &script.text) {
            return None;
        }
        // The program's own first line (its shebang) when the model left it out, so `./prog` still runs.
        let shebang = program.lines().next().filter(|l| l.starts_with("#!"));
        let body = script.text.trim_end();
        let text = match shebang {
            Some(shebang) if !body.starts_with("#!") => format!("{shebang}\n{body}\n"),
            _ => format!("{body}\n"),
        };
        let quoted = shell_quote(file);
        let run = if goal_runs {
            let interpreter = if language == Language::Python { "python3" } else { "bash" };
            format!("{interpreter} {quoted}\n")
        } else {
            String::new()
        };
        Some(Script {
            language: Language::Bash,
            text: format!(
                "#!/bin/bash\n# The model's script is {file} written out again: it becomes {file}.\ncat > {quoted} <<'{END_MARK}'\n{text}{END_MARK}\n{run}"
            ),
        })
    })
}

/// Whether `script` is `program` written out again: at least two thirds of the program's lines of code (trimmed,
/// not blank, not comments) are lines of the script.
fn rewrites(program: &str, script: &str) -> bool {
    let code = |text: &str| -> Vec<String> {
        text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned).collect()
    };
    let lines = code(program);
    let written: std::collections::HashSet<String> = code(script).into_iter().collect();
    let kept = lines.iter().filter(|l| written.contains(*l)).count();
    lines.len() >= MIN_LINES && kept * 3 >= lines.len() * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "#!/usr/bin/env bash\n# Packs the notes.\nset -eu\nn=0\nfor f in notes/*.txt; do\n  cp \"$f\" out/\n  n=$((n + 1))\n\necho \"packed $n\"\n";

    fn bash(text: &str) -> Script {
        Script { language: Language::Bash, text: text.to_owned() }
    }

    #[test]
    fn a_script_that_is_the_program_written_again_becomes_the_program() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pack.sh"), PROGRAM).unwrap();
        let spec = GoalSpec::parse("pack.sh stops with a syntax error. Fix it and run it.");
        let fixed =
            "set -eu\nn=0\nfor f in notes/*.txt; do\n  cp \"$f\" out/\n  n=$((n + 1))\ndone\necho \"packed $n\"\n";
        let script = as_program_fix(&spec, dir.path(), &bash(fixed), true).expect("taken for the program");
        assert_eq!(script.language, Language::Bash);
        assert!(
            script.text.contains("cat > 'pack.sh' <<'CLIVE_FIXED_PROGRAM_END'\n#!/usr/bin/env bash\nset -eu\n"),
            "{}",
            script.text
        );
        assert!(script.text.ends_with("done\necho \"packed $n\"\nCLIVE_FIXED_PROGRAM_END\nbash 'pack.sh'\n"));
        // Run in bash, it writes the program and runs it.
        std::fs::create_dir_all(dir.path().join("notes")).unwrap();
        std::fs::create_dir_all(dir.path().join("out")).unwrap();
        std::fs::write(dir.path().join("notes/a.txt"), "a").unwrap();
        let output =
            std::process::Command::new("bash").arg("-c").arg(&script.text).current_dir(dir.path()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout), "packed 1\n");
        assert!(std::fs::read_to_string(dir.path().join("pack.sh")).unwrap().contains("done\n"));
        // Not run where the goal only asks for the fix.
        let quiet = as_program_fix(&spec, dir.path(), &bash(fixed), false).unwrap();
        assert!(quiet.text.ends_with("CLIVE_FIXED_PROGRAM_END\n"));
    }

    #[test]
    fn goals_that_run_the_program_say_so() {
        assert!(goal_runs("Fix pack.sh and run it."));
        assert!(!goal_runs("Fix the syntax error in pack.sh."));
    }

    #[test]
    fn other_scripts_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pack.sh"), PROGRAM).unwrap();
        let spec = GoalSpec::parse("pack.sh stops with a syntax error. Fix it and run it.");
        for script in
            ["sed -i 's/^$/done/' pack.sh && bash pack.sh", "echo hello", "set -eu\nn=0\necho \"packed $n\"\n"]
        {
            assert_eq!(as_program_fix(&spec, dir.path(), &bash(script), true), None, "{script}");
        }
        let python = Script { language: Language::Python, text: PROGRAM.to_owned() };
        assert_eq!(as_program_fix(&spec, dir.path(), &python, true), None, "another language");
        let reading = GoalSpec::parse("How many lines does pack.sh have?");
        assert_eq!(as_program_fix(&reading, dir.path(), &bash(PROGRAM), false), None, "not a goal to fix it");
    }
}
