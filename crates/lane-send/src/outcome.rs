//! The result of one delivery: delivered, or held at a named stage.

use serde::Serialize;

use crate::Agent;

/// How far a held delivery got. A caller can always tell these apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Nothing was typed into the pane (a leftover may have been cleared, see the log).
    NotPasted,
    /// The message was pasted once but Enter was not pressed: the text may sit in the box.
    Pasted,
    /// Enter was pressed but the box never emptied: the text may still sit in the box.
    Entered,
}

impl Stage {
    /// The snake_case name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Stage::NotPasted => "not_pasted",
            Stage::Pasted => "pasted",
            Stage::Entered => "entered",
        }
    }
}

/// Delivered or held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// The agent took the message: its box emptied after Enter, or it showed its queue marker.
    Delivered,
    /// The message was not proven delivered; `stage` says how far it got.
    Held,
}

/// What the state machine decided (without the lane/pane bookkeeping of an [`Outcome`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `None` when delivered, else the stage where it was held.
    pub held_at: Option<Stage>,
    /// Why, in words.
    pub reason: String,
    /// The agent whose frame was recognised.
    pub agent: Option<Agent>,
    /// Delivered into the agent's queue (it was busy).
    pub queued: bool,
    /// A leftover signed by a live lane that was cleared before sending.
    pub cleared_leftover: Option<String>,
    /// How many times Enter was pressed.
    pub enters: u32,
}

/// The full report of one delivery, printed as one logfmt line or one JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The lane as addressed (session name or pane id).
    pub lane: String,
    /// The pane id the lane resolved to, when it resolved.
    pub pane: Option<String>,
    /// Delivered or held.
    pub outcome: OutcomeKind,
    /// `null` when delivered, else how far it got.
    pub stage: Option<Stage>,
    /// Why, in words.
    pub reason: String,
    /// The agent whose frame was recognised.
    pub agent: Option<Agent>,
    /// Delivered into the agent's queue.
    pub queued: bool,
    /// Enter presses.
    pub enters: u32,
    /// Leftover cleared before sending, if any.
    pub cleared_leftover: Option<String>,
    /// Milliseconds from the start of the delivery to the outcome.
    pub elapsed_ms: u64,
}

impl Outcome {
    /// Builds the report from a verdict.
    pub fn from_verdict(lane: &str, pane: Option<String>, verdict: Verdict, elapsed_ms: u64) -> Self {
        Self {
            lane: lane.to_string(),
            pane,
            outcome: if verdict.held_at.is_some() { OutcomeKind::Held } else { OutcomeKind::Delivered },
            stage: verdict.held_at,
            reason: verdict.reason,
            agent: verdict.agent,
            queued: verdict.queued,
            enters: verdict.enters,
            cleared_leftover: verdict.cleared_leftover,
            elapsed_ms,
        }
    }

    /// A held outcome before anything was typed (lane missing, lock timeout …).
    pub fn held_before_typing(lane: &str, pane: Option<String>, reason: String, elapsed_ms: u64) -> Self {
        let verdict = Verdict {
            held_at: Some(Stage::NotPasted),
            reason,
            agent: None,
            queued: false,
            cleared_leftover: None,
            enters: 0,
        };
        Self::from_verdict(lane, pane, verdict, elapsed_ms)
    }

    /// True when delivered.
    pub fn is_delivered(&self) -> bool {
        self.outcome == OutcomeKind::Delivered
    }

    /// One logfmt line: `outcome=delivered lane=… pane=%3 agent=claude queued=false …`.
    pub fn to_logfmt(&self) -> String {
        let outcome = if self.is_delivered() { "delivered" } else { "held" };
        let mut line = format!("outcome={outcome} lane={}", logfmt_value(&self.lane));
        line.push_str(&format!(" pane={}", self.pane.as_deref().map_or("-".to_string(), logfmt_value)));
        if let Some(stage) = self.stage {
            line.push_str(&format!(" stage={}", stage.name()));
        }
        line.push_str(&format!(" agent={}", self.agent.map_or("-", Agent::name)));
        line.push_str(&format!(" queued={} enters={} elapsed_ms={}", self.queued, self.enters, self.elapsed_ms));
        if self.cleared_leftover.is_some() {
            line.push_str(" cleared_leftover=true");
        }
        line.push_str(&format!(" reason={}", logfmt_value(&self.reason)));
        line
    }
}

/// Quotes a logfmt value when it needs it.
fn logfmt_value(value: &str) -> String {
    if !value.is_empty() && value.chars().all(|c| c.is_ascii_graphic() && c != '"' && c != '=' && c != '\\') {
        return value.to_string();
    }
    let escaped: String = value
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            '\n' => vec!['\\', 'n'],
            '\t' => vec!['\\', 't'],
            other => vec![other],
        })
        .collect();
    format!("\"{escaped}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logfmt_line_is_one_line_and_quotes_reasons() {
        let outcome = Outcome::held_before_typing("a b", None, "no \"lane\"\nhere".into(), 3);
        let line = outcome.to_logfmt();
        assert_eq!(
            line,
            "outcome=held lane=\"a b\" pane=- stage=not_pasted agent=- queued=false enters=0 elapsed_ms=3 reason=\"no \\\"lane\\\"\\nhere\""
        );
    }
}
