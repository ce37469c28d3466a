//! Killing a tmux server by its process when its socket cannot reach it: the socket file was removed while
//! the server ran, or the server does not answer `kill-server`. The server is found by its command line
//! (a server forked by `tmux -S <socket> new-session` keeps its client's arguments) and killed through a
//! pidfd, so a pid reused by another process in between is never signalled.

use std::os::fd::OwnedFd;
use std::path::Path;
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, PidfdFlags, Signal, pidfd_open, pidfd_send_signal};

use crate::error::{Error, Result};

/// Kills (SIGKILL) every tmux server process started with `-S <socket>`, found through `/proc` (Linux),
/// and waits until they have exited, at most `deadline`. Returns how many processes were killed (a child the
/// server has just forked to start a pane still looks like it, and goes too); none is not an error.
/// For servers `kill-server` cannot reach (their socket file is gone) or that do not answer it; a server
/// started with `-L <name>` is not found this way.
///
/// ```no_run
/// # async fn demo() -> tmux_habitat::Result<()> {
/// let socket = std::path::Path::new("/tmp/run-1.sock");
/// let killed = tmux_habitat::kill_servers_on(socket, std::time::Duration::from_secs(5)).await?;
/// println!("{killed} leftover tmux server(s) killed");
/// # Ok(())
/// # }
/// ```
pub async fn kill_servers_on(socket: &Path, deadline: Duration) -> Result<usize> {
    let killed = signal_servers_on(socket).map_err(|e| Error::io("listing /proc", e))?;
    let count = killed.len();
    let waiting = tokio::task::spawn_blocking(move || all_exited(&killed, deadline));
    match waiting.await.map_err(std::io::Error::other).and_then(|waited| waited) {
        Ok(true) => Ok(count),
        Ok(false) => Err(Error::Deadline {
            command: format!("killing the tmux server of {} (SIGKILL)", socket.display()),
            deadline,
            stderr: String::new(),
        }),
        Err(e) => Err(Error::io(format!("waiting for the tmux server of {} to exit", socket.display()), e)),
    }
}

/// Sends SIGKILL to every tmux server started with `-S <socket>` and returns their pidfds (readable once they
/// have exited). Synchronous, for `Drop`.
pub(crate) fn signal_servers_on(socket: &Path) -> std::io::Result<Vec<OwnedFd>> {
    let mut killed = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()).and_then(Pid::from_raw) else {
            continue;
        };
        if !is_server_on(pid, socket) {
            continue;
        }
        // Looked at again through the pidfd: if the pid was reused between the two looks, it is left alone.
        let Ok(pidfd) = pidfd_open(pid, PidfdFlags::empty()) else { continue };
        if is_server_on(pid, socket) && pidfd_send_signal(&pidfd, Signal::KILL).is_ok() {
            tracing::debug!(pid = pid.as_raw_nonzero().get(), socket = %socket.display(), "killed a tmux server");
            killed.push(pidfd);
        }
    }
    Ok(killed)
}

/// Waits until every process of `pidfds` has exited (a pidfd turns readable then), at most `deadline`:
/// `false` when it passed first. Blocking.
fn all_exited(pidfds: &[OwnedFd], deadline: Duration) -> std::io::Result<bool> {
    let until = std::time::Instant::now() + deadline;
    for pidfd in pidfds {
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            let timeout = Timespec::try_from(left).map_err(std::io::Error::other)?;
            let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
            match poll(&mut fds, Some(&timeout)) {
                Ok(0) => return Ok(false),
                Ok(_) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(true)
}

/// Whether `pid` is a tmux server whose arguments name `socket` with `-S`.
fn is_server_on(pid: Pid, socket: &Path) -> bool {
    let dir = Path::new("/proc").join(pid.as_raw_nonzero().get().to_string());
    let comm = std::fs::read(dir.join("comm")).unwrap_or_default();
    if !comm.starts_with(b"tmux: server") {
        return false;
    }
    let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
    names_socket(&cmdline, socket)
}

/// Whether a NUL-separated command line passes `-S <socket>` (or `-S<socket>`).
fn names_socket(cmdline: &[u8], socket: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let socket = socket.as_os_str().as_bytes();
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    args.iter()
        .enumerate()
        .any(|(i, arg)| (*arg == b"-S" && args.get(i + 1) == Some(&socket)) || arg.strip_prefix(b"-S") == Some(socket))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_must_be_the_argument_of_dash_s() {
        let socket = Path::new("/tmp/x/1.sock");
        assert!(names_socket(b"tmux\0-S\0/tmp/x/1.sock\0new-session\0-d\0", socket));
        assert!(names_socket(b"tmux\0-S/tmp/x/1.sock\0new-session\0", socket));
        assert!(!names_socket(b"tmux\0-S\0/tmp/x/1.sock.other\0new-session\0", socket));
        assert!(!names_socket(b"tmux\0-L\0/tmp/x/1.sock\0", socket));
        assert!(!names_socket(b"vim\0/tmp/x/1.sock\0", socket));
    }
}
