//! The delivery state machine, free of I/O.
//!
//! The driver asks [`Delivery::step`] what to do next, does it (capture, paste, Enter …) and
//! feeds back what happened. Time comes in as an argument, so the machine is deterministic and
//! property-tested: no sequence of events makes it paste twice.
//!
//! The protocol: inspect the box (refuse dialogs, overlays, unknown frames and drafts; clear a
//! leftover signed by a live lane), paste once, wait until our text shows in the box, let the
//! agent's settle time pass since the paste (a protocol delay: agents read an Enter that follows a
//! paste too closely as a newline), press Enter, then watch for the box to empty or the queue
//! marker to appear. While our text stays in the box, Enter may be pressed again, no sooner than
//! the agent's retry interval; an Enter the agent turned into a newline is taken back out first
//! (one Backspace, checked) so the message never gains a stray newline. The message is never
//! pasted again.
//!
//! No message is left in a box: when delivery cannot be proven before the deadline, the machine
//! takes its own text back out of the box (the box held nothing else: it was empty when we pasted
//! and we hold the lane's lock) and the verdict says whether the box was restored.

use std::collections::BTreeSet;
use std::time::Duration;

use tmux_habitat::Key;

use crate::Agent;
use crate::frame::spec::{AgentSpec, spec_for};
use crate::frame::{InputBox, Recognition};
use crate::message::{box_shows_message, shorten, signer_of};
use crate::outcome::{Ending, Stage, Verdict};

/// The most Enter presses for one message.
pub const MAX_ENTERS: u32 = 4;
/// How often an unknown screen is re-read before holding (it may be mid-redraw).
const INSPECT_ATTEMPTS: u32 = 3;
/// How long cleared text may take to disappear from the box.
const CLEAR_GRACE: Duration = Duration::from_millis(1500);
/// Clearing rounds beyond one per line of the text being cleared, before giving up.
const EXTRA_CLEAR_ROUNDS: usize = 2;
/// The part of the budget kept for taking our text back out when delivery cannot be proven (at most a
/// third of the whole timeout).
const TAKE_BACK_RESERVE: Duration = Duration::from_millis(1500);
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
        match spec_for(agent) {
            Ok(spec) => Self::from_spec(spec),
            Err(_) => Self { settle: Duration::from_millis(200), enter_retry: Duration::from_millis(1000) },
        }
    }

    fn from_spec(spec: &AgentSpec) -> Self {
        Self { settle: Duration::from_millis(spec.settle_ms), enter_retry: Duration::from_millis(spec.enter_retry_ms) }
    }
}

/// Why keys other than Enter are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeysFor {
    /// Clearing a leftover signed by a live lane (the driver logs it).
    ClearLeftover(String),
    /// Taking our own text back out of the box, delivery not proven.
    TakeBack,
    /// Removing a newline the agent made of our Enter.
    RemoveNewline,
}

/// What the driver must do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Capture the pane with styles, recognise it, feed [`Event::Screen`].
    Capture,
    /// Wait this long (polling backoff or the protocol settle time), then feed [`Event::Tick`].
    Wait(Duration),
    /// Send these keys, each in a call of its own (an agent may read keys that arrive together as one
    /// sequence), then feed [`Event::Done`].
    SendKeys {
        /// tmux key names, in order.
        keys: Vec<Key>,
        /// Why.
        why: KeysFor,
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

#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    Inspect,
    VerifyCleared,
    AwaitText,
    AwaitSubmit,
    AwaitNewlineRemoved,
    /// Our text is being taken back out; the verdict will hold at `stage` with `reason`.
    TakingBack {
        stage: Stage,
        reason: String,
    },
    Finished,
}

/// One message on its way into one box.
#[derive(Debug, Clone)]
pub struct Delivery {
    message: String,
    live_lanes: BTreeSet<String>,
    deadline: Duration,
    give_up_at: Duration,
    phase: Phase,
    agent: Option<Agent>,
    spec: Option<&'static AgentSpec>,
    pasted: bool,
    pasted_at: Duration,
    cleared_at: Duration,
    clear_rounds: usize,
    enters: u32,
    last_enter_at: Duration,
    /// The box as it was when Enter was last pressed (to tell a newline from a swallowed Enter).
    before_enter: Option<InputBox>,
    inspect_attempts: u32,
    cleared_leftover: Option<String>,
    poll: Duration,
    verdict: Option<Verdict>,
}

impl Delivery {
    /// A delivery of `message` (signed, pasted verbatim), given the lanes that are live sessions
    /// on the server and the time budget measured from `Event::Start`.
    pub fn new(message: &str, live_lanes: BTreeSet<String>, timeout: Duration) -> Self {
        let reserve = TAKE_BACK_RESERVE.min(timeout / 3);
        Self {
            message: message.to_string(),
            live_lanes,
            deadline: timeout,
            give_up_at: timeout.saturating_sub(reserve),
            phase: Phase::Inspect,
            agent: None,
            spec: None,
            pasted: false,
            pasted_at: Duration::ZERO,
            cleared_at: Duration::ZERO,
            clear_rounds: 0,
            enters: 0,
            last_enter_at: Duration::ZERO,
            before_enter: None,
            inspect_attempts: 0,
            cleared_leftover: None,
            poll: POLL_FIRST,
            verdict: None,
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
                if let Some(agent) = recognition.agent()
                    && self.agent.is_none()
                {
                    self.agent = Some(agent);
                    self.spec = spec_for(agent).ok();
                }
                match self.phase.clone() {
                    Phase::Inspect => self.inspect(recognition, now),
                    Phase::VerifyCleared => self.verify_cleared(recognition, now),
                    Phase::AwaitText => self.await_text(recognition, now),
                    Phase::AwaitSubmit => self.await_submit(recognition, now),
                    Phase::AwaitNewlineRemoved => self.await_newline_removed(recognition, now),
                    Phase::TakingBack { stage, reason } => self.taking_back(recognition, now, stage, reason),
                    Phase::Finished => Action::Capture,
                }
            }
        }
    }

    fn timings(&self) -> Timings {
        match self.spec {
            Some(spec) => Timings::from_spec(spec),
            None => self.agent.map_or(Timings::for_agent(Agent::Claude), Timings::for_agent),
        }
    }

    /// The keys of one clearing round, one line: End and the clear-line keys first; then, while text is left,
    /// the join-line keys and the clear-line keys again. Clearing goes round by round, the box read after each,
    /// so no key is pressed into a box already empty (Grok's Ink box types a Backspace that arrives with the
    /// next paste as text), and agents may differ in what a row is (Grok shows a multi-line paste in one row
    /// but clears it line by line).
    fn clear_round(&mut self, now: Duration) -> Vec<Key> {
        self.clear_rounds += 1;
        self.cleared_at = now;
        let (clear, join) =
            self.spec.map_or((&[][..], &[][..]), |spec| (spec.clear_line.as_slice(), spec.join_line.as_slice()));
        let lead = if self.clear_rounds == 1 { vec![Key::End] } else { join.to_vec() };
        lead.into_iter().chain(clear.iter().cloned()).collect()
    }

    /// How many clearing rounds `text` may take.
    fn max_clear_rounds(text: &str) -> usize {
        text.lines().count().max(1) + EXTRA_CLEAR_ROUNDS
    }

    fn hold(&mut self, stage: Stage, reason: String, restored: Option<bool>) -> Action {
        self.finish(Ending::Held(stage), reason, restored)
    }

    fn finish(&mut self, ending: Ending, reason: String, restored: Option<bool>) -> Action {
        let rewritten = match ending {
            Ending::Delivered { .. } => self.rewrites_applied(),
            Ending::Held(_) => None,
        };
        let verdict = Verdict {
            ending,
            reason,
            agent: self.agent,
            cleared_leftover: self.cleared_leftover.clone(),
            enters: self.enters,
            restored,
            rewritten,
        };
        self.phase = Phase::Finished;
        self.verdict = Some(verdict.clone());
        Action::Finish(verdict)
    }

    /// What the agent's own rewrites did to this message (Claude Code: TAB into spaces), if anything.
    fn rewrites_applied(&self) -> Option<String> {
        let notes: Vec<&str> = self
            .spec
            .into_iter()
            .flat_map(|spec| spec.rewrites.iter())
            .filter(|rewrite| self.message.contains(&rewrite.from))
            .map(|rewrite| rewrite.note.as_str())
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// The message as the agent shows it (its own rewrites applied).
    fn shown_message(&self) -> String {
        let mut shown = self.message.clone();
        for rewrite in self.spec.into_iter().flat_map(|spec| spec.rewrites.iter()) {
            shown = shown.replace(&rewrite.from, &rewrite.to);
        }
        shown
    }

    fn shows_ours(&self, input: &InputBox) -> bool {
        if input.is_empty() {
            return false;
        }
        // A box that cannot draw multi-line text readably: the box was empty when we pasted, and we hold the
        // lane's lock, so what it shows now is our message (as with a collapsed paste token).
        let opaque = self.message.contains('\n')
            && self
                .spec
                .and_then(|spec| spec.variants.iter().find(|v| v.name == input.variant))
                .is_some_and(|v| v.opaque_multiline);
        opaque || box_shows_message(&input.text, &input.paste_tokens, &self.shown_message())
    }

    fn poll(&mut self, now: Duration) -> Action {
        let wait = self.poll.min(self.deadline.saturating_sub(now)).max(Duration::from_millis(1));
        self.poll = (self.poll * 2).min(POLL_MAX);
        Action::Wait(wait)
    }

    fn paste(&mut self, now: Duration) -> Action {
        if self.pasted {
            // Unreachable by construction; kept so that no future edit can paste twice.
            return self.hold(Stage::Pasted, "internal: a second paste was refused".into(), None);
        }
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
                return self.hold(Stage::NotPasted, format!("unknown frame: {reason}"), None);
            }
            other => return self.hold(Stage::NotPasted, other.describe(), None),
        };
        if input.is_empty() {
            return self.paste(now);
        }
        let shown = shorten(&input.text, 80);
        match signer_of(&input.text) {
            None => self.hold(
                Stage::NotPasted,
                format!("the box holds unsigned text (a human draft?), left untouched: {shown:?}"),
                None,
            ),
            Some(sender) if self.live_lanes.contains(sender) => {
                self.cleared_leftover = Some(input.text.clone());
                self.clear_rounds = 0;
                self.phase = Phase::VerifyCleared;
                self.poll = POLL_FIRST;
                Action::SendKeys { keys: self.clear_round(now), why: KeysFor::ClearLeftover(input.text) }
            }
            Some(sender) => self.hold(
                Stage::NotPasted,
                format!(
                    "the box holds a draft signed by {sender:?}, which is not a live lane; left untouched: {shown:?}"
                ),
                None,
            ),
        }
    }

    fn verify_cleared(&mut self, recognition: Recognition, now: Duration) -> Action {
        if let Recognition::Input(input) = &recognition {
            if input.is_empty() {
                return self.paste(now);
            }
            // What is left must still be (part of) the leftover: clear the next row.
            let leftover = self.cleared_leftover.clone().unwrap_or_default();
            if self.clear_rounds < Self::max_clear_rounds(&leftover)
                && box_shows_message(&input.text, &input.paste_tokens, &leftover)
            {
                return Action::SendKeys {
                    keys: self.clear_round(now),
                    why: KeysFor::ClearLeftover(input.text.clone()),
                };
            }
        }
        if now < self.deadline && now < self.cleared_at + CLEAR_GRACE {
            return self.poll(now);
        }
        self.hold(
            Stage::NotPasted,
            format!("a leftover from a live lane did not clear from the box ({})", recognition.describe()),
            None,
        )
    }

    fn await_text(&mut self, recognition: Recognition, now: Duration) -> Action {
        if let Recognition::Input(input) = &recognition
            && self.shows_ours(input)
        {
            // The settle time runs from the paste, or from the newline we took back out.
            let enter_at = self.pasted_at + self.timings().settle;
            if now < enter_at {
                return Action::Wait(enter_at - now);
            }
            return self.press_enter(input, now);
        }
        if now >= self.give_up_at {
            let reason = format!("pasted, but the text never showed in the box ({})", recognition.describe());
            return self.take_back(&recognition, now, Stage::Pasted, reason);
        }
        self.poll(now)
    }

    fn press_enter(&mut self, input: &InputBox, now: Duration) -> Action {
        self.enters += 1;
        self.last_enter_at = now;
        self.before_enter = Some(input.clone());
        self.phase = Phase::AwaitSubmit;
        self.poll = POLL_FIRST;
        Action::PressEnter
    }

    fn await_submit(&mut self, recognition: Recognition, now: Duration) -> Action {
        match &recognition {
            Recognition::Input(input) if input.is_empty() => {
                let reason = if input.queue_marker {
                    "the agent queued the message (it is busy)".to_string()
                } else {
                    "the box emptied after Enter".to_string()
                };
                return self.finish(Ending::Delivered { queued: input.queue_marker }, reason, None);
            }
            Recognition::Input(input) if input.submit_pending && self.shows_ours(input) => {
                // Enter was taken; the agent sends the text once it is ready. A key now would edit the held
                // text (a Backspace meant for a newline ate the message's last letter), so only watch; a
                // second Enter waits its retry time from when the hold ends.
                self.last_enter_at = now;
            }
            Recognition::Input(input) if self.shows_ours(input) => {
                if let Some(before) = &self.before_enter
                    && made_a_newline(before, input)
                {
                    self.phase = Phase::AwaitNewlineRemoved;
                    self.poll = POLL_FIRST;
                    self.pasted_at = now;
                    return Action::SendKeys { keys: vec![Key::Backspace], why: KeysFor::RemoveNewline };
                }
                let retry_at = self.last_enter_at + self.timings().enter_retry;
                if now >= retry_at && self.enters < MAX_ENTERS && now < self.give_up_at {
                    return self.press_enter(input, now);
                }
            }
            Recognition::Dialog(dialog) => {
                // An agent that takes the message and at once asks about its first step replaces the box with
                // a dialog: the transcript above it shows the message. Without that echo, whether the text is
                // still behind the dialog cannot be seen, and keys would answer the dialog.
                if dialog.above.iter().any(|row| echoes(row, &self.shown_message())) {
                    let reason = format!("the agent took the message and opened a dialog ({:?})", dialog.line.trim());
                    return self.finish(Ending::Delivered { queued: false }, reason, None);
                }
                let reason = format!("after Enter {}; not proven delivered", recognition.describe());
                return self.hold(Stage::Entered, reason, Some(false));
            }
            _ => {}
        }
        if now >= self.give_up_at {
            let still = match &recognition {
                Recognition::Input(input) if !input.is_empty() => {
                    format!("the box still shows {:?}", shorten(&input.text, 80))
                }
                other => other.describe(),
            };
            let reason = format!("Enter pressed {} time(s) but the box did not empty: {still}", self.enters);
            return self.take_back(&recognition, now, Stage::Entered, reason);
        }
        self.poll(now)
    }

    fn await_newline_removed(&mut self, recognition: Recognition, now: Duration) -> Action {
        let before = self.before_enter.clone();
        if let (Recognition::Input(input), Some(before)) = (&recognition, &before) {
            if input.text == before.text && input.row_count() == before.row_count() {
                // Back to what it was before Enter: wait out the settle time again, then press it anew.
                self.phase = Phase::AwaitText;
                return self.await_text(recognition, now);
            }
            if input.text != before.text && now >= self.pasted_at + Duration::from_millis(100) {
                let reason = format!(
                    "the agent made a newline of Enter, and removing it changed the text to {:?}",
                    shorten(&input.text, 80)
                );
                return self.take_back(&recognition, now, Stage::Entered, reason);
            }
        }
        if now >= self.give_up_at {
            let reason = format!("the agent made a newline of Enter that did not go away ({})", recognition.describe());
            return self.take_back(&recognition, now, Stage::Entered, reason);
        }
        self.poll(now)
    }

    /// Delivery is not proven: take our text back out of the box if the box shows it and nothing else.
    fn take_back(&mut self, recognition: &Recognition, now: Duration, stage: Stage, reason: String) -> Action {
        match recognition {
            Recognition::Input(input) if input.is_empty() => {
                self.hold(stage, format!("{reason}; the box is empty"), Some(true))
            }
            Recognition::Input(input) if self.shows_ours(input) && self.spec.is_some() => {
                self.clear_rounds = 0;
                self.phase = Phase::TakingBack { stage, reason };
                self.poll = POLL_FIRST;
                Action::SendKeys { keys: self.clear_round(now), why: KeysFor::TakeBack }
            }
            Recognition::Input(input) => self.hold(
                stage,
                format!("{reason}; the box shows other text, left alone: {:?}", shorten(&input.text, 80)),
                Some(false),
            ),
            other => self.hold(
                stage,
                format!("{reason}; the box cannot be seen to take the text back ({})", other.describe()),
                Some(false),
            ),
        }
    }

    fn taking_back(&mut self, recognition: Recognition, now: Duration, stage: Stage, reason: String) -> Action {
        if let Recognition::Input(input) = &recognition {
            if input.is_empty() {
                return self.hold(stage, format!("{reason}; lane-send took its text back out"), Some(true));
            }
            if self.clear_rounds < Self::max_clear_rounds(&self.message)
                && self.shows_ours(input)
                && now < self.deadline
            {
                return Action::SendKeys { keys: self.clear_round(now), why: KeysFor::TakeBack };
            }
        }
        if now < self.deadline {
            return self.poll(now);
        }
        let still = match &recognition {
            Recognition::Input(input) => format!("the box still shows {:?}", shorten(&input.text, 80)),
            other => other.describe(),
        };
        self.hold(stage, format!("{reason}; taking the text back out failed: {still}"), Some(false))
    }
}

/// Whether a transcript row echoes the start of `message` (its first line, up to 50 characters).
fn echoes(row: &str, message: &str) -> bool {
    let start: String = message.lines().next().unwrap_or_default().chars().take(50).collect();
    let start = crate::message::squeeze(&start);
    !start.is_empty() && crate::message::squeeze(row).contains(&start)
}

/// Whether the agent turned Enter into a newline: the text is unchanged, and the box grew a row or the
/// cursor moved down a row.
fn made_a_newline(before: &InputBox, after: &InputBox) -> bool {
    let grew = after.row_count() == before.row_count() + 1;
    // The cursor's row within the box: a box the agent redrew one row lower (Codex's start-up animation above it
    // changes height) moves the cursor with it, and that is no newline; Backspace would eat the text's last letter.
    let in_box = |input: &InputBox| input.cursor.map(|(row, _)| row as isize - input.rows.0 as isize);
    let cursor_down = matches!((in_box(before), in_box(after)), (Some(was), Some(now)) if now == was + 1);
    after.text == before.text && (grew || cursor_down)
}

#[cfg(test)]
mod tests;
