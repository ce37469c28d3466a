//! The control-mode transport: commands over persistent `tmux -C` connections, and pane output as a stream.
//!
//! tmux sends `%output` only for panes of the session a control client is attached to, so there is one
//! connection per session, attached with `-f ignore-size` (it never resizes a window). Commands travel over
//! any live connection. A session is created by a control client of its own (`tmux -C new-session`), which
//! stays attached to it: one process creates the session, starting the server if need be, and follows it. What
//! control mode cannot carry goes through the subprocess transport: commands with stdin (`load-buffer -`),
//! arguments with a newline, `wait-for` (it would block the connection's whole queue) and `kill-server`.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use tmux_control::{Command, Connection, ConnectionOptions, OutputSubscription};

use crate::error::{Error, Result};
use crate::transport::{Invocation, Subprocess};

/// Seconds a pane may fall behind before tmux pauses it for us instead of queueing without bound.
const PAUSE_AFTER_SECS: u32 = 5;

#[derive(Debug)]
pub(crate) struct Control {
    pub(crate) subprocess: Subprocess,
    /// Live connections by session id (`$N`).
    connections: tokio::sync::Mutex<HashMap<String, Connection>>,
    /// The session of each pane we have followed, so commands for a pane travel over its own session's
    /// connection: a control client ends when its session is destroyed, and a command must not depend on
    /// some other session staying alive.
    pane_sessions: std::sync::Mutex<HashMap<String, String>>,
}

impl Control {
    pub(crate) fn new(subprocess: Subprocess) -> Self {
        Control {
            subprocess,
            connections: tokio::sync::Mutex::new(HashMap::new()),
            pane_sessions: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The session of the first pane a command targets (`-t %N`), when we follow that pane.
    fn session_of(&self, commands: &[Command]) -> Option<String> {
        let pane = commands.iter().find_map(|command| {
            command.arguments().windows(2).find(|w| w[0] == "-t" && w[1].starts_with('%')).map(|w| w[1].clone())
        })?;
        self.pane_sessions.lock().unwrap_or_else(|p| p.into_inner()).get(&pane).cloned()
    }

    pub(crate) async fn run(&self, invocation: Invocation) -> Result<String> {
        if invocation.commands.first().is_some_and(|c| c.name() == "new-session") {
            // tmux (3.3a, and 3.5a too) crashes when a session is created while a control client is attaching;
            // creating sessions and opening connections take turns (across processes too: `crate::turn`).
            let mut conns = self.connections.lock().await;
            // Shared with the creating client's task, which holds it until the client has answered.
            let turn = std::sync::Arc::new(crate::turn::take(&self.subprocess.socket_path, crate::turn::WAIT).await?);
            if let Some(created) = self.create_attached(&invocation, &mut conns, std::sync::Arc::clone(&turn)).await {
                return created;
            }
            return self.subprocess.run(invocation).await;
        }
        if let [only] = invocation.commands.as_slice()
            && only.name() == "kill-session"
        {
            return self.kill_session(invocation).await;
        }
        if needs_subprocess(&invocation) {
            return self.subprocess.run(invocation).await;
        }
        let commands = match command_lines(&invocation.commands) {
            Some(commands) => commands,
            None => return self.subprocess.run(invocation).await,
        };
        let conn = match self.session_of(&invocation.commands) {
            Some(session) => match self.connection_for(&session).await {
                Ok(conn) => Some(conn),
                Err(_) => {
                    // The session is gone: forget its panes, so later commands do not try it again.
                    self.pane_sessions.lock().unwrap_or_else(|p| p.into_inner()).retain(|_, s| *s != session);
                    None
                }
            },
            None => self.any_connection().await,
        };
        let Some(conn) = conn else {
            return self.subprocess.run(invocation).await;
        };
        // Pipelined: every line is written before the first reply is awaited, so a chain such as
        // display-message + capture-pane is read by the server together, as with one subprocess call.
        let replies = futures_join(&conn, &commands, invocation.deadline).await;
        let mut out = String::new();
        for (command, reply) in commands.iter().zip(replies) {
            match reply {
                Ok(reply) if reply.ok => push_reply(&mut out, &reply.text()),
                Ok(reply) => return Err(self.refused(command, &reply.text())),
                Err(tmux_control::Error::ConnectionClosed { reason }) => {
                    self.forget_closed().await;
                    // Whether a command that was in flight ran is unknown: repeat only what is harmless to
                    // repeat, never keys or pastes.
                    if repeatable(&invocation.commands) {
                        return self.subprocess.run(invocation).await;
                    }
                    return Err(Error::ConnectionLost { command: format!("tmux {command}"), reason });
                }
                Err(source) => return Err(failed(command, source)),
            }
        }
        Ok(out)
    }

    /// Creates the session from a control client of its own, which is attached to it from the start: one `tmux`
    /// process where `new-session` and attaching took two (about 2 ms). Called in turn. The rest of the chain
    /// runs over the new client, in the new session. `None` when the client did not create the session (a
    /// name taken, a server going away) or the call has a form this does not take: the caller then runs it as
    /// a `tmux` process, which reports why (nothing was created).
    async fn create_attached(
        &self,
        invocation: &Invocation,
        conns: &mut HashMap<String, Connection>,
        turn: std::sync::Arc<Option<crate::turn::Turn>>,
    ) -> Option<Result<String>> {
        let (new_session, rest) = invocation.commands.split_first()?;
        let created = ControlCreation::of(new_session.arguments())?;
        let pause_after = format!("refresh-client -f pause-after={PAUSE_AFTER_SECS}");
        let mut lines = vec!["display-message -p '#{session_id}\t#{pane_id}'".to_owned(), pause_after];
        lines.extend(created.print.iter().map(|format| format!("display-message -p {}", crate::shell_quote(format))));
        lines.extend(command_lines(rest)?);
        let mut cmd = self.subprocess.command();
        cmd.args(["-C", "new-session", "-f", "ignore-size"]).args(&created.arguments);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).kill_on_drop(true);
        let deadline = invocation.deadline;
        let work = async move {
            let child = cmd.spawn().ok()?;
            // The connection stays with the session: its own commands (pause-after, continue) get the default
            // timeout every connection has; the creation's lines get the call's deadline below.
            let options = ConnectionOptions { command_timeout: CONNECTION_TIMEOUT, ..ConnectionOptions::default() };
            let (conn, _events) = Connection::from_child(child, options).ok()?;
            let replies = futures_join(&conn, &lines, deadline).await;
            Some((conn, replies, lines))
        };
        let release = |created: Option<(Connection, _, _)>| async move {
            if let Some((conn, _, _)) = created {
                detach(&conn).await;
            }
        };
        let (conn, replies, lines) = unabandoned(turn, work, release).await.flatten()?;
        let mut replies = replies.into_iter();
        let ids = match replies.next()? {
            Ok(reply) if reply.ok => reply.text(),
            _ => return None,
        };
        let (session, pane) = ids.trim().split_once('\t').filter(|(s, p)| s.starts_with('$') && p.starts_with('%'))?;
        tracing::debug!(session, "session created by its control client");
        conns.insert(session.to_owned(), conn);
        self.pane_sessions.lock().unwrap_or_else(|p| p.into_inner()).insert(pane.to_owned(), session.to_owned());
        let mut out = String::new();
        for (line, reply) in lines.iter().skip(1).zip(replies) {
            match reply {
                Ok(reply) if reply.ok => push_reply(&mut out, &reply.text()),
                Ok(reply) => return Some(Err(self.refused(line, &reply.text()))),
                Err(source) => return Some(Err(failed(line, source))),
            }
        }
        Some(Ok(out))
    }

    /// Follows a pane's output, over the connection attached to the pane's session.
    pub(crate) async fn subscribe(&self, pane: &str) -> Result<OutputSubscription> {
        let known = self.pane_sessions.lock().unwrap_or_else(|p| p.into_inner()).get(pane).cloned();
        let session = match known {
            Some(session) => session,
            None => self.subprocess_or_conn_display(pane, "#{session_id}").await?,
        };
        let conn = self.connection_for(&session).await?;
        self.pane_sessions.lock().unwrap_or_else(|p| p.into_inner()).insert(pane.to_owned(), session);
        let id = pane.parse().map_err(|_| Error::Invalid {
            what: "pane id",
            value: pane.to_owned(),
            reason: "expected %N".into(),
        })?;
        let subscription = conn.subscribe_output(id);
        // tmux may have paused the pane while nobody was reading (pause-after); a new reader starts it again.
        let _ = conn.continue_pane(id).await;
        Ok(subscription)
    }

    /// Runs `commands` on the connection that carries `subscription` (the pane's session's), written together,
    /// and returns each one's output with its place in the subscription's stream (see
    /// [`tmux_control::Connection::commands_at`]).
    pub(crate) async fn commands_at(
        &self,
        pane: &str,
        commands: Vec<Command>,
        subscription: &OutputSubscription,
    ) -> Result<Vec<(String, u64)>> {
        let session = self.pane_sessions.lock().unwrap_or_else(|p| p.into_inner()).get(pane).cloned();
        let session = session.ok_or_else(|| Error::Invalid {
            what: "pane",
            value: pane.to_owned(),
            reason: "not followed: subscribe to its output first".into(),
        })?;
        let conn = self.connection_for(&session).await?;
        let lines: Vec<String> = commands.iter().map(|c| c.to_line().unwrap_or_else(|_| c.name().to_owned())).collect();
        let answers = conn
            .commands_at(&commands, subscription)
            .await
            .map_err(|source| Error::Control { command: format!("tmux {}", lines.join(" \\; ")), source })?;
        let mut outputs = Vec::with_capacity(answers.len());
        for ((reply, place), line) in answers.into_iter().zip(&lines) {
            if !reply.ok {
                let socket = &self.subprocess.socket_path;
                return Err(Error::from_failure(format!("tmux {line}"), 1, &reply.text(), socket));
            }
            // As `run` returns it: each reply's text ends with a newline (a capture's blank last row included).
            let mut text = reply.text();
            if !text.is_empty() {
                text.push('\n');
            }
            outputs.push((text, place));
        }
        Ok(outputs)
    }

    /// Lets tmux send a paused pane's output again.
    pub(crate) async fn continue_pane(&self, pane: &str) {
        let Ok(id) = pane.parse() else { return };
        for conn in self.connections.lock().await.values() {
            let _ = conn.continue_pane(id).await;
        }
    }

    async fn subprocess_or_conn_display(&self, pane: &str, format: &str) -> Result<String> {
        let out = self.run(Invocation::new(Command::new("display-message").args(["-p", "-t", pane, format]))).await?;
        let value = out.trim().to_owned();
        if value.is_empty() {
            return Err(Error::NotFound {
                kind: "pane",
                name: pane.to_owned(),
                socket: self.subprocess.socket_path.clone(),
            });
        }
        Ok(value)
    }

    /// Any live connection; opens one (attached to the most recent session) when there is none and the
    /// server has a session.
    async fn any_connection(&self) -> Option<Connection> {
        // The lock is held while a connection opens: two tasks must never both open one and drop the
        // spare. tmux 3.3a crashes (a NULL dereference in control_stop) when a control client goes away
        // before its identification completes.
        let mut conns = self.connections.lock().await;
        conns.retain(|_, c| !c.is_closed());
        if let Some(conn) = conns.values().next() {
            return Some(conn.clone());
        }
        let (conn, session) = self.open(None).await.ok()?;
        Some(conns.entry(session).or_insert(conn).clone())
    }

    async fn connection_for(&self, session: &str) -> Result<Connection> {
        let mut conns = self.connections.lock().await;
        conns.retain(|_, c| !c.is_closed());
        if let Some(conn) = conns.get(session) {
            return Ok(conn.clone());
        }
        let (conn, attached) = self.open(Some(session)).await?;
        Ok(conns.entry(attached).or_insert(conn).clone())
    }

    /// Starts a control client attached to `session` (or the most recent one) and returns it with the id of
    /// the session it is attached to.
    async fn open(&self, session: Option<&str>) -> Result<(Connection, String)> {
        let socket = self.subprocess.socket_path.clone();
        let program = self.subprocess.program.display().to_string();
        let mut cmd = self.subprocess.command();
        // -N: attaching must never start a server (one that just exited, or was never started).
        cmd.args(["-N", "-C", "attach-session", "-f", "ignore-size"]);
        if let Some(session) = session {
            cmd.args(["-t", session]);
        }
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).kill_on_drop(true);
        // Held until the client has answered, so no session is created (by any process) while it attaches.
        let turn = crate::turn::take(&socket, crate::turn::WAIT).await?;
        let work = async move {
            let child = cmd.spawn().map_err(|source| Error::Spawn { program, source })?;
            let options = ConnectionOptions { command_timeout: CONNECTION_TIMEOUT, ..ConnectionOptions::default() };
            let attach = |source| Error::Control { command: "tmux -C attach-session".into(), source };
            let (conn, _events) = Connection::from_child(child, options).map_err(attach)?;
            // Written together: one round trip.
            let (reply, paused) = tokio::join!(
                conn.command("display-message -p '#{session_id}'"),
                conn.set_pause_after(PAUSE_AFTER_SECS)
            );
            let reply = reply.map_err(attach)?;
            let attached = reply.text().trim().to_owned();
            if !reply.ok || !attached.starts_with('$') {
                return Err(Error::Protocol {
                    command: "tmux -C attach-session".into(),
                    detail: format!("no session: {}", reply.text()),
                });
            }
            paused.map_err(|source| Error::Control { command: "refresh-client -f pause-after".into(), source })?;
            tracing::debug!(session = %attached, "control connection attached");
            Ok((conn, attached))
        };
        let release = |opened: Result<(Connection, String)>| async move {
            if let Ok((conn, _)) = opened {
                detach(&conn).await;
            }
        };
        unabandoned(turn, work, release).await.unwrap_or_else(|| {
            Err(Error::Protocol {
                command: "tmux -C attach-session".into(),
                detail: "the attach did not finish (it panicked, or the runtime is shutting down)".into(),
            })
        })
    }

    /// Kills a session, taking turns (see `crate::turn`). When we have a control client attached to the
    /// session, the kill travels over it: tmux answers, then ends that client as its session goes, and the turn
    /// is held until the client's process has exited, so tmux never handles a client going away while another
    /// process creates a session. Other processes' clients attached to the session are waited out too.
    async fn kill_session(&self, invocation: Invocation) -> Result<String> {
        let target = invocation.commands[0].arguments().windows(2).find(|w| w[0] == "-t").map(|w| w[1].clone());
        let mut conns = self.connections.lock().await;
        conns.retain(|_, c| !c.is_closed());
        let id = match (target, conns.values().next()) {
            (Some(target), Some(conn)) => session_id(conn, &target).await,
            _ => None,
        };
        let _turn = crate::turn::take(&self.subprocess.socket_path, crate::turn::WAIT).await?;
        let own = id.as_ref().and_then(|id| conns.remove(id));
        // Every client attached to the session leaves with it, ours and other processes' (a connection opened
        // for commands without a pane attaches to whichever session is newest): the turn is held until the
        // server has let them all go (listed before the kill, and after it by a tmux process of its own: a list
        // chained to the kill still shows a leaving client as moved to another session, and the server crashed
        // in 4 of 50 runs under load).
        let others = match (&id, own.as_ref().or(conns.values().next())) {
            (Some(id), Some(conn)) => other_clients(conn, id, own.is_some()).await,
            _ => Vec::new(),
        };
        if let Some(id) = &id {
            self.pane_sessions.lock().unwrap_or_else(|p| p.into_inner()).retain(|_, s| s != id);
        }
        let killed = match own {
            Some(conn) => match self.kill_over(&conn, &invocation).await {
                Some(killed) => killed,
                None => {
                    // Our client is back where it was (the kill failed) or gone (whether it ran is unknown):
                    // a tmux process of its own says which.
                    if !conn.is_closed() {
                        detach(&conn).await;
                    }
                    self.subprocess.run(invocation).await
                }
            },
            None => self.subprocess.run(invocation).await,
        };
        if let Some(id) = &id {
            self.wait_clients_gone(&others, id).await;
        }
        killed
    }

    /// Sends the kill over `conn`, the client attached to the session, and waits (at most a second) until
    /// tmux has ended that client. `None` when the kill did not answer as done.
    async fn kill_over(&self, conn: &Connection, invocation: &Invocation) -> Option<Result<String>> {
        let line = invocation.commands[0].to_line().ok()?;
        match conn.command_with_timeout(line.as_str(), invocation.deadline).await {
            Ok(reply) if reply.ok => {
                // A server told not to detach clients whose session goes (`detach-on-destroy off`) moves it to
                // another session instead: it is asked to leave then.
                if tokio::time::timeout(Duration::from_secs(1), conn.closed()).await.is_err() {
                    detach(conn).await;
                }
                Some(Ok(String::new()))
            }
            Ok(_) | Err(_) => None,
        }
    }

    /// The clients of the server as `(name, session id)`, asked with a tmux process (our connections may be
    /// leaving). Empty when the server cannot say.
    async fn clients(&self) -> Vec<(String, String)> {
        let list = Invocation::new(list_clients(None)).deadline(Duration::from_secs(2));
        self.subprocess.run(list).await.map(|out| parse_clients(&out)).unwrap_or_default()
    }

    /// Waits (at most a second) until none of the clients `names` is still attached to the killed session `from`
    /// (gone, or moved to another session as tmux does when a client's session goes). A client whose process has
    /// ended may not be gone from the server yet, and tmux crashes when a session is created while it lets a
    /// client go.
    async fn wait_clients_gone(&self, names: &[String], from: &str) {
        if names.is_empty() {
            return;
        }
        let mut backoff =
            crate::Backoff::with(Duration::from_millis(1), Duration::from_millis(50), Duration::from_secs(1));
        while lingering(names, &self.clients().await, from) && backoff.wait().await {}
    }

    /// Detaches every connection of this handle, taking turns with session creation (see `crate::turn`).
    pub(crate) async fn close(&self) {
        let mut conns = self.connections.lock().await;
        conns.retain(|_, c| !c.is_closed());
        if conns.is_empty() {
            return;
        }
        let _turn = crate::turn::take(&self.subprocess.socket_path, crate::turn::WAIT).await;
        for (_, conn) in conns.drain() {
            detach(&conn).await;
        }
    }

    async fn forget_closed(&self) {
        self.connections.lock().await.retain(|_, c| !c.is_closed());
    }

    /// The error of a command tmux refused over a control client, as a tmux process would report it.
    fn refused(&self, command: &impl std::fmt::Display, reply: &str) -> Error {
        Error::from_failure(format!("tmux {command}"), 1, reply, &self.subprocess.socket_path)
    }
}

/// How long a connection's own commands (not a caller's, which bring their deadline) wait for tmux's reply.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(5);

/// A command that got no reply over a connection, as a tmux process's failure would read: past its deadline is
/// [`Error::Deadline`], as when a `tmux` process is killed at its deadline.
fn failed(command: &impl std::fmt::Display, source: tmux_control::Error) -> Error {
    match source {
        tmux_control::Error::Timeout { command, timeout } => {
            Error::Deadline { command, deadline: timeout, stderr: String::new() }
        }
        source => Error::Control { command: format!("tmux {command}"), source },
    }
}

/// Appends a reply's text as a tmux process prints it: a line each, nothing for an empty reply.
fn push_reply(out: &mut String, text: &str) {
    if !text.is_empty() {
        out.push_str(text);
        out.push('\n');
    }
}

/// A `new-session` call as a control client makes it: attached (no `-d`), its `-P` output asked for
/// afterwards.
#[derive(Debug, PartialEq, Eq)]
struct ControlCreation {
    /// The arguments after `new-session -f ignore-size`.
    arguments: Vec<String>,
    /// The format to print the new pane with (`-P`; `-F`, else tmux's default).
    print: Option<String>,
}

impl ControlCreation {
    /// `None` for forms it does not take: combined flags, `-A` (attach to an existing session), `-f`.
    fn of(arguments: &[String]) -> Option<ControlCreation> {
        let mut kept = Vec::new();
        let (mut print, mut format) = (false, None);
        let mut words = arguments.iter();
        while let Some(word) = words.next() {
            match word.as_str() {
                "-d" => {}
                "-P" => print = true,
                "-F" => format = Some(words.next()?.clone()),
                "-c" | "-e" | "-n" | "-s" | "-t" | "-x" | "-y" => kept.extend([word.clone(), words.next()?.clone()]),
                "-D" | "-E" | "-X" => kept.push(word.clone()),
                flag if flag.starts_with('-') => return None,
                // The pane's command: the rest, as it is.
                _ => {
                    kept.push(word.clone());
                    kept.extend(words.by_ref().cloned());
                }
            }
        }
        let print = print.then(|| format.unwrap_or_else(|| "#{session_name}:".to_owned()));
        Some(ControlCreation { arguments: kept, print })
    }
}

/// `list-clients` printing each client's name and session id (only those attached to `session`, if given).
fn list_clients(session: Option<&str>) -> Command {
    let list = Command::new("list-clients").args(["-F", "#{client_name}\t#{session_id}"]);
    match session {
        Some(session) => list.args(["-t", session]),
        None => list,
    }
}

/// The `(name, session id)` rows of [`list_clients`]'s output.
fn parse_clients(out: &str) -> Vec<(String, String)> {
    out.lines().filter_map(|line| line.split_once('\t')).map(|(name, id)| (name.to_owned(), id.to_owned())).collect()
}

/// Whether any of the clients `names` is still among `clients` attached to `from` (tmux moves a client whose
/// session was killed to another session).
fn lingering(names: &[String], clients: &[(String, String)], from: &str) -> bool {
    names.iter().any(|name| clients.iter().any(|(other, id)| other == name && id == from))
}

/// The id (`$N`) of the session `target` names (`=name`, `name`, or an id), asked over `conn`.
async fn session_id(conn: &Connection, target: &str) -> Option<String> {
    if target.starts_with('$') {
        return Some(target.to_owned());
    }
    // A session target needs its `:` to be read as a session by display-message (which takes a pane): without
    // it tmux 3.3a and 3.5a answer nothing for `=name`.
    let target = if target.contains(':') { target.to_owned() } else { format!("{target}:") };
    let line = Command::new("display-message").args(["-p", "-t", &target, "#{session_id}"]).to_line().ok()?;
    let reply = conn.command_with_timeout(line.as_str(), Duration::from_secs(1)).await.ok()?;
    let id = reply.text().trim().to_owned();
    (reply.ok && id.starts_with('$')).then_some(id)
}

/// The names of the clients attached to session `id`, other than the one behind `conn` when `conn_is_in_it`
/// (listed and named in one write).
async fn other_clients(conn: &Connection, id: &str, conn_is_in_it: bool) -> Vec<String> {
    let Ok(list) = list_clients(Some(id)).to_line() else { return Vec::new() };
    let mut lines = vec![list];
    if conn_is_in_it {
        lines.push("display-message -p '#{client_name}'".to_owned());
    }
    let replies = futures_join(conn, &lines, Duration::from_secs(1)).await;
    let mut replies = replies.into_iter().map(|reply| match reply {
        Ok(reply) if reply.ok => Some(reply.text()),
        _ => None,
    });
    let listed = replies.next().flatten().map(|text| parse_clients(&text)).unwrap_or_default();
    let own = replies.next().flatten().map(|text| text.trim().to_owned());
    listed.into_iter().map(|(name, _)| name).filter(|name| Some(name) != own.as_ref()).collect()
}

/// Runs `work` (starting a control client and waiting for its first answers) as a task of its own that holds
/// `turn` throughout, so a caller that gives up (a deadline, a dropped future) never cuts it short: tmux 3.3a
/// crashes, ending every session on the server, when a control client is killed before tmux has identified
/// it, or goes away while a session is being created. A result nobody waits for any more is handed to
/// `release` (which detaches its client properly) before the turn is let go. `None` when the work did not
/// finish (it panicked, or the runtime is shutting down).
async fn unabandoned<T, Turn, Released>(
    turn: Turn,
    work: impl std::future::Future<Output = T> + Send + 'static,
    release: impl FnOnce(T) -> Released + Send + 'static,
) -> Option<T>
where
    T: Send + 'static,
    Turn: Send + 'static,
    Released: std::future::Future<Output = ()> + Send,
{
    let (done, result) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _turn = turn;
        if let Err(unwanted) = done.send(work.await) {
            release(unwanted).await;
        }
    });
    result.await.ok()
}

/// Asks a control client to detach and waits (at most a second) until it has gone.
async fn detach(conn: &Connection) {
    let _ = conn.command_with_timeout("detach-client", Duration::from_secs(1)).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), conn.closed()).await;
}

/// Sends the lines in order (each future enqueues its line on first poll, and `join_all` polls them in
/// order), then collects the replies.
async fn futures_join(
    conn: &Connection,
    commands: &[String],
    deadline: Duration,
) -> Vec<std::result::Result<tmux_control::Reply, tmux_control::Error>> {
    futures_util::future::join_all(commands.iter().map(|line| conn.command_with_timeout(line.as_str(), deadline))).await
}

/// Commands that are safe to send again when it is unknown whether they ran: they only read, or they set
/// a value to what it would be anyway.
fn repeatable(commands: &[Command]) -> bool {
    commands.iter().all(|command| {
        matches!(
            command.name(),
            "display-message"
                | "capture-pane"
                | "list-sessions"
                | "list-windows"
                | "list-panes"
                | "has-session"
                | "show-options"
                | "show-hooks"
                | "set-option"
                | "set-hook"
                | "resize-window"
        )
    })
}

/// Commands that control mode cannot or must not carry.
fn needs_subprocess(invocation: &Invocation) -> bool {
    invocation.stdin.is_some()
        || invocation.commands.iter().any(|command| {
            let args = command.arguments();
            // run-shell and if-shell without -b hold the connection's whole queue until their shell ends.
            let blocking_shell = matches!(command.name(), "run-shell" | "if-shell") && !args.iter().any(|a| a == "-b");
            blocking_shell
                || matches!(command.name(), "wait-for" | "new-session" | "kill-server" | "attach-session")
                || args.iter().any(|a| a.contains(['\n', '\r']))
        })
}

/// One quoted command line per command; `None` if an argument cannot be quoted.
fn command_lines(commands: &[Command]) -> Option<Vec<String>> {
    commands.iter().map(|command| command.to_line().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_past_its_deadline_is_a_deadline_error_as_over_a_tmux_process() {
        let timeout =
            tmux_control::Error::Timeout { command: "capture-pane -p".into(), timeout: Duration::from_secs(2) };
        assert!(matches!(
            failed(&"capture-pane -p", timeout),
            Error::Deadline { ref command, deadline, .. } if command == "capture-pane -p" && deadline == Duration::from_secs(2)
        ));
        let closed = tmux_control::Error::ConnectionClosed { reason: "tmux sent %exit".into() };
        assert!(
            matches!(failed(&"list-panes", closed), Error::Control { ref command, .. } if command == "tmux list-panes")
        );
    }

    fn chain(commands: &[&[&str]]) -> Invocation {
        let mut commands = commands.iter().map(|words| Command::new(words[0]).args(words[1..].iter().copied()));
        let first = commands.next().unwrap();
        commands.fold(Invocation::new(first), Invocation::then)
    }

    #[test]
    fn chains_become_quoted_lines() {
        let lines =
            command_lines(&chain(&[&["display-message", "-p", "#{pane_id} x"], &["capture-pane", "-p"]]).commands)
                .unwrap();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("display-message -p "));
        assert_eq!(lines[1], "capture-pane -p");
    }

    #[test]
    fn what_stays_on_subprocesses() {
        assert!(needs_subprocess(&chain(&[&["wait-for", "x"]])));
        assert!(!needs_subprocess(&chain(&[&["set-hook", "-p", "pane-died", "wait-for -S x"]])));
        assert!(needs_subprocess(&chain(&[&["send-keys", "-l", "a\nb"]])));
        assert!(needs_subprocess(&chain(&[&["display-message"], &["new-session", "-d"]])));
        assert!(needs_subprocess(&chain(&[&["load-buffer", "-"]]).stdin(vec![1])));
        assert!(needs_subprocess(&chain(&[&["run-shell", "true"]])));
        assert!(!needs_subprocess(&chain(&[&["run-shell", "-b", "true"]])));
        assert!(!needs_subprocess(&chain(&[&["capture-pane", "-p"]])));
    }

    #[test]
    fn keys_and_pastes_are_never_repeated() {
        assert!(repeatable(&chain(&[&["display-message", "-p", "x"], &["capture-pane", "-p"]]).commands));
        assert!(!repeatable(&chain(&[&["set-hook", "-p", "x"], &["send-keys", "-l", "y"]]).commands));
        assert!(!repeatable(&chain(&[&["paste-buffer", "-p"]]).commands));
    }

    #[test]
    fn new_session_calls_become_a_control_clients_creation_or_are_left_alone() {
        let words = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let created =
            ControlCreation::of(&words("-d -s a -x 200 -y 50 -c /tmp -P -F #{pane_id} -e K=v bash -l")).unwrap();
        assert_eq!(created.arguments, words("-s a -x 200 -y 50 -c /tmp -e K=v bash -l"));
        assert_eq!(created.print.as_deref(), Some("#{pane_id}"));
        // A value that looks like a flag stays a value; the pane's command is kept whole.
        let created = ControlCreation::of(&words("-s -d sh -c -d")).unwrap();
        assert_eq!((created.arguments, created.print), (words("-s -d sh -c -d"), None));
        assert_eq!(ControlCreation::of(&words("-P")).unwrap().print.as_deref(), Some("#{session_name}:"));
        for other in ["-dP -s a", "-A -s a", "-f no-output", "-s"] {
            assert_eq!(ControlCreation::of(&words(other)), None, "{other}");
        }
    }

    #[test]
    fn a_client_lingers_while_the_server_lists_it_with_the_killed_session() {
        let names = vec!["client-7".to_string()];
        let listed = parse_clients("client-7\t$3\nclient-9\t$1\n");
        assert_eq!(listed, [("client-7".into(), "$3".into()), ("client-9".into(), "$1".into())]);
        assert!(lingering(&names, &listed, "$3"));
        // Moved to another session when its own was killed: it is not leaving.
        assert!(!lingering(&names, &listed, "$5"));
        assert!(!lingering(&names, &parse_clients("client-9\t$1\n"), "$3"));
        // The line goes over control mode as it is.
        assert!(list_clients(Some("$3")).to_line().is_ok());
    }
}
