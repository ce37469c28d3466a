//! A folder's contents copied or moved by its glob (`cp -r template/* newproj/`) take its hidden files too.
//!
//! `*` does not match names that start with a dot: asked to copy "everything" from a folder, a small model's
//! `cp -r template/* newproj/` left `.gitignore` and `.env` behind (Qwen2.5-Coder 1.5B). Where the folder holds such
//! files and the goal says nothing of hidden files (then the model's choice stands), that one command runs with
//! bash's `dotglob` set, in a subshell (`(shopt -s dotglob; cp -r template/* newproj/)`), so the glob is what the
//! words meant: everything in the folder; the script's other globs are as they were.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use router::shell_syntax;

use crate::runners::kind_glob::folder_glob;

/// A goal that speaks of hidden files or dotfiles itself.
static SPEAKS_OF_HIDDEN: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\bhidden\b|\bdot-?files?\b|(?:^|\s)\.\w"));

/// The line that makes `*` match hidden names.
const DOTGLOB: &str = "shopt -s dotglob";

/// `script` with its first line that copies or moves a folder's whole glob, where that folder (under `cwd`) holds
/// hidden files, run with `dotglob` in a subshell. Only a line that is that one command.
pub(crate) fn with_hidden(goal: &str, script: &str, cwd: &Path) -> String {
    if SPEAKS_OF_HIDDEN.is_match(goal) || script.contains("dotglob") || !script.contains("/*") {
        return script.to_owned();
    }
    let heredoc = crate::runners::script_fix::in_heredoc(script);
    let lines: Vec<&str> = script.split('\n').collect();
    let Some(at) = (0..lines.len()).find(|&i| !heredoc[i] && copies_hidden(lines[i], cwd)) else {
        return script.to_owned();
    };
    let line = lines[at];
    let indent = &line[..line.len() - line.trim_start().len()];
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out[at] = format!("{indent}({DOTGLOB}; {})", line.trim());
    out.join("\n")
}

/// Whether `line` copies or moves (`cp`, `mv`) a folder's whole glob, and that folder holds a hidden file.
fn copies_hidden(line: &str, cwd: &Path) -> bool {
    let parsed = shell_syntax::parse(line);
    let commands: Vec<_> = parsed.commands().collect();
    // One command on its own line: not part of a chain or a block that goes on below.
    let trimmed = line.trim_end();
    if commands.len() != 1 || trimmed.ends_with(['\\', '|', '&', '{', '(']) || trimmed.ends_with(" do") {
        return false;
    }
    commands.into_iter().any(|command| {
        let (words, _) = shell_syntax::strip_prefixes(&command.words);
        let Some((program, args)) = words.split_first() else { return false };
        if !matches!(shell_syntax::program_name(&program.text), "cp" | "mv") {
            return false;
        }
        // Not the working directory's own `*` (its `.git` is no file to copy along).
        args.iter().filter(|w| !w.quoted).filter_map(|w| folder_glob(&w.text)).filter(|f| !f.is_empty()).any(|folder| {
            let dir = cwd.join(folder);
            std::fs::read_dir(dir).is_ok_and(|entries| {
                entries.flatten().take(2000).any(|e| e.file_name().to_string_lossy().starts_with('.'))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("skeleton/src")).unwrap();
        std::fs::write(dir.path().join("skeleton/.editorconfig"), "root = true\n").unwrap();
        std::fs::write(dir.path().join("skeleton/Makefile"), "all:\n").unwrap();
        std::fs::create_dir_all(dir.path().join("plain")).unwrap();
        std::fs::write(dir.path().join("plain/a.txt"), "a\n").unwrap();
        dir
    }

    #[test]
    fn a_copy_of_a_folders_glob_takes_its_hidden_files() {
        let dir = world();
        let goal = "Copy everything from skeleton into app so app starts out with the same files.";
        assert_eq!(with_hidden(goal, "cp -r skeleton/* app/", dir.path()), "(shopt -s dotglob; cp -r skeleton/* app/)");
        assert_eq!(
            with_hidden(goal, "mkdir -p app\nif true; then\n  mv skeleton/* app/\nfi", dir.path()),
            "mkdir -p app\nif true; then\n  (shopt -s dotglob; mv skeleton/* app/)\nfi"
        );
        // A chain, or the working directory's `*`: left as it is.
        let chain = "mkdir -p app && cp -r skeleton/* app/";
        assert_eq!(with_hidden(goal, chain, dir.path()), chain);
        assert_eq!(with_hidden(goal, "cp -r * ../copy/", dir.path()), "cp -r * ../copy/");
        // Run, it copies the hidden file, and only that command globs hidden names.
        let script = with_hidden(goal, "mkdir -p app\ncp -r skeleton/* app/\nls -d skeleton/* > seen.txt", dir.path());
        let out = std::process::Command::new("bash").arg("-c").arg(&script).current_dir(dir.path()).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(dir.path().join("app/.editorconfig").is_file(), "{script}");
        let seen = std::fs::read_to_string(dir.path().join("seen.txt")).unwrap();
        assert!(!seen.contains(".editorconfig"), "{seen}");
    }

    #[test]
    fn no_hidden_files_a_goal_about_them_or_another_command_changes_nothing() {
        let dir = world();
        let goal = "Copy everything from plain into app.";
        assert_eq!(with_hidden(goal, "cp -r plain/* app/", dir.path()), "cp -r plain/* app/");
        let hidden = "Copy the files from skeleton into app, but not the hidden ones.";
        assert_eq!(with_hidden(hidden, "cp -r skeleton/* app/", dir.path()), "cp -r skeleton/* app/");
        let dotted = "Copy skeleton's files into app, .editorconfig too.";
        assert_eq!(with_hidden(dotted, "cp -r skeleton/* app/", dir.path()), "cp -r skeleton/* app/");
        let listing = "List everything in skeleton.";
        assert_eq!(with_hidden(listing, "ls skeleton/*", dir.path()), "ls skeleton/*");
        assert_eq!(with_hidden(goal, "cp -r 'skeleton/*' app/", dir.path()), "cp -r 'skeleton/*' app/");
    }
}
