//! The end-of-command signal of the subprocess transport: a FIFO the pane's shell writes a token into.
//!
//! The shell writes with its `printf` builtin, so signalling costs the pane no process (a `tmux wait-for -S`
//! client costs about 2 ms to start). The shell opens the FIFO read-write (`1<>`), which never blocks, so a
//! pane whose watcher has gone away is never stuck on the write.

use std::path::{Path, PathBuf};

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::time::Instant;

use crate::error::{Error, Result};

/// A FIFO for one command, open for reading before the command is typed (a write with no reader open
/// would be lost when the shell closes its end). Removed on drop.
#[derive(Debug)]
pub(crate) struct EndSignal {
    path: PathBuf,
    receiver: pipe::Receiver,
}

impl EndSignal {
    /// Creates the FIFO at `path` and opens it for reading.
    pub(crate) fn create(path: PathBuf) -> Result<EndSignal> {
        rustix::fs::mkfifoat(rustix::fs::CWD, &path, rustix::fs::Mode::from_raw_mode(0o600))
            .map_err(|e| Error::io(format!("creating the FIFO {}", path.display()), e.into()))?;
        // Read-write: the read side never sees end-of-file between writers.
        let receiver = pipe::OpenOptions::new()
            .read_write(true)
            .open_receiver(&path)
            .map_err(|e| Error::io(format!("opening the FIFO {}", path.display()), e))?;
        Ok(EndSignal { path, receiver })
    }

    /// Where the shell writes.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Waits until a line equal to `token` arrives, or the deadline passes (`false`).
    pub(crate) async fn wait(&mut self, token: &str, deadline: Instant) -> Result<bool> {
        let mut seen: Vec<u8> = Vec::new();
        let mut buf = [0u8; 256];
        loop {
            let read = match tokio::time::timeout_at(deadline, self.receiver.read(&mut buf)).await {
                Err(_) => return Ok(false),
                Ok(read) => read.map_err(|e| Error::io(format!("reading the FIFO {}", self.path.display()), e))?,
            };
            seen.extend_from_slice(&buf[..read]);
            while let Some(end) = seen.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = seen.drain(..=end).collect();
                if line[..line.len() - 1] == *token.as_bytes() {
                    return Ok(true);
                }
            }
        }
    }
}

impl Drop for EndSignal {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_token_written_by_a_shell_ends_the_wait_and_others_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut signal = EndSignal::create(dir.path().join("end")).unwrap();
        let path = signal.path().display().to_string();
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf 'stale\\n' 1<>'{path}'; printf 'tok\\n' 1<>'{path}'"))
            .status()
            .unwrap();
        assert!(status.success());
        assert!(signal.wait("tok", Instant::now() + Duration::from_secs(5)).await.unwrap());
        assert!(!signal.wait("tok", Instant::now() + Duration::from_millis(50)).await.unwrap());
    }
}
