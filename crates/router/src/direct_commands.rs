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
    /// The program prints without end (`yes`): taken only with its output piped into another command.
    Piped,
    /// The program's name is also an English verb (`install ripgrep`, `test this`): taken only when the
    /// first argument is an option or quoted (`install -m 755 a b`, `test -f x`); then judged like
    /// [`ArgumentRule::Plain`].
    OptionFirst,
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

use ArgumentRule::{FindExpression, FreeText, NeedsOperand, OptionFirst, Piped, Plain, RequiresShortFlag, Subcommand};

/// The programs tier 0 runs directly, with their argument rules. Any other installed program is taken too
/// ([`crate::Installed`]) under the rule [`ArgumentRule::Plain`] with [`INSTALLED_FILLER_WORDS`], unless
/// [`DECLINED_PROGRAMS`] names it.
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
    entry("yes", Piped),
    entry("install", OptionFirst),
    entry("test", OptionFirst),
    // Interpreters that read a program from the terminal when given none (a REPL).
    entry("python", NeedsOperand),
    entry("python2", NeedsOperand),
    entry("ruby", NeedsOperand),
    entry("irb", NeedsOperand),
    entry("lua", NeedsOperand),
    entry("php", NeedsOperand),
    entry("bc", NeedsOperand),
    entry("dc", NeedsOperand),
    entry("sqlite3", NeedsOperand),
    entry("ghci", NeedsOperand),
    entry("psql", RequiresShortFlag('c')),
    entry("mysql", RequiresShortFlag('e')),
    // A shell given its script inline (`sh -c 'exit 3'`); the safety gate looks inside the script.
    entry("sh", RequiresShortFlag('c')),
    entry("bash", RequiresShortFlag('c')),
    entry("dash", RequiresShortFlag('c')),
    entry("zsh", RequiresShortFlag('c')),
    entry("ksh", RequiresShortFlag('c')),
    entry("fish", RequiresShortFlag('c')),
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

/// Why tier 0 never runs a program, installed or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotDirect {
    /// It takes over the terminal (an editor, a pager, a full-screen program, a login): clive would wait on
    /// it until its timeout. A model decides how to drive it (an `interactive` subtask) or what to run instead.
    Interactive,
    /// Its name is an English word, and as a program it talks to people or opens things (`write a poem`,
    /// `look at the logs`, `open the page`): the task is almost always a sentence.
    EnglishWord,
}

impl NotDirect {
    /// Why, in words.
    pub fn reason(self) -> &'static str {
        match self {
            NotDirect::Interactive => "it is interactive: clive would wait on it",
            NotDirect::EnglishWord => "its name is an English word that starts sentences",
        }
    }
}

/// Installed programs tier 0 declines whatever their arguments ([`NotDirect`] says why); a model decides.
pub const DECLINED_PROGRAMS: &[(&str, NotDirect)] = &[
    ("vi", NotDirect::Interactive),
    ("vim", NotDirect::Interactive),
    ("nvim", NotDirect::Interactive),
    ("view", NotDirect::Interactive),
    ("nano", NotDirect::Interactive),
    ("pico", NotDirect::Interactive),
    ("emacs", NotDirect::Interactive),
    ("ed", NotDirect::Interactive),
    ("ex", NotDirect::Interactive),
    ("micro", NotDirect::Interactive),
    ("joe", NotDirect::Interactive),
    ("mcedit", NotDirect::Interactive),
    ("editor", NotDirect::Interactive),
    ("red", NotDirect::Interactive),
    ("rview", NotDirect::Interactive),
    ("rvim", NotDirect::Interactive),
    ("vimdiff", NotDirect::Interactive),
    ("vimtutor", NotDirect::Interactive),
    ("pager", NotDirect::Interactive),
    ("less", NotDirect::Interactive),
    ("more", NotDirect::Interactive),
    ("most", NotDirect::Interactive),
    ("pg", NotDirect::Interactive),
    ("man", NotDirect::Interactive),
    ("info", NotDirect::Interactive),
    ("htop", NotDirect::Interactive),
    ("btop", NotDirect::Interactive),
    ("atop", NotDirect::Interactive),
    ("iotop", NotDirect::Interactive),
    ("nmon", NotDirect::Interactive),
    ("watch", NotDirect::Interactive),
    ("mc", NotDirect::Interactive),
    ("ranger", NotDirect::Interactive),
    ("nnn", NotDirect::Interactive),
    ("ncdu", NotDirect::Interactive),
    ("tig", NotDirect::Interactive),
    ("lazygit", NotDirect::Interactive),
    ("fzf", NotDirect::Interactive),
    ("tmux", NotDirect::Interactive),
    ("screen", NotDirect::Interactive),
    ("byobu", NotDirect::Interactive),
    ("w3m", NotDirect::Interactive),
    ("lynx", NotDirect::Interactive),
    ("links", NotDirect::Interactive),
    ("elinks", NotDirect::Interactive),
    ("mutt", NotDirect::Interactive),
    ("neomutt", NotDirect::Interactive),
    ("ssh", NotDirect::Interactive),
    ("telnet", NotDirect::Interactive),
    ("ftp", NotDirect::Interactive),
    ("sftp", NotDirect::Interactive),
    ("gdb", NotDirect::Interactive),
    ("gdbtui", NotDirect::Interactive),
    ("jshell", NotDirect::Interactive),
    ("tclsh", NotDirect::Interactive),
    ("slabtop", NotDirect::Interactive),
    ("tload", NotDirect::Interactive),
    ("ipython", NotDirect::Interactive),
    ("passwd", NotDirect::Interactive),
    ("su", NotDirect::Interactive),
    ("login", NotDirect::Interactive),
    ("script", NotDirect::Interactive),
    ("visudo", NotDirect::Interactive),
    ("vipw", NotDirect::Interactive),
    ("whiptail", NotDirect::Interactive),
    ("dialog", NotDirect::Interactive),
    ("write", NotDirect::EnglishWord),
    ("wall", NotDirect::EnglishWord),
    ("talk", NotDirect::EnglishWord),
    ("look", NotDirect::EnglishWord),
    ("at", NotDirect::EnglishWord),
    ("batch", NotDirect::EnglishWord),
    ("open", NotDirect::EnglishWord),
    ("see", NotDirect::EnglishWord),
    ("edit", NotDirect::EnglishWord),
    ("print", NotDirect::EnglishWord),
    ("compose", NotDirect::EnglishWord),
    ("say", NotDirect::EnglishWord),
];

/// Why tier 0 declines `program` (a basename) whatever its arguments, if it does.
pub fn declined(program: &str) -> Option<NotDirect> {
    DECLINED_PROGRAMS.iter().find(|(name, _)| *name == program).map(|(_, why)| *why)
}

/// More unquoted arguments that mark a task as English when its program is not in [`DIRECT_COMMANDS`] (an
/// installed program tier 0 knows nothing else about): "rename files **to** lowercase", "convert x **to** png".
pub const INSTALLED_FILLER_WORDS: &[&str] = &[
    "to", "in", "on", "at", "from", "and", "or", "then", "if", "so", "i", "you", "we", "us", "them", "there", "here",
    "can", "could", "should", "would", "do", "does", "did", "not", "using", "without",
];

/// The table entry for `program` (a basename), if tier 0 runs it directly.
pub fn lookup(program: &str) -> Option<&'static DirectCommand> {
    DIRECT_COMMANDS.iter().find(|c| c.name == program)
}

/// Whether `word` (lowercased) is one of [`FILLER_WORDS`].
pub fn is_filler_word(word: &str) -> bool {
    FILLER_WORDS.contains(&normalised(word).as_str())
}

/// `word` lowercased, without trailing `,.!?:`.
fn normalised(word: &str) -> String {
    word.to_ascii_lowercase().trim_end_matches([',', '.', '!', '?', ':']).to_owned()
}

/// Whether `word` is one of [`FILLER_WORDS`] or [`INSTALLED_FILLER_WORDS`].
pub fn is_installed_filler_word(word: &str) -> bool {
    let word = normalised(word);
    FILLER_WORDS.contains(&word.as_str()) || INSTALLED_FILLER_WORDS.contains(&word.as_str())
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
        for (name, _) in DECLINED_PROGRAMS {
            assert!(lookup(name).is_none(), "{name} is both direct and declined");
        }
        for required in "ls cat head tail wc grep rg find du df stat file uname date whoami hostname pwd id echo \
                         printf env printenv uptime free ps top which type realpath readlink basename dirname sort \
                         uniq cut tr awk sed jq curl wget ping dig ss ip mount git python3 node perl"
            .split_whitespace()
        {
            assert!(lookup(required).is_some(), "{required} is missing");
        }
    }
}
