//! What clive remembers about each of its sessions, kept in tmux session user options.
//!
//! A session `clive-<id>` carries:
//!
//! | option           | value                                                           |
//! |------------------|-----------------------------------------------------------------|
//! | `@clive-task`    | the task, as a JSON string (ASCII only, so tmux never alters it)  |
//! | `@clive-started` | start time, seconds since the Unix epoch                        |
//! | `@clive-pid`     | pid of the `clive` process that runs the task                   |
//! | `@clive-exit`    | the command's exit code, once it ended                          |
//! | `@clive-expires` | when `clive gc` may archive and remove it, seconds since the epoch |
//!
//! Keeping them on the session means there is nothing to get out of step: a session and its metadata
//! disappear together, and `tmux -L clive show-options -t clive-<id>` shows them to a person.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tmux_habitat::{Server, SessionInfo};

use crate::error::Error;

/// Every clive session's name starts with this.
pub const SESSION_PREFIX: &str = "clive-";

const TASK: &str = "@clive-task";
const STARTED: &str = "@clive-started";
const PID: &str = "@clive-pid";
const EXIT: &str = "@clive-exit";
const EXPIRES: &str = "@clive-expires";
/// Every user option clive keeps on a session.
const OPTIONS: [&str; 5] = [TASK, STARTED, PID, EXIT, EXPIRES];

/// Where a session's task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// The command is running and the `clive` that started it is alive.
    Running,
    /// The command ended; the session is kept for a look until it expires.
    Finished,
    /// The pane's shell exited, or the `clive` that ran the task is gone before the command ended.
    Dead,
}

impl SessionState {
    /// The state as shown in `clive sessions`.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionState::Running => "running",
            SessionState::Finished => "finished",
            SessionState::Dead => "dead",
        }
    }
}

/// One clive session as `clive sessions` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRecord {
    /// The short id (`ab12cd`).
    pub id: String,
    /// The tmux session name (`clive-ab12cd`).
    pub session: String,
    /// The task it was started for.
    pub task: String,
    /// Its state.
    pub state: SessionState,
    /// Start time, seconds since the Unix epoch.
    pub started: u64,
    /// The command's exit code, once it ended.
    pub exit_code: Option<i32>,
    /// When `clive gc` may remove it, seconds since the Unix epoch (none while it runs).
    pub expires: Option<u64>,
}

impl SessionRecord {
    /// Seconds since it started.
    pub fn age(&self, now: u64) -> u64 {
        now.saturating_sub(self.started)
    }

    /// Whether `clive gc` removes it at `now`.
    pub fn expired(&self, now: u64) -> bool {
        self.expires.is_some_and(|at| at <= now)
    }

    /// The record of a session on the server; `None` for sessions that are not clive's.
    fn from_info(info: &SessionInfo, pid_alive: impl Fn(u32) -> bool) -> Option<SessionRecord> {
        let option = |name: &str| info.user_options.get(name).map(String::as_str);
        SessionRecord::from_parts(&info.name, info.created, info.active_pane_dead, option, pid_alive)
    }

    fn from_parts<'a>(
        name: &str,
        created: u64,
        active_pane_dead: bool,
        option: impl Fn(&str) -> Option<&'a str>,
        pid_alive: impl Fn(u32) -> bool,
    ) -> Option<SessionRecord> {
        let id = name.strip_prefix(SESSION_PREFIX)?.to_owned();
        let started = option(STARTED).and_then(|v| v.parse().ok()).unwrap_or(created);
        let pid: Option<u32> = option(PID).and_then(|v| v.parse().ok());
        let exit_code: Option<i32> = option(EXIT).and_then(|v| v.parse().ok());
        let expires: Option<u64> = option(EXPIRES).and_then(|v| v.parse().ok());
        let task = option(TASK).and_then(|v| serde_json::from_str(v).ok()).unwrap_or_default();
        let state = if active_pane_dead {
            SessionState::Dead
        } else if exit_code.is_some() {
            SessionState::Finished
        } else if pid.is_some_and(pid_alive) {
            SessionState::Running
        } else {
            SessionState::Dead
        };
        Some(SessionRecord { id, session: name.to_owned(), task, state, started, exit_code, expires })
    }
}

/// Seconds since the Unix epoch, now.
pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A short random id for a new session.
pub fn new_session_id() -> String {
    format!("{:08x}", rand::random::<u32>())
}

/// The task as a JSON string with every non-ASCII character escaped, so tmux (whatever the locale of the
/// client that reads it) hands back exactly what was stored.
pub(crate) fn ascii_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    for c in serde_json::to_string(text).unwrap_or_default().chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// Records a new session's task, start, owner, and a backstop expiry (in case this process dies).
pub async fn record_start(server: &Server, session: &str, task: &str, backstop: Duration) -> Result<(), Error> {
    let now = unix_now();
    let options = [
        (TASK, ascii_json(task)),
        (STARTED, now.to_string()),
        (PID, std::process::id().to_string()),
        (EXPIRES, (now + backstop.as_secs()).to_string()),
    ];
    server.set_user_options(session, options).await?;
    Ok(())
}

/// Records how the command ended and when the kept session expires.
pub async fn record_end(
    server: &Server,
    session: &str,
    exit_code: Option<i32>,
    retention: Duration,
) -> Result<(), Error> {
    let mut options = vec![(EXPIRES, (unix_now() + retention.as_secs()).to_string())];
    if let Some(code) = exit_code {
        options.push((EXIT, code.to_string()));
    }
    server.set_user_options(session, options).await?;
    Ok(())
}

/// Every clive session on the server, oldest first (none when no server runs).
pub async fn list_sessions(server: &Server) -> Result<Vec<SessionRecord>, Error> {
    let sessions = server.list_sessions_with(&OPTIONS).await?;
    let mut records: Vec<SessionRecord> =
        sessions.iter().filter_map(|s| SessionRecord::from_info(s, pid_alive)).collect();
    records.sort_by(|a, b| a.started.cmp(&b.started).then_with(|| a.session.cmp(&b.session)));
    Ok(records)
}

/// Whether process `pid` runs: it exists and is not a zombie (a clive that has exited stays in `/proc` as a
/// zombie until its parent, or an init that reaps late, collects it; an inner clive's parent is its
/// conversation's tmux server, which exits with it).
fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) state …`: the state follows the last `)` (comm may hold one).
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| !matches!(state, 'Z' | 'X')),
        Err(_) => false,
    }
}

/// Finds the one session `id` names: a full name (`clive-ab12cd`), an id (`ab12cd`) or a unique id prefix.
pub fn resolve<'a>(records: &'a [SessionRecord], id: &str) -> Result<&'a SessionRecord, Error> {
    let names: Vec<String> = records.iter().map(|r| r.session.clone()).collect();
    let missing = || Error::NoSuchSession { id: id.to_owned() };
    let name = match_id(&names, id)?.ok_or_else(missing)?;
    records.iter().find(|r| &r.session == name).ok_or_else(missing)
}

/// The one of `names` (session names, `clive-<id>`, or bare ids) that `id` names: a name, an id or a unique prefix
/// of an id; `None` when none does.
pub fn match_id<'a>(names: &'a [String], id: &str) -> Result<Option<&'a String>, Error> {
    let wanted = id.strip_prefix(SESSION_PREFIX).unwrap_or(id);
    let short = |name: &str| name.strip_prefix(SESSION_PREFIX).unwrap_or(name).to_owned();
    if let Some(exact) = names.iter().find(|n| short(n) == wanted || n.as_str() == id) {
        return Ok(Some(exact));
    }
    let matches: Vec<&String> = names.iter().filter(|n| !wanted.is_empty() && short(n).starts_with(wanted)).collect();
    match matches.as_slice() {
        [one] => Ok(Some(one)),
        [] => Ok(None),
        many => Err(Error::AmbiguousSession {
            id: id.to_owned(),
            matches: many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session as the server describes it: name, creation time, dead flag and user options.
    fn record(name: &str, dead: bool, options: &[(&str, &str)], pid_alive: bool) -> Option<SessionRecord> {
        let option = |wanted: &str| options.iter().find(|(name, _)| *name == wanted).map(|(_, value)| *value);
        SessionRecord::from_parts(name, 100, dead, option, |_| pid_alive)
    }

    #[test]
    fn reads_a_finished_session() {
        let options = [(STARTED, "101"), (PID, "4242"), (EXIT, "3"), (EXPIRES, "2000"), (TASK, "\"ls \\u00e9\"")];
        let r = record("clive-ab12", false, &options, false).unwrap();
        assert_eq!(r.id, "ab12");
        assert_eq!(r.task, "ls é");
        assert_eq!(r.state, SessionState::Finished);
        assert_eq!((r.started, r.exit_code, r.expires), (101, Some(3), Some(2000)));
        assert!(r.expired(2000) && !r.expired(1999));
    }

    #[test]
    fn a_zombie_is_not_alive() {
        assert!(pid_alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        // Exited but not collected: a zombie until `wait`.
        let pid = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while pid_alive(pid) {
            assert!(std::time::Instant::now() < deadline, "the exited child still counts as alive");
            std::thread::yield_now();
        }
        assert!(std::path::Path::new(&format!("/proc/{pid}")).exists(), "a zombie until collected");
        child.wait().unwrap();
        assert!(!pid_alive(pid));
    }

    #[test]
    fn running_only_while_its_owner_lives() {
        let options = [(STARTED, "100"), (PID, "7"), (TASK, "\"sleep 9\"")];
        assert_eq!(record("clive-x", false, &options, true).unwrap().state, SessionState::Running);
        assert_eq!(record("clive-x", false, &options, false).unwrap().state, SessionState::Dead);
        assert_eq!(record("clive-x", true, &options, true).unwrap().state, SessionState::Dead);
    }

    #[test]
    fn other_sessions_are_ignored() {
        assert!(record("work", false, &[], true).is_none());
    }

    #[test]
    fn ascii_json_round_trips_anything() {
        for task in ["ls", "echo 'é ü 日本 🎉'", "tab\there\nnewline", "#{session_name} \\ \""] {
            let stored = ascii_json(task);
            assert!(stored.is_ascii() && !stored.contains(['\t', '\n']), "{stored}");
            assert_eq!(serde_json::from_str::<String>(&stored).unwrap(), task);
        }
    }

    #[test]
    fn resolves_ids_names_and_unique_prefixes() {
        let record = |id: &str| SessionRecord {
            id: id.into(),
            session: format!("clive-{id}"),
            task: String::new(),
            state: SessionState::Finished,
            started: 0,
            exit_code: None,
            expires: None,
        };
        let records = vec![record("ab12"), record("ab34"), record("cd56")];
        assert_eq!(resolve(&records, "clive-ab12").unwrap().id, "ab12");
        assert_eq!(resolve(&records, "cd").unwrap().id, "cd56");
        assert!(matches!(resolve(&records, "ab"), Err(Error::AmbiguousSession { .. })));
        assert!(matches!(resolve(&records, "zz"), Err(Error::NoSuchSession { .. })));
        assert!(matches!(resolve(&records, ""), Err(Error::NoSuchSession { .. })));
    }
}
