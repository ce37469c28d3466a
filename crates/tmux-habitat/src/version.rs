//! Which tmux a server runs: `tmux -V`, asked once per binary and process.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::error::{Error, Result};

/// A tmux release, as `tmux -V` names it (`3.3a`, `3.5a`, `next-3.6`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TmuxVersion {
    /// Major number (`3`).
    pub major: u32,
    /// Minor number (`5`).
    pub minor: u32,
    /// What follows the numbers (`a`), or a prefix such as `next-`; empty for none.
    pub suffix: String,
    text: String,
}

impl TmuxVersion {
    /// The oldest tmux this crate supports: `new-window -e`, control mode's `ignore-size` and `pause-after`.
    pub const MINIMUM: (u32, u32) = (3, 2);

    /// Reads `tmux -V`'s answer (`tmux 3.5a`, `tmux next-3.6`, `tmux master`); a development build without
    /// a number (`master`) counts as newer than any release.
    pub fn parse(text: &str) -> Option<TmuxVersion> {
        let word = text.split_whitespace().nth(1)?.to_owned();
        if word == "master" {
            return Some(TmuxVersion { major: u32::MAX, minor: 0, suffix: word.clone(), text: word });
        }
        let numbers_at = word.find(|c: char| c.is_ascii_digit())?;
        let (prefix, rest) = word.split_at(numbers_at);
        let (major, rest) = rest.split_once('.')?;
        let minor_len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let (minor, tail) = rest.split_at(minor_len);
        Some(TmuxVersion {
            major: major.parse().ok()?,
            minor: minor.parse().ok()?,
            suffix: format!("{prefix}{tail}"),
            text: word,
        })
    }

    /// Whether this release is `major.minor` or newer.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }

    /// Whether this crate supports it ([`TmuxVersion::MINIMUM`] or newer).
    pub fn is_supported(&self) -> bool {
        self.at_least(Self::MINIMUM.0, Self::MINIMUM.1)
    }
}

impl fmt::Display for TmuxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `program -V`, once per program in this process.
pub(crate) async fn detect(program: &Path) -> Result<TmuxVersion> {
    static KNOWN: OnceLock<Mutex<HashMap<PathBuf, TmuxVersion>>> = OnceLock::new();
    let known = KNOWN.get_or_init(Default::default);
    if let Some(version) = known.lock().unwrap_or_else(|p| p.into_inner()).get(program) {
        return Ok(version.clone());
    }
    let child = tokio::process::Command::new(program)
        .arg("-V")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| Error::Spawn { program: program.display().to_string(), source })?;
    let deadline = Duration::from_secs(5);
    let output = tokio::time::timeout(deadline, child.wait_with_output())
        .await
        .map_err(|_| Error::Deadline { command: format!("{} -V", program.display()), deadline, stderr: String::new() })?
        .map_err(|e| Error::io(format!("running {} -V", program.display()), e))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = TmuxVersion::parse(&text).ok_or_else(|| Error::Protocol {
        command: format!("{} -V", program.display()),
        detail: format!("no version in {:?}", text.trim()),
    })?;
    known.lock().unwrap_or_else(|p| p.into_inner()).insert(program.to_owned(), version.clone());
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_and_compare() {
        let v = TmuxVersion::parse("tmux 3.3a\n").unwrap();
        assert_eq!((v.major, v.minor, v.suffix.as_str(), v.to_string().as_str()), (3, 3, "a", "3.3a"));
        assert!(v.is_supported() && !v.at_least(3, 4));
        assert!(TmuxVersion::parse("tmux 3.5a").unwrap().at_least(3, 5));
        assert!(!TmuxVersion::parse("tmux 3.1c").unwrap().is_supported());
        let next = TmuxVersion::parse("tmux next-3.6").unwrap();
        assert_eq!((next.major, next.minor, next.suffix.as_str()), (3, 6, "next-"));
        assert!(TmuxVersion::parse("tmux master").unwrap().at_least(9, 9));
        assert_eq!(TmuxVersion::parse("tmux 3.4").unwrap().suffix, "");
        assert_eq!(TmuxVersion::parse("not tmux"), None);
        assert_eq!(TmuxVersion::parse(""), None);
    }

    #[tokio::test]
    async fn the_installed_tmux_says_its_version() {
        let version = detect(Path::new("tmux")).await.unwrap();
        assert!(version.is_supported(), "{version}");
        assert_eq!(detect(Path::new("tmux")).await.unwrap(), version, "asked once, the same answer");
    }
}
