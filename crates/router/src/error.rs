//! The router's errors.

use crate::safety::Finding;

/// Errors of the router crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RouterError {
    /// The safety gate refused a destructive command line.
    #[error(
        "refused to run `{command}`: {}; check the command, or allow destructive commands explicitly \
         (allow_destructive; clive: --allow-destructive) if you really mean it",
        reasons(findings)
    )]
    Refused {
        /// The command line as given.
        command: String,
        /// What the gate found (at least one).
        findings: Vec<Finding>,
    },
}

fn reasons(findings: &[Finding]) -> String {
    let reasons: Vec<String> = findings.iter().map(|f| f.hazard.reason()).collect();
    reasons.join("; ")
}
