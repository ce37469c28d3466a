//! The router's errors.

use crate::cost::TierStep;
use crate::route::Tier;
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
    /// The task is empty: there is nothing to route.
    #[error("the task is empty; say what to do")]
    EmptyTask,
    /// The planner's plan was still invalid after the last correction; nothing was run.
    #[error(
        "the planner did not write a valid plan in {attempts} attempt(s); the last one had these problems:\n{}",
        list(problems)
    )]
    PlanRejected {
        /// Planner calls made.
        attempts: u32,
        /// The problems of the last plan.
        problems: Vec<String>,
        /// What routing cost, every tier and attempt included.
        steps: Vec<TierStep>,
    },
    /// A model call of a tier that cannot pass the task on failed (the classifier's failures escalate).
    #[error("the {tier} model call failed: {source}")]
    Model {
        /// The tier whose call failed.
        tier: Tier,
        /// What the llm client reported.
        #[source]
        source: llm::Error,
        /// What routing cost up to the failure.
        steps: Vec<TierStep>,
    },
}

impl RouterError {
    /// What routing cost before it failed (empty when no model was called).
    pub fn steps(&self) -> &[TierStep] {
        match self {
            RouterError::PlanRejected { steps, .. } | RouterError::Model { steps, .. } => steps,
            _ => &[],
        }
    }
}

fn reasons(findings: &[Finding]) -> String {
    let reasons: Vec<String> = findings.iter().map(|f| f.hazard.reason()).collect();
    reasons.join("; ")
}

fn list(problems: &[String]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
    lines.join("\n")
}
