//! Coordination notes: dated, signed lines appended to the day's file
//! `<state>/notes/YYYY-MM-DD.md` under a file lock. State belongs in files, not in input boxes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::date;
use crate::error::Error;
use crate::paths::ensure_dir;

/// The notes file of a day.
pub fn notes_file(state_dir: &Path, date: &str) -> PathBuf {
    state_dir.join("notes").join(format!("{date}.md"))
}

/// Appends `- <timestamp> <sender>: <text>` to today's notes; returns the file.
///
/// Newlines in `text` are kept as indented continuation lines so one note stays one item.
pub fn append_note(state_dir: &Path, sender: &str, text: &str) -> Result<PathBuf, Error> {
    if sender.trim().is_empty() || sender.contains([':', '\n', ' ']) {
        return Err(Error::Invalid {
            what: "note sender",
            value: sender.to_string(),
            reason: "must be your lane name (no spaces or colons)",
        });
    }
    if text.trim().is_empty() {
        return Err(Error::Invalid {
            what: "note text",
            value: text.to_string(),
            reason: "is empty; write what the others should know",
        });
    }
    let now = jiff::Timestamp::now();
    let path = notes_file(state_dir, &date::day(now));
    if let Some(dir) = path.parent() {
        ensure_dir(dir)?;
    }
    let body = text.trim_end().replace('\n', "\n  ");
    let line = format!("- {} {sender}: {body}\n", date::timestamp(now));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|source| Error::io("open notes", &path, source))?;
    file.lock().map_err(|source| Error::io("lock notes", &path, source))?;
    file.write_all(line.as_bytes()).map_err(|source| Error::io("write notes", &path, source))?;
    Ok(path)
}

/// The notes of a day (`None`: today), or an empty string when there are none.
pub fn read_notes(state_dir: &Path, date: Option<&str>) -> Result<String, Error> {
    let date = match date {
        Some(text) => date::parse_day(text).ok_or_else(|| Error::Invalid {
            what: "date",
            value: text.to_string(),
            reason: "expected a day as YYYY-MM-DD",
        })?,
        None => date::day(jiff::Timestamp::now()),
    };
    let path = notes_file(state_dir, &date);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(Error::io("read notes", &path, source)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_append_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        append_note(dir.path(), "lane-a", "first").unwrap();
        append_note(dir.path(), "lane-b", "two\nlines").unwrap();
        let notes = read_notes(dir.path(), None).unwrap();
        let lines: Vec<&str> = notes.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("- ") && lines[0].ends_with(" lane-a: first"));
        assert!(lines[1].ends_with(" lane-b: two") && lines[2] == "  lines");
        assert_eq!(read_notes(dir.path(), Some("1999-01-01")).unwrap(), "");
        assert!(read_notes(dir.path(), Some("01/01/1999")).is_err());
        assert!(append_note(dir.path(), "a b", "x").is_err());
    }
}
