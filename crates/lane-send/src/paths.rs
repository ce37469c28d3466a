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
}
