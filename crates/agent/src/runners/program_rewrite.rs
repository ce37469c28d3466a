//! A script that is the program the goal fixes, written out whole, is saved over the program.
//!
//! Asked to fix a broken program, a small model often writes the fixed program as its script: run as a script, it
//! leaves the file as broken as before, and it runs without the arguments the program is given (Qwen2.5-Coder-1.5B
//! fixed a word-count script's syntax error this way; its script printed the program's usage line). Such a script
//! (in the program's language, not naming the program, holding most of its lines) is written to the program
//! instead, and the program is then run the way the goal runs it, when the goal shows how.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use router::shell_syntax;
use tmux_habitat::{shell_quote, shell_word};

use crate::goal_spec::{GoalSpec, extension, is_program};
use crate::runners::script::{Language, Script};

/// The least share of the program's lines a script must hold to be the program written out again.
const SHARED_LINES: f64 = 0.5;

/// The script that saves `script` over the program `spec` asks to fix, when `script` is that program written out
/// whole; `None` otherwise. `cwd`: the working directory (where the program is read).
pub(crate) fn saved_as_program(goal: &str, spec: &GoalSpec, cwd: &Path, script: &Script) -> Option<Script> {
    let program = fixed_program(spec)?;
    let language = match program.rsplit_once('.').map(|(_, extension)| extension) {
        Some("sh" | "bash") => Language::Bash,
        Some("py") => Language::Python,
        _ => return None,
    };
    let base = program.rsplit('/').next().unwrap_or(program);
    if script.language != language || names(&script.text, language, base) {
        return None;
    }
    let text = std::fs::read_to_string(crate::claims::resolve(program, cwd)).ok()?;
    if !rewrites(&text, &script.text) {
        return None;
    }
    let mut saved = format!(
        "#!/bin/bash\n# The shell's repair: the script is {program} written out again, so it is saved as {program}.\n\
         cat > {} <<'CLIVE_PROGRAM_END'\n{}\nCLIVE_PROGRAM_END\n",
        shell_quote(program),
        script.text.trim_end_matches('\n')
    );
    if let Some(run) = run_line(goal, base, cwd) {
        saved.push_str(&run);
        saved.push('\n');
    }
    Some(Script { language: Language::Bash, text: saved })
}

/// The script that saves a reply's fenced block over the one data file the goal changes, where the block is tagged
/// with the file's format (```` ```yaml ```` for `deploy.yaml`, `json`, `ini`, `toml`, …) and is that file written out
/// again (half its lines or more kept): a model asked for a script to edit a config file that answered with the
/// edited file (Qwen2.5-Coder-1.5B, twice for one goal). The checks that follow judge it like any attempt (a goal that
/// says to leave the rest as it is refuses a file that changed more). `None` otherwise.
pub(crate) fn saved_as_data_file(spec: &GoalSpec, cwd: &Path, reply: &str) -> Option<Script> {
    let (tag, body) = super::script::first_fence(reply)?;
    let format = data_format(&tag.to_lowercase())?;
    let mut files = spec.changes.iter().filter(|file| data_format(&extension(file)) == Some(format));
    let file = files.next()?;
    if files.next().is_some() {
        return None;
    }
    let text = std::fs::read_to_string(crate::claims::resolve(file, cwd)).ok()?;
    if body.contains("CLIVE_FILE_END") || !rewrites(&text, &body) {
        return None;
    }
    let saved = format!(
        "#!/bin/bash\n# The shell's repair: the reply is {file} written out again, so it is saved as {file}.\n\
         cat > {} <<'CLIVE_FILE_END'\n{}\nCLIVE_FILE_END\n",
        shell_quote(file),
        body.trim_end_matches('\n')
    );
    Some(Script { language: Language::Bash, text: saved })
}

/// The data format a fence's tag or a file's extension names: one name for the tags and extensions of a format.
fn data_format(name: &str) -> Option<&'static str> {
    Some(match name {
        "yaml" | "yml" => "yaml",
        "json" => "json",
        "ini" | "cfg" | "conf" | "cnf" => "ini",
        "toml" => "toml",
        "properties" => "properties",
        "env" | "dotenv" => "env",
        _ => return None,
    })
}

/// Whether `script` (in `language`) names the program `base` where it may act on it: a script that does works on
/// the program already (`sed -i … x.sh`), and is no rewrite to save. A name only printed (a usage line,
/// `echo "usage: x.sh FILE"`) or in a comment acts on nothing.
fn names(script: &str, language: Language, base: &str) -> bool {
    match language {
        Language::Bash => shell_syntax::parse(script).commands().any(|command| {
            let (words, _) = shell_syntax::strip_prefixes(&command.words);
            let prints = words.first().is_some_and(|w| PRINTERS.contains(&shell_syntax::program_name(&w.text)));
            // A printer's own words are printed; what it writes to, and every other word, may act.
            let printed = |w: &shell_syntax::Word| prints && words.iter().any(|p| std::ptr::eq(p, w));
            command.all_words().any(|w| (!printed(w) && w.text.contains(base)) || named_inside(w, base))
        }),
        Language::Python => script.lines().map(str::trim).any(|line| {
            line.contains(base) && !line.starts_with('#') && !line.starts_with("print(") && !line.contains("usage")
        }),
    }
}

/// Whether a command substitution in `word` names `base` (`$(cat x.sh)`).
fn named_inside(word: &shell_syntax::Word, base: &str) -> bool {
    word.substitutions.iter().any(|inner| inner.contains(base))
}

/// Commands that print their words.
const PRINTERS: &[&str] = &["echo", "printf"];

/// The command that runs the program `spec` asks to fix, when `output` (a failed attempt's) points at a line of it
/// and the goal asks for that program itself to be fixed and shows how it runs: the fix-and-rerun loop then asks for
/// that line ([`crate::runners::line_fix`]) instead of another whole script. A small model asked for a corrected
/// script wrote the program out again with its bug, or ran it after a `chmod`.
pub(crate) fn line_fault(goal: &str, spec: &GoalSpec, cwd: &Path, output: &str) -> Option<String> {
    let program = fixed_program(spec)?;
    if !crate::runners::line_fix::asks_to_fix(goal, program) {
        return None;
    }
    crate::runners::line_fix::LineSite::find(output, cwd, std::slice::from_ref(program))?;
    run_line(goal, program.rsplit('/').next().unwrap_or(program), cwd)
}

/// The one program `spec` asks to fix, if it names one (and no other).
fn fixed_program(spec: &GoalSpec) -> Option<&String> {
    let mut programs = spec.changes.iter().filter(|file| is_program(file));
    let program = programs.next()?;
    programs.next().is_none().then_some(program)
}

/// A script that only runs the program a goal fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OnlyRun {
    /// The program's file, as the goal names it.
    pub(crate) file: String,
    /// The command line that runs it (its words, quoted; redirections left out), where the script stays in the
    /// working directory.
    pub(crate) command: Option<String>,
}

/// What `script` runs, when it only runs the program `spec` asks to fix: every command of the script runs it or
/// prints, and none writes a file. Asked to fix a crashing report script, Qwen2.5-Coder-1.5B ran it, and when told it
/// failed, ran it again; a failed run of such a script says so, and asks for a script that changes the program.
pub(crate) fn only_runs(spec: &GoalSpec, script: &Script) -> Option<OnlyRun> {
    let program = fixed_program(spec)?;
    if script.language != Language::Bash {
        return None;
    }
    let name = program.trim_start_matches("./");
    let (mut ran, mut moved) = (None, false);
    for command in shell_syntax::parse(&script.text).commands() {
        if command.redirections.iter().any(|r| r.writes() && r.target.as_ref().is_some_and(|t| t.text != "/dev/null"))
            || command.all_words().any(|w| !w.substitutions.is_empty())
        {
            return None;
        }
        let (found, _) = shell_syntax::strip_prefixes(&command.words);
        let words: Vec<String> = found.iter().map(|w| w.text.clone()).collect();
        if super::rerun::runs(&words, name) {
            // Typed again as the script typed it: a word the shell would expand (`$HOME`, `*.csv`, `~`), an
            // assignment before it or a wrapper's word left out would make it another command: none is given then.
            let expands = found
                .iter()
                .any(|w| w.text.contains(['$', '`']) || (!w.quoted && w.text.contains(['*', '?', '[', '~'])));
            let wrapped = found.len() != command.words.len() || !command.assignments.is_empty();
            ran =
                Some((!expands && !wrapped).then(|| words.iter().map(|w| shell_word(w)).collect::<Vec<_>>().join(" ")));
        } else if !words.first().is_some_and(|w| CHANGES_NOTHING.contains(&shell_syntax::program_name(w))) {
            return None;
        } else if words.first().is_some_and(|w| w == "cd") && words.get(1).is_none_or(|d| d != ".") {
            moved = true;
        }
    }
    ran.map(|command| OnlyRun { file: program.clone(), command: command.filter(|_| !moved) })
}

/// Commands that change no file: what a script that only runs a program may hold besides.
const CHANGES_NOTHING: &[&str] = &["echo", "printf", "cd", "set", "exit", "true", ":", "pwd", "ls"];

/// Whether `script` holds most of `program`'s lines (those with some substance: comments and short lines left out).
fn rewrites(program: &str, script: &str) -> bool {
    if script.contains("CLIVE_PROGRAM_END") {
        return false;
    }
    let substantial = |line: &&str| {
        let line = line.trim();
        line.len() >= 6 && !line.starts_with('#')
    };
    let lines: Vec<&str> = program.lines().filter(substantial).map(str::trim).collect();
    if lines.len() < 3 {
        return false;
    }
    let held: std::collections::HashSet<&str> = script.lines().map(str::trim).collect();
    let shared = lines.iter().filter(|line| held.contains(*line)).count();
    shared as f64 >= SHARED_LINES * lines.len() as f64
}

/// How the goal runs the program `base`: a command in backticks that names it, else `./base`, `bash base` or
/// `python3 base` with the words right after it that name files (`./count.sh notes.txt`) or what is in `cwd`
/// (`./count.sh notes`, a folder).
fn run_line(goal: &str, base: &str, cwd: &Path) -> Option<String> {
    if let Some(quoted) = QUOTED.captures_iter(goal).filter_map(|c| c.get(1)).find(|q| q.as_str().contains(base)) {
        return Some(quoted.as_str().trim().to_owned());
    }
    let escaped = regex::escape(base);
    let pattern = format!(r"(?:\b(?:bash|sh|python3?)\s+(?:\./)?{escaped}|(?:^|\s)\./{escaped})");
    let found = Regex::new(&pattern).ok()?.find(goal)?;
    let mut line = found.as_str().trim().to_owned();
    for raw in goal[found.end()..].split_whitespace() {
        // A word that ends the sentence keeps its full stop (or comma) out, and ends the arguments.
        let word = raw.trim_end_matches(['.', ',', ';', ':']);
        let plain = !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || "._/-".contains(c));
        if !plain || !(FILE_NAME.is_match(word) || cwd.join(word).exists()) {
            break;
        }
        line.push(' ');
        line.push_str(word);
        if raw != word {
            break;
        }
    }
    Some(line)
}

/// A word with a file's extension (`notes.txt`, `data/2024.csv`).
static FILE_NAME: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"^[\w./-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}$"));

/// A command in backticks.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"`([^`\n]{3,160})`"));

#[cfg(test)]
mod tests {
    use super::*;

    const BROKEN: &str = "#!/bin/bash\n# Print the number of lines of the file given.\nfile=$1\nif [ ! -f \"$file\" ] then\n  \
                          echo \"usage: $0 FILE\" >&2\n  exit 1\nfi\nwc -l < \"$file\"\n";
    const FIXED: &str = "#!/bin/bash\n# Print the number of lines of the file given.\nfile=$1\nif [ ! -f \"$file\" ]; then\n  \
                         echo \"usage: $0 FILE\" >&2\n  exit 1\nfi\nwc -l < \"$file\"\n";

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lines.sh"), BROKEN).unwrap();
        dir
    }

    #[test]
    fn the_program_written_out_again_is_saved_over_it_and_run_as_the_goal_runs_it() {
        let dir = world();
        let goal = "./lines.sh poem.md should print how many lines poem.md has, but it is broken. Fix lines.sh so \
                    that command works.";
        let spec = GoalSpec::parse(goal);
        let script = Script { language: Language::Bash, text: FIXED.to_owned() };
        let saved = saved_as_program(goal, &spec, dir.path(), &script).expect("a rewrite");
        assert!(saved.text.contains("cat > 'lines.sh' <<'CLIVE_PROGRAM_END'\n#!/bin/bash\n"), "{}", saved.text);
        assert!(saved.text.ends_with("CLIVE_PROGRAM_END\n./lines.sh poem.md\n"), "{}", saved.text);
        // Run, it writes the fixed program.
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(saved.text.replace("./lines.sh poem.md", "true"))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(std::fs::read_to_string(dir.path().join("lines.sh")).unwrap(), FIXED);
    }

    #[test]
    fn a_config_file_written_out_in_its_format_is_saved_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let yaml = "# crane settings\nname: crane\nreplicas: 2\nimage: crane:1.4\nport: 8080\n";
        std::fs::write(dir.path().join("crane.yaml"), yaml).unwrap();
        let spec = GoalSpec::parse("Bump the replicas in crane.yaml from 2 to 3. Leave the rest as it is.");
        let reply = format!("```yaml\n{}\n```", yaml.replace("replicas: 2", "replicas: 3"));
        let saved = saved_as_data_file(&spec, dir.path(), &reply).expect("saved");
        assert!(saved.text.contains("cat > 'crane.yaml' <<'CLIVE_FILE_END'\n# crane settings\n"), "{}", saved.text);
        assert!(saved.text.contains("replicas: 3\nimage: crane:1.4\nport: 8080\nCLIVE_FILE_END\n"), "{}", saved.text);
        // Another format's fence, a block that is not the file, a goal that changes no such file: nothing.
        assert_eq!(saved_as_data_file(&spec, dir.path(), &reply.replace("```yaml", "```json")), None);
        assert_eq!(saved_as_data_file(&spec, dir.path(), "```yaml\nreplicas: 3\n```"), None);
        let reads = GoalSpec::parse("How many replicas does crane.yaml ask for?");
        assert_eq!(saved_as_data_file(&reads, dir.path(), &reply), None);
    }

    #[test]
    fn other_scripts_are_left_as_they_are() {
        let dir = world();
        let goal = "Fix lines.sh so that `bash lines.sh poem.md` works.";
        let spec = GoalSpec::parse(goal);
        let fixed = Script { language: Language::Bash, text: FIXED.to_owned() };
        assert_eq!(run_line(goal, "lines.sh", dir.path()).as_deref(), Some("bash lines.sh poem.md"));
        // Words after the program that name what is in the directory are its arguments: a folder too.
        std::fs::create_dir(dir.path().join("poems")).unwrap();
        let folder = "./lines.sh poems should print the total, but it errors out. Fix the script.";
        assert_eq!(run_line(folder, "lines.sh", dir.path()).as_deref(), Some("./lines.sh poems"));
        let unknown = "./lines.sh should print the total of poems but fails. Fix it.";
        assert_eq!(run_line(unknown, "lines.sh", dir.path()).as_deref(), Some("./lines.sh"));
        // A script that names the program acts on it already; another language, or a script of its own, is no
        // rewrite; a goal that fixes no program has none.
        let sed = Script { language: Language::Bash, text: "#!/bin/bash\nsed -i 's/ then/; then/' lines.sh\n".into() };
        assert!(saved_as_program(goal, &spec, dir.path(), &sed).is_none());
        let python = Script { language: Language::Python, text: FIXED.to_owned() };
        assert!(saved_as_program(goal, &spec, dir.path(), &python).is_none());
        let own = Script { language: Language::Bash, text: "#!/bin/bash\nwc -l < poem.md\n".into() };
        assert!(saved_as_program(goal, &spec, dir.path(), &own).is_none());
        // A usage line or a comment naming the program acts on nothing: the rewrite is saved.
        let usage = Script {
            language: Language::Bash,
            text: FIXED.replace("usage: $0 FILE", "usage: lines.sh FILE").replace("# Print", "# lines.sh: print"),
        };
        assert!(saved_as_program(goal, &spec, dir.path(), &usage).is_some());
        for acts in [
            "cat lines.sh",
            "wc -l \"$(cat lines.sh)\"",
            "echo x > lines.sh",
            "echo \"$(sed -n 1p lines.sh)\"",
            "text=$(cat lines.sh)",
            "p=lines.sh; sed -i 's/a/b/' \"$p\"",
        ] {
            let acting = Script { language: Language::Bash, text: format!("{FIXED}{acts}\n") };
            assert!(saved_as_program(goal, &spec, dir.path(), &acting).is_none(), "{acts}");
        }
        let counting = GoalSpec::parse("How many lines does poem.md have?");
        let only = Script { language: Language::Bash, text: "#!/bin/bash\ncd . && bash lines.sh poem.md\n".into() };
        assert!(only_runs(&counting, &only).is_none(), "a goal that fixes no program");
        assert!(saved_as_program("How many lines does poem.md have?", &counting, dir.path(), &fixed).is_none());
    }

    #[test]
    fn a_script_that_only_runs_the_program_to_fix_is_told_so() {
        let goal = "Running `python3 tally.py votes.txt` crashes with a traceback. Fix tally.py so that command works.";
        let spec = GoalSpec::parse(goal);
        let bash = |text: &str| Script { language: Language::Bash, text: format!("#!/bin/bash\n{text}\n") };
        for (runs, command) in [
            ("python3 tally.py votes.txt", "python3 tally.py votes.txt"),
            ("set -e\necho running\npython3 -u ./tally.py votes.txt 2>&1", "python3 -u ./tally.py votes.txt"),
            ("cd . && python3 tally.py 'my votes.txt' > /dev/null", "python3 tally.py 'my votes.txt'"),
        ] {
            let only = only_runs(&spec, &bash(runs)).expect(runs);
            assert_eq!(only.file, "tally.py", "{runs}");
            assert_eq!(only.command.as_deref(), Some(command), "{runs}");
        }
        // Anything that may change a file is a fix (or work of its own): not only a run.
        for fixes in [
            "sed -i 's/int(/float(/' tally.py\npython3 tally.py votes.txt",
            "python3 tally.py votes.txt > out.txt",
            "echo \"$(python3 tally.py votes.txt)\"",
            "python3 other.py votes.txt",
            "awk '{print $1}' votes.txt",
            "",
        ] {
            assert_eq!(only_runs(&spec, &bash(fixes)), None, "{fixes}");
        }
        // Run from another directory, or with words the shell expands or a wrapper: no command line to run it by.
        for elsewhere in [
            "cd data && python3 ../tally.py votes.txt",
            "cd\npython3 tally.py votes.txt",
            "python3 tally.py *.txt",
            "python3 tally.py \"$HOME/votes.txt\"",
            "DEBUG=1 python3 tally.py votes.txt",
            "timeout 5 python3 tally.py votes.txt",
        ] {
            assert_eq!(only_runs(&spec, &bash(elsewhere)).map(|o| o.command), Some(None), "{elsewhere}");
        }
        let python = Script { language: Language::Python, text: "import subprocess\n".into() };
        assert_eq!(only_runs(&spec, &python), None);
    }
}
