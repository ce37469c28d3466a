//! Replays a control-mode stream recorded from tmux 3.3a
//! (`tests/data/record-transcript.sh`) through the parser and reply matcher.

use proptest::prelude::*;
use tmux_control::{Event, PaneId, Parser, ReplyMatcher};

const TRANSCRIPT: &[u8] = include_bytes!("data/transcript-3.3a.raw");
const COMMANDS: &str = include_str!("data/transcript-3.3a.commands");
/// What the pane's printf wrote: UTF-8, a backslash, a tab, a bell, CR LF.
const PRINTED: &[u8] = b"h\xc3\xa9llo \\ tab\t bell\x07 \xe2\x9c\x93\r\n";

fn parse(chunks: &[&[u8]]) -> Vec<Event> {
    let mut parser = Parser::new();
    let mut events = Vec::new();
    for chunk in chunks {
        parser.push(chunk);
        events.extend(std::iter::from_fn(|| parser.next_event()));
    }
    events
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

#[test]
fn replies_pair_with_the_commands_sent() {
    let events = parse(&[TRANSCRIPT]);
    let Some(Event::Block(attach)) = events.first() else { panic!("{events:?}") };
    assert!(!attach.guard.is_from_this_client(), "the attach reply has flags 0");

    let commands: Vec<&str> = COMMANDS.lines().filter(|line| !line.is_empty()).collect();
    let mut matcher = ReplyMatcher::new();
    for command in &commands {
        matcher.sent(*command);
    }
    let replies: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Event::Block(block) => matcher.on_block(block.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(replies.len(), commands.len(), "one reply per command");
    assert_eq!(matcher.waiting(), 0);
    for (command, block) in &replies {
        let lines: Vec<String> = block.lines.iter().map(|line| String::from_utf8_lossy(line).into_owned()).collect();
        match *command {
            c if c.starts_with("display-message") => assert_eq!(lines, ["session rec"]),
            "bogus-command" => {
                assert!(!block.ok);
                assert_eq!(lines, ["parse error: unknown command: bogus-command"]);
            }
            // Content lines that look exactly like guards of another block.
            c if c.starts_with("list-windows") => {
                assert!(block.ok);
                assert_eq!(lines, ["%end 0 0 1 0", "%end 0 0 1 1"]);
            }
            other => assert!(block.ok && lines.is_empty(), "{other}: {lines:?}"),
        }
    }
}

#[test]
fn output_decodes_to_the_bytes_the_pane_printed() {
    let events = parse(&[TRANSCRIPT]);
    let mut plain = Vec::new();
    let mut extended = Vec::new();
    for event in &events {
        if let Event::Output { pane, age_ms, data } = event {
            assert_eq!(*pane, PaneId(0));
            match age_ms {
                None => plain.extend_from_slice(data),
                Some(_) => extended.extend_from_slice(data),
            }
        }
    }
    assert!(contains(&plain, PRINTED), "{}", String::from_utf8_lossy(&plain));
    // After `refresh-client -f pause-after=10` output arrives as %extended-output.
    assert!(contains(&extended, PRINTED), "{}", String::from_utf8_lossy(&extended));
}

#[test]
fn notifications_and_exit_are_reported() {
    let events = parse(&[TRANSCRIPT]);
    let names: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            Event::Notification { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["session-changed", "window-add", "window-renamed"]);
    assert_eq!(events.last(), Some(&Event::Exit { reason: None }));
}

proptest! {
    #[test]
    fn any_chunking_of_the_transcript_gives_the_same_events(
        mut cuts in proptest::collection::vec(0..=TRANSCRIPT.len(), 0..64),
    ) {
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(&TRANSCRIPT[start..cut]);
            start = cut;
        }
        chunks.push(&TRANSCRIPT[start..]);
        prop_assert_eq!(parse(&chunks), parse(&[TRANSCRIPT]));
    }
}
