use proptest::prelude::*;

use super::*;
use crate::octal::encode_output;

fn events_of(chunks: &[&[u8]]) -> Vec<Event> {
    let mut parser = Parser::new();
    let mut events = Vec::new();
    for chunk in chunks {
        parser.push(chunk);
        while let Some(event) = parser.next_event() {
            events.push(event);
        }
    }
    events
}

fn block(time: u64, number: u64, flags: u32, ok: bool, lines: &[&str]) -> Event {
    Event::Block(Block {
        guard: BlockGuard { time, number, flags },
        ok,
        lines: lines.iter().map(|line| line.as_bytes().to_vec()).collect(),
    })
}

/// A stream with every shape the parser handles.
const SAMPLE: &[u8] = b"%begin 1700000000 264 0\n%end 1700000000 264 0\n\
%session-changed $0 work\n\
%output %1 h\xc3\xa9llo\\015\\012\\134\n\
%begin 1700000001 270 1\n%1 looks like a notification\n%end 1700000001 270\n%end 1700000001 271 1\n%error 1700000001 270 0\n%end 1700000001 270 1\n\
%begin 1700000001 272 1\nparse error: unknown command: x\n%error 1700000001 272 1\n\
%extended-output %2 1234 : a b\\033\n\
%pause %2\n%continue %2\n\
%window-add @1\n";

fn sample_events() -> Vec<Event> {
    vec![
        block(1700000000, 264, 0, true, &[]),
        Event::Notification { name: "session-changed".into(), args: b"$0 work".to_vec() },
        Event::Output { pane: PaneId(1), age_ms: None, data: "héllo\r\n\\".as_bytes().to_vec() },
        block(
            1700000001,
            270,
            1,
            true,
            &[
                "%1 looks like a notification",
                "%end 1700000001 270",
                "%end 1700000001 271 1",
                "%error 1700000001 270 0",
            ],
        ),
        block(1700000001, 272, 1, false, &["parse error: unknown command: x"]),
        Event::Output { pane: PaneId(2), age_ms: Some(1234), data: b"a b\x1b".to_vec() },
        Event::Pause { pane: PaneId(2) },
        Event::Continue { pane: PaneId(2) },
        Event::Notification { name: "window-add".into(), args: b"@1".to_vec() },
    ]
}

#[test]
fn sample_stream_parses() {
    assert_eq!(events_of(&[SAMPLE]), sample_events());
}

#[test]
fn notifications_inside_a_block_are_reported_and_kept() {
    // tmux 3.3a writes %continue inside the reply of `refresh-client -A`; tmux
    // master briefly wrote other notifications inside blocks (fixed by PR
    // #5458). They are reported, kept as block lines (they may be captured
    // text), and the block still ends at its own guard. Output-like lines
    // inside a block are only content.
    let events = events_of(&[
        b"%begin 5 9 1\nline\n%continue %4\n%sessions-changed\n%output %1 x\n%madeup y\n%end 5 9 1\n%output %1 y\n",
    ]);
    assert_eq!(
        events,
        [
            Event::Continue { pane: PaneId(4) },
            Event::Notification { name: "sessions-changed".into(), args: Vec::new() },
            block(5, 9, 1, true, &["line", "%continue %4", "%sessions-changed", "%output %1 x", "%madeup y"]),
            Event::Output { pane: PaneId(1), age_ms: None, data: b"y".to_vec() },
        ]
    );
}

#[test]
fn exit_inside_a_block_ends_the_stream() {
    let mut parser = Parser::new();
    parser.push(b"%begin 5 9 1\npartial\n%exit server exited\n%end 5 9 1\n%output %1 x\n");
    assert_eq!(parser.next_event(), Some(Event::Exit { reason: Some("server exited".into()) }));
    assert!(parser.has_exited());
    assert!(!parser.is_in_block());
    assert_eq!(parser.next_event(), None);
    parser.push(b"%output %1 more\n");
    assert_eq!(parser.next_event(), None);
}

#[test]
fn bare_exit_and_lookalikes() {
    assert_eq!(events_of(&[b"%exit\n"]), [Event::Exit { reason: None }]);
    assert_eq!(events_of(&[b"%exited x\n"]), [Event::Notification { name: "exited".into(), args: b"x".to_vec() }]);
}

#[test]
fn flags_zero_blocks_are_reported_with_their_flags() {
    let events = events_of(&[b"%begin 1 2 0\n%end 1 2 0\n"]);
    let [Event::Block(block)] = events.as_slice() else { panic!("{events:?}") };
    assert!(!block.guard.is_from_this_client());
}

#[test]
fn text_outside_blocks_and_dcs_are_ignored() {
    let events = events_of(&[b"\x1bP1000p%begin 1 2 1\n%end 1 2 1\nstray text\n\n"]);
    assert_eq!(events, [block(1, 2, 1, true, &[])]);
}

#[test]
fn malformed_known_notifications_become_plain_notifications() {
    let events = events_of(&[b"%output nopane data\n%pause\n%begin x y z\n"]);
    assert_eq!(
        events,
        [
            Event::Notification { name: "output".into(), args: b"nopane data".to_vec() },
            Event::Notification { name: "pause".into(), args: Vec::new() },
            Event::Notification { name: "begin".into(), args: b"x y z".to_vec() },
        ]
    );
}

#[test]
fn utf8_split_across_output_lines_joins_as_bytes() {
    let check = "✓".as_bytes();
    let mut stream = b"%output %1 ".to_vec();
    stream.extend_from_slice(&check[..1]);
    stream.extend_from_slice(b"\n%output %1 ");
    stream.extend_from_slice(&check[1..]);
    stream.push(b'\n');
    let joined: Vec<u8> = events_of(&[&stream])
        .into_iter()
        .flat_map(|event| match event {
            Event::Output { data, .. } => data,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(joined, check);
}

#[test]
fn a_long_line_in_tiny_chunks_is_one_event() {
    let data = vec![b'a'; 100_000];
    let mut stream = b"%output %1 ".to_vec();
    stream.extend_from_slice(&data);
    stream.push(b'\n');
    let chunks: Vec<&[u8]> = stream.chunks(7).collect();
    assert_eq!(events_of(&chunks), [Event::Output { pane: PaneId(1), age_ms: None, data }]);
}

#[test]
fn pane_ids_parse_and_print() {
    assert_eq!("%42".parse::<PaneId>().unwrap(), PaneId(42));
    assert_eq!(PaneId(7).to_string(), "%7");
    for bad in ["42", "%", "%x", "%-1", " %1"] {
        assert!(bad.parse::<PaneId>().is_err(), "{bad}");
    }
}

/// Splits `bytes` at the given cut points (sorted, deduplicated, in range).
fn split_at_cuts<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts {
        chunks.push(&bytes[start..cut]);
        start = cut;
    }
    chunks.push(&bytes[start..]);
    chunks
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_events(cuts in proptest::collection::vec(any::<usize>(), 0..40)) {
        prop_assert_eq!(events_of(&split_at_cuts(SAMPLE, &cuts)), sample_events());
    }

    #[test]
    fn output_of_any_bytes_round_trips(pane in 0u32..10_000, data in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut stream = format!("%output {} ", PaneId(pane)).into_bytes();
        stream.extend_from_slice(&encode_output(&data));
        stream.push(b'\n');
        prop_assert_eq!(events_of(&[&stream]), vec![Event::Output { pane: PaneId(pane), age_ms: None, data }]);
    }

    #[test]
    fn block_content_is_kept_verbatim(
        lines in proptest::collection::vec("[%a-z0-9 ]{0,20}", 0..8),
        number in 0u64..1_000_000,
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
    ) {
        // Any content line, even `%end`-like ones with other triples, is content.
        let mut stream = format!("%begin 1 {number} 1\n").into_bytes();
        for line in &lines {
            stream.extend_from_slice(line.as_bytes());
            stream.push(b'\n');
        }
        stream.extend_from_slice(format!("%end 1 {number} 1\n").as_bytes());
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let expected = vec![block(1, number, 1, true, &lines)];
        prop_assert_eq!(events_of(&split_at_cuts(&stream, &cuts)), expected);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = events_of(&[&bytes]);
    }
}
