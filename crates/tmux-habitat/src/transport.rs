//! How tmux commands reach the server.
//!
//! Every tmux invocation in the workspace goes through [`Transport::run`]: it adds the socket, our config, a
//! scrubbed environment (`TMUX`, `TMUX_PANE` removed, so a caller inside tmux never redirects us to its own
//! server) and a deadline (the child is killed when it expires). Commands travel as one `tmux` subprocess per
//! call, or over a persistent control-mode connection ([`crate::control`]).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use tmux_control::Command;

use crate::error::{Error, Result};

/// Default deadline for one tmux command.
pub const DEFAULT_COMMAND_DEADLINE: Duration = Duration::from_secs(5);

/// tmux commands sent together, with optional stdin and a deadline: what [`Server::tmux`](crate::Server::tmux)
/// runs. Every argument reaches tmux literally (a `;` is never a separator); commands are chained with
/// [`Invocation::then`], not with a `";"` argument.
///
/// ```
/// use tmux_habitat::{Command, Invocation};
/// let both = Invocation::new(Command::new("display-message").args(["-p", "#{pane_id}"]))
///     .then(Command::new("capture-pane").arg("-p"));
/// assert_eq!(both.commands().len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct Invocation {
    pub(crate) commands: Vec<Command>,
    pub(crate) stdin: Option<Vec<u8>>,
    pub(crate) deadline: Duration,
}

impl Invocation {
    /// One command, with the default deadline ([`DEFAULT_COMMAND_DEADLINE`]).
    pub fn new(command: Command) -> Self {
        Invocation { commands: vec![command], stdin: None, deadline: DEFAULT_COMMAND_DEADLINE }
    }

    /// Adds a command after the others. A chain is one tmux call on the subprocess transport; over control
    /// mode its commands are written together and read by the server together, but each is answered on its
    /// own: a failing command does not stop the ones after it (the first failure is returned).
    pub fn then(mut self, command: Command) -> Self {
        self.commands.push(command);
        self
    }

    /// How long the whole call may take before it is abandoned (and its tmux child killed).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// The commands, in order.
    pub fn commands(&self) -> &[Command] {
        &self.commands
    }

    pub(crate) fn stdin(mut self, bytes: Vec<u8>) -> Self {
        self.stdin = Some(bytes);
        self
    }

    /// The argument vector of one `tmux` call: commands separated by `;`, every argument literal.
    pub(crate) fn argv(&self) -> Vec<String> {
        let mut argv = Vec::new();
        for (i, command) in self.commands.iter().enumerate() {
            if i > 0 {
                argv.push(";".to_owned());
            }
            argv.push(command.name().to_owned());
            argv.extend(command.arguments().iter().map(|a| literal_semicolon(a).into_owned()));
        }
        argv
    }

    /// The call as a person would type it, for messages.
    pub(crate) fn describe(&self) -> String {
        format!("tmux {}", shell_words(&self.argv()))
    }
}

impl From<Command> for Invocation {
    fn from(command: Command) -> Self {
        Invocation::new(command)
    }
}

/// Which way commands travel to tmux. Control mode is the default for servers we start; set
/// `TMUX_HABITAT_TRANSPORT=subprocess` (or `control`) in the environment, or
/// [`ServerBuilder::transport`](crate::ServerBuilder::transport), to choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportKind {
    /// One persistent `tmux -C` connection per session: commands in a tenth of a millisecond, pane output as
    /// an event stream (no polling).
    Control,
    /// A `tmux` child process per command (about 1.6 ms each); waits poll the screen or block on `wait-for`.
    Subprocess,
}

impl TransportKind {
    /// The choice made by `TMUX_HABITAT_TRANSPORT` (`control` or `subprocess`), if any.
    pub fn from_env() -> Option<TransportKind> {
        match std::env::var("TMUX_HABITAT_TRANSPORT").ok()?.trim().to_ascii_lowercase().as_str() {
            "control" => Some(TransportKind::Control),
            "subprocess" => Some(TransportKind::Subprocess),
            other => {
                tracing::warn!(value = other, "TMUX_HABITAT_TRANSPORT must be `control` or `subprocess`; ignored");
                None
            }
        }
    }
}

/// The way commands travel to the tmux server.
#[derive(Debug)]
pub(crate) enum Transport {
    /// A `tmux` child process per command.
    Subprocess(Subprocess),
    /// Persistent control-mode connections, with the subprocess transport for what they cannot carry.
    Control(crate::control::Control),
}

impl Transport {
    pub(crate) fn new(kind: TransportKind, subprocess: Subprocess) -> Transport {
        match kind {
            TransportKind::Control => Transport::Control(crate::control::Control::new(subprocess)),
            TransportKind::Subprocess => Transport::Subprocess(subprocess),
        }
    }

    pub(crate) async fn run(&self, invocation: Invocation) -> Result<String> {
        match self {
            Transport::Subprocess(s) => {
                // Another process may be attaching a control client to this server right now (see `turn`).
                let _turn = match invocation.commands.first() {
                    Some(first) if first.name() == "new-session" => {
                        crate::turn::take(&s.socket_path, crate::turn::WAIT).await?
                    }
                    _ => None,
                };
                s.run(invocation).await
            }
            // Control mode takes its own turns, after its in-process lock (one order everywhere).
            Transport::Control(c) => c.run(invocation).await,
        }
    }

    /// Detaches control clients (nothing to do for subprocesses).
    pub(crate) async fn close(&self) {
        if let Transport::Control(c) = self {
            c.close().await;
        }
    }

    pub(crate) fn subprocess(&self) -> &Subprocess {
        match self {
            Transport::Subprocess(s) => s,
            Transport::Control(c) => &c.subprocess,
        }
    }

    pub(crate) fn kind(&self) -> TransportKind {
        match self {
            Transport::Subprocess(_) => TransportKind::Subprocess,
            Transport::Control(_) => TransportKind::Control,
        }
    }

    pub(crate) fn socket_path(&self) -> &Path {
        &self.subprocess().socket_path
    }
}

/// Runs `tmux -S <socket> [-f <config>] <args>` as a child process.
#[derive(Debug)]
pub(crate) struct Subprocess {
    pub(crate) program: PathBuf,
    /// `-L name` or `-S path`, exactly as tmux itself would be called.
    pub(crate) socket: SocketArg,
    /// Where that socket lives, for messages and clean-up.
    pub(crate) socket_path: PathBuf,
    pub(crate) config: Option<PathBuf>,
}

/// The socket argument given to every tmux call.
#[derive(Debug, Clone)]
pub(crate) enum SocketArg {
    /// `-L name`: tmux places the socket in its own per-user directory (and creates it safely).
    Name(String),
    /// `-S path`.
    Path(PathBuf),
}

impl Subprocess {
    /// The base command with socket, config and scrubbed environment, for callers that need a raw child
    /// (such as a control-mode connection or an interactive attach).
    pub(crate) fn command(&self) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.program);
        match &self.socket {
            SocketArg::Name(name) => cmd.arg("-L").arg(name),
            SocketArg::Path(path) => cmd.arg("-S").arg(path),
        };
        if let Some(config) = &self.config {
            cmd.arg("-f").arg(config);
        }
        // -u: the client speaks UTF-8 whatever the locale. Without it, a client started with no UTF-8 locale
        // (over ssh, from cron) prints a tab in `-P -F` output as `_` and every reply fails to parse.
        cmd.arg("-u");
        cmd.env_remove("TMUX").env_remove("TMUX_PANE");
        cmd
    }

    pub(crate) async fn run(&self, invocation: Invocation) -> Result<String> {
        let describe = invocation.describe();
        let mut cmd = self.command();
        cmd.args(invocation.argv())
            .stdin(if invocation.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        tracing::trace!(command = %describe, "tmux");
        let mut child =
            cmd.spawn().map_err(|source| Error::Spawn { program: self.program.display().to_string(), source })?;
        let stdin = invocation.stdin;
        let feed = async {
            if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
                // A failed write shows up as a failed command below; tmux reports why on stderr.
                let _ = pipe.write_all(&bytes).await;
                drop(pipe);
            }
            child.wait_with_output().await
        };
        let output = match tokio::time::timeout(invocation.deadline, feed).await {
            Ok(Ok(output)) => output,
            Ok(Err(source)) => return Err(Error::io(format!("waiting for {describe}"), source)),
            Err(_) => {
                return Err(Error::Deadline {
                    command: describe,
                    deadline: invocation.deadline,
                    stderr: String::new(),
                });
            }
        };
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr);
            Err(Error::from_failure(describe, output.status.code().unwrap_or(-1), &stderr, &self.socket_path))
        }
    }
}

/// tmux reads an argument that ends in `;` as the end of a command (and `\;` as a literal `;`), so every
/// argument that ends in `;` — a lone `;` included, and typed text such as `echo a;` — is sent as `\;`.
fn literal_semicolon(arg: &str) -> std::borrow::Cow<'_, str> {
    match arg.strip_suffix(';') {
        Some(rest) => std::borrow::Cow::Owned(format!("{rest}\\;")),
        None => std::borrow::Cow::Borrowed(arg),
    }
}

/// Renders arguments the way a person would type them, for error messages.
fn shell_words(args: &[String]) -> String {
    args.iter().map(|a| crate::quote::shell_word(a)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_trailing_semicolon_is_literal() {
        assert_eq!(literal_semicolon(";"), "\\;");
        assert_eq!(literal_semicolon("echo a;"), "echo a\\;");
        assert_eq!(literal_semicolon("b\\;"), "b\\\\;");
        assert_eq!(literal_semicolon("plain"), "plain");
    }

    #[test]
    fn chains_are_separated_by_lone_semicolons() {
        let invocation = Invocation::new(Command::new("send-keys").args(["-l", ";"])).then(Command::new("list-panes"));
        assert_eq!(invocation.argv(), ["send-keys", "-l", "\\;", ";", "list-panes"]);
    }

    #[test]
    fn shell_words_quotes_only_what_needs_it() {
        let args = vec!["send-keys".to_owned(), "-t".into(), "%1".into(), "it's here".into()];
        assert_eq!(shell_words(&args), r"send-keys -t %1 'it'\''s here'");
    }
}
