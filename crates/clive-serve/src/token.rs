//! The access token: random, kept in a private file so a restarted server keeps its open pages working,
//! compared in constant time.

use std::io::Write;
use std::path::Path;

use subtle::ConstantTimeEq;

use crate::error::{Error, Result};

/// A secret that grants access to the server: 32 random bytes, written as 64 hex digits.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken(String);

impl AccessToken {
    /// A fresh random token.
    pub fn generate() -> AccessToken {
        let bytes: [u8; 32] = rand::random();
        AccessToken(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// A token given by the user; it must be at least 16 characters of `[A-Za-z0-9_-]`, so it can travel in
    /// a URL and a cookie unchanged.
    pub fn new(token: impl Into<String>) -> Result<AccessToken> {
        let token = token.into();
        let ok = token.len() >= 16 && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok {
            return Err(Error::Invalid {
                what: "access token",
                reason: "a token needs at least 16 characters of A-Z, a-z, 0-9, `-` or `_`".into(),
            });
        }
        Ok(AccessToken(token))
    }

    /// The token in `path`, or a new one written there (mode 0600) when the file does not exist yet.
    pub fn load_or_create(path: &Path) -> Result<AccessToken> {
        use std::os::unix::fs::OpenOptionsExt;
        match std::fs::read_to_string(path) {
            Ok(text) => return AccessToken::new(text.trim()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        }
        let token = AccessToken::generate();
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
        writeln!(file, "{}", token.0).map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        Ok(token)
    }

    /// The token as text (for the URL printed at start).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is this token; the time taken does not depend on where they differ.
    pub fn matches(&self, candidate: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), candidate.as_bytes());
        // Lengths are not secret (every token has the same length); the contents are compared in constant time.
        a.len() == b.len() && bool::from(a.ct_eq(b))
    }
}

impl std::fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessToken(…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_match_only_themselves() {
        let token = AccessToken::generate();
        assert_eq!(token.expose().len(), 64);
        assert!(token.matches(token.expose()));
        assert!(!token.matches(&token.expose()[1..]));
        assert!(!token.matches(""));
        assert!(!token.matches(AccessToken::generate().expose()));
        assert_eq!(format!("{token:?}"), "AccessToken(…)", "the secret never reaches a log");
    }

    #[test]
    fn the_token_file_is_private_and_reused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/serve-token");
        let first = AccessToken::load_or_create(&path).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(AccessToken::load_or_create(&path).unwrap(), first);
    }

    #[test]
    fn a_short_or_odd_token_is_refused() {
        assert!(AccessToken::new("short").is_err());
        assert!(AccessToken::new("has spaces in it, sixteen+").is_err());
        assert!(AccessToken::new("abcdefgh-ijklmnop_0123").is_ok());
    }
}
