//! Staged attempts: a script runs on an overlay of its working directory, so what it writes lands in the
//! subtask's run directory, not in the user's, until clive accepts it.
//!
//! The attempt's command becomes `unshare --user --map-root-user --mount` around [`STAGE_SCRIPT`], which mounts an
//! overlay (lower: the working directory; upper and work: this attempt's directory under the run directory) *over
//! the working directory itself*, so relative and absolute paths alike reach the staged view, then drops back to
//! the caller's user id in a second user and mount namespace (where the overlay can no longer be unmounted to
//! reach the directory below) and runs the script. The pane's shell, and everything else on the machine, sees
//! the user's directory unchanged. Afterwards [`crate::changes::from_upper`] reads what the attempt changed.
//!
//! This needs unprivileged user namespaces and overlayfs in them (Linux 5.11 or newer). Where the mount fails,
//! the stage script exits [`STAGE_UNAVAILABLE`] before the script starts, naming why, and the runner runs the
//! attempt unstaged (the inputs the goal reads are still protected, by copies: docs/agent.md).

use std::path::{Path, PathBuf};

use tmux_habitat::shell_quote;

/// The exit status of the stage script when it could not stage (the attempt's script never started).
pub const STAGE_UNAVAILABLE: i32 = 125;

/// The line the stage script prints when it could not stage.
pub const UNAVAILABLE_LINE: &str = "clive-stage: cannot stage";

/// The stage script, run by `sh` in a new user and mount namespace as that namespace's root: `$1` the working
/// directory, `$2` the upper and `$3` the work directory, then the command. It mounts, enters the staged view,
/// and runs the command as the caller's user in a namespace that cannot unmount it. Every process counts (each
/// costs milliseconds): the caller's ids come from the namespace's own maps and mount's error from a file, both
/// read by the shell's `read`.
pub const STAGE_SCRIPT: &str = r#"# clive's staged attempt (crates/agent/src/stage.rs)
lower=$1 upper=$2 work=$3
shift 3
read -r _ uid _ < /proc/self/uid_map && read -r _ gid _ < /proc/self/gid_map || exit 125
if ! mount -t overlay clive-stage -o "lowerdir=$lower,upperdir=$upper,workdir=$work,userxattr" "$lower" 2>"${upper%/*}/why"; then
  read -r why < "${upper%/*}/why"
  echo "clive-stage: cannot stage $lower: $why" >&2
  exit 125
fi
cd "$lower" || exit 125
exec unshare --user --map-user="$uid" --map-group="$gid" --mount -- "$@"
"#;

/// The file the stage script is saved as, in a subtask's run directory.
pub const STAGE_FILE: &str = "stage.sh";

/// One attempt's overlay: its upper and work directories.
#[derive(Debug, Clone)]
pub struct Stage {
    /// The working directory (the overlay's lower layer, and where it is mounted).
    pub cwd: PathBuf,
    /// This attempt's directory (`upper/`, `work/`).
    pub dir: PathBuf,
}

/// Why an attempt cannot be staged in a working directory, before trying.
pub fn unstageable(cwd: &Path, records: &Path) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("staging needs Linux (overlayfs in a user namespace)".into());
    }
    let text = cwd.to_string_lossy();
    if text.contains([',', ':', '\n']) || !cwd.is_absolute() {
        return Some(format!("the working directory's path {text:?} cannot be an overlay's layer"));
    }
    if records.starts_with(cwd) {
        return Some("the run directory is inside the working directory".into());
    }
    if cwd == Path::new("/") {
        return Some("the working directory is /".into());
    }
    None
}

impl Stage {
    /// A stage for attempt `attempt` in `records` (the subtask's run directory), writing the stage script there
    /// once.
    pub fn new(cwd: &Path, records: &Path, attempt: u32) -> std::io::Result<Stage> {
        let script = records.join(STAGE_FILE);
        if !script.exists() {
            std::fs::write(&script, STAGE_SCRIPT)?;
        }
        let dir = records.join(format!("stage-{attempt}"));
        if dir.exists() {
            remove_tree(&dir)?;
        }
        std::fs::create_dir_all(dir.join("upper"))?;
        std::fs::create_dir_all(dir.join("work"))?;
        Ok(Stage { cwd: cwd.to_owned(), dir })
    }

    /// The upper directory: what the attempt created or changed.
    pub fn upper(&self) -> PathBuf {
        self.dir.join("upper")
    }

    /// The shell text that runs `command` (words, already quoted) in the staged view: to be typed into the pane's
    /// shell, whose user it keeps.
    pub fn wrap(&self, records: &Path, command: &str) -> String {
        let quote = |path: &Path| shell_quote(&path.display().to_string());
        format!(
            "unshare --user --map-root-user --mount --propagation private -- sh {} {} {} {} {command}",
            quote(&records.join(STAGE_FILE)),
            quote(&self.cwd),
            quote(&self.upper()),
            quote(&self.dir.join("work")),
        )
    }

    /// The changes the attempt made.
    pub fn changes(&self) -> std::io::Result<Vec<crate::changes::Change>> {
        crate::changes::from_upper(&self.cwd, &self.upper())
    }

    /// Removes the stage's directories (the overlay's work directory holds a root-only `work/work` entry that a
    /// plain remove may not open: its mode is fixed first).
    pub fn discard(&self) -> std::io::Result<()> {
        remove_tree(&self.dir)
    }

    /// Like [`Stage::discard`], on a thread of its own: just after the attempt the kernel is still tearing down
    /// its mount namespace, and a remove then waits for that (about 10 ms against 0.3 ms), which the attempt's
    /// caller need not. The directories are in the run directory, never in the user's.
    pub fn discard_in_background(&self) {
        let dir = self.dir.clone();
        let spawned = std::thread::Builder::new().name("clive-stage-discard".into()).spawn(move || {
            if let Err(error) = remove_tree(&dir) {
                tracing::debug!(dir = %dir.display(), %error, "a stage's directories were not removed");
            }
        });
        if spawned.is_err() {
            let _ = self.discard();
        }
    }
}

fn remove_tree(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let inner = dir.join("work").join("work");
    if inner.exists() {
        let _ = std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o700));
    }
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;
    use std::process::Command;

    fn run(cwd: &Path, line: &str) -> std::process::Output {
        Command::new("sh").arg("-c").arg(line).current_dir(cwd).output().expect("sh runs")
    }

    #[test]
    fn a_staged_command_runs_as_the_caller_and_writes_only_the_upper_layer() {
        let (cwd, records) = (tempfile::tempdir().expect("dir"), tempfile::tempdir().expect("dir"));
        let cwd = cwd.path().canonicalize().expect("canonical");
        let stage = Stage::new(&cwd, records.path(), 1).expect("stage");
        let out = run(&cwd, &stage.wrap(records.path(), "sh -c 'id -u > who.txt; id -g >> who.txt'"));
        assert!(out.status.success(), "{out:?}");
        assert!(!cwd.join("who.txt").exists(), "the write reached the working directory");
        let me = std::fs::metadata(&cwd).expect("metadata");
        let who = std::fs::read_to_string(stage.upper().join("who.txt")).expect("the write is in the upper layer");
        assert_eq!(who, format!("{}\n{}\n", me.uid(), me.gid()));
        stage.discard().expect("discarded");
        assert!(!stage.dir.exists());
    }

    #[test]
    fn a_stage_that_cannot_mount_exits_125_saying_why_before_the_command_runs() {
        let (cwd, records) = (tempfile::tempdir().expect("dir"), tempfile::tempdir().expect("dir"));
        let cwd = cwd.path().canonicalize().expect("canonical");
        let stage = Stage::new(&cwd, records.path(), 1).expect("stage");
        // The overlay's work directory must be a directory: a file there makes the mount fail.
        std::fs::remove_dir(stage.dir.join("work")).expect("removed");
        std::fs::write(stage.dir.join("work"), "").expect("written");
        let out = run(&cwd, &stage.wrap(records.path(), "echo the command ran"));
        assert_eq!(out.status.code(), Some(STAGE_UNAVAILABLE), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let line = stderr.lines().find(|l| l.contains(UNAVAILABLE_LINE)).expect("the line");
        let why = line.rsplit_once(": ").map(|(_, why)| why.trim()).unwrap_or_default();
        assert!(line.contains(&cwd.display().to_string()) && !why.is_empty(), "{stderr}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("ran"));
    }
}
