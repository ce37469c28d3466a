//! Archiving a session's final screen and scrollback to a log file, and sweeping expired sessions.

use std::path::PathBuf;

use serde::Serialize;
use tmux_habitat::{CaptureOptions, Command, Server};

use crate::error::Error;
use crate::session_record::{self, SessionRecord};
use crate::settings::Settings;

/// As much scrollback as clive's tmux config keeps (`history-limit`).
const SCROLLBACK_LINES: usize = 50_000;

/// A session that was archived and removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchivedSession {
    /// The session name.
    pub session: String,
    /// The task it ran.
    pub task: String,
    /// Where its final screen and scrollback were written.
    pub log: PathBuf,
}

/// The text of a session's pane: all scrollback and the final screen, wrapped lines joined, trailing blank
/// lines dropped.
pub async fn capture_all(server: &Server, session: &str) -> Result<String, Error> {
    let pane = server.pane(session).await?;
    let text = pane.capture(CaptureOptions::visible().joined().scrollback(SCROLLBACK_LINES)).await?;
    let mut text = text.trim_end().to_owned();
    text.push('\n');
    Ok(text)
}

/// Writes the session's log file (a short header, then its pane text) and returns its path.
pub async fn archive(server: &Server, settings: &Settings, record: &SessionRecord) -> Result<PathBuf, Error> {
    let text = capture_all(server, &record.session).await?;
    let dir = settings.log_dir();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("creating the log directory", &dir, e))?;
    let header = format!(
        "# clive session {}\n# task: {}\n# state: {}; exit code: {}; started: {} (unix); archived: {} (unix)\n",
        record.session,
        record.task.replace('\n', "\n#   "),
        record.state.as_str(),
        record.exit_code.map_or_else(|| "none".to_owned(), |c| c.to_string()),
        record.started,
        session_record::unix_now(),
    );
    let path = settings.log_file(&record.session);
    // Written beside and renamed, so a reader never sees half a log even when two sweeps race.
    let partial = dir.join(format!(".{}.{}.partial", record.session, std::process::id()));
    std::fs::write(&partial, format!("{header}{text}")).map_err(|e| Error::io("writing a session log", &partial, e))?;
    std::fs::rename(&partial, &path).map_err(|e| Error::io("writing a session log", &path, e))?;
    Ok(path)
}

/// Archives and kills one session. A session that vanished meanwhile (another `clive` swept it) is not an
/// error.
pub async fn archive_and_remove(
    server: &Server,
    settings: &Settings,
    record: &SessionRecord,
) -> Result<Option<ArchivedSession>, Error> {
    let log = match archive(server, settings, record).await {
        Ok(log) => log,
        Err(Error::Tmux(tmux_habitat::Error::NotFound { .. })) => return Ok(None),
        Err(e) => return Err(e),
    };
    let kill = Command::new("kill-session").args(["-t", &format!("={}", record.session)]);
    match server.tmux(kill).await {
        Ok(_) | Err(tmux_habitat::Error::NotFound { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    tracing::info!(session = %record.session, log = %log.display(), "archived and removed");
    Ok(Some(ArchivedSession { session: record.session.clone(), task: record.task.clone(), log }))
}

/// Archives and removes every clive session that has expired at `now` (every one, with `all`).
pub async fn sweep(server: &Server, settings: &Settings, now: u64, all: bool) -> Result<Vec<ArchivedSession>, Error> {
    let mut removed = Vec::new();
    for record in session_record::list_sessions(server).await? {
        if (all || record.expired(now))
            && let Some(done) = archive_and_remove(server, settings, &record).await?
        {
            removed.push(done);
        }
    }
    Ok(removed)
}
