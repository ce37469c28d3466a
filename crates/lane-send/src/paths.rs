//! Where lane-send keeps its files: runtime (locks), state (logs, notes, mailbox), config
//! (registry).
//!
//! `LANE_SEND_HOME` overrides everything (tests point it at a temp dir so they never touch the
//! real home): `$LANE_SEND_HOME/{run,state,config}`. Otherwise the XDG base directories:
//! `$XDG_RUNTIME_DIR/lane-send` (fallback: the system temp dir, per user),
//! `$XDG_STATE_HOME/lane-send` (fallback `~/.local/state/lane-send`),
//! `$XDG_CONFIG_HOME/lane-send` (fallback `~/.config/lane-send`).

use std::path::{Path, PathBuf};

use crate::error::Error;

/// The override variable.
pub const HOME_OVERRIDE: &str = "LANE_SEND_HOME";

/// The three directories lane-send uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirs {
    /// Locks.
    pub runtime: PathBuf,
    /// Delivery logs, notes, mailbox.
    pub state: PathBuf,
    /// The lane registry.
    pub config: PathBuf,
}

impl Dirs {
    /// All three under one root (what `LANE_SEND_HOME` does).
    pub fn under(root: &Path) -> Self {
        Self { runtime: root.join("run"), state: root.join("state"), config: root.join("config") }
    }

    /// Resolves the directories from the environment.
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(|name| std::env::var_os(name).filter(|value| !value.is_empty()).map(PathBuf::from))
    }

    /// Resolves the directories from a variable lookup (for tests).
    pub fn from_lookup(var: impl Fn(&str) -> Option<PathBuf>) -> Result<Self, Error> {
        if let Some(root) = var(HOME_OVERRIDE) {
            return Ok(Self::under(&root));
        }
        let home = var("HOME");
        let from_home = |relative: &str, xdg: &'static str| -> Result<PathBuf, Error> {
            var(xdg)
                .map(|dir| dir.join("lane-send"))
                .or_else(|| home.as_ref().map(|home| home.join(relative)))
                .ok_or(Error::NoHome { variable: xdg })
        };
        let runtime = match var("XDG_RUNTIME_DIR") {
            Some(dir) => dir.join("lane-send"),
            None => std::env::temp_dir().join(format!("lane-send-{}", user_tag(var("USER")))),
        };
        Ok(Self {
            runtime,
            state: from_home(".local/state/lane-send", "XDG_STATE_HOME")?,
            config: from_home(".config/lane-send", "XDG_CONFIG_HOME")?,
        })
    }

    /// The registry file.
    pub fn registry_file(&self) -> PathBuf {
        self.config.join("lanes.yaml")
    }
}

fn user_tag(user: Option<PathBuf>) -> String {
    user.map(|user| user.to_string_lossy().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect())
        .filter(|tag: &String| !tag.is_empty())
        .unwrap_or_else(|| "user".to_string())
}

/// Creates a directory (and parents), naming it in the error.
pub(crate) fn ensure_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::io("create directory", dir, source))
}

/// Creates a directory of the runtime dir (what it creates is mode 0700) and refuses it, or its parent, when
/// another user owns it or everyone may write to it: without `XDG_RUNTIME_DIR` the runtime dir is a predictable name
/// in the shared temp dir, which someone else could have made first (and filled with held locks or symlinks).
pub(crate) fn ensure_private_dir(dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| Error::io("create directory", dir, source))?;
    let uid = rustix::process::geteuid().as_raw();
    for dir in [Some(dir), dir.parent()].into_iter().flatten() {
        let link = std::fs::symlink_metadata(dir).map_err(|source| Error::io("inspect directory", dir, source))?;
        let target = std::fs::metadata(dir).map_err(|source| Error::io("inspect directory", dir, source))?;
        let problem = if link.uid() != uid || target.uid() != uid {
            format!("it belongs to user {}, not to you (user {uid})", target.uid().max(link.uid()))
        } else if target.mode() & 0o002 != 0 {
            format!("everyone may write to it (mode {:o})", target.mode() & 0o777)
        } else {
            continue;
        };
        let hint = "remove it, or set XDG_RUNTIME_DIR (or LANE_SEND_HOME) to a directory of your own";
        return Err(Error::io("use directory", dir, std::io::Error::other(format!("{problem}; {hint}"))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_wins_then_xdg_then_home() {
        let lookup = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| PathBuf::from(value))
        };
        let dirs = Dirs::from_lookup(lookup(&[("LANE_SEND_HOME", "/t"), ("HOME", "/h")])).unwrap();
        assert_eq!(dirs, Dirs::under(Path::new("/t")));
        let dirs =
            Dirs::from_lookup(lookup(&[("XDG_STATE_HOME", "/s"), ("XDG_RUNTIME_DIR", "/r"), ("HOME", "/h")])).unwrap();
        assert_eq!(dirs.state, PathBuf::from("/s/lane-send"));
        assert_eq!(dirs.runtime, PathBuf::from("/r/lane-send"));
        assert_eq!(dirs.config, PathBuf::from("/h/.config/lane-send"));
        assert!(Dirs::from_lookup(lookup(&[])).is_err());
    }

    #[test]
    fn a_runtime_dir_someone_else_could_have_made_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let fresh = root.path().join("fresh/locks");
        ensure_private_dir(&fresh).unwrap();
        for dir in [&fresh, &root.path().join("fresh")] {
            assert_eq!(std::fs::metadata(dir).unwrap().permissions().mode() & 0o777, 0o700, "{dir:?}");
        }
        ensure_private_dir(&fresh).unwrap();

        let squatted = root.path().join("lane-send-user");
        std::fs::create_dir(&squatted).unwrap();
        std::fs::set_permissions(&squatted, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = ensure_private_dir(&squatted.join("locks")).unwrap_err().to_string();
        assert!(error.contains("lane-send-user") && error.contains("everyone may write to it (mode 777)"), "{error}");
        assert!(error.contains("XDG_RUNTIME_DIR"), "{error}");

        // Owned by another user (checkable where the test may give a directory away: as root).
        if rustix::process::geteuid().is_root() {
            let theirs = root.path().join("theirs");
            std::fs::create_dir(&theirs).unwrap();
            std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
            let error = ensure_private_dir(&theirs.join("locks")).unwrap_err().to_string();
            assert!(error.contains("belongs to user 65534"), "{error}");
            let link = root.path().join("link");
            std::os::unix::fs::symlink(&theirs, &link).unwrap();
            assert!(ensure_private_dir(&link.join("locks")).is_err());
        }
    }
}
