//! Creating a session and attaching or detaching a control client take turns, across processes.
//!
//! tmux crashes (SIGSEGV; seen as "server exited unexpectedly") when a session is created while a control
//! client attaches or leaves. 3.3a does so almost every time eight of each race; 3.5a, which was reported to
//! fix it, still does about one time in three (docs/clive.md, "tmux versions and control mode"). Within a
//! process the control transport makes them take turns; processes sharing a server (two `clive`s on the
//! `clive` socket) take turns through an advisory lock (`flock`) on a file beside the socket.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rustix::fs::FlockOperation;

use crate::error::{Error, Result};

/// A held turn; released when dropped (the lock goes with the file).
#[derive(Debug)]
pub(crate) struct Turn {
    _file: std::fs::File,
}

/// The lock file of the server listening on `socket`.
pub(crate) fn lock_path(socket: &Path) -> PathBuf {
    PathBuf::from(format!("{}.turn", socket.display()))
}

/// Waits (at most `deadline`) for the turn to create a session or attach a control client on `socket`.
/// When the lock file cannot be made (a socket directory we may not write), it goes on without a turn.
pub(crate) async fn take(socket: &Path, deadline: Duration) -> Result<Option<Turn>> {
    let path = lock_path(socket);
    let Some(file) = open(&path) else { return Ok(None) };
    if rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok() {
        return Ok(Some(Turn { _file: file }));
    }
    // Someone else's turn: wait for it on a blocking thread (flock is the signal), under the deadline. On a
    // timeout the thread still takes the lock when it frees, and drops it at once.
    let waiting = tokio::task::spawn_blocking(move || {
        rustix::fs::flock(&file, FlockOperation::LockExclusive).map(|()| Turn { _file: file })
    });
    match tokio::time::timeout(deadline, waiting).await {
        Ok(Ok(Ok(turn))) => Ok(Some(turn)),
        Ok(Ok(Err(e))) => Err(Error::io(format!("locking {}", path.display()), e.into())),
        Ok(Err(e)) => Err(Error::io(format!("locking {}", path.display()), std::io::Error::other(e))),
        Err(_) => Err(Error::Deadline {
            command: format!("waiting for the turn to create a session or attach ({})", path.display()),
            deadline,
            stderr: String::new(),
        }),
    }
}

fn open(path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent().filter(|dir| !dir.exists()) {
        // tmux makes its socket directory 0700 and refuses one others can enter; so do we.
        let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir);
    }
    let opened = std::fs::OpenOptions::new().create(true).truncate(false).write(true).mode(0o600).open(path);
    match opened {
        Ok(file) => Some(file),
        Err(e) => {
            tracing::debug!(path = %path.display(), %e, "no turn lock file; going on without one");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_turn_at_a_time_across_open_files() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("sock");
        let first = take(&socket, Duration::from_secs(1)).await.unwrap().unwrap();
        // Another open file (as another process would have) waits, and times out while the turn is held.
        let error = take(&socket, Duration::from_millis(50)).await.unwrap_err();
        assert!(matches!(error, Error::Deadline { .. }), "{error:?}");
        let waiter = tokio::spawn({
            let socket = socket.clone();
            async move { take(&socket, Duration::from_secs(5)).await }
        });
        drop(first);
        assert!(waiter.await.unwrap().unwrap().is_some(), "the turn passes when released");
        assert!(lock_path(&socket).exists());
    }
}
