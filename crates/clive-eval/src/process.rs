//! A child process in its own process group, with its output in files and a wall-time limit; on timeout the
//! whole group is killed, so nothing it started outlives the run.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::process::Command;

use crate::error::Error;

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    /// Its exit code (`None`: killed by a signal, or by us on timeout).
    pub code: Option<i32>,
    /// Whether the time limit ran out.
    pub timed_out: bool,
    /// From spawn to exit (or kill).
    pub wall: Duration,
}

/// Runs `command` in its own process group with stdin closed and stdout/stderr written to the given files.
/// At `limit` the group gets SIGINT (as from Ctrl-C: clive stops, reports what it spent and exits) and
/// `grace` to exit; then the whole group is killed. Afterwards the group is killed in any case, which ends anything
/// it left running in the background.
pub async fn run_limited(
    mut command: Command,
    stdout: &Path,
    stderr: &Path,
    limit: Duration,
    grace: Duration,
) -> Result<Ended, Error> {
    let file = |path: &Path| std::fs::File::create(path).map_err(|source| Error::Io { path: path.to_owned(), source });
    command.stdin(Stdio::null()).stdout(file(stdout)?).stderr(file(stderr)?).process_group(0).kill_on_drop(true);
    let program = PathBuf::from(command.as_std().get_program());
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| Error::Io { path: program.clone(), source })?;
    let group = child.id().and_then(|id| Pid::from_raw(id as i32));
    let (status, timed_out) = match tokio::time::timeout(limit, child.wait()).await {
        Ok(status) => (status, false),
        Err(_) => {
            if let Some(group) = group.filter(|_| !grace.is_zero()) {
                // What Ctrl-C on a terminal does: SIGINT to the foreground process group.
                let _ = kill_process_group(group, Signal::INT);
            }
            match tokio::time::timeout(grace, child.wait()).await {
                Ok(status) => (status, true),
                Err(_) => {
                    // Kill the group before reaping its leader, so the group id cannot have been reused.
                    kill_group(group);
                    (child.wait().await, true)
                }
            }
        }
    };
    let wall = started.elapsed();
    let status = status.map_err(|source| Error::Io { path: program, source })?;
    // Background leftovers: the leader is gone but the group lives on while any member does.
    kill_group(group);
    Ok(Ended { code: if timed_out { None } else { status.code() }, timed_out, wall })
}

fn kill_group(group: Option<Pid>) {
    if let Some(group) = group {
        // ESRCH (nothing left) is the usual, harmless answer.
        let _ = kill_process_group(group, Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("bash");
        command.arg("-c").arg(script);
        command
    }

    /// Whether `pid` still runs and is not about to die: gone, a zombie, or with SIGKILL pending all count as
    /// dead (a SIGKILL is delivered asynchronously; its pending bit is set the moment kill() returns).
    fn alive(pid: i32) -> bool {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return false };
        let field = |name: &str| {
            status.lines().find_map(|l| l.strip_prefix(name)).map(str::trim).unwrap_or_default().to_owned()
        };
        let zombie = field("State:").starts_with('Z') || field("State:").starts_with('X');
        const SIGKILL_BIT: u64 = 1 << (9 - 1);
        let pending = |name: &str| u64::from_str_radix(&field(name), 16).unwrap_or(0) & SIGKILL_BIT != 0;
        !zombie && !pending("ShdPnd:") && !pending("SigPnd:")
    }

    #[tokio::test]
    async fn output_goes_to_files_and_the_exit_code_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = (dir.path().join("out"), dir.path().join("err"));
        let ended =
            run_limited(sh("echo hi; echo oops >&2; exit 3"), &out, &err, Duration::from_secs(10), Duration::ZERO)
                .await
                .unwrap();
        assert_eq!((ended.code, ended.timed_out), (Some(3), false));
        assert_eq!(std::fs::read_to_string(out).unwrap(), "hi\n");
        assert_eq!(std::fs::read_to_string(err).unwrap(), "oops\n");
    }

    #[tokio::test]
    async fn a_timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = (dir.path().join("out"), dir.path().join("err"));
        // A grandchild in the background, and a leader that ignores SIGTERM: both must go.
        let script = "trap '' TERM; sleep 300 & echo $!; wait";
        let ended = run_limited(sh(script), &out, &err, Duration::from_millis(300), Duration::ZERO).await.unwrap();
        assert!(ended.timed_out && ended.code.is_none(), "{ended:?}");
        assert!(ended.wall >= Duration::from_millis(300) && ended.wall < Duration::from_secs(10), "{ended:?}");
        let grandchild: i32 = std::fs::read_to_string(out).unwrap().trim().parse().unwrap();
        assert!(!alive(grandchild), "the background sleep survived the timeout");
    }

    #[tokio::test]
    async fn a_timeout_lets_the_leader_report_before_the_group_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = (dir.path().join("out"), dir.path().join("err"));
        let script = "trap 'echo interrupted; exit 130' INT; sleep 300 & wait";
        // bash cannot trap a signal that was ignored when it started, and tests started in the background by a
        // shell without job control inherit SIGINT ignored (the run then goes to the full grace): `env` gives bash
        // SIGINT's default back. clive itself installs a handler, which works either way. The limit leaves bash
        // time to set its trap on a loaded machine.
        let mut command = Command::new("env");
        command.args(["--default-signal=INT", "bash", "-c", script]);
        let ended = run_limited(command, &out, &err, Duration::from_secs(1), Duration::from_secs(10)).await.unwrap();
        assert!(ended.timed_out && ended.wall < Duration::from_secs(10), "{ended:?}");
        assert_eq!(std::fs::read_to_string(out).unwrap(), "interrupted\n");
    }

    #[tokio::test]
    async fn leftovers_of_a_finished_leader_are_killed() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = (dir.path().join("out"), dir.path().join("err"));
        let ended =
            run_limited(sh("sleep 300 >/dev/null 2>&1 & echo $!"), &out, &err, Duration::from_secs(10), Duration::ZERO)
                .await
                .unwrap();
        assert_eq!(ended.code, Some(0));
        let leftover: i32 = std::fs::read_to_string(out).unwrap().trim().parse().unwrap();
        assert!(!alive(leftover), "a background process outlived its run");
    }
}
