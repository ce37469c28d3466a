//! The submission log: one JSON object per line, `{"queued":bool,"t_ms":u64,"text":"…"}`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::agent::Submission;

/// Appends submissions to a file. Each line is written with a single `write` call so a
/// reader never sees half a line for long.
pub struct SubmissionLog {
    file: File,
}

impl SubmissionLog {
    /// Opens `path` for appending, creating it if needed.
    pub fn open(path: &Path) -> io::Result<SubmissionLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(SubmissionLog { file })
    }

    /// Logs one submission, stamped with the wall clock in milliseconds since the Unix epoch.
    pub fn append(&mut self, submission: &Submission) -> io::Result<()> {
        let t_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let mut line = log_line(submission, t_ms);
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.flush()
    }
}

/// The JSON text of one log line (without the newline).
pub fn log_line(submission: &Submission, t_ms: u64) -> String {
    serde_json::json!({
        "text": submission.text,
        "t_ms": t_ms,
        "queued": submission.queued,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_round_trips_exact_text() {
        let text = "tab\there \"quoted\" $(rm -rf /) 🚀\nsecond line\\";
        let line = log_line(&Submission { text: text.into(), queued: true }, 42);
        assert!(!line.contains('\n'));
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["text"], text);
        assert_eq!(value["t_ms"], 42);
        assert_eq!(value["queued"], true);
    }
}
