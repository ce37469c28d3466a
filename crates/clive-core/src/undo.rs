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

/// The journals of applied changes under a run directory, the latest first.
fn journals(run_dir: &Path) -> Result<Vec<Journal>, Error> {
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
    found.into_iter().map(|(_, dir)| Journal::load(&dir).map_err(Error::from)).collect()
}
