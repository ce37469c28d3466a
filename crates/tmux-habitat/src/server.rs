//! A tmux server: one we start (isolated, with our own config) or one we only talk to.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tmux_control::Command;

use crate::error::{Error, Result};
use crate::pane::{Pane, PaneId};
use crate::session::{Session, SessionInfo, SessionOptions};
use crate::socket::SocketSpec;
use crate::transport::{Invocation, SocketArg, Subprocess, Transport, TransportKind};

/// The config every server we start reads instead of the user's `~/.tmux.conf`.
///
/// `remain-on-exit` keeps a dead pane's last screen and exit status readable; `escape-time 0` makes a sent
/// Escape arrive as Escape, not as the start of a Meta sequence; a deep history keeps long outputs whole.
const CONFIG: &str = "\
set -g remain-on-exit on
set -g history-limit 50000
set -g escape-time 0
set -g default-terminal screen-256color
set -g status off
set -g destroy-unattached off
set -g exit-empty on
set -g allow-rename off
";

/// A handle on a tmux server. Cheap to clone; all clones talk to the same server.
///
/// A server we started with [`ServerBuilder::start`] (or [`Server::isolated`]) is killed, and its private
/// socket directory removed, when the last clone is dropped, unless [`ServerBuilder::keep_on_drop`] says
/// otherwise. A server opened with [`Server::existing`] is never reconfigured or killed by us.
#[derive(Debug, Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    transport: Transport,
    /// Our private directory: command scripts, the config, and for isolated servers the socket.
    runtime_dir: PathBuf,
    kill_on_drop: bool,
    shell: Option<String>,
    /// The default shell's words, when `shell` is ours: tmux then starts it directly, not through `sh -c`.
    shell_argv: Option<Vec<String>>,
    /// Whether the default shell names each prompt in the pane title ([`crate::shell_prompt`]).
    shell_titles_prompts: bool,
    /// Panes created running the default shell that nothing has been typed into yet: the shell's first prompt
    /// title says they read input ([`Pane::wait_ready`]).
    fresh_prompt_panes: std::sync::Mutex<std::collections::HashSet<PaneId>>,
    default_size: (u16, u16),
    /// Scripts of commands nobody waited to the end for, per pane: removed once a later command there ends.
    left_scripts: std::sync::Mutex<Vec<(PaneId, PathBuf)>>,
}

/// Builds a [`Server`] of our own.
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    socket: Option<SocketSpec>,
    program: PathBuf,
    kill_on_drop: Option<bool>,
    shell: Option<String>,
    default_size: (u16, u16),
    transport: Option<TransportKind>,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            socket: None,
            program: std::env::var_os("TMUX_HABITAT_TMUX").map(PathBuf::from).unwrap_or_else(|| "tmux".into()),
            kill_on_drop: None,
            shell: Some(DEFAULT_SHELL.to_owned()),
            default_size: (200, 50),
            transport: None,
        }
    }
}

/// Sets the pane title at each prompt of the default shell; see [`crate::shell_prompt`].
const PROMPT_COMMAND: &str =
    r#"__hab_status=$?; printf "\033]2;hab-prompt-%s-%s\007" "$((++__hab_prompts))" "$__hab_status""#;

/// Stands for the default shell until the builder knows where its rc file lives.
const DEFAULT_SHELL: &str = "\0default";

/// The default shell as a command line and as its words (the words go to tmux as they are, so no `sh -c` starts
/// before it), and whether it names its prompts in the pane title.
struct DefaultShell {
    line: String,
    argv: Vec<String>,
    titles_prompts: bool,
}

/// What an agent reads should not depend on the user's dotfiles: bash with our own small rc file (plain
/// prompt, no history file, and an EXIT trap that prints the shell's exit status, because tmux 3.3a sometimes
/// never reports a dead pane's status), else plain sh.
fn default_shell(runtime_dir: &Path) -> Result<DefaultShell> {
    if !Path::new("/bin/bash").exists() {
        return Ok(DefaultShell {
            line: "env PS1='$ ' /bin/sh".to_owned(),
            argv: ["env", "PS1=$ ", "/bin/sh"].map(str::to_owned).to_vec(),
            titles_prompts: false,
        });
    }
    let rc = runtime_dir.join("bashrc");
    // Each prompt also sets the pane title to `hab-prompt-<count>-<status>` (invisible on screen): a sign that
    // the shell is back at its prompt even when an interrupted command line never printed its end marker.
    let text = format!(
        "PS1='$ '\nHISTFILE=/dev/null\nPROMPT_COMMAND='{PROMPT_COMMAND}'\ntrap 'printf \"\\n{}%s\\n\" \"$?\"' EXIT\n",
        crate::pane::EXIT_MARKER
    );
    std::fs::write(&rc, text).map_err(|e| Error::io(format!("writing {}", rc.display()), e))?;
    let rc = rc.display().to_string();
    Ok(DefaultShell {
        line: format!("/bin/bash --noprofile --rcfile {}", crate::shell_quote(&rc)),
        argv: vec!["/bin/bash".to_owned(), "--noprofile".to_owned(), "--rcfile".to_owned(), rc],
        titles_prompts: true,
    })
}

impl ServerBuilder {
    /// Use `tmux -L name` (a socket in tmux's per-user directory). Such a server is shared by every process
    /// that uses the same name, so by default it is left running on drop.
    pub fn socket_name(mut self, name: impl Into<String>) -> Self {
        self.socket = Some(SocketSpec::Name(name.into()));
        self
    }

    /// Use `tmux -S path`.
    pub fn socket_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.socket = Some(SocketSpec::Path(path.into()));
        self
    }

    /// The tmux binary (default `tmux`, or `$TMUX_HABITAT_TMUX`).
    pub fn program(mut self, program: impl Into<PathBuf>) -> Self {
        self.program = program.into();
        self
    }

    /// Kill the server when the last handle is dropped (default: yes for a private socket, no for a name).
    pub fn keep_on_drop(mut self, keep: bool) -> Self {
        self.kill_on_drop = Some(!keep);
        self
    }

    /// The command new panes run (default: bash with a small rc file of ours: `PS1='$ '`, no history file,
    /// and an EXIT trap that prints the exit status for [`Pane::exit_status`]). `None` leaves it to
    /// tmux's `default-shell` (the user's `$SHELL`). [`Pane::run`] needs a POSIX shell.
    pub fn shell(mut self, shell: Option<String>) -> Self {
        self.shell = shell;
        self
    }

    /// How commands travel (default: control mode, unless `TMUX_HABITAT_TRANSPORT` says `subprocess`).
    pub fn transport(mut self, kind: TransportKind) -> Self {
        self.transport = Some(kind);
        self
    }

    /// Size of new sessions (default 200×50).
    pub fn default_size(mut self, width: u16, height: u16) -> Self {
        self.default_size = (width, height);
        self
    }

    /// Prepares the server: our config, our runtime directory, the socket. The tmux process itself starts
    /// with the first session.
    pub async fn start(self) -> Result<Server> {
        let runtime_dir = make_private_dir()?;
        let config = runtime_dir.join("tmux.conf");
        std::fs::write(&config, CONFIG).map_err(|e| Error::io(format!("writing {}", config.display()), e))?;
        let (socket, socket_path, kill_default) =
            match self.socket.unwrap_or_else(|| SocketSpec::Path(runtime_dir.join("socket"))) {
                SocketSpec::Name(name) => {
                    validate_socket_name(&name)?;
                    let path = SocketSpec::Name(name.clone()).resolve();
                    (SocketArg::Name(name), path, false)
                }
                SocketSpec::Path(path) => {
                    let private = path.starts_with(&runtime_dir);
                    (SocketArg::Path(path.clone()), path, private)
                }
                SocketSpec::Inherit => {
                    let path = SocketSpec::Inherit.resolve();
                    (SocketArg::Path(path.clone()), path, false)
                }
            };
        let (shell, default) = match self.shell {
            Some(shell) if shell == DEFAULT_SHELL => {
                let default = default_shell(&runtime_dir)?;
                (Some(default.line.clone()), Some(default))
            }
            other => (other, None),
        };
        let kind = self.transport.or_else(TransportKind::from_env).unwrap_or(TransportKind::Control);
        let transport =
            Transport::new(kind, Subprocess { program: self.program, socket, socket_path, config: Some(config) });
        let kill_on_drop = self.kill_on_drop.unwrap_or(kill_default);
        Ok(Server::from_parts(transport, runtime_dir, kill_on_drop, (shell, default), self.default_size))
    }
}

fn validate_socket_name(name: &str) -> Result<()> {
    if name.is_empty() || name.contains('/') {
        return Err(Error::Invalid {
            what: "socket name",
            value: name.to_owned(),
            reason: "must be non-empty and contain no `/`; use a socket path for a file elsewhere".into(),
        });
    }
    Ok(())
}

/// A fresh private directory (mode 0700) for one `Server` handle's files.
fn make_private_dir() -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    for _ in 0..16 {
        let dir = base.join(format!("tmux-habitat-{}-{:08x}", std::process::id(), rand::random::<u32>()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(format!("creating {}", dir.display()), e)),
        }
    }
    Err(Error::io("creating a private directory", std::io::Error::other("no free name after 16 tries")))
}

impl Server {
    /// Starts building a server of our own.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// A server on a fresh private socket, killed and removed on drop: what tests and one-off jobs want.
    pub async fn isolated() -> Result<Server> {
        ServerBuilder::default().start().await
    }

    /// A server we did not start (the user's own, which `lane-send` acts on), resolved to an explicit socket
    /// path once. It is never reconfigured and never killed by dropping the handle. It is driven by
    /// subprocesses unless `TMUX_HABITAT_TRANSPORT=control`: a control client would show as an attached
    /// client in the user's `tmux ls`.
    pub fn existing(socket: SocketSpec) -> Result<Server> {
        let runtime_dir = make_private_dir()?;
        let socket_path = socket.resolve();
        let kind = TransportKind::from_env().unwrap_or(TransportKind::Subprocess);
        let transport = Transport::new(
            kind,
            Subprocess {
                program: ServerBuilder::default().program,
                socket: SocketArg::Path(socket_path.clone()),
                socket_path,
                config: None,
            },
        );
        Ok(Server::from_parts(transport, runtime_dir, false, (None, None), (200, 50)))
    }

    fn from_parts(
        transport: Transport,
        runtime_dir: PathBuf,
        kill_on_drop: bool,
        (shell, default): (Option<String>, Option<DefaultShell>),
        default_size: (u16, u16),
    ) -> Server {
        let (shell_argv, shell_titles_prompts) = match default {
            Some(default) => (Some(default.argv), default.titles_prompts),
            None => (None, false),
        };
        Server {
            inner: Arc::new(Inner {
                transport,
                runtime_dir,
                kill_on_drop,
                shell,
                shell_argv,
                shell_titles_prompts,
                fresh_prompt_panes: std::sync::Mutex::default(),
                default_size,
                left_scripts: std::sync::Mutex::default(),
            }),
        }
    }

    /// Keeps the script of a command on `pane` that was given up on before its end (its wait timed out, the
    /// handle was dropped), to be removed once a later command on the pane ends: the shell may still be about
    /// to read it now, but not after it has run a later line.
    pub(crate) fn leave_script(&self, pane: &PaneId, script: PathBuf) {
        self.left_scripts().push((pane.clone(), script));
    }

    /// Removes the scripts left on `pane`: a command there has just ended, so its shell is done with them.
    pub(crate) fn remove_left_scripts(&self, pane: &PaneId) {
        self.left_scripts().retain(|(on, script)| {
            let done = on == pane;
            if done {
                let _ = std::fs::remove_file(script);
            }
            !done
        });
    }

    fn left_scripts(&self) -> std::sync::MutexGuard<'_, Vec<(PaneId, PathBuf)>> {
        self.inner.left_scripts.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The socket this server listens on.
    pub fn socket_path(&self) -> &Path {
        self.inner.transport.socket_path()
    }

    /// The command a person types to watch this server: `tmux -S <socket> attach -t <session>`.
    pub fn attach_command(&self, session: &str) -> String {
        let socket = crate::shell_quote(&self.socket_path().display().to_string());
        format!("tmux -S {socket} attach -t {}", crate::shell_quote(&format!("={session}")))
    }

    /// Runs a tmux command, or a chain of them ([`Invocation`]), and returns its stdout. This is the one way
    /// the workspace talks to tmux: every argument arrives literally, and a failure comes back as the
    /// variant it stands for ([`Error::NoServer`], [`Error::NotFound`], else [`Error::Command`]).
    ///
    /// ```no_run
    /// # async fn demo(server: tmux_habitat::Server) -> tmux_habitat::Result<()> {
    /// use tmux_habitat::Command;
    /// let panes = server.tmux(Command::new("list-panes").args(["-a", "-F", "#{pane_id}"])).await?;
    /// # Ok(()) }
    /// ```
    pub async fn tmux(&self, invocation: impl Into<Invocation>) -> Result<String> {
        self.inner.transport.run(invocation.into()).await
    }

    /// A raw `tmux` command with socket, config and scrubbed environment, for an interactive
    /// `attach` or a long-lived client. Prefer [`Server::tmux`] for anything that returns.
    pub fn raw_command(&self) -> tokio::process::Command {
        self.inner.transport.subprocess().command()
    }

    /// Detaches this handle's control clients and waits until they have gone, taking turns with processes
    /// that create sessions on the same server: tmux (3.3a and 3.5a) can crash when a control client
    /// detaches or attaches while a session is being created. Call it before a process that shares a server
    /// with others (two `clive`s on one socket) exits; dropping the handle detaches without waiting. The
    /// handle stays usable: a later command attaches again.
    pub async fn close(&self) {
        self.inner.transport.close().await;
    }

    /// The version of the tmux binary this handle runs (`tmux -V`, asked once per binary and process).
    pub async fn tmux_version(&self) -> Result<crate::TmuxVersion> {
        crate::version::detect(self.program()).await
    }

    /// Which transport this handle uses.
    pub fn transport_kind(&self) -> TransportKind {
        self.inner.transport.kind()
    }

    /// Follows a pane's output bytes as tmux reads them (control mode only; `None` on the subprocess
    /// transport, where callers fall back to captures).
    pub(crate) async fn subscribe_output(&self, pane: &PaneId) -> Result<Option<tmux_control::OutputSubscription>> {
        match &self.inner.transport {
            Transport::Subprocess(_) => Ok(None),
            Transport::Control(c) => c.subscribe(pane.as_str()).await.map(Some),
        }
    }

    /// Runs commands placed in a subscription's stream, written to tmux together (control mode only): each
    /// one's output and how many bytes of the pane's output the subscription was sent before it.
    pub(crate) async fn commands_at_output(
        &self,
        pane: &PaneId,
        commands: Vec<Command>,
        subscription: &tmux_control::OutputSubscription,
    ) -> Result<Vec<(String, u64)>> {
        match &self.inner.transport {
            Transport::Subprocess(_) => Err(Error::Unsupported { what: "placing a command in a pane's output" }),
            Transport::Control(c) => c.commands_at(pane.as_str(), commands, subscription).await,
        }
    }

    pub(crate) async fn continue_pane(&self, pane: &PaneId) {
        if let Transport::Control(c) = &self.inner.transport {
            c.continue_pane(pane.as_str()).await;
        }
    }

    /// The tmux binary every call runs.
    pub fn program(&self) -> &Path {
        &self.inner.transport.subprocess().program
    }

    /// This handle's private directory (mode 0700): the panes' rc file, and the scripts and FIFOs of
    /// running commands. A pane's shell reads it, so a sandbox around the shell must let it in.
    pub fn runtime_dir(&self) -> &Path {
        &self.inner.runtime_dir
    }

    /// Whether a session with exactly this name exists (`has-session -t '=name'`).
    pub async fn has_session(&self, name: &str) -> Result<bool> {
        if !listens(self.socket_path()) {
            return Ok(false);
        }
        match self.tmux(Command::new("has-session").args(["-t", &format!("={name}")])).await {
            Ok(_) => Ok(true),
            Err(Error::NotFound { .. } | Error::NoServer { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// All sessions on the server (none when the server is not running).
    pub async fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        self.list_sessions_with(&[]).await
    }

    /// All sessions on the server with the values of the named user options (`@name`) of each, read in the
    /// same call (none when the server is not running). Options a session does not have are left out of its
    /// [`SessionInfo::user_options`].
    pub async fn list_sessions_with(&self, user_options: &[&str]) -> Result<Vec<SessionInfo>> {
        for name in user_options {
            crate::session::validate_user_option(name)?;
        }
        if !listens(self.socket_path()) {
            // No server: asking would cost a `tmux` process (and over control mode a failed attach first), and
            // tmux leaves its socket file behind when its last session ends, so the file alone says nothing.
            return Ok(Vec::new());
        }
        let format = SessionInfo::format(user_options);
        match self.tmux(Command::new("list-sessions").args(["-F", &format])).await {
            Ok(out) => out.lines().map(|line| SessionInfo::parse(line, user_options)).collect(),
            Err(Error::NoServer { .. }) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// Sets user options (`@name` = value) on the session named `session`, in one tmux call. Names are `@`
    /// and then letters, digits, `-` or `_`; values must not hold control characters (tab, newline), so they
    /// read back whole through [`Server::list_sessions_with`]. Keep values ASCII (JSON-escape the rest) if a
    /// client with another locale may read them.
    pub async fn set_user_options<K, V>(&self, session: &str, options: impl IntoIterator<Item = (K, V)>) -> Result<()>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let target = format!("={session}:");
        let mut invocation: Option<Invocation> = None;
        for (name, value) in options {
            let (name, value) = (name.as_ref(), value.as_ref());
            crate::session::validate_user_option(name)?;
            if value.chars().any(char::is_control) {
                return Err(Error::Invalid {
                    what: "user option value",
                    value: value.to_owned(),
                    reason: "must not contain control characters (tab, newline); escape them (e.g. as JSON)".into(),
                });
            }
            let command = Command::new("set-option").args(["-t", &target, name, value]);
            invocation = Some(match invocation {
                None => Invocation::new(command),
                Some(chain) => chain.then(command),
            });
        }
        match invocation {
            Some(invocation) => self.tmux(invocation).await.map(drop),
            None => Ok(()),
        }
    }

    /// Creates a detached session (its view never jumps for a watcher) and waits for nothing: call
    /// [`Pane::wait_ready`] on its first pane before typing into a shell. A server that is exiting as the
    /// session starts is replaced by a fresh one (a few attempts), not reported.
    pub async fn new_session(&self, options: SessionOptions) -> Result<Session> {
        Session::create(self, options).await
    }

    /// Re-opens the sessions whose names start with `prefix`, so a process that crashed and came back finds
    /// its panes again.
    pub async fn adopt(&self, prefix: &str) -> Result<Vec<Session>> {
        let mut found = Vec::new();
        for info in self.list_sessions().await? {
            if info.name.starts_with(prefix) {
                found.push(Session::open(self, &info.name).await?);
            }
        }
        Ok(found)
    }

    /// Resolves a target to a pane pinned to its id: a pane id like `%3`, or a session name (its active pane).
    pub async fn pane(&self, target: &str) -> Result<Pane> {
        let tmux_target = if target.starts_with('%') { target.to_owned() } else { format!("={target}:") };
        let out = self.tmux(Command::new("display-message").args(["-p", "-t", &tmux_target, "#{pane_id}"])).await;
        match out {
            Ok(id) if id.trim().starts_with('%') => Ok(Pane::new(self.clone(), PaneId::new(id.trim()))),
            // tmux 3.3 answers a display-message for a missing target with nothing and exit status 0.
            Ok(_) | Err(Error::NotFound { .. } | Error::Command { .. }) => Err(Error::NotFound {
                kind: if target.starts_with('%') { "pane" } else { "session" },
                name: target.to_owned(),
                socket: self.socket_path().to_owned(),
            }),
            Err(e) => Err(e),
        }
    }

    /// Kills the server and everything in it. Killing a server that is not running is not an error.
    pub async fn kill(&self) -> Result<()> {
        match self.tmux(Command::new("kill-server")).await {
            Ok(_) | Err(Error::NoServer { .. }) => {
                crate::turn::remove(self.socket_path());
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// The shell command line new panes run (see [`ServerBuilder::shell`]); `None` leaves it to tmux's
    /// `default-shell`. A launcher that wraps the shell (a sandbox) runs this line inside its wrapper.
    pub fn shell(&self) -> Option<&str> {
        self.inner.shell.as_deref()
    }

    pub(crate) fn default_size(&self) -> (u16, u16) {
        self.inner.default_size
    }

    /// The default shell's words, when new panes run the default shell (see [`ServerBuilder::shell`]).
    pub(crate) fn shell_argv(&self) -> Option<&[String]> {
        self.inner.shell_argv.as_deref()
    }

    /// Notes a pane just created running the server's shell: when that shell names its prompts in the pane
    /// title, [`Pane::wait_ready`] waits for its first prompt instead of typing a handshake.
    pub(crate) fn note_fresh_shell(&self, pane: &PaneId) {
        if self.inner.shell_titles_prompts {
            self.fresh_prompt_panes().insert(pane.clone());
        }
    }

    /// Whether `pane` is a fresh pane of the default shell (see [`Server::note_fresh_shell`]); it is one no
    /// longer once asked.
    pub(crate) fn take_fresh_shell(&self, pane: &PaneId) -> bool {
        self.fresh_prompt_panes().remove(pane)
    }

    fn fresh_prompt_panes(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<PaneId>> {
        self.inner.fresh_prompt_panes.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let socket = &self.transport.subprocess().socket_path;
        if self.kill_on_drop {
            kill_server_now(self.transport.subprocess());
            if listens(socket) {
                // `kill-server` did not get through (or the server is still leaving): without its socket file
                // nothing could reach it again, so make sure it goes.
                let _ = crate::reap::signal_servers_on(socket);
            }
            let _ = std::fs::remove_file(socket);
            crate::turn::remove(socket);
        } else if crate::turn::lock_path(socket).exists() && !listens(socket) {
            // The server went away on its own: so did the use of its turn lock.
            crate::turn::remove(socket);
        }
        if !self.kill_on_drop && socket.starts_with(&self.runtime_dir) {
            // A private socket of a server that is kept running: its directory must stay with it.
            return;
        }
        let _ = std::fs::remove_dir_all(&self.runtime_dir);
    }
}

/// Whether a server accepts connections on `socket` (tmux leaves its socket file behind when killed).
fn listens(socket: &Path) -> bool {
    match std::os::unix::net::UnixStream::connect(socket) {
        Ok(_) => true,
        Err(e) => !matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused),
    }
}

/// `kill-server`, from `Drop` (which cannot await), with a deadline of its own: a wedged or stopped server
/// must not hang the dropping thread.
#[allow(
    clippy::disallowed_methods,
    reason = "Drop has no runtime to wait on the child's exit signal; bounded 2 ms polls"
)]
fn kill_server_now(subprocess: &Subprocess) {
    let child = std::process::Command::new(&subprocess.program)
        .arg("-S")
        .arg(&subprocess.socket_path)
        .arg("kill-server")
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return };
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while std::time::Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return,
            // Polling a child's exit from Drop: there is no signal to wait on without a runtime.
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
