//! What each subtask cost and did: turns, model calls, tokens, time, and whether the model claimed success.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use dag_sched::Mode;
use serde::{Deserialize, Serialize};

/// Token counts of model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens (cached ones included).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the provider's cache.
    pub cached: u64,
}

impl Tokens {
    /// Input plus output.
    pub fn total(&self) -> u64 {
        self.input + self.output
    }
}

impl std::ops::AddAssign for Tokens {
    fn add_assign(&mut self, other: Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cached += other.cached;
    }
}

impl From<llm::Usage> for Tokens {
    fn from(usage: llm::Usage) -> Tokens {
        Tokens { input: usage.input_tokens, output: usage.output_tokens, cached: usage.cached_input_tokens }
    }
}

/// The record of one model-driven subtask (or of the calls around a run, such as the final summary).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubtaskStats {
    /// The mode that ran it last (`interactive` after a script fell back).
    pub mode: Option<Mode>,
    /// Interactive turns, or script attempts.
    pub turns: u32,
    /// Model calls made (failed ones included).
    pub model_calls: u32,
    /// Tokens of the calls that completed.
    pub tokens: Tokens,
    /// Estimated cost in USD of the calls whose model has a price.
    pub cost_usd: f64,
    /// Calls on models without a price (not in `cost_usd`).
    pub unpriced_calls: u32,
    /// Time spent waiting for the model.
    pub model_ms: u64,
    /// Time spent waiting for commands in panes.
    pub command_ms: u64,
    /// Commands the safety gate refused (nothing typed).
    pub refused_commands: u32,
    /// Replies that were not an action (nothing typed).
    pub unreadable_replies: u32,
    /// Whether the model said the goal was reached.
    pub claimed_success: bool,
    /// Why a claim of success was not accepted (the last command failed, a named file is missing).
    pub false_completion: Option<String>,
    /// Whether a failing script fell back to the interactive runner.
    pub fell_back: bool,
    /// The last command typed.
    pub last_command: Option<String>,
    /// What the subtask changed in its working directory (applied; a failed attempt's changes are not here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<crate::changes::Change>,
    /// Whether its attempts ran staged (on an overlay of the working directory); `None` when none ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// Whether its result was checked against what the goal asks for: `Some(true)` checked and right,
    /// `Some(false)` could not be checked; `None` before it ended or when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// What was checked, in words (`wrote lines.txt`, `a number`), or why nothing could be.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
    /// Where the journal of the applied changes is (for `clive undo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<std::path::PathBuf>,
}

/// Every subtask's [`SubtaskStats`] of a run, shared by the runners (cheap to clone).
#[derive(Debug, Clone, Default)]
pub struct RunLedger {
    entries: Arc<Mutex<BTreeMap<String, SubtaskStats>>>,
}

impl RunLedger {
    /// An empty ledger.
    pub fn new() -> RunLedger {
        RunLedger::default()
    }

    /// Changes the record of `id` (created empty on first use).
    pub fn update(&self, id: &str, change: impl FnOnce(&mut SubtaskStats)) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        change(entries.entry(id.to_owned()).or_default());
    }

    /// The record of `id`.
    pub fn get(&self, id: &str) -> Option<SubtaskStats> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned()
    }

    /// Every record, by id.
    pub fn all(&self) -> BTreeMap<String, SubtaskStats> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The sums over every record: calls, tokens, cost and times (turns and claims are per subtask).
    pub fn totals(&self) -> SubtaskStats {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let mut total = SubtaskStats::default();
        for stats in entries.values() {
            total.turns += stats.turns;
            total.model_calls += stats.model_calls;
            total.tokens += stats.tokens;
            total.cost_usd += stats.cost_usd;
            total.unpriced_calls += stats.unpriced_calls;
            total.model_ms += stats.model_ms;
            total.command_ms += stats.command_ms;
            total.refused_commands += stats.refused_commands;
            total.unreadable_replies += stats.unreadable_replies;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_add_up_per_subtask_records() {
        let ledger = RunLedger::new();
        ledger.update("a", |s| {
            s.model_calls = 2;
            s.tokens = Tokens { input: 100, output: 10, cached: 50 };
            s.claimed_success = true;
        });
        ledger.update("b", |s| {
            s.model_calls = 1;
            s.tokens = Tokens { input: 30, output: 5, cached: 0 };
            s.command_ms = 7;
        });
        let total = ledger.totals();
        assert_eq!((total.model_calls, total.tokens.total(), total.tokens.cached, total.command_ms), (3, 145, 50, 7));
        assert!(ledger.get("a").unwrap().claimed_success);
        assert_eq!(ledger.all().len(), 2);
    }
}
