//! The delivery state machine, free of I/O.
//!
//! The driver asks [`Delivery::step`] what to do next, does it (capture, paste, Enter …) and
//! feeds back what happened. Time comes in as an argument, so the machine is deterministic and
//! property-tested: no sequence of events makes it paste twice.
//!
//! The protocol: inspect the box (refuse dialogs, unknown frames and drafts; clear a leftover
//! signed by a live lane), paste once, wait until our text shows in the box, let the agent's
//! settle time pass since the paste (a protocol delay: agents read an Enter that follows a
//! paste too closely as a newline), press Enter, then watch for the box to empty or the queue
//! marker to appear. While our text stays in the box, Enter may be pressed again, no sooner
//! than the agent's retry interval; the message is never pasted again.

use std::collections::BTreeSet;
use std::time::Duration;

use tmux_habitat::Key;

use crate::Agent;
use crate::frame::{InputBox, Recognition};
use crate::message::{box_shows_message, shorten, signer_of};
use crate::outcome::{Ending, Stage, Verdict};

/// The most Enter presses for one message.
pub const MAX_ENTERS: u32 = 4;
/// How often an unknown screen is re-read before holding (it may be mid-redraw).
const INSPECT_ATTEMPTS: u32 = 3;
/// How long a cleared leftover may take to disappear from the box.
const CLEAR_GRACE: Duration = Duration::from_millis(1500);
const POLL_FIRST: Duration = Duration::from_millis(4);
const POLL_MAX: Duration = Duration::from_millis(40);

/// Per-agent protocol delays, from the agent's frame table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    /// Minimum time from the paste to the first Enter.
    pub settle: Duration,
    /// Minimum time between two Enter presses while our text is still in the box.
    pub enter_retry: Duration,
}

impl Timings {
    /// The timings in the agent's built-in table (conservative defaults if it cannot be read).
    pub fn for_agent(agent: Agent) -> Self {
        match crate::frame::spec::spec_for(agent) {
            Ok(spec) => Self {
                settle: Duration::from_millis(spec.settle_ms),
                enter_retry: Duration::from_millis(spec.enter_retry_ms),
            },
            Err(_) => Self { settle: Duration::from_millis(200), enter_retry: Duration::from_millis(1000) },
        }
    }
}

/// What the driver must do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Capture the pane with styles, recognise it, feed [`Event::Screen`].
    Capture,
    /// Wait this long (polling backoff or the protocol settle time), then feed [`Event::Tick`].
    Wait(Duration),
    /// Clear a leftover: send `keys` once per row in `rows`, then feed [`Event::Done`].
    ClearLeftover {
        /// tmux key names that clear one row.
        keys: Vec<Key>,
        /// How many input rows the leftover spans.
        rows: usize,
        /// The leftover text, for the log.
        leftover: String,
    },
    /// Paste the message (bracketed, as one block), then feed [`Event::Done`].
    Paste,
    /// Press Enter, then feed [`Event::Done`].
    PressEnter,
    /// Stop: the verdict is final.
    Finish(Verdict),
}

/// What happened since the last action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The delivery begins.
    Start,
    /// A fresh capture, recognised.
    Screen(Recognition),
    /// The requested keys or paste were sent.
    Done,
    /// The requested wait is over.
    Tick,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Inspect,
    VerifyCleared,
    AwaitText,
    AwaitSubmit,
    Finished,
}

/// One message on its way into one box.
#[derive(Debug, Clone)]
pub struct Delivery {
    message: String,
    live_lanes: BTreeSet<String>,
    deadline: Duration,
    phase: Phase,
    agent: Option<Agent>,
    timings: Option<Timings>,
    pasted: bool,
    pasted_at: Duration,
    cleared_at: Duration,
    enters: u32,
    last_enter_at: Duration,
    inspect_attempts: u32,
    cleared_leftover: Option<String>,
    poll: Duration,
    verdict: Option<Verdict>,
    last_screen: String,
}

impl Delivery {
    /// A delivery of `message` (signed, pasted verbatim), given the lanes that are live sessions
    /// on the server and the time budget measured from `Event::Start`.
    pub fn new(message: &str, live_lanes: BTreeSet<String>, timeout: Duration) -> Self {
        Self {
            message: message.to_string(),
            live_lanes,
            deadline: timeout,
            phase: Phase::Inspect,
            agent: None,
            timings: None,
            pasted: false,
            pasted_at: Duration::ZERO,
            cleared_at: Duration::ZERO,
            enters: 0,
            last_enter_at: Duration::ZERO,
            inspect_attempts: 0,
            cleared_leftover: None,
            poll: POLL_FIRST,
            verdict: None,
            last_screen: String::new(),
        }
    }

    /// Whether the message was pasted (it never will be again).
    pub fn has_pasted(&self) -> bool {
        self.pasted
    }

    /// The next action, given what happened and the time since the start.
    pub fn step(&mut self, event: Event, now: Duration) -> Action {
        if let Some(verdict) = &self.verdict {
            return Action::Finish(verdict.clone());
        }
        match event {
            Event::Start | Event::Done | Event::Tick => Action::Capture,
            Event::Screen(recognition) => {
                self.last_screen = recognition.describe();
                if let Some(agent) = recognition.agent() {
                    self.agent.get_or_insert(agent);
                }
                match self.phase {
                    Phase::Inspect => self.inspect(recognition, now),
                    Phase::VerifyCleared => self.verify_cleared(recognition, now),
                    Phase::AwaitText => self.await_text(recognition, now),
                    Phase::AwaitSubmit => self.await_submit(recognition, now),
                    Phase::Finished => Action::Capture,
                }
            }
        }
    }

    fn timings(&mut self, agent: Agent) -> Timings {
        *self.timings.get_or_insert_with(|| Timings::for_agent(agent))
    }

    fn hold(&mut self, stage: Stage, reason: String) -> Action {
        self.finish(Ending::Held(stage), reason)
    }

    fn finish(&mut self, ending: Ending, reason: String) -> Action {
        let verdict = Verdict {
            ending,
            reason,
            agent: self.agent,
            cleared_leftover: self.cleared_leftover.clone(),
            enters: self.enters,
        };
        self.phase = Phase::Finished;
        self.verdict = Some(verdict.clone());
        Action::Finish(verdict)
    }

    fn poll(&mut self, now: Duration) -> Action {
        let wait = self.poll.min(self.deadline.saturating_sub(now)).max(Duration::from_millis(1));
        self.poll = (self.poll * 2).min(POLL_MAX);
        Action::Wait(wait)
    }

    fn paste(&mut self, input: &InputBox, now: Duration) -> Action {
        if self.pasted {
            // Unreachable by construction; kept so that no future edit can paste twice.
            return self.hold(Stage::Pasted, "internal: a second paste was refused".into());
        }
        self.timings(input.agent);
        self.pasted = true;
        self.pasted_at = now;
        self.phase = Phase::AwaitText;
        self.poll = POLL_FIRST;
        Action::Paste
    }

    fn inspect(&mut self, recognition: Recognition, now: Duration) -> Action {
        let input = match recognition {
            Recognition::Input(input) => input,
            Recognition::Unknown { reason } => {
                self.inspect_attempts += 1;
                if self.inspect_attempts < INSPECT_ATTEMPTS && now < self.deadline {
                    return self.poll(now);
                }
                return self.hold(Stage::NotPasted, format!("unknown frame: {reason}"));
            }
            other => return self.hold(Stage::NotPasted, other.describe()),
        };
        if input.is_empty() {
            return self.paste(&input, now);
        }
        let shown = shorten(&input.text, 80);
        match signer_of(&input.text) {
            None => self.hold(
                Stage::NotPasted,
                format!("the box holds unsigned text (a human draft?), left untouched: {shown:?}"),
            ),
            Some(sender) if self.live_lanes.contains(sender) => {
                let rows = input.rows.1 - input.rows.0 + 1;
                let keys =
                    crate::frame::spec::spec_for(input.agent).map(|spec| spec.clear_keys.clone()).unwrap_or_default();
                self.cleared_leftover = Some(input.text.clone());
                self.cleared_at = now;
                self.phase = Phase::VerifyCleared;
                self.poll = POLL_FIRST;
                Action::ClearLeftover { keys, rows, leftover: input.text }
            }
            Some(sender) => self.hold(
                Stage::NotPasted,
                format!(
                    "the box holds a draft signed by {sender:?}, which is not a live lane; left untouched: {shown:?}"
                ),
            ),
        }
    }

    fn verify_cleared(&mut self, recognition: Recognition, now: Duration) -> Action {
        if let Recognition::Input(input) = &recognition
            && input.is_empty()
        {
            return self.paste(input, now);
        }
        if now < self.deadline && now < self.cleared_at + CLEAR_GRACE {
            return self.poll(now);
        }
        self.hold(
            Stage::NotPasted,
            format!("a leftover from a live lane did not clear from the box ({})", recognition.describe()),
        )
    }

    fn await_text(&mut self, recognition: Recognition, now: Duration) -> Action {
        if let Recognition::Input(input) = &recognition
            && !input.is_empty()
            && box_shows_message(&input.text, &input.paste_tokens, &self.message)
        {
            let settle = self.timings(input.agent).settle;
            let enter_at = self.pasted_at + settle;
            if now < enter_at {
                return Action::Wait(enter_at - now);
            }
            self.enters += 1;
            self.last_enter_at = now;
            self.phase = Phase::AwaitSubmit;
            self.poll = POLL_FIRST;
            return Action::PressEnter;
        }
        if now >= self.deadline {
            return self.hold(
                Stage::Pasted,
                format!("pasted, but the text never showed in the box ({})", recognition.describe()),
            );
        }
        self.poll(now)
    }

    fn await_submit(&mut self, recognition: Recognition, now: Duration) -> Action {
        match &recognition {
            Recognition::Input(input) if input.is_empty() => {
                let reason = if input.queue_marker {
                    "the agent queued the message (it is busy)".to_string()
                } else {
                    "the box emptied after Enter".to_string()
                };
                return self.finish(Ending::Delivered { queued: input.queue_marker }, reason);
            }
            Recognition::Input(input) if box_shows_message(&input.text, &input.paste_tokens, &self.message) => {
                let retry = self.timings(input.agent).enter_retry;
                let retry_at = self.last_enter_at + retry;
                if now >= retry_at && self.enters < MAX_ENTERS && now < self.deadline {
                    self.enters += 1;
                    self.last_enter_at = now;
                    self.poll = POLL_FIRST;
                    return Action::PressEnter;
                }
            }
            Recognition::Dialog { .. } => {
                return self
                    .hold(Stage::Entered, format!("after Enter {}; not proven delivered", recognition.describe()));
            }
            _ => {}
        }
        if now >= self.deadline {
            let still = match &recognition {
                Recognition::Input(input) if !input.is_empty() => {
                    format!("the box still shows {:?}", shorten(&input.text, 80))
                }
                other => other.describe(),
            };
            return self.hold(
                Stage::Entered,
                format!("Enter pressed {} time(s) but the box did not empty: {still}", self.enters),
            );
        }
        self.poll(now)
    }
}

#[cfg(test)]
mod tests;
