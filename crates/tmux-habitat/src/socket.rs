//! Where tmux servers listen.

use std::path::PathBuf;

/// Which tmux server to talk to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocketSpec {
    /// A socket name, as `tmux -L name`: the socket lives in tmux's per-user directory.
    Name(String),
    /// An explicit socket path, as `tmux -S path`.
    Path(PathBuf),
    /// The server plain `tmux` would talk to: the socket named by `$TMUX`, else the default socket.
    Inherit,
}

/// tmux's per-user socket directory: `${TMUX_TMPDIR:-/tmp}/tmux-<uid>`.
pub fn socket_dir() -> PathBuf {
    let base = std::env::var_os("TMUX_TMPDIR").filter(|v| !v.is_empty()).unwrap_or_else(|| "/tmp".into());
    PathBuf::from(base).join(format!("tmux-{}", current_uid()))
}

impl SocketSpec {
    /// The socket path this spec stands for, resolved once from the environment.
    pub fn resolve(&self) -> PathBuf {
        match self {
            SocketSpec::Name(name) => socket_dir().join(name),
            SocketSpec::Path(path) => path.clone(),
            SocketSpec::Inherit => std::env::var("TMUX")
                .ok()
                .and_then(|v| v.split(',').next().map(str::to_owned))
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| socket_dir().join("default")),
        }
    }
}

/// The real user id of this process (`getuid`, which cannot fail): never a guess that could point a
/// non-root user at root's sockets.
pub(crate) fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_resolves_inside_the_per_user_dir() {
        let path = SocketSpec::Name("clive".into()).resolve();
        assert!(path.ends_with("clive"));
        assert!(path.parent().is_some_and(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("tmux-"))));
    }

    #[test]
    fn the_uid_is_this_process_owner() {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(current_uid(), std::fs::metadata("/proc/self").unwrap().uid());
    }

    #[test]
    fn explicit_path_is_kept() {
        assert_eq!(SocketSpec::Path("/x/y".into()).resolve(), PathBuf::from("/x/y"));
    }
}
