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

/// How long a process waits for its turn: turns queue, so the wait grows with how many processes share the
/// server and how loaded the machine is (sixteen at once under `stress --cpu 2` waited over five seconds); the
/// command's own deadline starts once the turn is taken.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

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
    let started = tokio::time::Instant::now();
    loop {
        let Some(file) = open(&path) else { return Ok(None) };
        let file = if rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok() {
            file
        } else {
            wait_for(file, &path, deadline.saturating_sub(started.elapsed()), deadline).await?
        };
        // The file may have been removed (see `remove`) while we waited for its lock: a lock on a file no
        // longer at the path excludes nobody, so take the turn again on the file there now.
        if is_at(&file, &path) {
            return Ok(Some(Turn { _file: file }));
        }
    }
}

/// Someone else's turn: waits for it on a blocking thread (flock is the signal), for at most `left`. On a
/// timeout the thread still takes the lock when it frees, and drops it at once.
async fn wait_for(file: std::fs::File, path: &Path, left: Duration, deadline: Duration) -> Result<std::fs::File> {
    let waiting =
        tokio::task::spawn_blocking(move || rustix::fs::flock(&file, FlockOperation::LockExclusive).map(|()| file));
    match tokio::time::timeout(left, waiting).await {
        Ok(Ok(Ok(file))) => Ok(file),
        Ok(Ok(Err(e))) => Err(Error::io(format!("locking {}", path.display()), e.into())),
        Ok(Err(e)) => Err(Error::io(format!("locking {}", path.display()), std::io::Error::other(e))),
        Err(_) => Err(Error::Deadline {
            command: format!("waiting for the turn to create a session or attach ({})", path.display()),
            deadline,
            stderr: String::new(),
        }),
    }
}

/// Removes the lock file of a server that is gone, when nobody holds a turn (else it is left: a holder is
/// still using it). Safe against other processes: the file is removed under its lock, and whoever was
/// waiting for that lock sees the file gone and takes the turn on a new one.
pub(crate) fn remove(socket: &Path) {
    let path = lock_path(socket);
    let Ok(file) = std::fs::OpenOptions::new().write(true).open(&path) else { return };
    if rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok() && is_at(&file, &path) {
        let _ = std::fs::remove_file(&path);
    }
}

/// Whether the open `file` is the one at `path` now.
fn is_at(file: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(there)) => (open.dev(), open.ino()) == (there.dev(), there.ino()),
        _ => false,
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

    #[tokio::test]
    async fn the_file_is_removed_only_when_no_turn_is_held() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("sock");
        let turn = take(&socket, Duration::from_secs(1)).await.unwrap().unwrap();
        remove(&socket);
        assert!(lock_path(&socket).exists(), "a held turn keeps its file");
        drop(turn);
        remove(&socket);
        assert!(!lock_path(&socket).exists(), "a free lock file is removed");
        remove(&socket); // nothing there: no error
    }

    #[tokio::test]
    async fn a_waiter_whose_file_was_removed_takes_the_turn_on_the_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("sock");
        let first = take(&socket, Duration::from_secs(1)).await.unwrap().unwrap();
        let waiter = tokio::spawn({
            let socket = socket.clone();
            async move { take(&socket, Duration::from_millis(300)).await }
        });
        // The waiter is blocked on the first file's lock; the file goes (as `remove` does, under the lock).
        tokio::task::yield_now().await;
        std::fs::remove_file(lock_path(&socket)).unwrap();
        let second = take(&socket, Duration::from_secs(1)).await.unwrap().unwrap();
        drop(first);
        // The waiter gets the old file's lock, sees it gone, and must wait for the new file's holder.
        let error = waiter.await.unwrap().unwrap_err();
        assert!(matches!(error, Error::Deadline { .. }), "two turns at once: {error:?}");
        drop(second);
        assert!(take(&socket, Duration::from_secs(1)).await.unwrap().is_some());
    }
}
