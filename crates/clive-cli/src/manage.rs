//! The management commands' text: the `clive sessions` table, ages, and `clive attach` (the engine's
//! [`clive_core::sessions`] lists sessions, reads their logs and sweeps them).

use std::fmt::Write as _;

use clive_core::session_record::{self, SessionRecord};
use clive_core::sessions::sessions;
use clive_core::{Error, Settings};

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
}
