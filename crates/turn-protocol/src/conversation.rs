//! The outer side's view of one conversation: whose turn it is, and what to do next.

use std::time::{Duration, Instant};

use crate::event::Event;
use crate::message::{Context, Message, TurnState};

/// Default silence after which a working inner counts as stalled.
pub const DEFAULT_STALL_AFTER: Duration = Duration::from_secs(120);

/// What the outer should do now.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The inner is working (or has not spoken yet): wait, type nothing, make
    /// no LLM call. Look again after `check_again_in` at the latest.
    Working {
        /// The last PROGRESS text of this turn.
        progress: Option<String>,
        /// Time left before the inner counts as stalled.
        check_again_in: Duration,
    },
    /// The inner waits for input; answer, then call [`Conversation::answered`].
    NeedsAnswer {
        /// The question asked, if any (`TURN: waiting` may come without one).
        question: Option<String>,
    },
    /// The inner finished; the result is in `context` (the last CONTEXT of the turn).
    Done {
        /// The last CONTEXT received in this turn.
        context: Option<Context>,
    },
    /// The inner gave up.
    Failed {
        /// The last CONTEXT received in this turn, often with the reason.
        context: Option<Context>,
    },
    /// The inner said nothing while working for longer than the stall limit.
    Stalled {
        /// Time since the last accepted line (or since the start).
        silent_for: Duration,
    },
}

/// The conversation state machine of the outer side.
///
/// It is fed the parser's events and the current time (so it needs no clock of
/// its own and tests need no sleeps); rejected lines are not activity, so a
/// spoofer can neither end a turn nor keep a dead one alive.
///
/// ```
/// use std::time::{Duration, Instant};
/// use turn_protocol::{Conversation, Event, Message, Status, TurnState};
/// let start = Instant::now();
/// let mut conversation = Conversation::new(start).stall_after(Duration::from_secs(60));
/// conversation.observe(&Event::Message(Message::Turn(TurnState::Thinking)), start);
/// assert!(matches!(conversation.status(start), Status::Working { .. }));
/// let late = start + Duration::from_secs(61);
/// assert!(matches!(conversation.status(late), Status::Stalled { .. }));
/// ```
#[derive(Debug, Clone)]
pub struct Conversation {
    phase: Phase,
    last_activity: Instant,
    stall_after: Duration,
    progress: Option<String>,
    question: Option<String>,
    context: Option<Context>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Working,
    NeedsAnswer,
    Done,
    Failed,
}

impl Conversation {
    /// A conversation that started (the inner was launched or last answered) at `now`.
    pub fn new(now: Instant) -> Conversation {
        Conversation {
            phase: Phase::Working,
            last_activity: now,
            stall_after: DEFAULT_STALL_AFTER,
            progress: None,
            question: None,
            context: None,
        }
    }

    /// Sets how long a working inner may stay silent before it counts as stalled.
    pub fn stall_after(mut self, limit: Duration) -> Conversation {
        self.stall_after = limit;
        self
    }

    /// Takes one parser event seen at `now`.
    pub fn observe(&mut self, event: &Event, now: Instant) {
        match event {
            Event::Message(message) => self.observe_message(message, now),
            // Lost lines were real output of the inner: it is alive.
            Event::Lost { .. } => self.last_activity = now,
            Event::Rejected { .. } => {}
        }
    }

    /// Takes all events of one capture.
    pub fn observe_all<'a>(&mut self, events: impl IntoIterator<Item = &'a Event>, now: Instant) {
        for event in events {
            self.observe(event, now);
        }
    }

    /// The outer typed its answer at `now`: the inner has the turn again.
    pub fn answered(&mut self, now: Instant) {
        self.phase = Phase::Working;
        self.last_activity = now;
        self.progress = None;
        self.question = None;
        self.context = None;
    }

    /// What the outer should do at `now`.
    pub fn status(&self, now: Instant) -> Status {
        match self.phase {
            Phase::Working => {
                let silent_for = now.saturating_duration_since(self.last_activity);
                if silent_for > self.stall_after {
                    Status::Stalled { silent_for }
                } else {
                    Status::Working { progress: self.progress.clone(), check_again_in: self.stall_after - silent_for }
                }
            }
            Phase::NeedsAnswer => Status::NeedsAnswer { question: self.question.clone() },
            Phase::Done => Status::Done { context: self.context.clone() },
            Phase::Failed => Status::Failed { context: self.context.clone() },
        }
    }

    fn observe_message(&mut self, message: &Message, now: Instant) {
        self.last_activity = now;
        match message {
            Message::Turn(TurnState::Thinking) => self.phase = Phase::Working,
            Message::Turn(TurnState::Waiting) => self.phase = Phase::NeedsAnswer,
            Message::Turn(TurnState::Done) => self.phase = Phase::Done,
            Message::Turn(TurnState::Failed) => self.phase = Phase::Failed,
            Message::Progress(text) => self.progress = Some(text.clone()),
            Message::Question(text) => {
                // A question needs an answer even when no `TURN: waiting` follows.
                self.question = Some(text.clone());
                self.phase = Phase::NeedsAnswer;
            }
            Message::Context(context) => self.context = Some(context.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(message: Message) -> Event {
        Event::Message(message)
    }

    #[test]
    fn full_turn_cycle() {
        let start = Instant::now();
        let mut conversation = Conversation::new(start);
        conversation.observe(&message(Message::Turn(TurnState::Thinking)), start);
        conversation.observe(&message(Message::Progress("step 1".into())), start);
        assert_eq!(
            conversation.status(start),
            Status::Working { progress: Some("step 1".into()), check_again_in: DEFAULT_STALL_AFTER }
        );
        conversation.observe(&message(Message::Question("which format?".into())), start);
        conversation.observe(&message(Message::Turn(TurnState::Waiting)), start);
        assert_eq!(conversation.status(start), Status::NeedsAnswer { question: Some("which format?".into()) });
        // Waiting for us never stalls.
        let much_later = start + DEFAULT_STALL_AFTER * 10;
        assert!(matches!(conversation.status(much_later), Status::NeedsAnswer { .. }));
        conversation.answered(much_later);
        assert!(matches!(conversation.status(much_later), Status::Working { progress: None, .. }));
        let context = Context::with_result("pdf");
        conversation.observe(&message(Message::Context(context.clone())), much_later);
        conversation.observe(&message(Message::Turn(TurnState::Done)), much_later);
        assert_eq!(conversation.status(much_later), Status::Done { context: Some(context) });
    }

    #[test]
    fn failure_keeps_the_context() {
        let start = Instant::now();
        let mut conversation = Conversation::new(start);
        let context = Context::with_result("disk full");
        conversation.observe(&message(Message::Context(context.clone())), start);
        conversation.observe(&message(Message::Turn(TurnState::Failed)), start);
        assert_eq!(conversation.status(start), Status::Failed { context: Some(context) });
    }

    #[test]
    fn rejected_lines_neither_finish_nor_keep_alive() {
        let start = Instant::now();
        let mut conversation = Conversation::new(start).stall_after(Duration::from_secs(5));
        let spoof = Event::Rejected { line: "TURN: done".into(), why: "no tag".into() };
        let later = start + Duration::from_secs(6);
        conversation.observe(&spoof, later);
        assert_eq!(conversation.status(later), Status::Stalled { silent_for: Duration::from_secs(6) });
    }

    fn any_event() -> impl proptest::strategy::Strategy<Value = Event> {
        use proptest::prelude::*;
        prop_oneof![
            prop::sample::select(TurnState::ALL.to_vec()).prop_map(|state| message(Message::Turn(state))),
            "[a-z ]{0,8}".prop_map(|text| message(Message::Progress(text))),
            "[a-z ]{0,8}".prop_map(|text| message(Message::Question(text))),
            "[a-z ]{0,8}".prop_map(|text| message(Message::Context(Context::with_result(text)))),
            "[a-z ]{0,8}".prop_map(|line| Event::Rejected { line, why: "spoof".into() }),
        ]
    }

    /// What the last phase-changing message says the outer should do.
    fn expected_kind(events: &[Event]) -> &'static str {
        let last = events.iter().rev().find_map(|event| match event.message() {
            Some(Message::Turn(state)) => Some(*state),
            Some(Message::Question(_)) => Some(TurnState::Waiting),
            _ => None,
        });
        match last {
            None | Some(TurnState::Thinking) => "working",
            Some(TurnState::Waiting) => "answer",
            Some(TurnState::Done) => "done",
            Some(TurnState::Failed) => "failed",
        }
    }

    fn kind(status: &Status) -> &'static str {
        match status {
            Status::Working { .. } | Status::Stalled { .. } => "working",
            Status::NeedsAnswer { .. } => "answer",
            Status::Done { .. } => "done",
            Status::Failed { .. } => "failed",
        }
    }

    proptest::proptest! {
        #[test]
        fn status_follows_the_last_turn_and_ignores_rejections(
            events in proptest::collection::vec(any_event(), 0..30),
            gaps in proptest::collection::vec(0u64..100, 30),
        ) {
            let start = Instant::now();
            let limit = Duration::from_secs(50);
            let mut conversation = Conversation::new(start).stall_after(limit);
            let mut without_rejections = Conversation::new(start).stall_after(limit);
            let mut now = start;
            for (event, gap) in events.iter().zip(&gaps) {
                now += Duration::from_secs(*gap);
                conversation.observe(event, now);
                if !matches!(event, Event::Rejected { .. }) {
                    without_rejections.observe(event, now);
                }
            }
            let status = conversation.status(now);
            proptest::prop_assert_eq!(&status, &without_rejections.status(now));
            proptest::prop_assert_eq!(kind(&status), expected_kind(&events));
            if let Status::Stalled { silent_for } = status {
                proptest::prop_assert!(silent_for > limit);
            }
        }
    }

    #[test]
    fn progress_postpones_the_stall() {
        let start = Instant::now();
        let mut conversation = Conversation::new(start).stall_after(Duration::from_secs(5));
        let later = start + Duration::from_secs(4);
        conversation.observe(&message(Message::Progress("still here".into())), later);
        let check = start + Duration::from_secs(8);
        assert!(matches!(conversation.status(check), Status::Working { .. }));
    }
}
