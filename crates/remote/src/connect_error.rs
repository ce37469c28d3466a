//! Why an agent pane's ssh could not connect, read from what ssh (or the remote clive) printed, with what to do.

use std::time::Duration;

/// What the remote clive prints, and exits 2, when the turn nonce did not arrive with the session: the host's
/// sshd does not accept the variables (`AcceptEnv`).
pub const NONCE_MISSING_MARKER: &str = "clive-remote: the turn nonce did not arrive";

/// What the remote clive prints when it is asked to attach to a conversation that no longer exists.
pub const NO_CONVERSATION_MARKER: &str = "clive-remote: no such conversation";

/// Why connecting to an agent failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The host cannot be reached (name unknown, refused, no route, timed out).
    #[error(
        "clive@{host}: the host cannot be reached: {detail}. Check the name (`ssh {host}` from this shell) and the network"
    )]
    Unreachable {
        /// The alias.
        host: String,
        /// ssh's message.
        detail: String,
    },
    /// The host's key is unknown or changed.
    #[error(
        "clive@{host}: the host key is not known or has changed ({detail}). Connect once with `ssh {host}` and check the key; clive never accepts unknown host keys"
    )]
    HostKey {
        /// The alias.
        host: String,
        /// ssh's message.
        detail: String,
    },
    /// ssh could not log in without a password.
    #[error(
        "clive@{host}: authentication failed ({detail}). clive logs in with keys only (BatchMode): add your key to the host's authorized_keys, or name one with `identity:` in the agents registry"
    )]
    AuthFailed {
        /// The alias.
        host: String,
        /// ssh's message.
        detail: String,
    },
    /// The nonce (and so the provider keys) did not arrive.
    #[error(
        "clive@{host}: the host's sshd does not accept clive's variables. Add this line to /etc/ssh/sshd_config on {host} and reload sshd:\n    {line}"
    )]
    AcceptEnvMissing {
        /// The alias.
        host: String,
        /// The `AcceptEnv …` line to add.
        line: String,
    },
    /// The remote clive program was not found.
    #[error(
        "clive@{host}: the remote clive did not start ({detail}). Install clive on {host}, or set `command:` for it in the agents registry"
    )]
    RemoteCliveMissing {
        /// The alias.
        host: String,
        /// The shell's message.
        detail: String,
    },
    /// Nothing came back within the connect deadline.
    #[error("clive@{host}: no answer within {}s (connect deadline)", waited.as_secs())]
    TimedOut {
        /// The alias.
        host: String,
        /// How long it waited.
        waited: Duration,
    },
    /// ssh ended with some other message.
    #[error("clive@{host}: ssh ended: {detail}")]
    Other {
        /// The alias.
        host: String,
        /// The last lines ssh printed.
        detail: String,
    },
}

/// Reads what ssh left on the pane when it ended before the conversation started. `accept_env_line` is the
/// `AcceptEnv` line to name when the nonce did not arrive.
pub fn classify(host: &str, screen: &str, accept_env_line: &str) -> ConnectError {
    let lines: Vec<&str> = screen.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let find = |needles: &[&str]| {
        lines.iter().find(|line| {
            let lower = line.to_ascii_lowercase();
            needles.iter().any(|n| lower.contains(n))
        })
    };
    let host = host.to_owned();
    let detail = |line: &&str| line.trim_start_matches("ssh: ").to_owned();
    if find(&[&NONCE_MISSING_MARKER.to_ascii_lowercase()]).is_some() {
        return ConnectError::AcceptEnvMissing { host, line: accept_env_line.to_owned() };
    }
    if let Some(line) =
        find(&["host key verification failed", "remote host identification has changed", "no matching host key"])
    {
        return ConnectError::HostKey { host, detail: detail(line) };
    }
    if let Some(line) = find(&["permission denied", "too many authentication failures", "no supported authentication"])
    {
        return ConnectError::AuthFailed { host, detail: detail(line) };
    }
    if let Some(line) = find(&[
        "could not resolve hostname",
        "connection refused",
        "no route to host",
        "network is unreachable",
        "connection timed out",
        "operation timed out",
        "name or service not known",
    ]) {
        return ConnectError::Unreachable { host, detail: detail(line) };
    }
    if let Some(line) = find(&["command not found", "no such file or directory", "not found"]) {
        return ConnectError::RemoteCliveMissing { host, detail: (*line).to_owned() };
    }
    let tail: Vec<&str> = lines.iter().rev().take(3).rev().copied().collect();
    ConnectError::Other { host, detail: if tail.is_empty() { "nothing printed".to_owned() } else { tail.join(" / ") } }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "AcceptEnv CLIVE_TURN_NONCE OPENAI_API_KEY";

    #[test]
    fn each_failure_is_named_with_what_to_do() {
        let table: &[(&str, &str)] = &[
            ("ssh: connect to host 127.0.0.1 port 1: Connection refused", "cannot be reached"),
            ("ssh: Could not resolve hostname nohost: Name or service not known", "cannot be reached"),
            ("me@h: Permission denied (publickey,password).", "authentication failed"),
            ("Host key verification failed.", "host key"),
            (
                "clive-remote: the turn nonce did not arrive (CLIVE_TURN_NONCE is not set)",
                "AcceptEnv CLIVE_TURN_NONCE OPENAI_API_KEY",
            ),
            ("bash: line 1: clive: command not found", "Install clive"),
            ("something odd\n\n", "something odd"),
        ];
        for (screen, expected) in table {
            let message = classify("devbox", screen, LINE).to_string();
            assert!(message.contains(expected), "{screen} → {message}");
            assert!(message.starts_with("clive@devbox"), "{message}");
        }
        assert!(matches!(classify("d", "x\nHost key verification failed.", LINE), ConnectError::HostKey { .. }));
        assert!(classify("d", "", LINE).to_string().contains("nothing printed"));
        assert!(
            classify("d", NONCE_MISSING_MARKER, LINE).to_string().contains("/etc/ssh/sshd_config"),
            "names the file"
        );
    }
}
