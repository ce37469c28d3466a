//! The commands that tier 0 sends straight to the shell, as data.
//!
//! Each entry names a program and the rule its arguments must follow for a task to count as a
//! command rather than an English sentence that happens to start with the same word
//! (`sort file.txt` versus "sort these files by size"). docs/router.md lists the table.

/// How tier 0 judges the arguments of a direct command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentRule {
    /// Any arguments; English filler words (see [`FILLER_WORDS`]) among the unquoted
    /// arguments make the task natural language.
    Plain,
    /// Like [`ArgumentRule::Plain`], and at least one argument is needed: without one the
    /// program would wait on the terminal (`cat`, `python3`) or do nothing useful.
    NeedsOperand,
    /// The arguments are free text (`echo`, `printf`): never judged.
    FreeText,
    /// The first argument is a subcommand or object (`git status`, `ip a`) and is not judged;
    /// the rest are judged like [`ArgumentRule::Plain`].
    Subcommand,
    /// `find`: with arguments, either the first is a path (`.`, `/x`, `~`, `$DIR`, `a/b`) or
    /// some argument is a predicate (`-name`); then judged like [`ArgumentRule::Plain`].
    FindExpression,
    /// Interactive unless this short flag is given (`top` only as `top -b …`).
    RequiresShortFlag(char),
}

/// One program that tier 0 runs directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectCommand {
    /// The program name as typed (its basename when typed as a path).
    pub name: &'static str,
    /// How its arguments are judged.
    pub rule: ArgumentRule,
}

const fn entry(name: &'static str, rule: ArgumentRule) -> DirectCommand {
    DirectCommand { name, rule }
}

use ArgumentRule::{FindExpression, FreeText, NeedsOperand, Plain, RequiresShortFlag, Subcommand};

/// The programs tier 0 runs directly, with their argument rules.
pub const DIRECT_COMMANDS: &[DirectCommand] = &[
    // Looking at files and directories.
    entry("ls", Plain),
    entry("cat", NeedsOperand),
    entry("head", NeedsOperand),
    entry("tail", NeedsOperand),
    entry("wc", NeedsOperand),
    entry("grep", NeedsOperand),
    entry("rg", NeedsOperand),
    entry("find", FindExpression),
    entry("du", Plain),
    entry("df", Plain),
    entry("stat", NeedsOperand),
    entry("file", NeedsOperand),
    entry("tree", Plain),
    entry("realpath", NeedsOperand),
    entry("readlink", NeedsOperand),
    entry("basename", NeedsOperand),
    entry("dirname", NeedsOperand),
    entry("diff", NeedsOperand),
    entry("md5sum", NeedsOperand),
    entry("sha256sum", NeedsOperand),
    // Text processing.
    entry("sort", NeedsOperand),
    entry("uniq", NeedsOperand),
    entry("cut", NeedsOperand),
    entry("tr", NeedsOperand),
    entry("awk", NeedsOperand),
    entry("sed", NeedsOperand),
    entry("jq", NeedsOperand),
    entry("xargs", NeedsOperand),
    entry("tee", NeedsOperand),
    entry("echo", FreeText),
    entry("printf", FreeText),
    // The system.
    entry("uname", Plain),
    entry("date", Plain),
    entry("whoami", Plain),
    entry("hostname", Plain),
    entry("pwd", Plain),
    entry("id", Plain),
    entry("env", Plain),
    entry("printenv", Plain),
    entry("uptime", Plain),
    entry("free", Plain),
    entry("ps", Plain),
    entry("top", RequiresShortFlag('b')),
    entry("which", NeedsOperand),
    entry("type", NeedsOperand),
    entry("nproc", Plain),
    entry("lscpu", Plain),
    entry("lsblk", Plain),
    entry("mount", Plain),
    entry("kill", NeedsOperand),
    entry("pgrep", NeedsOperand),
    // Network.
    entry("curl", NeedsOperand),
    entry("wget", NeedsOperand),
    entry("ping", NeedsOperand),
    entry("dig", Plain),
    entry("ss", Plain),
    entry("ip", Subcommand),
    // Changing the working tree (the safety gate still judges every command).
    entry("cd", Plain),
    entry("mkdir", NeedsOperand),
    entry("touch", NeedsOperand),
    entry("cp", NeedsOperand),
    entry("mv", NeedsOperand),
    entry("rm", NeedsOperand),
    entry("chmod", NeedsOperand),
    entry("tar", NeedsOperand),
    // Tools.
    entry("git", Subcommand),
    entry("cargo", Subcommand),
    entry("make", Plain),
    entry("python3", NeedsOperand),
    entry("node", NeedsOperand),
    entry("perl", NeedsOperand),
    entry("sleep", NeedsOperand),
    // A shell given its script inline (`sh -c 'exit 3'`); the safety gate looks inside the script.
    entry("sh", RequiresShortFlag('c')),
    entry("bash", RequiresShortFlag('c')),
    entry("true", Plain),
    entry("false", Plain),
];

/// Unquoted arguments that mark a task as English rather than a command
/// ("find **the** largest file", "sort **these** files **by** size", "date **of** the last commit").
pub const FILLER_WORDS: &[&str] = &[
    "a", "an", "the", "all", "any", "every", "each", "some", "my", "me", "our", "your", "their", "its", "it", "this",
    "that", "these", "those", "of", "for", "by", "with", "into", "about", "between", "than", "up", "is", "are", "was",
    "were", "be", "been", "what", "which", "who", "why", "how", "when", "where", "whether", "please", "largest",
    "biggest", "smallest", "newest", "oldest", "most", "least",
];

/// The table entry for `program` (a basename), if tier 0 runs it directly.
pub fn lookup(program: &str) -> Option<&'static DirectCommand> {
    DIRECT_COMMANDS.iter().find(|c| c.name == program)
}

/// Whether `word` (lowercased) is one of [`FILLER_WORDS`].
pub fn is_filler_word(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    let trimmed = lower.trim_end_matches([',', '.', '!', '?', ':']);
    FILLER_WORDS.contains(&trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_no_duplicates_and_covers_the_issue_list() {
        let mut names: Vec<&str> = DIRECT_COMMANDS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate entries in DIRECT_COMMANDS");
        for required in "ls cat head tail wc grep rg find du df stat file uname date whoami hostname pwd id echo \
                         printf env printenv uptime free ps top which type realpath readlink basename dirname sort \
                         uniq cut tr awk sed jq curl wget ping dig ss ip mount git python3 node perl"
            .split_whitespace()
        {
            assert!(lookup(required).is_some(), "{required} is missing");
        }
    }
}
