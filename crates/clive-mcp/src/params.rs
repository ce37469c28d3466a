//! The tools' arguments and results: the types their JSON Schemas are generated from. Arguments refuse
//! unknown fields, so a misspelt option is an error rather than silently ignored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `run`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunArgs {
    /// The shell command line (bash). Multi-line scripts and heredocs work; it runs in the pane's shell, so
    /// `cd` and `export` stay for later commands in that pane.
    pub command: String,
    /// Run this one command in this directory (the pane's shell stays where it was).
    #[serde(default)]
    pub cwd: Option<String>,
    /// How long to wait for the command to end, in seconds (default 60, at most 3600). When it passes the
    /// command keeps running: `wait` for it (`for: "exit"`) or stop it with `type` (`keys: ["C-c"]`).
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    /// The shell pane to run in, created when new. Default `shell`, or a free `shell-N` while `shell` is busy.
    #[serde(default)]
    pub pane: Option<String>,
}

/// `run`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunResult {
    /// The command's exit status.
    pub exit_code: i32,
    /// What it printed (stdout and stderr as the terminal showed them). Long output keeps its start and its
    /// end; the cut in the middle is marked with a line saying how much was left out.
    pub output: String,
    /// The pane it ran in.
    pub pane: String,
    /// From typing the command to its signalled end, in milliseconds.
    pub duration_ms: u64,
    /// Some of the output is missing: cut in the middle (marked), or scrolled out of the pane's history.
    pub truncated: bool,
}

/// `start`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartArgs {
    /// The program to start with its arguments, as a shell command line (`python3`, `psql mydb`, `vim a.txt`).
    pub command: String,
    /// The pane to start it in: a new pane (named after the program when not given) or an idle shell pane.
    #[serde(default)]
    pub pane: Option<String>,
}

/// `start`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartResult {
    /// The pane the program runs in: pass it to `type`, `screen` and `wait`.
    pub pane: String,
    /// The program's first screen, once its output settled (or after a few seconds).
    pub screen: String,
    /// The program has already ended.
    pub exited: bool,
    /// Its exit status, when it ended.
    pub exit_code: Option<i32>,
}

/// `type`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeArgs {
    /// The pane to type into.
    pub pane: String,
    /// Text to type, as one bracketed paste (nothing is added: no Enter). It passes the safety gate first.
    #[serde(default)]
    pub text: Option<String>,
    /// Keys to press after the text, in order: `Enter`, `Tab`, `Escape`, `Backspace`, `Up`, `Down`, `Left`,
    /// `Right`, `PageUp`, `PageDown`, `Home`, `End`, `Space`, `F1`…`F12`, `C-c` (Ctrl-C), `M-x` (Alt-x), or one
    /// character such as `y` or `q`.
    #[serde(default)]
    pub keys: Option<Vec<String>>,
}

/// `type`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TypeResult {
    /// The pane typed into.
    pub pane: String,
    /// Characters of text pasted.
    pub text_chars: usize,
    /// The keys pressed, as tmux names them.
    pub keys: Vec<String>,
}

/// What `screen` compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Since {
    /// The screen this connection last read from the pane (`screen`, `start` or `wait`).
    Last,
}

/// `screen`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenArgs {
    /// The pane to read.
    pub pane: String,
    /// `"last"`: only what changed since the last read of this pane, as a line diff.
    #[serde(default)]
    pub since: Option<Since>,
}

/// `screen`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScreenResult {
    /// The pane read.
    pub pane: String,
    /// The visible screen (without `since`).
    pub screen: Option<String>,
    /// With `since`: the changes, `@@ line N` then `- removed` and `+ added` lines (empty: nothing changed).
    pub diff: Option<String>,
    /// Whether the screen differs from the last read.
    pub changed: bool,
}

/// What `wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WaitFor {
    /// `text` appears on the screen.
    Text,
    /// The pane prints nothing for `quiet_ms`.
    Quiet,
    /// The command or program started in the pane ends.
    Exit,
}

/// `wait`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// The pane to watch.
    pub pane: String,
    /// What to wait for.
    #[serde(rename = "for")]
    pub what: WaitFor,
    /// With `for: "text"`: the text to wait for (matched on the visible screen).
    #[serde(default)]
    pub text: Option<String>,
    /// With `for: "quiet"`: how long the pane must print nothing, in milliseconds (default 500).
    #[serde(default)]
    pub quiet_ms: Option<u64>,
    /// The most to wait, in seconds (default 30, at most 3600).
    #[serde(default)]
    pub timeout_secs: Option<f64>,
}

/// `wait`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaitResult {
    /// The pane watched.
    pub pane: String,
    /// It happened (false: the deadline came first).
    pub happened: bool,
    /// How long the wait took, in milliseconds.
    pub waited_ms: u64,
    /// The screen at the end of the wait.
    pub screen: String,
    /// With `for: "exit"`, once it ended: the exit status.
    pub exit_code: Option<i32>,
    /// With `for: "exit"`, once it ended: what the command printed (bounded like `run`'s).
    pub output: Option<String>,
}

/// `panes`' arguments: none.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PanesArgs {}

/// One pane of the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PaneEntry {
    /// Its name (what the other tools take).
    pub name: String,
    /// tmux's id for it (`%3`).
    pub id: String,
    /// The command in flight or last run there (none yet: the shell).
    pub command: Option<String>,
    /// `idle` (its shell waits for a command), `running`, or `dead` (its shell exited).
    pub state: PaneStateName,
    /// The exit status of the last command that ended there.
    pub exit_code: Option<i32>,
    /// The program in the foreground, as tmux sees it.
    pub foreground: String,
    /// Its working directory, as tmux sees it.
    pub cwd: String,
}

/// A pane's state in [`PaneEntry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaneStateName {
    /// Its shell waits for a command.
    Idle,
    /// A command or program runs in it.
    Running,
    /// Its shell has exited.
    Dead,
}

/// `panes`' result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PanesResult {
    /// The tmux session (attach with `clive attach <session>`).
    pub session: String,
    /// Its panes, oldest first.
    pub panes: Vec<PaneEntry>,
}

/// `send`'s arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendArgs {
    /// The lane: the tmux session name (or pane id, `%3`) of the agent to write to.
    pub lane: String,
    /// The message, signed with your lane name: `mylane: please rebase on main`.
    pub message: String,
    /// The lane's tmux server: a socket name (as `tmux -L`) or a path (as `tmux -S`); default the server plain
    /// `tmux` talks to.
    #[serde(default)]
    pub socket: Option<String>,
}

/// `send`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SendResult {
    /// `delivered` (the agent took it) or `held` (not proven delivered).
    pub outcome: String,
    /// When held, how far it got: `not_pasted`, `pasted` or `entered`.
    pub stage: Option<String>,
    /// Why, in words.
    pub reason: String,
    /// The lane as addressed.
    pub lane: String,
    /// The agent recognised in the lane.
    pub agent: Option<String>,
    /// Delivered into the agent's queue (it was busy).
    pub queued: bool,
    /// When held after a paste: whether the input box is back as it was.
    pub restored: Option<bool>,
    /// How long the delivery took, in milliseconds.
    pub elapsed_ms: u64,
}
