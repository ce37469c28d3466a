//! Undoing a task (`clive undo <id>`): restores every file a task changed to what it was before, from the journals its subtasks
//! left in the task's run directory (crates/agent/src/changes.rs). Refuses, naming the file and restoring nothing,
//! when a file has changed since the task changed it.

use std::path::{Path, PathBuf};

use agent::changes::{Change, JOURNAL_FILE, Journal};
use serde::Serialize;

use crate::error::Error;
use crate::session_record::match_id;
use crate::settings::Settings;

/// What `clive undo` did.
#[derive(Debug, Clone, Serialize)]
pub struct UndoReport {
    /// The task's session name (`clive-<id>`).
    pub session: String,
    /// The changes taken back, as the task made them, latest first.
    pub undone: Vec<Change>,
}

/// Undoes the changes of the task `id` names (an id, a session name or a unique id prefix).
pub fn undo(settings: &Settings, id: &str) -> Result<UndoReport, Error> {
    let runs = settings.state_dir.join("runs");
    let mut names: Vec<String> = std::fs::read_dir(&runs)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    let nothing = || Error::NothingToUndo { id: id.to_owned(), dir: runs.clone() };
    let session = match_id(&names, id)?.ok_or_else(nothing)?.clone();
    let mut journals = journals(&runs.join(&session))?;
    if journals.is_empty() {
        return Err(nothing());
    }
    // Every journal is checked before any is undone: a refusal restores nothing.
    for journal in &journals {
        journal.check()?;
    }
    let mut undone = Vec::new();
    for journal in &mut journals {
        let mut changes = journal.changes();
        journal.undo()?;
        changes.reverse();
        undone.extend(changes);
    }
    Ok(UndoReport { session, undone })
}

/// What the task of session `session` (`clive-<id>`) has changed in its working directory so far: the changes its
/// subtasks' accepted attempts applied, in the order they were applied (`clive serve` shows them with the pane).
/// Nothing when the session has no run directory or applied nothing; a journal that cannot be read is skipped.
pub fn applied_changes(settings: &Settings, session: &str) -> Vec<Change> {
    let run_dir = settings.state_dir.join("runs").join(session);
    let mut found = journal_dirs(&run_dir);
    found.reverse();
    found.iter().filter_map(|dir| Journal::load(dir).ok()).flat_map(|journal| journal.changes()).collect()
}

/// The journals of applied changes under a run directory, the latest first.
fn journals(run_dir: &Path) -> Result<Vec<Journal>, Error> {
    journal_dirs(run_dir).iter().map(|dir| Journal::load(dir).map_err(Error::from)).collect()
}

/// The directories of the journals under a run directory, the latest first.
fn journal_dirs(run_dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    let subtasks = run_dir.join("subtasks");
    for subtask in std::fs::read_dir(&subtasks).into_iter().flatten().flatten() {
        let records = subtask.path().join(".runner");
        for entry in std::fs::read_dir(&records).into_iter().flatten().flatten() {
            let file = entry.path().join(JOURNAL_FILE);
            if let Ok(meta) = std::fs::metadata(&file) {
                found.push((meta.modified().unwrap_or(std::time::UNIX_EPOCH), entry.path()));
            }
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    found.into_iter().map(|(_, dir)| dir).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::changes::ChangeKind;
    use tmux_habitat::SocketSpec;

    fn created(path: &str, bytes: u64) -> Change {
        Change {
            path: path.into(),
            kind: ChangeKind::Created,
            bytes_before: None,
            bytes_after: Some(bytes),
            dir: false,
        }
    }

    #[test]
    fn applied_changes_are_every_subtask_s_journal_in_the_order_applied() {
        let dir = tempfile::tempdir().unwrap();
        let settings =
            Settings { socket: SocketSpec::Name("unused".into()), state_dir: dir.path().join("state"), tmux: None };
        let cwd = dir.path().join("cwd");
        std::fs::create_dir_all(&cwd).unwrap();
        let run = settings.state_dir.join("runs").join("clive-abc123");
        assert!(applied_changes(&settings, "clive-abc123").is_empty(), "no run directory: nothing");
        for (subtask, name, text) in [("1", "first.txt", "one"), ("2", "second.txt", "three")] {
            let upper = dir.path().join(format!("upper-{subtask}"));
            std::fs::create_dir_all(&upper).unwrap();
            std::fs::write(upper.join(name), text).unwrap();
            let journal = run.join("subtasks").join(subtask).join(".runner").join("attempt-1");
            Journal::apply(&cwd, &upper, &[created(name, text.len() as u64)], &journal).unwrap();
        }
        let lines: Vec<String> = applied_changes(&settings, "clive-abc123").iter().map(ToString::to_string).collect();
        assert_eq!(lines, ["created first.txt (3 bytes)", "created second.txt (5 bytes)"]);
        assert!(applied_changes(&settings, "clive-other1").is_empty());
    }
}
