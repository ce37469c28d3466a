//! What the workspace's test suites share: a test never passes by skipping in silence.
//!
//! A test that needs a system tool (chromium, jq, sshd, bwrap, …) or a capability (root, network namespaces)
//! asks [`require_or_skip`] (or [`require_or_skip_when`]) first. When the tool is there, the test runs. When it
//! is not, the test says `SKIPPED: …` on stderr, naming the Debian package to install, and returns early —
//! unless `CLIVE_REQUIRE_TOOLS=1` is set (`.ci/run` sets it): then the test fails with the same message.
//!
//! ```
//! if !test_support::require_or_skip("sh") {
//!     return;
//! }
//! // … the test, using sh …
//! ```

use std::path::Path;

/// The environment variable that turns a skip into a failure.
pub const REQUIRE_TOOLS: &str = "CLIVE_REQUIRE_TOOLS";

/// Tools the suites use and the Debian packages that provide them.
pub const PACKAGES: &[(&str, &str)] = &[
    ("chromium", "chromium"),
    ("jq", "jq"),
    ("lynx", "lynx"),
    ("curl", "curl"),
    ("git", "git"),
    ("less", "less"),
    ("bwrap", "bubblewrap"),
    ("python3", "python3"),
    ("tmux", "tmux"),
    ("ip", "iproute2"),
    ("ssh", "openssh-client"),
    ("ssh-keygen", "openssh-client"),
    ("/usr/sbin/sshd", "openssh-server"),
    ("sshd", "openssh-server"),
    ("stress", "stress"),
];

/// The Debian package that provides `tool` (its name, or its path for tools outside `PATH` such as
/// `/usr/sbin/sshd`); the tool's own name when the table does not know it.
pub fn package_of(tool: &str) -> &str {
    PACKAGES.iter().find(|(name, _)| *name == tool).map_or(tool, |(_, package)| package)
}

/// Whether `tool` is here: a path (it contains `/`) that is a file, or a name found on `PATH`.
pub fn is_installed(tool: &str) -> bool {
    if tool.contains('/') {
        return Path::new(tool).is_file();
    }
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Whether the test can use `tool`: `true` when it is installed; otherwise `false` after saying on stderr that
/// the test is skipped and which package to install — or, under `CLIVE_REQUIRE_TOOLS=1`, a panic saying so.
#[track_caller]
pub fn require_or_skip(tool: &str) -> bool {
    let available = if is_installed(tool) {
        Ok(())
    } else {
        Err(format!("{tool} is missing: apt-get install {}", package_of(tool)))
    };
    require_or_skip_when(tool, available)
}

/// Like [`require_or_skip`] for any need (`root`, network namespaces, …): `available` is `Err` with why not and
/// what to do.
#[track_caller]
pub fn require_or_skip_when(need: &str, available: Result<(), String>) -> bool {
    match decide(need, available, std::env::var_os(REQUIRE_TOOLS).is_some_and(|v| !v.is_empty() && v != "0")) {
        Ok(run) => run,
        Err(failure) => panic!("{failure}"),
    }
}

/// Whether to run (`Ok(true)`), skip (`Ok(false)`, said on stderr) or fail (`Err`, the message).
fn decide(need: &str, available: Result<(), String>, required: bool) -> Result<bool, String> {
    match available {
        Ok(()) => Ok(true),
        Err(why) if required => Err(format!("{REQUIRE_TOOLS} is set and this test needs {need}: {why}")),
        Err(why) => {
            eprintln!("SKIPPED: this test needs {need}: {why} (set {REQUIRE_TOOLS}=1 to fail instead)");
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_tools_run_missing_ones_skip_or_fail_naming_the_package() {
        assert!(is_installed("sh"));
        assert!(!is_installed("surely-no-such-tool"));
        assert_eq!(decide("sh", Ok(()), true), Ok(true));
        assert_eq!(decide("jq", Err("gone".into()), false), Ok(false));
        let failure = decide("sshd", Err(format!("missing: apt-get install {}", package_of("/usr/sbin/sshd"))), true);
        assert_eq!(
            failure,
            Err("CLIVE_REQUIRE_TOOLS is set and this test needs sshd: missing: apt-get install openssh-server".into())
        );
        assert_eq!(package_of("ip"), "iproute2");
        assert_eq!(package_of("unknown"), "unknown");
    }
}
