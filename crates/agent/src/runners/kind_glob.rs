//! A glob narrowed to the kind of file the goal names: `chmod +x tools/*` for "make every .sh file in tools/
//! executable" is `chmod +x tools/*.sh`.
//!
//! Told to act on the files of one kind in a folder ("every .sh file", "all the .log files") and to leave the rest
//! alone, Qwen2.5-Coder 1.5B wrote `chmod +x DIR/*` (twice, in two batches of tasks): every other file in the folder
//! changed too. Where the goal names exactly one extension that way, a command that changes files (not one that only
//! reads them) given the folder's whole glob `DIR/*` gets the extension's glob instead; where the goal also says the
//! folder's subfolders count ("subfolders too", "recursively"), it runs on each such file under the folder, by
//! `find DIR -type f -name '*.EXT' -exec … {} +`. A command that takes the files into an archive or another folder
//! (`tar`, `zip`, `cp`, `mv`: "pack all the .log files from logs/ into logs.tar.gz", where the 1.5B wrote
//! `tar -czvf logs.tar.gz logs/*`) is narrowed within the folder only.

use std::sync::LazyLock;

use regex::Regex;
use router::shell_syntax;

/// "every .sh file", "all the .log files", "each .tmp file", "the .bak files", ".csv files": the extension.
static KIND: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)(?:^|[\s(])\.([a-z0-9]{1,6})\s+(?:files?|scripts?|documents?|logs?|images?|photos?|archives?)\b",
    )
});

/// An extension named on its own: `.sh`, `(.log`, not the one of `notes.txt`.
static EXTENSION: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)(?:^|[\s(,/*])\.([a-z0-9]{1,6})\b"));

/// Words before a mention of subfolders that keep them out.
static NEGATED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:not|no|leave|leaving|without|except|excluding|skip|skipping|ignore|ignoring|only)\b|n't\b",
    )
});

/// Words before the kind that leave it out.
static EXCEPT: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:except|excluding|exclude|skip|skipping|ignore|ignoring|omit|omitting|but\s+not|other\s+than|apart\s+from|besides|not|no|without|keep|leave)\b",
    )
});

/// Words after the kind that leave it out.
static LEFT_OUT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:must\s+not|mustn't|should\s+not|shouldn't|must\s+stay|should\s+stay|stay|are\s+not|aren't|not\s+to\s+be|never)\b",
    )
});

/// Words that take in a folder's subfolders.
static RECURSIVE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:sub-?folders?|sub-?directories|subdirs?|recursive(?:ly)?|nested|at\s+any\s+depth|all\s+levels)\b",
    )
});

/// Commands that change the files they are given, every operand a file (so `find … -exec` can take them).
const CHANGES_EACH: &[&str] = &["chmod", "chown", "chgrp", "rm", "gzip", "bzip2", "xz", "touch", "dos2unix"];

/// Commands that take the files they are given into something else (an archive, another folder), with other
/// operands beside them: narrowed within the folder only, never by `find … -exec`.
const TAKES_EACH: &[&str] = &["tar", "zip", "cp", "mv"];

/// `script` with a folder's whole glob narrowed to the one kind of file `goal` names (see the module).
pub(crate) fn kind_globs(goal: &str, script: &str) -> String {
    // Every extension the goal names on its own (`.sh`, not `notes.txt`): one, named as a kind of file.
    let named: std::collections::BTreeSet<String> =
        EXTENSION.captures_iter(goal).map(|c| c[1].to_ascii_lowercase()).collect();
    let named: Vec<String> = named.into_iter().collect();
    let [kind] = named.as_slice() else { return script.to_owned() };
    // The extension as the goal writes it (`.JPG` files are not `*.jpg`).
    let Some(found) = KIND.captures_iter(goal).find(|c| c[1].eq_ignore_ascii_case(kind)) else {
        return script.to_owned();
    };
    // "Everything except the .pdf files": the kind is what is left out.
    let start = found.get(0).map_or(0, |m| m.start());
    if EXCEPT.is_match(crate::text::last_chars(&goal[..start], 30)) {
        return script.to_owned();
    }
    // "The .env files in it must not be packed": the kind is what stays out.
    let end = found.get(0).map_or(0, |m| m.end());
    let after: String = goal[end..].chars().take(40).collect();
    if LEFT_OUT_AFTER.is_match(&after) {
        return script.to_owned();
    }
    let kind = found[1].to_owned();
    let kind = &kind;
    // "Subfolders too", not "leave its subfolders alone" or "not in subdirectories".
    let recursive = RECURSIVE.find_iter(goal).any(|found| {
        let before = crate::text::last_chars(&goal[..found.start()], 40);
        let after: String = goal[found.end()..].chars().take(20).collect();
        !NEGATED.is_match(before) && !after.to_lowercase().contains("alone")
    });
    let heredoc = crate::runners::script_fix::in_heredoc(script);
    let lines: Vec<String> = script
        .split('\n')
        .enumerate()
        .map(|(i, line)| if heredoc[i] { line.to_owned() } else { narrowed(goal, line, kind, recursive) })
        .collect();
    lines.join("\n")
}

/// `line` narrowed where it is one command that changes files and is given one folder's whole glob.
fn narrowed(goal: &str, line: &str, kind: &str, recursive: bool) -> String {
    let parsed = shell_syntax::parse(line);
    let commands: Vec<_> = parsed.commands().collect();
    let [command] = commands.as_slice() else { return line.to_owned() };
    let (words, _) = shell_syntax::strip_prefixes(&command.words);
    let Some((program, args)) = words.split_first() else { return line.to_owned() };
    let name = shell_syntax::program_name(&program.text);
    let takes = TAKES_EACH.contains(&name);
    if !(CHANGES_EACH.contains(&name) || takes) || !command.redirections.is_empty() {
        return line.to_owned();
    }
    // `zip site.zip site/*` for "a .zip archive": the kind is what the command makes, not what it takes.
    if takes && args.iter().any(|w| w.text.to_ascii_lowercase().ends_with(&format!(".{}", kind.to_ascii_lowercase()))) {
        return line.to_owned();
    }
    let globs: Vec<&shell_syntax::Word> = args.iter().filter(|w| !w.quoted && folder_glob(&w.text).is_some()).collect();
    let [glob] = globs.as_slice() else { return line.to_owned() };
    let Some(folder) = folder_glob(&glob.text) else { return line.to_owned() };
    // Only a folder the goal names (`bin/`), or the working directory's `*` in a goal that names none.
    let named = if folder.is_empty() {
        !goal.contains('/')
    } else {
        // A command that takes files elsewhere only where the goal says the kind of that folder in one clause.
        names_folder(goal, folder, kind) || (!takes && only_folder(goal, folder))
    };
    if !named {
        return line.to_owned();
    }
    // The glob as the line writes it: replaced once, where it stands as its own word.
    let Some(at) = word_at(line, &glob.text) else { return line.to_owned() };
    if recursive && takes {
        return line.to_owned();
    }
    if recursive && !args.iter().any(|w| w.text == "-R" || w.text == "-r" || w.text.starts_with("--recursive")) {
        let options: Vec<&str> = args.iter().filter(|w| !std::ptr::eq(*w, *glob)).map(|w| w.text.as_str()).collect();
        if options.iter().any(|o| !o.starts_with(['-', '+']) && !o.chars().all(|c| c.is_ascii_digit() || c == ',')) {
            // Another operand (`chown alice tools/*`): left as it is, not guessed at.
            return line.to_owned();
        }
        let mut run = vec![name.to_owned()];
        run.extend(options.iter().map(|o| tmux_habitat::shell_word(o)));
        let find = format!(
            "find {} -type f -name '*.{kind}' -exec {} {{}} +",
            tmux_habitat::shell_word(if folder.is_empty() { "." } else { folder }),
            run.join(" ")
        );
        let start = &line[..line.len() - line.trim_start().len()];
        return format!("{start}{find}");
    }
    format!("{}{}.{kind}{}", &line[..at], glob.text, &line[at + glob.text.len()..])
}

/// Whether `goal` names `folder` as a word of its own (`bin`, `bin/`, `./bin`) in the clause that names the kind
/// (`every .sh file in bin/`, `in bin/, every .sh file`; not `the .log files in build/ and … tmp/`).
fn names_folder(goal: &str, folder: &str, kind: &str) -> bool {
    let folder = folder.trim_start_matches("./");
    let Ok(mention) = Regex::new(&format!(r"(?:^|[\s'`\x22(])(?:\./)?{}(?:/|\b)", regex::escape(folder))) else {
        return false;
    };
    let kinds: Vec<(usize, usize)> = KIND
        .captures_iter(goal)
        .filter(|c| &c[1] == kind)
        .filter_map(|c| c.get(0))
        .map(|m| (m.start(), m.end()))
        .collect();
    mention.find_iter(goal).any(|m| {
        kinds.iter().any(|&(start, end)| {
            let between = if m.start() >= end { &goal[end..m.start()] } else { goal.get(m.end()..start).unwrap_or("") };
            between.chars().count() <= 40
                && !between.contains([',', ';'])
                && !between.contains(". ")
                && !between.contains(" and ")
                && !between.contains(" then ")
        })
    })
}

/// A folder a goal names as one: `bin/`, `the bin folder`, `the folder bin`, `the bin directory`.
static FOLDER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)(?:^|[\s'`\x22(])(?:\./)?([\w.-]+)/|\bthe\s+([\w.-]+)\s+(?:folder|directory)\b|\b(?:folder|directory)\s+(?:named|called)\s+[`'\x22]?([\w.-]+)",
    )
});

/// Whether `folder` is the one folder `goal` names, as a folder ("the .sh files in there", of `the scripts
/// folder`): the kind is then said of it, wherever the goal names it.
fn only_folder(goal: &str, folder: &str) -> bool {
    let folder = folder.trim_start_matches("./").trim_end_matches('/');
    let named: std::collections::BTreeSet<String> = FOLDER
        .captures_iter(goal)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)))
        .map(|m| m.as_str().to_owned())
        .collect();
    named.len() == 1 && named.contains(folder)
}

/// The folder of a whole-folder glob (`tools/*` is `tools`, `*` the working directory's ``), if `word` is one.
pub(crate) fn folder_glob(word: &str) -> Option<&str> {
    if word == "*" {
        return Some("");
    }
    let folder = word.strip_suffix("/*")?;
    (!folder.is_empty() && folder.chars().all(|c| c.is_alphanumeric() || "._/-".contains(c))).then_some(folder)
}

/// Where `word` stands in `line` as a word of its own (blank or the line's end on each side).
fn word_at(line: &str, word: &str) -> Option<usize> {
    line.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = line[..at].chars().next_back().is_none_or(|c| c.is_whitespace());
        let after = line[at + word.len()..].chars().next().is_none_or(|c| c.is_whitespace() || c == ';');
        before && after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folders_whole_glob_is_narrowed_to_the_kind_the_goal_names() {
        let goal = "The scripts in bin/ can't be run. Make every .sh file in bin/ executable and leave the rest alone.";
        for (before, after) in [
            ("chmod +x bin/*", "chmod +x bin/*.sh"),
            ("chmod 755 bin/*", "chmod 755 bin/*.sh"),
            ("  chmod u+x bin/* && echo done", "  chmod u+x bin/* && echo done"),
        ] {
            assert_eq!(kind_globs(goal, before), after, "{before}");
        }
        assert_eq!(kind_globs("Make every .sh file here executable.", "chmod +x *"), "chmod +x *.sh");
        let packing = "Pack all the .log files from the logs folder into logs.tar.gz here. Leave the originals.";
        assert_eq!(kind_globs(packing, "tar -czvf logs.tar.gz logs/*"), "tar -czvf logs.tar.gz logs/*.log");
        let moving = "Move the .pdf files in inbox/ to papers/.";
        assert_eq!(kind_globs(moving, "mv inbox/* papers/"), "mv inbox/*.pdf papers/");
        let under = "Copy the .pdf files under inbox/ and its subfolders to papers/.";
        assert_eq!(kind_globs(under, "cp inbox/* papers/"), "cp inbox/* papers/", "not by find");
        for (goal, script) in [
            ("Copy the project folder to backup/ but skip the .log files.", "cp -r project/* backup/"),
            ("Back up everything in src/ to src.tar.gz, ignoring the .pyc files.", "tar -czf src.tar.gz src/*"),
            (
                "Pack the project folder into p.tar.gz. The .env files in it must not be packed.",
                "tar -czf p.tar.gz project/*",
            ),
            ("Zip the site/ folder into a .zip archive named site.zip.", "zip -r site.zip site/*"),
            (
                "Archive the whole site folder as site.tar.gz. Then tell me how many .html files it has.",
                "tar -czf site.tar.gz site/*",
            ),
        ] {
            assert_eq!(kind_globs(goal, script), script, "{goal}");
        }
        let except = "Move everything in inbox/ except the .pdf files to old/.";
        assert_eq!(kind_globs(except, "mv inbox/* old/"), "mv inbox/* old/", "the kind left out");
        let removing = "Delete all the .tmp files in cache/, nothing else.";
        assert_eq!(kind_globs(removing, "rm -f cache/*"), "rm -f cache/*.tmp");
    }

    #[test]
    fn the_one_folder_the_goal_names_is_the_kinds() {
        let goal = "The tools in the bin folder can't be run. Make all the .sh files in there executable, but leave \
                    the other files in that folder alone.";
        assert_eq!(kind_globs(goal, "chmod +x bin/*"), "chmod +x bin/*.sh");
        assert!(!only_folder("Copy the files in the bin folder to backup/.", "bin"), "two folders");
        assert!(only_folder("Make the scripts in `bin/` executable.", "bin"));
    }

    #[test]
    fn subfolders_take_every_such_file_under_the_folder() {
        let goal = "Make the .py scripts under tools/ (subfolders too) executable, but leave the other files alone.";
        assert_eq!(kind_globs(goal, "chmod +x tools/*"), "find tools -type f -name '*.py' -exec chmod +x {} +");
        assert_eq!(kind_globs(goal, "chmod -R +x tools/*"), "chmod -R +x tools/*.py", "its own recursion");
        assert_eq!(kind_globs(goal, "chown alice tools/*"), "chown alice tools/*", "another operand");
    }

    #[test]
    fn other_goals_and_commands_are_left_alone() {
        let goal = "Make every .sh file in bin/ executable.";
        for kept in [
            "chmod +x bin/*.sh",
            "ls bin/*",
            "chmod +x 'bin/*'",
            "for f in bin/*; do chmod +x \"$f\"; done",
            "chmod +x bin/* > log.txt",
        ] {
            assert_eq!(kind_globs(goal, kept), kept, "{kept}");
        }
        let two = "Make the .sh and .py files in bin/ executable.";
        assert_eq!(kind_globs("Compress every .log file and every .txt file in logs/.", "gzip logs/*"), "gzip logs/*");
        assert_eq!(kind_globs(two, "chmod +x bin/*"), "chmod +x bin/*", "two kinds");
        assert_eq!(kind_globs("Make everything in bin/ executable.", "chmod +x bin/*"), "chmod +x bin/*");
        // Subfolders kept out, another folder the kind is not said of, an extension's case.
        let kept_out = "Delete the .tmp files in cache/, but leave its subfolders alone.";
        assert_eq!(kind_globs(kept_out, "rm -f cache/*"), "rm -f cache/*.tmp");
        let not_in = "Delete the .tmp files in cache/ (not in subdirectories).";
        assert_eq!(kind_globs(not_in, "rm -f cache/*"), "rm -f cache/*.tmp");
        let other = "Delete the .log files in build/ and clear out tmp/ completely.";
        assert_eq!(kind_globs(other, "rm -rf tmp/*"), "rm -rf tmp/*", "the kind is said of build/");
        assert_eq!(kind_globs("Make every .JPG image in cam/ read-only.", "chmod a-w cam/*"), "chmod a-w cam/*.JPG");
    }
}
