//! One lock per lane: a file lock (across processes) plus an async mutex (within a process).
//!
//! Two senders never type into the same pane at once. The file lock lives in the runtime dir,
//! one file per server and pane; it is released when the process exits, however it exits.

use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::paths::ensure_dir;

const BACKOFF_FIRST: Duration = Duration::from_millis(2);
const BACKOFF_MAX: Duration = Duration::from_millis(25);

/// A held lane lock; dropping it releases both the in-process and the file lock.
#[derive(Debug)]
pub struct LaneLock {
    _file: File,
    _local: tokio::sync::OwnedMutexGuard<()>,
    path: PathBuf,
}

impl LaneLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn local_mutex(path: &Path) -> Arc<tokio::sync::Mutex<()>> {
    static LOCAL: OnceLock<Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let map = LOCAL.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    Arc::clone(map.entry(path.to_path_buf()).or_default())
}

/// The lock file name for a pane on a server: both parts are sanitised into one file name.
pub fn lock_file(runtime_dir: &Path, server_key: &str, pane_id: &str) -> PathBuf {
    let clean = |text: &str| -> String {
        text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
    };
    runtime_dir.join("locks").join(format!("{}--{}.lock", clean(server_key), clean(pane_id)))
}

/// Takes the lane lock at `path`, waiting at most `timeout` (polling the file lock with a short
/// backoff; the in-process mutex is awaited under the same deadline).
pub async fn acquire(path: &Path, lane: &str, timeout: Duration) -> Result<LaneLock, Error> {
    let started = Instant::now();
    let timed_out = || Error::LockTimeout { lane: lane.to_string(), waited_ms: elapsed_ms(started) };
    if let Some(dir) = path.parent() {
        ensure_dir(dir)?;
    }
    let local = tokio::time::timeout(timeout, local_mutex(path).lock_owned()).await.map_err(|_| timed_out())?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| Error::io("open lock file", path, source))?;
    let mut backoff = BACKOFF_FIRST;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(LaneLock { _file: file, _local: local, path: path.to_path_buf() }),
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
