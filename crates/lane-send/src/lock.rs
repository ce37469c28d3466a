//! One lock per lane across processes: a file lock in the runtime dir, one file per server and pane,
//! released when the process exits, however it exits. Within a process, senders first take the pane's
//! lock ([`tmux_habitat::Pane::lock`], the workspace's one in-process lock map), so only one of them
//! ever waits here.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::paths::ensure_private_dir;

const BACKOFF_FIRST: Duration = Duration::from_millis(2);
const BACKOFF_MAX: Duration = Duration::from_millis(25);

/// A held lane lock; dropping it releases the file lock.
#[derive(Debug)]
pub struct LaneLock {
    _file: File,
    path: PathBuf,
}

impl LaneLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The lock file name for a pane on a server: both parts are sanitised into one file name.
pub fn lock_file(runtime_dir: &Path, server_key: &str, pane_id: &str) -> PathBuf {
    let clean = |text: &str| -> String {
        text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
    };
    runtime_dir.join("locks").join(format!("{}--{}.lock", clean(server_key), clean(pane_id)))
}

/// Takes the lane lock at `path`, waiting at most `timeout` (polling the file lock with a short
/// backoff: flock has no awaitable wake-up).
pub async fn acquire(path: &Path, lane: &str, timeout: Duration) -> Result<LaneLock, Error> {
    let started = Instant::now();
    let timed_out = || Error::LockTimeout { lane: lane.to_string(), waited_ms: elapsed_ms(started) };
    if let Some(dir) = path.parent() {
        ensure_private_dir(dir)?;
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| Error::io("open lock file", path, source))?;
    let mut backoff = BACKOFF_FIRST;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(LaneLock { _file: file, path: path.to_path_buf() }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(source)) => return Err(Error::io("lock", path, source)),
        }
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(timed_out());
        }
        tokio::time::sleep(backoff.min(left)).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn second_holder_waits_then_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = lock_file(dir.path(), "/tmp/sock", "%3");
        let first = acquire(&path, "lane", Duration::from_secs(1)).await.unwrap();
        let error = acquire(&path, "lane", Duration::from_millis(50)).await.unwrap_err();
        assert!(matches!(error, Error::LockTimeout { .. }), "{error}");
        drop(first);
        acquire(&path, "lane", Duration::from_millis(200)).await.unwrap();
    }

    #[test]
    fn file_lock_excludes_another_open_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let one = File::create(&path).unwrap();
        one.try_lock().unwrap();
        let two = File::options().write(true).open(&path).unwrap();
        assert!(matches!(two.try_lock(), Err(TryLockError::WouldBlock)));
    }
}
