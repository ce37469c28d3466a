//! Property tests: emit any conversation, show it on terminals of any size,
//! capture at random moments, and get back exactly what was emitted.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

mod support;

use proptest::prelude::*;
use serde_json::json;
use support::terminal::Terminal;
use turn_protocol::{Context, Emitter, Event, LineFormat, Message, Nonce, ScreenParser, TurnState};

fn turn_state() -> impl Strategy<Value = TurnState> {
    prop::sample::select(TurnState::ALL.to_vec())
}

fn free_text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 \"\\[\\]:.,!?\n-]{0,40}"
}

fn context() -> impl Strategy<Value = Context> {
    ("[a-zA-Z0-9 \"\\[\\]{}:,.-]{0,200}", prop::collection::vec("[a-z/]{1,12}\\.pdf", 0..3), any::<i32>())
        .prop_map(|(result, files, number)| Context::with_result(result).files(files).insert("n", json!([number])))
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        turn_state().prop_map(Message::Turn),
        free_text().prop_map(Message::Progress),
        free_text().prop_map(Message::Question),
        context().prop_map(Message::Context),
    ]
}

/// Output of the inner's tools between messages; never starts with a keyword.
fn noise() -> impl Strategy<Value = String> {
    "[a-z0-9 .:/\\[\\]-]{0,70}"
}

/// One step of the inner: a message with the noise printed before it.
fn steps() -> impl Strategy<Value = Vec<(Vec<String>, Message)>> {
    prop::collection::vec((prop::collection::vec(noise(), 0..3), message()), 0..16)
}

/// When and how to capture, drawn once per line written.
#[derive(Debug, Clone, Copy)]
enum Moment {
    NoCapture,
    Capture,
    CaptureHalfWritten(usize),
}

fn moments() -> impl Strategy<Value = Vec<Moment>> {
    prop::collection::vec(
        prop_oneof![
            3 => Just(Moment::NoCapture),
            2 => Just(Moment::Capture),
            1 => (0usize..200).prop_map(Moment::CaptureHalfWritten),
        ],
        300,
    )
}

#[derive(Debug, Clone)]
struct Screen {
    width: usize,
    height: usize,
    history: usize,
    joined: bool,
}

fn screen() -> impl Strategy<Value = Screen> {
    (16usize..100, 10usize..40, 0usize..20, any::<bool>()).prop_map(|(width, height, history, joined)| Screen {
        width,
        height,
        history,
        joined,
    })
}

thread_local! {
    /// Captures and events of the current case, kept when debugging.
    static LOG: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Writes lines to the terminal, capturing at the drawn moments and whenever
/// an unseen line would otherwise scroll out of the captured window, and
/// returns everything the parser reported.
fn run(lines: &[String], screen: &Screen, moments: &[Moment], parser: ScreenParser) -> Vec<Event> {
    let mut parser = if screen.joined { parser } else { parser.wrap_width(screen.width) };
    LOG.with(|log| log.borrow_mut().clear());
    let mut terminal = Terminal::new(screen.width, screen.height);
    let window = screen.height + screen.history;
    let mut events = Vec::new();
    let mut first_unseen = 0;
    let mut capture = |terminal: &Terminal, first_unseen: &mut usize, events: &mut Vec<Event>| {
        let text = terminal.capture(screen.history, screen.joined);
        let new = parser.feed(&text);
        if std::env::var_os("TURN_PROTOCOL_DEBUG_CAPTURES").is_some() {
            LOG.with(|log| log.borrow_mut().push_str(&format!("---- capture\n{text}---- events {new:?}\n")));
        }
        events.extend(new);
        // The last line shown may be held back as possibly half-written (a
        // later line could extend it): it counts as seen only once a capture
        // shows what follows it, or a line that extends it could pass for it.
        *first_unseen = terminal.line_count().saturating_sub(1);
    };
    for (index, line) in lines.iter().enumerate() {
        let rows_after = terminal.rows_with(std::slice::from_ref(line));
        let must_capture =
            first_unseen < terminal.line_count() && terminal.first_row_of(first_unseen) + window < rows_after;
        match moments[index % moments.len()] {
            Moment::NoCapture if must_capture => capture(&terminal, &mut first_unseen, &mut events),
            Moment::NoCapture => {}
            Moment::Capture => capture(&terminal, &mut first_unseen, &mut events),
            Moment::CaptureHalfWritten(cut) => {
                if must_capture {
                    capture(&terminal, &mut first_unseen, &mut events);
                }
                let prefix: String = line.chars().take(cut % (line.chars().count() + 1)).collect();
                terminal.write_partial(&prefix);
                capture(&terminal, &mut first_unseen, &mut events);
            }
        }
        terminal.write_line(line);
    }
    capture(&terminal, &mut first_unseen, &mut events);
    events.extend(parser.finish());
    events
}

/// Renders the steps into the lines the inner prints, noise included.
fn print(steps: &[(Vec<String>, Message)], emitter: &mut Emitter<Vec<u8>>) -> Vec<String> {
    let mut lines = Vec::new();
    for (noise, message) in steps {
        lines.extend(noise.iter().cloned());
        lines.extend(emitter.render(message).unwrap());
    }
    lines
}

/// Keeps the log of a failing case (when debugging) and passes the verdict on.
fn keep_log_if(failed: bool, test: &str) -> bool {
    if failed && std::env::var_os("TURN_PROTOCOL_DEBUG_CAPTURES").is_some() {
        let path = std::env::temp_dir().join(format!("turn-protocol-{test}.log"));
        LOG.with(|log| std::fs::write(path, log.borrow().as_str())).ok();
    }
    failed
}

/// The parser reported exactly the sent messages, and nothing else.
fn check_exact(events: &[Event], steps: &[(Vec<String>, Message)], test: &str) -> Result<(), TestCaseError> {
    let sent: Vec<Message> = steps.iter().map(|(_, message)| message.clone()).collect();
    keep_log_if(messages(events) != sent || events.len() != steps.len(), test);
    prop_assert_eq!(messages(events), sent, "events: {:?}", events);
    prop_assert_eq!(events.len(), steps.len(), "unexpected events: {:?}", events);
    Ok(())
}

fn messages(events: &[Event]) -> Vec<Message> {
    events.iter().filter_map(|event| event.message().cloned()).collect()
}

proptest! {
    // PROPTEST_CASES=5000 for a longer hunt.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(128),
        ..ProptestConfig::default()
    })]

    #[test]
    fn numbered_lines_arrive_exactly_once(
        steps in steps(), screen in screen(), moments in moments(), chunk in 16usize..80,
    ) {
        let mut emitter = Emitter::new(Vec::new()).chunk_chars(chunk).unwrap();
        let lines = print(&steps, &mut emitter);
        let parser = ScreenParser::new(None).numbered_only();
        let events = run(&lines, &screen, &moments, parser);
        check_exact(&events, &steps, "numbered")?;
    }

    #[test]
    fn tagged_lines_arrive_exactly_once_and_spoofs_are_rejected(
        steps in steps(), screen in screen(), moments in moments(), chunk in 16usize..80,
        key in any::<u128>(), spoof_after in prop::option::of(0usize..16), spoof_state in turn_state(),
    ) {
        let nonce = Nonce::from_hex(&format!("{key:032x}")).unwrap();
        let mut emitter = Emitter::with_format(Vec::new(), LineFormat::Tagged(nonce.clone())).chunk_chars(chunk).unwrap();
        let mut lines = print(&steps, &mut emitter);
        let spoof = format!("TURN: {spoof_state} [{} 0badc0de]", lines.len() + 1);
        if let Some(after) = spoof_after {
            lines.insert(after.min(lines.len()), spoof);
            lines.insert(after.min(lines.len()), format!("TURN: {spoof_state}"));
        }
        let parser = ScreenParser::new(Some(nonce));
        let events = run(&lines, &screen, &moments, parser);
        let sent: Vec<Message> = steps.iter().map(|(_, message)| message.clone()).collect();
        let rejected = events.iter().filter(|event| matches!(event, Event::Rejected { .. })).count();
        let lost = events.iter().any(|event| matches!(event, Event::Lost { .. }));
        let expected_rejections = if spoof_after.is_some() { 2 } else { 0 };
        keep_log_if(messages(&events) != sent || lost || rejected != expected_rejections, "tagged");
        prop_assert_eq!(messages(&events), sent, "events: {:?}", events);
        for event in &events {
            match event {
                Event::Message(_) => {}
                Event::Rejected { line, .. } => prop_assert!(line.starts_with("TURN: "), "{:?}", event),
                Event::Lost { .. } => prop_assert!(false, "lost: {:?}", event),
            }
        }
        prop_assert_eq!(rejected, expected_rejections, "events: {:?}", events);
    }

    /// The seed format has no numbers, so identical lines scrolling by are
    /// ambiguous; with distinct lines, lining captures up must be exact.
    #[test]
    fn distinct_seed_lines_arrive_exactly_once(
        steps in steps(), screen in screen(), moments in moments(),
    ) {
        // Unjoined captures cannot show whether a raw seed line that exactly
        // fills the width goes on; the seed format is read from `-J` captures.
        let screen = Screen { joined: true, ..screen };
        let steps: Vec<(Vec<String>, Message)> = steps
            .into_iter()
            .enumerate()
            .map(|(index, (noise, message))| {
                let noise = noise.into_iter().enumerate().map(|(n, text)| format!("{index}.{n} {text}")).collect();
                let message = match message {
                    Message::Turn(_) | Message::Context(_) => Message::Progress(format!("step {index}")),
                    Message::Progress(text) => Message::Progress(format!("{index} {text}")),
                    Message::Question(text) => Message::Question(format!("{index} {text}")),
                };
                (noise, message)
            })
            .collect();
        let mut emitter = Emitter::with_format(Vec::new(), LineFormat::Seed);
        let lines = print(&steps, &mut emitter);
        let parser = ScreenParser::new(None);
        let events = run(&lines, &screen, &moments, parser);
        check_exact(&events, &steps, "seed")?;
    }
}
