//! The result of one delivery: delivered, or held at a named stage.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::Agent;

/// How far a held delivery got. A caller can always tell these apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Nothing was typed into the pane (a leftover may have been cleared, see the log).
    NotPasted,
    /// The message was pasted once but never proven in the box, so Enter was not pressed. `restored` says
    /// whether the box is back as it was.
    Pasted,
    /// Enter was pressed but the box never emptied. `restored` says whether lane-send took its text back out.
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

/// How the state machine ended: delivered, or held at a stage. No other combination can be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The agent took the message; `queued` when it went into the agent's queue (it was busy).
    Delivered {
        /// Delivered into the agent's queue.
        queued: bool,
    },
    /// Not proven delivered.
    Held(Stage),
}

/// What the state machine decided (without the lane/pane bookkeeping of an [`Outcome`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Delivered or held.
    pub ending: Ending,
    /// Why, in words.
    pub reason: String,
    /// The agent whose frame was recognised.
    pub agent: Option<Agent>,
    /// A leftover signed by a live lane that was cleared before sending.
    pub cleared_leftover: Option<String>,
    /// How many times Enter was pressed.
    pub enters: u32,
    /// After a paste that was not proven delivered: whether the box is back as it was (lane-send took its
    /// text back out, or it never arrived). `None` when nothing was pasted or the message was delivered.
    pub restored: Option<bool>,
    /// Delivered with a change the agent itself makes (Claude Code turns a TAB into spaces): what changed.
    pub rewritten: Option<String>,
}

impl Verdict {
    /// A verdict held at `stage` before any Enter, with nothing recognised; `restored` as for
    /// [`Verdict::restored`].
    pub fn held(stage: Stage, reason: String, restored: Option<bool>) -> Self {
        Verdict {
            ending: Ending::Held(stage),
            reason,
            agent: None,
            cleared_leftover: None,
            enters: 0,
            restored,
            rewritten: None,
        }
    }

    /// The stage where it was held; `None` when delivered.
    pub fn held_at(&self) -> Option<Stage> {
        match self.ending {
            Ending::Held(stage) => Some(stage),
            Ending::Delivered { .. } => None,
        }
    }

    /// Delivered into the agent's queue.
    pub fn queued(&self) -> bool {
        matches!(self.ending, Ending::Delivered { queued: true })
    }
}

/// What every outcome tells besides delivered or held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Details {
    /// The lane as addressed (session name or pane id).
    pub lane: String,
    /// The pane id the lane resolved to, when it resolved.
    pub pane: Option<String>,
    /// Why, in words.
    pub reason: String,
    /// The agent whose frame was recognised.
    pub agent: Option<Agent>,
    /// Enter presses.
    pub enters: u32,
    /// Leftover cleared before sending, if any.
    pub cleared_leftover: Option<String>,
    /// Held after a paste: whether the box is back as it was (see [`Verdict::restored`]).
    pub restored: Option<bool>,
    /// Delivered with a change the agent makes itself (see [`Verdict::rewritten`]).
    pub rewritten: Option<String>,
    /// Milliseconds from the start of the delivery to the outcome.
    pub elapsed_ms: u64,
}

/// The full report of one delivery, printed as one logfmt line or one JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The agent took the message: its box emptied after Enter, or it showed its queue marker.
    Delivered {
        /// Lane, pane, reason and the rest.
        details: Details,
        /// Delivered into the agent's queue (it was busy).
        queued: bool,
    },
    /// The message was not proven delivered; `stage` says how far it got.
    Held {
        /// Lane, pane, reason and the rest.
        details: Details,
        /// How far it got.
        stage: Stage,
    },
}

impl Outcome {
    /// Builds the report from a verdict.
    pub fn from_verdict(lane: &str, pane: Option<String>, verdict: Verdict, elapsed_ms: u64) -> Self {
        let details = Details {
            lane: lane.to_string(),
            pane,
            reason: verdict.reason,
            agent: verdict.agent,
            enters: verdict.enters,
            cleared_leftover: verdict.cleared_leftover,
            restored: verdict.restored,
            rewritten: verdict.rewritten,
            elapsed_ms,
        };
        match verdict.ending {
            Ending::Delivered { queued } => Outcome::Delivered { details, queued },
            Ending::Held(stage) => Outcome::Held { details, stage },
        }
    }

    /// A held outcome before anything was typed (lane missing, lock timeout …).
    pub(crate) fn held_before_typing(lane: &str, pane: Option<String>, reason: String, elapsed_ms: u64) -> Self {
        Self::from_verdict(lane, pane, Verdict::held(Stage::NotPasted, reason, None), elapsed_ms)
    }

    /// Lane, pane, reason and the rest.
    pub fn details(&self) -> &Details {
        match self {
            Outcome::Delivered { details, .. } | Outcome::Held { details, .. } => details,
        }
    }

    /// True when delivered.
    pub fn is_delivered(&self) -> bool {
        matches!(self, Outcome::Delivered { .. })
    }

    /// The stage where it was held; `None` when delivered.
    pub fn stage(&self) -> Option<Stage> {
        match self {
            Outcome::Held { stage, .. } => Some(*stage),
            Outcome::Delivered { .. } => None,
        }
    }

    /// Delivered into the agent's queue.
    pub fn queued(&self) -> bool {
        matches!(self, Outcome::Delivered { queued: true, .. })
    }

    /// One logfmt line: `outcome=delivered lane=… pane=%3 agent=claude queued=false …`.
    pub fn to_logfmt(&self) -> String {
        let details = self.details();
        let outcome = if self.is_delivered() { "delivered" } else { "held" };
        let mut line = format!("outcome={outcome} lane={}", logfmt_value(&details.lane));
        line.push_str(&format!(" pane={}", details.pane.as_deref().map_or("-".to_string(), logfmt_value)));
        if let Some(stage) = self.stage() {
            line.push_str(&format!(" stage={}", stage.name()));
        }
        line.push_str(&format!(" agent={}", details.agent.map_or("-", Agent::name)));
        line.push_str(&format!(
            " queued={} enters={} elapsed_ms={}",
            self.queued(),
            details.enters,
            details.elapsed_ms
        ));
        if details.cleared_leftover.is_some() {
            line.push_str(" cleared_leftover=true");
        }
        if let Some(restored) = details.restored {
            line.push_str(&format!(" restored={restored}"));
        }
        if let Some(rewritten) = &details.rewritten {
            line.push_str(&format!(" rewritten={}", logfmt_value(rewritten)));
        }
        line.push_str(&format!(" reason={}", logfmt_value(&details.reason)));
        line
    }
}

/// The documented wire shape: one flat object with `outcome` (`delivered` or `held`), `stage` (`null` when
/// delivered), `restored` (`null` unless held after a paste) and `rewritten` (`null` unless the agent changed
/// the text itself), the same in `--json`, the delivery log and `mail`.
impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let details = self.details();
        let mut object = serializer.serialize_struct("Outcome", 12)?;
        object.serialize_field("lane", &details.lane)?;
        object.serialize_field("pane", &details.pane)?;
        object.serialize_field("outcome", if self.is_delivered() { "delivered" } else { "held" })?;
        object.serialize_field("stage", &self.stage())?;
        object.serialize_field("reason", &details.reason)?;
        object.serialize_field("agent", &details.agent)?;
        object.serialize_field("queued", &self.queued())?;
        object.serialize_field("enters", &details.enters)?;
        object.serialize_field("cleared_leftover", &details.cleared_leftover)?;
        object.serialize_field("restored", &details.restored)?;
        object.serialize_field("rewritten", &details.rewritten)?;
        object.serialize_field("elapsed_ms", &details.elapsed_ms)?;
        object.end()
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

    #[test]
    fn both_outcomes_have_the_documented_json_shape() {
        let delivered = Verdict {
            ending: Ending::Delivered { queued: true },
            reason: "the agent queued the message (it is busy)".into(),
            agent: Some(Agent::Claude),
            cleared_leftover: None,
            enters: 1,
            restored: None,
            rewritten: Some("claude turns a pasted TAB into four spaces".into()),
        };
        insta::assert_json_snapshot!("delivered", Outcome::from_verdict("api", Some("%3".into()), delivered, 231));
        let held = Verdict {
            ending: Ending::Held(Stage::Entered),
            reason: "Enter pressed 4 time(s) but the box did not empty".into(),
            agent: Some(Agent::Codex),
            cleared_leftover: Some("ops: old".into()),
            enters: 4,
            restored: Some(true),
            rewritten: None,
        };
        insta::assert_json_snapshot!("held", Outcome::from_verdict("api", Some("%3".into()), held, 9000));
    }
}
