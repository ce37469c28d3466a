//! Whether a pane's program waits for a person: a process under the pane blocked reading the pane's terminal.
//!
//! A program's question is usually on the screen (`Name:` at the cursor), and a watcher sees it there. But a
//! program whose output goes to a file or a pipe (`./export.py > out.csv`) asks where nobody looks: the screen stays
//! empty while the program waits, until whatever deadline comes. The kernel knows: the process sits in `read` on
//! the terminal. Linux's `/proc/<pid>/syscall` tells, for a process we may inspect (our own, or any as root);
//! elsewhere, or where it cannot be read, the answer is "cannot tell".

use std::collections::HashMap;
use std::path::Path;

/// The number of `read` on this architecture (`/proc/<pid>/syscall`'s first field), where known.
#[cfg(target_arch = "x86_64")]
const READ: Option<u64> = Some(0);
#[cfg(target_arch = "aarch64")]
const READ: Option<u64> = Some(63);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const READ: Option<u64> = None;

/// Whether a process under `pid` (a pane's process: [`crate::PaneInfo::pid`], not counted itself) is blocked in
/// `read` on the terminal `tty` ([`crate::PaneInfo::tty`], `/dev/pts/3`). `None` when it cannot tell: not Linux,
/// an architecture whose `read` is not known here, or no process under `pid` could be inspected.
///
/// ```no_run
/// # async fn demo(pane: &tmux_habitat::Pane) -> tmux_habitat::Result<()> {
/// let info = pane.info().await?;
/// if tmux_habitat::reads_terminal(info.pid, &info.tty) == Some(true) {
///     println!("waiting for input, whatever the screen shows");
/// }
/// # Ok(())
/// # }
/// ```
pub fn reads_terminal(pid: u32, tty: &str) -> Option<bool> {
    reads_terminal_in(Path::new("/proc"), pid, tty)
}

/// [`reads_terminal`] over a `/proc` at `proc`.
fn reads_terminal_in(proc: &Path, pid: u32, tty: &str) -> Option<bool> {
    let read = READ?;
    let descendants = descendants(proc, pid)?;
    let mut inspected = false;
    for child in descendants {
        let dir = proc.join(child.to_string());
        let Ok(syscall) = std::fs::read_to_string(dir.join("syscall")) else { continue };
        inspected = true;
        let mut fields = syscall.split_whitespace();
        let (Some(number), Some(fd)) = (fields.next(), fields.next()) else { continue };
        if number.parse::<u64>().ok() != Some(read) {
            continue;
        }
        let Ok(fd) = u64::from_str_radix(fd.trim_start_matches("0x"), 16) else { continue };
        let target = std::fs::read_link(dir.join("fd").join(fd.to_string()));
        if target.is_ok_and(|t| t == Path::new(tty)) {
            return Some(true);
        }
    }
    inspected.then_some(false)
}

/// Every process under `pid` (children, theirs, …), from each process's parent in `/proc/<n>/stat`.
fn descendants(proc: &Path, pid: u32) -> Option<Vec<u32>> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for entry in std::fs::read_dir(proc).ok()?.flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        if let Some(parent) = parent_of(&stat) {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut found = Vec::new();
    let mut next = vec![pid];
    while let Some(at) = next.pop() {
        for &child in children.get(&at).map(Vec::as_slice).unwrap_or_default() {
            found.push(child);
            next.push(child);
        }
    }
    Some(found)
}

/// The parent pid in a `/proc/<n>/stat` line: the field after the state, after the command name in parentheses
/// (which may itself hold spaces and parentheses: the last `)` ends it).
fn parent_of(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_past_a_command_name_with_spaces_and_parentheses() {
        assert_eq!(parent_of("42 (my (odd) prog) S 7 42 42 34816 0"), Some(7));
        assert_eq!(parent_of("42 (bash) R 1 42"), Some(1));
        assert_eq!(parent_of("garbage"), None);
    }

    #[test]
    fn a_process_reading_the_terminal_is_found_under_its_ancestor() {
        let proc = tempfile::tempdir().unwrap();
        let process = |pid: u32, parent: u32, syscall: &str, fd0: &str| {
            let dir = proc.path().join(pid.to_string());
            std::fs::create_dir_all(dir.join("fd")).unwrap();
            std::fs::write(dir.join("stat"), format!("{pid} (p) S {parent} 0 0")).unwrap();
            std::fs::write(dir.join("syscall"), syscall).unwrap();
            std::os::unix::fs::symlink(fd0, dir.join("fd").join("0")).unwrap();
        };
        let read = READ.unwrap();
        process(10, 1, "61 0xffffffff 0x7ffe 0x0", "/dev/pts/3");
        process(11, 10, "61 0xffffffff 0x7ffe 0x0", "/dev/pts/3");
        process(12, 11, &format!("{read} 0x0 0x55d1 0x2000"), "/dev/pts/3");
        process(20, 1, &format!("{read} 0x0 0x55d1 0x2000"), "/dev/pts/4");
        assert_eq!(reads_terminal_in(proc.path(), 10, "/dev/pts/3"), Some(true));
        // Another pane's terminal, or a process that is not under this pane: not this pane's wait.
        assert_eq!(reads_terminal_in(proc.path(), 10, "/dev/pts/9"), Some(false));
        assert_eq!(reads_terminal_in(proc.path(), 20, "/dev/pts/4"), None, "nothing under it to inspect");
    }

    #[tokio::test]
    async fn a_real_process_blocked_in_read_is_seen() {
        // `cat` under a shell, with a pipe on its standard input, waits in `read`: the same inspection as for a
        // terminal, with the pipe's name for the terminal's (`; true` keeps the shell from becoming `cat`). Nothing
        // signals that it has reached its `read`: looked at again with backoff, until a deadline.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "cat; true"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut backoff = crate::Backoff::new(std::time::Duration::from_secs(10));
        let mut seen = None;
        loop {
            if let Some(&reader) = descendants(Path::new("/proc"), child.id()).unwrap_or_default().first()
                && let Ok(stdin) = std::fs::read_link(format!("/proc/{reader}/fd/0"))
            {
                seen = reads_terminal(child.id(), &stdin.display().to_string());
            }
            if seen == Some(true) || !backoff.wait().await {
                break;
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(seen, Some(true));
    }
}
