use std::collections::BTreeSet;
use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::frame::{InputBox, Recognition};

const MESSAGE: &str = "lane-a: please run the tests";

fn boxed(text: &str, queue_marker: bool) -> Recognition {
    Recognition::Input(InputBox {
        agent: Agent::Claude,
        variant: "claude-2".into(),
        table_version: 1,
        rows: (10, 10 + text.lines().count().saturating_sub(1)),
        text: text.into(),
        ghost: String::new(),
        placeholder: None,
        paste_tokens: Vec::new(),
        busy: false,
        queue_marker,
    })
}

fn live() -> BTreeSet<String> {
    ["lane-live".to_string()].into_iter().collect()
}

fn ms(value: u64) -> Duration {
    Duration::from_millis(value)
}

/// Runs the machine with a scripted sequence of screens, answering every action the way a
/// driver would; returns the actions and the verdict.
fn run(screens: &[Recognition], step_ms: u64) -> (Vec<Action>, Verdict) {
    let mut next_screen = 0;
    run_with(step_ms, |_, _| {
        let screen = screens[next_screen.min(screens.len() - 1)].clone();
        next_screen += 1;
        screen
    })
}

/// Like [`run`], with the screen computed from the pastes and Enters so far.
fn run_with(step_ms: u64, mut screen: impl FnMut(usize, u32) -> Recognition) -> (Vec<Action>, Verdict) {
    let mut delivery = Delivery::new(MESSAGE, live(), ms(3000));
    let mut actions = Vec::new();
    let mut now = Duration::ZERO;
    let mut event = Event::Start;
    let (mut pastes, mut enters) = (0, 0);
    loop {
        let action = delivery.step(event, now);
        actions.push(action.clone());
        now += ms(step_ms);
        event = match action {
            Action::Capture => Event::Screen(screen(pastes, enters)),
            Action::Wait(wait) => {
                now += wait;
                Event::Tick
            }
            Action::Paste => {
                pastes += 1;
                Event::Done
            }
            Action::PressEnter => {
                enters += 1;
                Event::Done
            }
            Action::ClearLeftover { .. } => Event::Done,
            Action::Finish(verdict) => return (actions, verdict),
        };
    }
}

fn count(actions: &[Action], wanted: &Action) -> usize {
    actions.iter().filter(|action| *action == wanted).count()
}

#[test]
fn idle_box_delivers_with_one_paste_and_one_enter() {
    let (actions, verdict) =
        run(&[boxed("", false), boxed(MESSAGE, false), boxed(MESSAGE, false), boxed("", false)], 10);
    assert_eq!(verdict.held_at(), None, "{verdict:?}");
    assert_eq!(count(&actions, &Action::Paste), 1);
    assert_eq!(count(&actions, &Action::PressEnter), 1);
    assert!(!verdict.queued());
}

#[test]
fn enter_waits_for_the_settle_time_after_the_paste() {
    let mut delivery = Delivery::new(MESSAGE, live(), ms(3000));
    assert_eq!(delivery.step(Event::Start, ms(0)), Action::Capture);
    assert_eq!(delivery.step(Event::Screen(boxed("", false)), ms(0)), Action::Paste);
    assert_eq!(delivery.step(Event::Done, ms(5)), Action::Capture);
    assert_eq!(delivery.step(Event::Screen(boxed(MESSAGE, false)), ms(20)), Action::Wait(ms(130)));
    assert_eq!(delivery.step(Event::Tick, ms(150)), Action::Capture);
    assert_eq!(delivery.step(Event::Screen(boxed(MESSAGE, false)), ms(150)), Action::PressEnter);
}

#[test]
fn queue_marker_is_delivered_queued() {
    let (_, verdict) = run(&[boxed("", false), boxed(MESSAGE, false), boxed("", true)], 200);
    assert_eq!(verdict.held_at(), None);
    assert!(verdict.queued());
}

#[test]
fn human_draft_is_kept() {
    let (actions, verdict) = run(&[boxed("half a thought", false)], 10);
    assert_eq!(verdict.held_at(), Some(Stage::NotPasted));
    assert_eq!(count(&actions, &Action::Paste), 0);
    assert!(actions.iter().all(|action| !matches!(action, Action::ClearLeftover { .. })));
}

#[test]
fn leftover_from_a_live_lane_is_cleared_then_sent() {
    let leftover = "lane-live: old text";
    let (actions, verdict) =
        run(&[boxed(leftover, false), boxed("", false), boxed(MESSAGE, false), boxed("", false)], 200);
    assert_eq!(verdict.held_at(), None);
    assert_eq!(verdict.cleared_leftover.as_deref(), Some(leftover));
    assert!(matches!(actions[1], Action::ClearLeftover { .. }));
}

#[test]
fn leftover_from_a_dead_lane_is_kept() {
    let (actions, verdict) = run(&[boxed("lane-gone: old text", false)], 10);
    assert_eq!(verdict.held_at(), Some(Stage::NotPasted));
    assert!(verdict.reason.contains("lane-gone"));
    assert_eq!(actions.len(), 2);
}

#[test]
fn leftover_that_does_not_clear_is_held_not_pasted() {
    let leftover = "lane-live: stuck";
    let (actions, verdict) = run(&[boxed(leftover, false)], 100);
    assert_eq!(verdict.held_at(), Some(Stage::NotPasted));
    assert_eq!(count(&actions, &Action::Paste), 0);
}

#[test]
fn dialog_and_unknown_hold_before_typing() {
    for screen in [
        Recognition::Dialog { agent: Some(Agent::Claude), line: "Do you want to proceed?".into() },
        Recognition::Unknown { reason: "nothing".into() },
    ] {
        let (actions, verdict) = run(&[screen], 10);
        assert_eq!(verdict.held_at(), Some(Stage::NotPasted));
        assert!(actions.iter().all(|action| matches!(action, Action::Capture | Action::Wait(_) | Action::Finish(_))));
    }
}

#[test]
fn text_never_shown_is_held_pasted() {
    let (_, verdict) = run(&[boxed("", false)], 100);
    assert_eq!(verdict.held_at(), Some(Stage::Pasted));
}

#[test]
fn ignored_enter_is_retried_then_held_entered() {
    let (actions, verdict) = run(&[boxed("", false), boxed(MESSAGE, false)], 100);
    assert_eq!(verdict.held_at(), Some(Stage::Entered));
    assert_eq!(count(&actions, &Action::Paste), 1);
    let enters = count(&actions, &Action::PressEnter);
    assert!((2..=MAX_ENTERS as usize).contains(&enters), "{enters}");
}

#[test]
fn swallowed_enter_is_pressed_again_and_delivers() {
    // The first Enter is swallowed; the second submits.
    let (actions, verdict) = run_with(30, |pastes, enters| match (pastes, enters) {
        (0, _) => boxed("", false),
        (_, 0 | 1) => boxed(MESSAGE, false),
        _ => boxed("", false),
    });
    assert_eq!(verdict.held_at(), None, "{verdict:?}");
    assert_eq!(count(&actions, &Action::PressEnter), 2);
    assert_eq!(count(&actions, &Action::Paste), 1);
}

fn any_recognition() -> impl Strategy<Value = Recognition> {
    prop_oneof![
        Just(boxed("", false)),
        Just(boxed("", true)),
        Just(boxed(MESSAGE, false)),
        Just(boxed("lane-a: please", false)),
        Just(boxed("lane-live: leftover", false)),
        Just(boxed("lane-gone: leftover", false)),
        Just(boxed("a human draft", false)),
        Just(Recognition::Dialog { agent: None, line: "Do you want to proceed?".into() }),
        Just(Recognition::Unknown { reason: "redraw".into() }),
    ]
}

fn any_event() -> impl Strategy<Value = Event> {
    prop_oneof![
        1 => Just(Event::Start),
        1 => Just(Event::Done),
        1 => Just(Event::Tick),
        6 => any_recognition().prop_map(Event::Screen),
    ]
}

proptest! {
    /// Whatever the screens show and in whatever order events arrive, the machine pastes at
    /// most once, never presses Enter before pasting, and stays finished once finished.
    #[test]
    fn never_pastes_twice(events in proptest::collection::vec((any_event(), 0u64..400), 1..200)) {
        let mut delivery = Delivery::new(MESSAGE, live(), ms(5000));
        let mut now = Duration::ZERO;
        let mut pastes = 0;
        let mut finished: Option<Verdict> = None;
        for (event, advance) in events {
            now += ms(advance);
            let action = delivery.step(event, now);
            if let Some(verdict) = &finished {
                prop_assert_eq!(&action, &Action::Finish(verdict.clone()));
                continue;
            }
            match action {
                Action::Paste => pastes += 1,
                Action::PressEnter => prop_assert_eq!(pastes, 1, "Enter before any paste"),
                Action::Finish(verdict) => {
                    if pastes == 0 {
                        prop_assert!(verdict.held_at() == Some(Stage::NotPasted));
                    } else {
                        prop_assert!(verdict.held_at() != Some(Stage::NotPasted));
                    }
                    finished = Some(verdict);
                }
                _ => {}
            }
            prop_assert!(pastes <= 1, "pasted twice");
            prop_assert_eq!(delivery.has_pasted(), pastes == 1);
        }
    }

    /// A driver that answers every action faithfully ends with a verdict before the deadline
    /// runs out by much, and a delivered verdict always follows exactly one paste.
    #[test]
    fn driven_runs_finish_and_deliver_only_after_one_paste(
        screens in proptest::collection::vec(any_recognition(), 1..30),
        step in 1u64..300,
    ) {
        let (actions, verdict) = run(&screens, step);
        let pastes = count(&actions, &Action::Paste);
        prop_assert!(pastes <= 1);
        if verdict.held_at().is_none() {
            prop_assert_eq!(pastes, 1);
            prop_assert!(count(&actions, &Action::PressEnter) >= 1);
        }
        prop_assert!(count(&actions, &Action::PressEnter) <= MAX_ENTERS as usize);
    }
}
