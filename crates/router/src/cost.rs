//! What routing cost: one record per tier that looked at the task.

use std::fmt;
use std::time::Duration;

use llm::Usage;
use serde::{Deserialize, Serialize};

use crate::route::{Route, Tier};

/// One tier's look at a task: which model, how many calls and tokens, how long, and why it passed the task
/// on (when it did).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TierStep {
    /// The tier.
    pub tier: Tier,
    /// The model that answered (none for tier 0 and for a plan from the cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Model calls made (a planner's corrections and a retry without a JSON schema count).
    pub calls: u32,
    /// Tokens of those calls, failed and repaired attempts included.
    pub usage: Usage,
    /// Wall time of this tier, in milliseconds.
    pub latency_ms: f64,
    /// Why this tier passed the task on to the next one; `None` for the tier that decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declined: Option<String>,
    /// The plan came from the router's plan cache (same task, same context, same model).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// The rule that decided in this tier's place, without a model call (see
    /// [`crate::RouterOptions::file_work_scripted`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<Rule>,
}

/// A rule that decides a route in a tier's place, without a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Rule {
    /// File work named by its files, with nothing to drive: one script subtask
    /// ([`crate::RouterOptions::file_work_scripted`]).
    FileWork,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::FileWork => f.write_str("file work named by its files, nothing to drive: one script subtask"),
        }
    }
}

impl TierStep {
    /// A record of `tier` that took `latency` and called no model (fill in the rest as needed).
    pub fn new(tier: Tier, latency: Duration) -> Self {
        TierStep {
            tier,
            model: None,
            calls: 0,
            usage: Usage::default(),
            latency_ms: latency.as_secs_f64() * 1000.0,
            declined: None,
            cached: false,
            rule: None,
        }
    }

    /// Input plus output tokens.
    pub fn tokens(&self) -> u64 {
        self.usage.input_tokens + self.usage.output_tokens
    }
}

impl fmt::Display for TierStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tier)?;
        if let Some(model) = &self.model {
            write!(
                f,
                ": {model}, {} call(s), {} tokens in / {} out",
                self.calls, self.usage.input_tokens, self.usage.output_tokens
            )?;
        }
        if self.cached {
            f.write_str(", plan from the cache")?;
        }
        if let Some(rule) = &self.rule {
            write!(f, ", no model call: {rule}")?;
        }
        write!(f, ", {:.1} ms", self.latency_ms)?;
        if let Some(reason) = &self.declined {
            write!(f, "; passed on: {reason}")?;
        }
        Ok(())
    }
}

/// A routed task: where it goes, which tier decided, and what each tier cost.
///
/// Serialized as `{"route":{"route":"answer","text":"4"},"tier":"classifier","steps":[...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Routed {
    /// Where the task goes.
    pub route: Route,
    /// The tier that decided.
    pub tier: Tier,
    /// Every tier that looked at the task, in order; the last one decided.
    pub steps: Vec<TierStep>,
}

impl Routed {
    /// Tokens spent on routing, summed over the tiers.
    pub fn usage(&self) -> Usage {
        total_usage(&self.steps)
    }

    /// Model calls spent on routing.
    pub fn model_calls(&self) -> u32 {
        self.steps.iter().map(|s| s.calls).sum()
    }
}

pub(crate) fn total_usage(steps: &[TierStep]) -> Usage {
    let mut total = Usage::default();
    for step in steps {
        total += step.usage;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_reads_as_one_line() {
        let mut step = TierStep::new(Tier::Classifier, Duration::from_millis(420));
        step.model = Some("qwen".into());
        step.calls = 1;
        step.usage = Usage { input_tokens: 410, output_tokens: 12, ..Usage::default() };
        step.declined = Some("the classifier chose a plan".into());
        assert_eq!(
            step.to_string(),
            "tier 1 (classifier): qwen, 1 call(s), 410 tokens in / 12 out, 420.0 ms; passed on: the classifier chose a plan"
        );
        assert_eq!(step.tokens(), 422);
    }
}
