//! The mailbox: messages stored in SQLite (`<state>/mailbox.sqlite`), committed before anything
//! is typed; only a short wake line goes through the input box.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, params};
use serde::Serialize;

use crate::error::Error;
use crate::message::SignedMessage;
use crate::paths::ensure_dir;

/// One stored message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mail {
    /// Row id.
    pub id: i64,
    /// Recipient lane.
    pub lane: String,
    /// Sender lane.
    pub sender: String,
    /// The full signed message.
    pub message: String,
    /// When it was stored (UTC).
    pub sent_at: String,
}

/// An open mailbox.
#[derive(Debug)]
pub struct Mailbox {
    connection: Connection,
    path: PathBuf,
}

impl Mailbox {
    /// Opens (and creates) the mailbox in the state dir.
    pub fn open(state_dir: &Path) -> Result<Self, Error> {
        ensure_dir(state_dir)?;
        let path = state_dir.join("mailbox.sqlite");
        let fail = |source| Error::Mailbox { path: path.clone(), source };
        let connection = Connection::open(&path).map_err(fail)?;
        connection.busy_timeout(Duration::from_secs(5)).map_err(fail)?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL;
                 CREATE TABLE IF NOT EXISTS mail (
                     id INTEGER PRIMARY KEY AUTOINCREMENT,
                     lane TEXT NOT NULL,
                     sender TEXT NOT NULL,
                     message TEXT NOT NULL,
                     sent_at TEXT NOT NULL,
                     read_at TEXT
                 );
                 CREATE INDEX IF NOT EXISTS mail_unread ON mail (lane, read_at);",
            )
            .map_err(fail)?;
        Ok(Self { connection, path })
    }

    fn fail(&self, source: rusqlite::Error) -> Error {
        Error::Mailbox { path: self.path.clone(), source }
    }

    /// Stores a message for `lane` and commits; returns its id.
    pub fn store(&self, lane: &str, message: &SignedMessage) -> Result<i64, Error> {
        self.connection
            .execute(
                "INSERT INTO mail (lane, sender, message, sent_at) VALUES (?1, ?2, ?3, ?4)",
                params![lane, message.sender(), message.as_str(), crate::journal::now_stamp()],
            )
            .map_err(|source| self.fail(source))?;
        Ok(self.connection.last_insert_rowid())
    }

    /// Unread mail for `lane`, oldest first; with `mark_read` they are marked read in the same
    /// transaction.
    pub fn unread(&mut self, lane: &str, mark_read: bool) -> Result<Vec<Mail>, Error> {
        let path = self.path.clone();
        let fail = |source| Error::Mailbox { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(fail)?;
        let mails = {
            let mut statement = transaction
                .prepare("SELECT id, lane, sender, message, sent_at FROM mail WHERE lane = ?1 AND read_at IS NULL ORDER BY id")
                .map_err(fail)?;
            let rows = statement
                .query_map(params![lane], |row| {
                    Ok(Mail {
                        id: row.get(0)?,
                        lane: row.get(1)?,
                        sender: row.get(2)?,
                        message: row.get(3)?,
                        sent_at: row.get(4)?,
                    })
                })
                .map_err(fail)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(fail)?
        };
        if mark_read && !mails.is_empty() {
            let last = mails.last().map_or(0, |mail| mail.id);
            transaction
                .execute(
                    "UPDATE mail SET read_at = ?1 WHERE lane = ?2 AND read_at IS NULL AND id <= ?3",
                    params![crate::journal::now_stamp(), lane, last],
                )
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)?;
        Ok(mails)
    }
}

/// The short line typed into the recipient's box to wake it: signed by the sender.
pub fn wake_line(sender: &str, lane: &str, id: i64) -> String {
    format!("{sender}: you have mail #{id} in the lane-send mailbox; read it with `lane-send inbox {lane} --mark-read`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_then_read_then_mark() {
        let dir = tempfile::tempdir().unwrap();
        let mut mailbox = Mailbox::open(dir.path()).unwrap();
        let id = mailbox.store("api", &SignedMessage::parse("ops: deploy is frozen").unwrap()).unwrap();
        mailbox.store("other", &SignedMessage::parse("ops: not for api").unwrap()).unwrap();
        let unread = mailbox.unread("api", false).unwrap();
        assert_eq!(unread.len(), 1);
        assert_eq!((unread[0].id, unread[0].sender.as_str()), (id, "ops"));
        assert_eq!(mailbox.unread("api", true).unwrap().len(), 1);
        assert!(mailbox.unread("api", false).unwrap().is_empty());
        assert!(wake_line("ops", "api", id).starts_with("ops: "));
    }
}
