use std::collections::BTreeSet;
use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::frame::{InputBox, Recognition};

const MESSAGE: &str = "lane-a: please run the tests";

fn boxed(text: &str, queue_marker: bool) -> Recognition {
    Recognition::Input(input_box(text, queue_marker))
}

fn input_box(text: &str, queue_marker: bool) -> InputBox {
    InputBox {
        agent: Agent::Claude,
        variant: "claude-2".into(),
        table_version: 1,
        rows: (10, 10 + text.lines().count().saturating_sub(1)),
        text: text.into(),
        ghost: String::new(),
        placeholder: None,
        paste_tokens: Vec::new(),
        busy: false,
        submit_pending: false,
        queue_marker,
        notices: Vec::new(),
        cursor: None,
        clipped: false,
    }
}

/// The box after the agent made a newline of Enter: one more (blank) row, the text the same.
fn with_newline(text: &str) -> Recognition {
    let mut input = input_box(text, false);
    input.rows.1 += 1;
    Recognition::Input(input)
}

fn dialog() -> Recognition {
    Recognition::Dialog(crate::frame::Dialog {
        agent: None,
        row: 3,
        line: "Do you want to proceed?".into(),
        menu: None,
        above: vec!["● Bash(touch x)".into()],
    })
}

/// A dialog the agent opened at once for our message: the transcript above it echoes the message.
fn dialog_after(message: &str) -> Recognition {
    let Recognition::Dialog(mut dialog) = dialog() else { unreachable!() };
    dialog.above.insert(0, format!("❯ {message}"));
    Recognition::Dialog(dialog)
}

/// What the driver has done so far, for screens that depend on it.
#[derive(Debug, Default, Clone, Copy)]
struct Done {
    pastes: usize,
    enters: u32,
    take_backs: u32,
    backspaces: u32,
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
    run_with(step_ms, |_| {
        let screen = screens[next_screen.min(screens.len() - 1)].clone();
        next_screen += 1;
        screen
    })
}

/// Like [`run`], with the screen computed from what was done so far.
fn run_with(step_ms: u64, mut screen: impl FnMut(Done) -> Recognition) -> (Vec<Action>, Verdict) {
    let mut delivery = Delivery::new(MESSAGE, live(), ms(3000));
    let mut actions = Vec::new();
    let mut now = Duration::ZERO;
    let mut event = Event::Start;
    let mut done = Done::default();
    loop {
        let action = delivery.step(event, now);
        actions.push(action.clone());
        now += ms(step_ms);
        event = match action {
            Action::Capture => Event::Screen(screen(done)),
            Action::Wait(wait) => {
                now += wait;
                Event::Tick
            }
            Action::Paste => {
                done.pastes += 1;
                Event::Done
            }
            Action::PressEnter => {
                done.enters += 1;
                Event::Done
            }
            Action::SendKeys { why: KeysFor::TakeBack, .. } => {
                done.take_backs += 1;
                Event::Done
            }
            Action::SendKeys { why: KeysFor::RemoveNewline, .. } => {
                done.backspaces += 1;
                Event::Done
            }
            Action::SendKeys { .. } => Event::Done,
            Action::Finish(verdict) => return (actions, verdict),
        };
    }
}

fn is_take_back(action: &Action) -> bool {
    matches!(action, Action::SendKeys { why: KeysFor::TakeBack, .. })
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
    assert!(actions.iter().all(|action| !matches!(action, Action::SendKeys { .. })));
}

#[test]
fn leftover_from_a_live_lane_is_cleared_then_sent() {
    let leftover = "lane-live: old text";
    let (actions, verdict) =
        run(&[boxed(leftover, false), boxed("", false), boxed(MESSAGE, false), boxed("", false)], 200);
    assert_eq!(verdict.held_at(), None);
    assert_eq!(verdict.cleared_leftover.as_deref(), Some(leftover));
    assert!(matches!(&actions[1], Action::SendKeys { why: KeysFor::ClearLeftover(text), .. } if text == leftover));
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
        dialog(),
        Recognition::Overlay { agent: Agent::Claude, name: "slash-command menu".into(), row: 4, line: "/x  y".into() },
        Recognition::Unknown { reason: "nothing".into() },
    ] {
        let (actions, verdict) = run(&[screen], 10);
        assert_eq!(verdict.held_at(), Some(Stage::NotPasted));
        assert!(actions.iter().all(|action| matches!(action, Action::Capture | Action::Wait(_) | Action::Finish(_))));
    }
}

#[test]
fn a_dialog_after_enter_delivers_only_when_the_transcript_shows_the_message() {
    let after_enter = |then: Recognition| {
        move |done: Done| match done {
            Done { pastes: 0, .. } => boxed("", false),
            Done { enters: 0, .. } => boxed(MESSAGE, false),
            _ => then.clone(),
        }
    };
    let (_, verdict) = run_with(30, after_enter(dialog_after(MESSAGE)));
    assert_eq!(verdict.held_at(), None, "{verdict:?}");
    assert!(verdict.reason.contains("opened a dialog"), "{}", verdict.reason);
    let (actions, verdict) = run_with(30, after_enter(dialog()));
    assert_eq!(verdict.held_at(), Some(Stage::Entered));
    assert_eq!(verdict.restored, Some(false));
    assert_eq!(count(&actions, &Action::PressEnter), 1, "no key goes into a dialog");
}

#[test]
fn text_never_shown_is_held_pasted_with_the_box_as_it_was() {
    let (actions, verdict) = run(&[boxed("", false)], 100);
    assert_eq!(verdict.held_at(), Some(Stage::Pasted));
    assert_eq!(verdict.restored, Some(true), "{verdict:?}");
    assert!(!actions.iter().any(is_take_back), "nothing of ours to take back");
}

#[test]
fn ignored_enter_is_retried_then_the_text_is_taken_back() {
    let (actions, verdict) = run_with(100, |done| match done {
        Done { pastes: 0, .. } => boxed("", false),
        Done { take_backs: 0, .. } => boxed(MESSAGE, false),
        _ => boxed("", false),
    });
    assert_eq!(verdict.held_at(), Some(Stage::Entered));
    assert_eq!(verdict.restored, Some(true), "{verdict:?}");
    assert!(verdict.reason.contains("took its text back"), "{}", verdict.reason);
    assert_eq!(count(&actions, &Action::Paste), 1);
    let enters = count(&actions, &Action::PressEnter);
    assert!((2..=MAX_ENTERS as usize).contains(&enters), "{enters}");
    assert_eq!(actions.iter().filter(|action| is_take_back(action)).count(), 1);
}

#[test]
fn text_that_will_not_go_is_held_not_restored() {
    let (actions, verdict) = run(&[boxed("", false), boxed(MESSAGE, false)], 100);
    assert_eq!(verdict.held_at(), Some(Stage::Entered));
    assert_eq!(verdict.restored, Some(false), "{verdict:?}");
    assert!(verdict.reason.contains("taking the text back out failed"), "{}", verdict.reason);
    let rounds = actions.iter().filter(|action| is_take_back(action)).count();
    assert!((1..=3).contains(&rounds), "{rounds}");
}

#[test]
fn other_text_in_the_box_is_never_cleared() {
    let (actions, verdict) = run(&[boxed("", false), boxed("a human typed over it", false)], 100);
    assert_eq!(verdict.held_at(), Some(Stage::Pasted));
    assert_eq!(verdict.restored, Some(false));
    assert!(!actions.iter().any(is_take_back));
}

#[test]
fn a_newline_made_of_enter_is_removed_before_enter_again() {
    let (actions, verdict) = run_with(30, |done| match done {
        Done { pastes: 0, .. } => boxed("", false),
        Done { enters: 0, .. } => boxed(MESSAGE, false),
        Done { enters: 1, backspaces: 0, .. } => with_newline(MESSAGE),
        Done { enters: 1, .. } => boxed(MESSAGE, false),
        _ => boxed("", false),
    });
    assert_eq!(verdict.held_at(), None, "{verdict:?}");
    assert_eq!(count(&actions, &Action::PressEnter), 2);
    let backspaces: Vec<&Action> = actions
        .iter()
        .filter(|action| matches!(action, Action::SendKeys { why: KeysFor::RemoveNewline, .. }))
        .collect();
    assert_eq!(backspaces, [&Action::SendKeys { keys: vec![Key::Backspace], why: KeysFor::RemoveNewline }]);
}

/// The box with the cursor at the end of its text, its first row at `top`.
fn with_cursor(text: &str, top: usize) -> Recognition {
    let mut input = input_box(text, false);
    input.rows = (top, top + input.rows.1 - input.rows.0);
    input.cursor = Some((input.rows.1, text.lines().last().unwrap_or("").chars().count() + 2));
    Recognition::Input(input)
}

#[test]
fn a_box_redrawn_lower_is_no_newline() {
    // Codex's start-up animation above the box changes height: the whole box, cursor and all, is one row lower
    // after an Enter it swallowed. Backspace there would eat the message's last letter; Enter again delivers.
    let (actions, verdict) = run_with(30, |done| match done {
        Done { pastes: 0, .. } => with_cursor("", 10),
        Done { enters: 0, .. } => with_cursor(MESSAGE, 10),
        Done { enters: 1, .. } => with_cursor(MESSAGE, 11),
        _ => with_cursor("", 11),
    });
    assert_eq!(verdict.held_at(), None, "{verdict:?}");
    assert!(!actions.iter().any(|action| matches!(action, Action::SendKeys { why: KeysFor::RemoveNewline, .. })));
    assert_eq!(count(&actions, &Action::PressEnter), 2);
}

#[test]
fn a_cursor_one_row_lower_in_the_same_box_is_a_newline() {
    let (actions, _) = run_with(30, |done| match done {
        Done { pastes: 0, .. } => with_cursor("", 10),
        Done { enters: 0, .. } => with_cursor(MESSAGE, 10),
        Done { enters: 1, backspaces: 0, .. } => {
            let Recognition::Input(mut input) = with_cursor(MESSAGE, 10) else { unreachable!() };
            input.cursor = input.cursor.map(|(row, _)| (row + 1, 2));
            Recognition::Input(input)
        }
        Done { enters: 1, .. } => with_cursor(MESSAGE, 10),
        _ => with_cursor("", 10),
    });
    assert_eq!(count(&actions, &Action::SendKeys { keys: vec![Key::Backspace], why: KeysFor::RemoveNewline }), 1);
}

#[test]
fn a_submit_the_agent_holds_is_watched_not_edited() {
    // Codex took Enter while its tools start (`Waiting for startup`): it sends the text once they are up, a
    // second later. A Backspace or a second Enter meanwhile would edit the held text.
    let pending = || {
        let Recognition::Input(mut input) = with_cursor(MESSAGE, 9) else { unreachable!() };
        input.submit_pending = true;
        input.notices = vec!["Waiting for startup  · esc cancel".into()];
        Recognition::Input(input)
    };
    let mut held_looks = 0;
    let (actions, verdict) = run_with(50, |done| match done {
        Done { pastes: 0, .. } => with_cursor("", 10),
        Done { enters: 0, .. } => with_cursor(MESSAGE, 10),
        _ if held_looks < 8 => {
            held_looks += 1;
            pending()
        }
        _ => with_cursor("", 10),
    });
    assert_eq!(verdict.held_at(), None, "{verdict:?}");
    assert_eq!(held_looks, 8, "watched through the hold");
    assert_eq!(count(&actions, &Action::PressEnter), 1, "{actions:?}");
    assert!(!actions.iter().any(|action| matches!(action, Action::SendKeys { .. })), "{actions:?}");
}

#[test]
fn a_backspace_that_ate_our_text_takes_it_all_back() {
    let (actions, verdict) = run_with(30, |done| match done {
        Done { pastes: 0, .. } => boxed("", false),
        Done { enters: 0, .. } => boxed(MESSAGE, false),
        Done { backspaces: 0, .. } => with_newline(MESSAGE),
        Done { take_backs: 0, .. } => boxed(&MESSAGE[..MESSAGE.len() - 1], false),
        _ => boxed("", false),
    });
    assert_eq!(verdict.held_at(), Some(Stage::Entered), "{verdict:?}");
    assert_eq!(verdict.restored, Some(true));
    assert_eq!(count(&actions, &Action::PressEnter), 1);
}

#[test]
fn the_agents_own_rewrite_is_allowed_and_reported() {
    let message = "lane-a: a\tb";
    let mut delivery = Delivery::new(message, live(), ms(3000));
    assert_eq!(delivery.step(Event::Start, ms(0)), Action::Capture);
    assert_eq!(delivery.step(Event::Screen(boxed("", false)), ms(0)), Action::Paste);
    assert_eq!(delivery.step(Event::Done, ms(1)), Action::Capture);
    assert_eq!(delivery.step(Event::Screen(boxed("lane-a: a    b", false)), ms(200)), Action::PressEnter);
    assert_eq!(delivery.step(Event::Done, ms(201)), Action::Capture);
    let Action::Finish(verdict) = delivery.step(Event::Screen(boxed("", false)), ms(300)) else { panic!() };
    assert_eq!(verdict.held_at(), None);
    assert_eq!(verdict.rewritten.as_deref(), Some("claude turns a pasted TAB into four spaces"));
}

#[test]
fn swallowed_enter_is_pressed_again_and_delivers() {
    // The first Enter is swallowed; the second submits.
    let (actions, verdict) = run_with(30, |done| match (done.pastes, done.enters) {
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
        Just(with_newline(MESSAGE)),
        Just(dialog()),
        Just(dialog_after(MESSAGE)),
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
        let mut enters = 0;
        let mut finished: Option<Verdict> = None;
        for (event, advance) in events {
            now += ms(advance);
            let action = delivery.step(event, now);
            if let Some(verdict) = &finished {
                prop_assert_eq!(&action, &Action::Finish(verdict.clone()));
                continue;
            }
            match &action {
                Action::Paste => pastes += 1,
                Action::PressEnter => {
                    prop_assert_eq!(pastes, 1, "Enter before any paste");
                    enters += 1;
                }
                Action::SendKeys { why: KeysFor::ClearLeftover(_), .. } => prop_assert_eq!(pastes, 0, "cleared after pasting"),
                Action::SendKeys { why: KeysFor::TakeBack, .. } => prop_assert_eq!(pastes, 1, "took back before pasting"),
                Action::SendKeys { why: KeysFor::RemoveNewline, keys } => {
                    prop_assert!(enters >= 1, "removed a newline before any Enter");
                    prop_assert_eq!(keys, &vec![Key::Backspace]);
                }
                Action::Finish(verdict) => {
                    if pastes == 0 {
                        prop_assert!(verdict.held_at() == Some(Stage::NotPasted));
                        prop_assert_eq!(verdict.restored, None);
                    } else {
                        prop_assert!(verdict.held_at() != Some(Stage::NotPasted));
                        // Held after a paste always says whether the box was restored.
                        prop_assert_eq!(verdict.held_at().is_some(), verdict.restored.is_some());
                    }
                    finished = Some(verdict.clone());
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
