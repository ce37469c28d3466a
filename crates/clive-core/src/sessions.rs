//! clive's sessions as the management commands see them: the list (`clive sessions`), a session's output, live
//! or archived (`clive logs`), and sweeping expired ones (`clive gc`).

use std::path::PathBuf;

use crate::archive::{self, ArchivedSession};
use crate::error::Error;
use crate::session_record::{self, SESSION_PREFIX, SessionRecord};
use crate::settings::Settings;

/// Every clive session on the server, oldest first.
pub async fn sessions(settings: &Settings) -> Result<Vec<SessionRecord>, Error> {
    if !settings.server_may_run() {
        return Ok(Vec::new());
    }
    let server = settings.server().await?;
    session_record::list_sessions(&server).await
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
