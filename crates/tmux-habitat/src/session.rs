//! Sessions and windows.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tmux_control::Command;

use crate::error::{Error, Result};
use crate::pane::{Pane, PaneId};
use crate::server::Server;
use crate::transport::Invocation;

/// How to create a session.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    name: String,
    size: Option<(u16, u16)>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    command: Option<WindowCommand>,
    window_name: Option<String>,
}

impl SessionOptions {
    /// A session with this exact name, the server's default size, shell and the caller's directory.
    pub fn new(name: impl Into<String>) -> Self {
        SessionOptions { name: name.into(), size: None, cwd: None, env: Vec::new(), command: None, window_name: None }
    }

    /// Window size in cells (default: the server's, 200×50).
    pub fn size(mut self, width: u16, height: u16) -> Self {
        self.size = Some((width, height));
        self
    }

    /// Working directory of the first pane (default: this process's).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// An environment variable for the session's panes (on top of the server's environment).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Run this shell command in the first pane instead of the server's shell.
    pub fn command(mut self, command: impl Into<String>) -> Self {
        self.command = Some(WindowCommand::Shell(command.into()));
        self
    }

    /// Run this program with these arguments, as given (no shell reads them), in the first pane instead of
    /// the server's shell. An empty list keeps the server's shell.
    pub fn program<I, S>(mut self, argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.command = WindowCommand::program(argv);
        self
    }

    /// Name of the first window.
    pub fn window_name(mut self, name: impl Into<String>) -> Self {
        self.window_name = Some(name.into());
        self
    }
}

/// How to open a window with [`Session::open_window`].
#[derive(Debug, Clone)]
pub struct WindowOptions {
    name: String,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    command: Option<WindowCommand>,
}

/// What a new pane runs instead of the server's shell.
#[derive(Debug, Clone)]
enum WindowCommand {
    Shell(String),
    Program(Vec<String>),
}

impl WindowCommand {
    fn program<I, S>(argv: I) -> Option<WindowCommand>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let argv: Vec<String> = argv.into_iter().map(Into::into).collect();
        (!argv.is_empty()).then_some(WindowCommand::Program(argv))
    }

    /// The trailing arguments of `new-session`/`new-window`: tmux runs one argument through `sh -c` and
    /// several as a program with its arguments; nothing means the server's shell.
    fn push_onto(command: Option<WindowCommand>, args: &mut Vec<String>, server: &Server) {
        match command {
            Some(WindowCommand::Shell(command)) => args.push(command),
            Some(WindowCommand::Program(argv)) if argv.len() == 1 => {
                args.push(format!("exec {}", crate::shell_quote(&argv[0])));
            }
            Some(WindowCommand::Program(argv)) => args.extend(argv),
            // The default shell's words as they are: tmux starts it directly, with no `sh -c` before it.
            None => match server.shell_argv() {
                Some(argv) => args.extend(argv.iter().cloned()),
                None => args.extend(server.shell().map(str::to_owned)),
            },
        }
    }
}

impl WindowOptions {
    /// A window named `name` running the server's shell in its session's directory.
    pub fn new(name: impl Into<String>) -> Self {
        WindowOptions { name: name.into(), cwd: None, env: Vec::new(), command: None }
    }

    /// Working directory of the window's pane (default: the session's).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// An environment variable for the pane (on top of the server's environment).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs this shell command line (through `sh -c`) instead of the server's shell.
    pub fn shell_command(mut self, command: impl Into<String>) -> Self {
        self.command = Some(WindowCommand::Shell(command.into()));
        self
    }

    /// Runs this program with these arguments, as given (no shell reads them), instead of the server's
    /// shell. An empty list keeps the server's shell.
    pub fn program<I, S>(mut self, argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.command = WindowCommand::program(argv);
        self
    }
}

/// What `list-sessions` tells about a session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The session's name.
    pub name: String,
    /// The session's immutable id (`$N`).
    pub id: String,
    /// Creation time, seconds since the Unix epoch.
    pub created: u64,
    /// Number of windows.
    pub windows: u32,
    /// Number of attached clients.
    pub attached: u32,
    /// Whether the program of the session's active pane has exited.
    pub active_pane_dead: bool,
    /// The user options asked for in [`Server::list_sessions_with`] that the session has, by name (`@…`).
    pub user_options: BTreeMap<String, String>,
}

impl SessionInfo {
    /// The `list-sessions -F` format: fixed fields, the user options asked for, and the name last (it is the
    /// only field that may hold a tab).
    pub(crate) fn format(user_options: &[&str]) -> String {
        let mut format =
            "#{session_id}\t#{session_created}\t#{session_windows}\t#{session_attached}\t#{pane_dead}".to_owned();
        for name in user_options {
            format.push_str(&format!("\t#{{{name}}}"));
        }
        format.push_str("\t#{session_name}");
        format
    }

    pub(crate) fn parse(line: &str, user_options: &[&str]) -> Result<SessionInfo> {
        let bad = || Error::Protocol { command: "list-sessions".into(), detail: format!("unexpected line {line:?}") };
        let mut parts = line.splitn(6 + user_options.len(), '\t');
        let mut next = || parts.next().ok_or_else(bad);
        let id = next()?.to_owned();
        let created = next()?.parse().map_err(|_| bad())?;
        let windows = next()?.parse().map_err(|_| bad())?;
        let attached = next()?.parse().map_err(|_| bad())?;
        let active_pane_dead = next()? == "1";
        let mut options = BTreeMap::new();
        for name in user_options {
            let value = next()?;
            if !value.is_empty() {
                options.insert((*name).to_owned(), value.to_owned());
            }
        }
        let name = next()?.to_owned();
        Ok(SessionInfo { name, id, created, windows, attached, active_pane_dead, user_options: options })
    }
}

/// Runs `new-session`. A server that is exiting (killed, or its last session just went) can take the
/// connection and then go away; the next attempt starts a fresh server. Repeating is safe: a session created on
/// a server that then exited went with it.
async fn create_through_exits(server: &Server, invocation: Invocation) -> Result<String> {
    let mut attempt = 1;
    loop {
        match server.tmux(invocation.clone()).await {
            Err(e @ Error::NoServer { .. }) if attempt < 5 => {
                tracing::debug!(attempt, error = %e, "the tmux server went away while a session started; retrying");
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// User option names: `@` and then letters, digits, `-` or `_`.
pub(crate) fn validate_user_option(name: &str) -> Result<()> {
    let valid = name
        .strip_prefix('@')
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || "-_".contains(c)));
    if valid {
        return Ok(());
    }
    Err(Error::Invalid {
        what: "user option name",
        value: name.to_owned(),
        reason: "must be `@` followed by letters, digits, `-` or `_` (e.g. `@clive-task`)".into(),
    })
}

/// A tmux session on a [`Server`].
#[derive(Debug, Clone)]
pub struct Session {
    server: Server,
    name: String,
    id: String,
    first_pane: Pane,
}

/// Session names tmux accepts as exact targets: no `:` or `.` (target separators), not empty.
fn validate_name(name: &str) -> Result<()> {
    if name.is_empty() || name.contains([':', '.', '\n', '\t']) || name.starts_with(['=', '%', '$', '@']) {
        return Err(Error::Invalid {
            what: "session name",
            value: name.to_owned(),
            reason: "must be non-empty, contain no `:`, `.`, tab or newline, and not start with `=`, `%`, `$` or `@`"
                .into(),
        });
    }
    Ok(())
}

impl Session {
    pub(crate) async fn create(server: &Server, options: SessionOptions) -> Result<Session> {
        validate_name(&options.name)?;
        let (width, height) = options.size.unwrap_or_else(|| server.default_size());
        let cwd = match options.cwd {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?,
        };
        let mut args: Vec<String> = vec![
            "-d".into(),
            "-s".into(),
            options.name.clone(),
            "-x".into(),
            width.to_string(),
            "-y".into(),
            height.to_string(),
            "-c".into(),
            cwd.display().to_string(),
            "-P".into(),
            "-F".into(),
            "#{session_id}\t#{pane_id}".into(),
        ];
        if let Some(window) = &options.window_name {
            args.extend(["-n".into(), window.clone()]);
        }
        for (key, value) in &options.env {
            args.extend(["-e".into(), format!("{key}={value}")]);
        }
        let runs_shell = options.command.is_none();
        WindowCommand::push_onto(options.command, &mut args, server);
        // Our own config sets remain-on-exit globally; say it per window too, so it also holds on a server
        // whose config we do not control. Chained, it applies to the window just created.
        // (A chain shares the new session as its target: in one `tmux` call, or over the control client that
        // creates the session, attached to it.)
        let invocation = Invocation::new(Command::new("new-session").args(args))
            .then(Command::new("set-option").args(["-w", "remain-on-exit", "on"]));
        let out = create_through_exits(server, invocation).await?;
        let (id, pane) = out.trim().split_once('\t').ok_or_else(|| Error::Protocol {
            command: "new-session".into(),
            detail: format!("expected `$id<TAB>%pane`, got {out:?}"),
        })?;
        let pane = PaneId::new(pane);
        if runs_shell {
            server.note_fresh_shell(&pane);
        }
        let first_pane = Pane::new(server.clone(), pane);
        Ok(Session { server: server.clone(), name: options.name, id: id.to_owned(), first_pane })
    }

    pub(crate) async fn open(server: &Server, name: &str) -> Result<Session> {
        let out = server
            .tmux(Command::new("display-message").args(["-p", "-t", &format!("={name}:"), "#{session_id}\t#{pane_id}"]))
            .await
            .map_err(|_| Error::NotFound {
                kind: "session",
                name: name.to_owned(),
                socket: server.socket_path().into(),
            })?;
        // tmux 3.3 answers a display-message for a missing target with nothing and exit status 0.
        let (id, pane) = out.trim().split_once('\t').ok_or_else(|| Error::NotFound {
            kind: "session",
            name: name.to_owned(),
            socket: server.socket_path().into(),
        })?;
        Ok(Session {
            server: server.clone(),
            name: name.to_owned(),
            id: id.to_owned(),
            first_pane: Pane::new(server.clone(), PaneId::new(pane)),
        })
    }

    /// The session's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The session's immutable id (`$N`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The server this session lives on.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The pane the session was created with (or its active pane, for an adopted session).
    pub fn first_pane(&self) -> &Pane {
        &self.first_pane
    }

    /// Adds a detached window named `name` (remain-on-exit on) running the server's shell in the session's
    /// directory (the one it was created with, [`SessionOptions::cwd`]), and returns its pane.
    pub async fn new_window(&self, name: &str) -> Result<Pane> {
        self.new_window_with(name, None).await
    }

    /// Like [`Session::new_window`], running `command` instead of the shell.
    pub async fn new_window_with(&self, name: &str, command: Option<&str>) -> Result<Pane> {
        let mut options = WindowOptions::new(name);
        if let Some(command) = command {
            options = options.shell_command(command);
        }
        self.open_window(options).await
    }

    /// Adds a detached window (remain-on-exit on) as `options` say, and returns its pane.
    pub async fn open_window(&self, options: WindowOptions) -> Result<Pane> {
        let cwd = match options.cwd {
            Some(dir) => dir.display().to_string(),
            // tmux expands the format when the window starts: the session's directory, not ours.
            None => "#{session_path}".into(),
        };
        let mut args: Vec<String> = vec![
            "-d".into(),
            "-t".into(),
            format!("={}:", self.name),
            "-n".into(),
            options.name,
            "-c".into(),
            cwd,
            "-P".into(),
            "-F".into(),
            "#{pane_id}".into(),
        ];
        for (key, value) in &options.env {
            args.extend(["-e".into(), format!("{key}={value}")]);
        }
        let runs_shell = options.command.is_none();
        WindowCommand::push_onto(options.command, &mut args, &self.server);
        let out = self.server.tmux(Command::new("new-window").args(args)).await?;
        let pane = out.trim();
        if !pane.starts_with('%') {
            return Err(Error::Protocol {
                command: "new-window".into(),
                detail: format!("expected a pane id, got {out:?}"),
            });
        }
        self.server.tmux(Command::new("set-option").args(["-w", "-t", pane, "remain-on-exit", "on"])).await?;
        let pane = PaneId::new(pane);
        if runs_shell {
            self.server.note_fresh_shell(&pane);
        }
        Ok(Pane::new(self.server.clone(), pane))
    }

    /// Every pane of every window of the session.
    pub async fn panes(&self) -> Result<Vec<Pane>> {
        let target = format!("={}", self.name);
        let out = self.server.tmux(Command::new("list-panes").args(["-s", "-t", &target, "-F", "#{pane_id}"])).await?;
        Ok(out
            .lines()
            .filter(|l| l.starts_with('%'))
            .map(|id| Pane::new(self.server.clone(), PaneId::new(id)))
            .collect())
    }

    /// Kills the session and its panes.
    pub async fn kill(&self) -> Result<()> {
        self.server.tmux(Command::new("kill-session").args(["-t", &format!("={}", self.name)])).await.map(drop)
    }

    /// Sets user options (`@name` = value) on this session in one call; see [`Server::set_user_options`].
    pub async fn set_user_options<K, V>(&self, options: impl IntoIterator<Item = (K, V)>) -> Result<()>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        self.server.set_user_options(&self.name, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_list_sessions_line_with_tabs_in_name_last() {
        let info = SessionInfo::parse("$3\t1700000000\t2\t0\t1\tclive-ab12\tx", &[]).unwrap();
        assert_eq!(info.name, "clive-ab12\tx");
        assert_eq!(info.id, "$3");
        assert_eq!(info.windows, 2);
        assert!(info.active_pane_dead);
    }

    #[test]
    fn user_options_come_back_by_name_and_missing_ones_are_left_out() {
        let info = SessionInfo::parse("$3\t1\t1\t0\t0\t\"ls\"\t\tname", &["@task", "@exit"]).unwrap();
        assert_eq!(info.user_options.get("@task").map(String::as_str), Some("\"ls\""));
        assert!(!info.user_options.contains_key("@exit"));
        assert_eq!(info.name, "name");
        assert_eq!(
            SessionInfo::format(&["@a"]),
            "#{session_id}\t#{session_created}\t#{session_windows}\t#{session_attached}\t#{pane_dead}\t#{@a}\t#{session_name}"
        );
    }

    #[test]
    fn user_option_names_are_checked() {
        assert!(validate_user_option("@clive-task").is_ok());
        for bad in ["clive", "@", "@a b", "@a;b", "@a}"] {
            assert!(validate_user_option(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rejects_names_tmux_would_misread() {
        assert!(validate_name("a:b").is_err());
        assert!(validate_name("").is_err());
        assert!(validate_name("clive-1").is_ok());
    }
}
