//! The delivery log: one JSON line per outcome and per cleared leftover, in a daily file
//! `<state>/log/YYYY-MM-DD.jsonl` (UTC day).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::Error;
use crate::outcome::Outcome;
use crate::paths::ensure_dir;

/// One log record.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Record<'a> {
    /// A delivery finished.
    Outcome {
        /// When (UTC).
        at: String,
        /// The message (full; the log is the record of what was sent).
        message: &'a str,
        /// The outcome.
        #[serde(flatten)]
        outcome: &'a Outcome,
    },
    /// A leftover signed by a live lane was cleared from a box before sending.
    ClearedLeftover {
        /// When (UTC).
        at: String,
        /// The lane whose box held it.
        lane: &'a str,
        /// The pane.
        pane: &'a str,
        /// The text that was cleared.
        leftover: &'a str,
    },
}

/// The log file of the UTC day of `at`.
pub fn log_file(state_dir: &Path, at: jiff::Timestamp) -> PathBuf {
    state_dir.join("log").join(format!("{}.jsonl", crate::date::day(at)))
}

/// Appends one record as one line (a single `write` on an append-mode file).
pub fn append(state_dir: &Path, record: &Record<'_>) -> Result<PathBuf, Error> {
    let path = log_file(state_dir, jiff::Timestamp::now());
    append_line(&path, record)?;
    Ok(path)
}

/// Appends one serialisable value as a JSON line to `path`, creating parents.
pub fn append_line(path: &Path, value: &impl Serialize) -> Result<(), Error> {
    if let Some(dir) = path.parent() {
        ensure_dir(dir)?;
    }
    let mut line = serde_json::to_string(value).map_err(|source| Error::Encode { what: "log record", source })?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| Error::io("open log", path, source))?;
    file.write_all(line.as_bytes()).map_err(|source| Error::io("write log", path, source))
}

/// The current UTC timestamp for records.
pub fn now_stamp() -> String {
    crate::date::timestamp(jiff::Timestamp::now())
}
