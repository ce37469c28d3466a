//! The management commands: `clive sessions`, `clive attach`, `clive logs`, `clive gc`.

use std::fmt::Write as _;
use std::path::PathBuf;

use clive_core::Error;
use clive_core::Settings;
use clive_core::archive::{self, ArchivedSession};
use clive_core::session_record::{self, SESSION_PREFIX, SessionRecord};

/// Every clive session on the server, oldest first.
pub async fn sessions(settings: &Settings) -> Result<Vec<SessionRecord>, Error> {
    if !settings.server_may_run() {
        return Ok(Vec::new());
    }
    let server = settings.server().await?;
    session_record::list_sessions(&server).await
}

/// The `clive sessions` table.
pub fn render_sessions(records: &[SessionRecord], now: u64) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<10} {:<9} {:>6} {:>4}  TASK", "ID", "STATE", "AGE", "EXIT");
    for r in records {
        let exit = r.exit_code.map_or_else(|| "-".to_owned(), |c| c.to_string());
        let task = r.task.replace('\n', "⏎");
        let _ =
            writeln!(out, "{:<10} {:<9} {:>6} {:>4}  {}", r.id, r.state.as_str(), human_age(r.age(now)), exit, task);
    }
    out
}

/// `42s`, `7m`, `3h`, `2d`.
pub fn human_age(seconds: u64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// Attaches this terminal to the session (`tmux attach` on clive's socket) and returns tmux's exit code.
pub async fn attach(settings: &Settings, id: &str) -> Result<i32, Error> {
    let records = sessions(settings).await?;
    let record = session_record::resolve(&records, id)?;
    let server = settings.server().await?;
    let mut command = server.raw_command();
    command.args(["attach-session", "-t", &format!("={}", record.session)]);
    let status = command.status().await.map_err(|e| Error::io("starting tmux attach", "tmux", e))?;
    Ok(status.code().unwrap_or(crate::exit_code::INTERNAL))
}

/// Where a session's output comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogSource {
    /// The session still exists: its pane, captured now.
    Live(String),
    /// The archived log file.
    Archived(PathBuf),
}

/// The output of a session: live from its pane while it exists, else its archived log.
pub async fn logs(settings: &Settings, id: &str) -> Result<(LogSource, String), Error> {
    let records = sessions(settings).await?;
    match session_record::resolve(&records, id) {
        Ok(record) => {
            let server = settings.server().await?;
            let text = archive::capture_all(&server, &record.session).await?;
            return Ok((LogSource::Live(record.session.clone()), text));
        }
        Err(Error::NoSuchSession { .. }) => {}
        Err(e) => return Err(e),
    }
    let path = archived_log(settings, id)?;
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io("reading a session log", &path, e))?;
    Ok((LogSource::Archived(path), text))
}

/// Finds the archived log of `id` (a name, an id or a unique id prefix).
fn archived_log(settings: &Settings, id: &str) -> Result<PathBuf, Error> {
    let wanted = id.strip_prefix(SESSION_PREFIX).unwrap_or(id);
    let not_found = || Error::NoSuchSession { id: id.to_owned() };
    if wanted.is_empty() {
        return Err(not_found());
    }
    let exact = settings.log_file(&format!("{SESSION_PREFIX}{wanted}"));
    if exact.is_file() {
        return Ok(exact);
    }
    let Ok(entries) = std::fs::read_dir(settings.log_dir()) else { return Err(not_found()) };
    let matches: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(".log") && n.strip_prefix(SESSION_PREFIX).is_some_and(|rest| rest.starts_with(wanted))
            })
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(not_found()),
        many => Err(Error::AmbiguousSession {
            id: id.to_owned(),
            matches: many
                .iter()
                .filter_map(|p| p.file_stem()?.to_str().map(str::to_owned))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// Archives and removes expired sessions (all of them with `all`).
pub async fn gc(settings: &Settings, all: bool) -> Result<Vec<ArchivedSession>, Error> {
    if !settings.server_may_run() {
        return Ok(Vec::new());
    }
    let server = settings.server().await?;
    archive::sweep(&server, settings, session_record::unix_now(), all).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use clive_core::session_record::SessionState;

    #[test]
    fn ages() {
        assert_eq!(human_age(5), "5s");
        assert_eq!(human_age(125), "2m");
        assert_eq!(human_age(7300), "2h");
        assert_eq!(human_age(200_000), "2d");
    }

    #[test]
    fn table_lists_one_line_per_session() {
        let record = |id: &str, task: &str, state, started, exit_code| SessionRecord {
            id: id.into(),
            session: format!("clive-{id}"),
            task: task.into(),
            state,
            started,
            exit_code,
            expires: exit_code.map(|_| 2000),
        };
        let records = [
            record("ab12cd34", "sh -c 'exit 3'", SessionState::Finished, 100, Some(3)),
            record("0f0f0f0f", "make test", SessionState::Running, 7_000, None),
            record("99887766", "printf 'a\\nb'\necho two lines", SessionState::Dead, 190, None),
        ];
        let table = render_sessions(&records, 10_000);
        assert_eq!(table.lines().count(), 4, "{table}");
        insta::assert_snapshot!("sessions_table", table);
    }

    #[test]
    fn archived_logs_by_id_or_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let settings =
            Settings { socket: tmux_habitat::SocketSpec::Name("x".into()), state_dir: dir.path().into(), tmux: None };
        std::fs::create_dir_all(settings.log_dir()).unwrap();
        std::fs::write(settings.log_file("clive-ab12"), "x").unwrap();
        assert_eq!(archived_log(&settings, "ab12").unwrap(), settings.log_file("clive-ab12"));
        assert_eq!(archived_log(&settings, "clive-ab").unwrap(), settings.log_file("clive-ab12"));
        assert!(matches!(archived_log(&settings, "zz"), Err(Error::NoSuchSession { .. })));
    }
}
