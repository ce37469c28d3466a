//! Snapshot of the parser's output for a recorded conversation (captures in
//! `tests/fixtures/recorded-conversation.captures`, separated by form feeds):
//! a spoofed and a forged `TURN: done` from tool output, an answer typed by
//! the outer, a chunked CONTEXT, and a capture taken after the screen scrolled.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

use turn_protocol::{Nonce, ScreenParser};

const RECORDED: &str = include_str!("fixtures/recorded-conversation.captures");

fn json_lines(parser: &mut ScreenParser) -> String {
    let events = parser.feed_capture_log(RECORDED);
    events.iter().map(|event| event.to_json().to_string() + "\n").collect()
}

#[test]
fn recorded_conversation_with_nonce() {
    let nonce = Nonce::from_hex("00112233445566778899aabbccddeeff").unwrap();
    let mut parser = ScreenParser::new(Some(nonce));
    parser.expect_echo("pdf");
    insta::assert_snapshot!(json_lines(&mut parser));
}

#[test]
fn recorded_conversation_without_nonce() {
    // Tags are not checked without the nonce; the bare `TURN: done` is still
    // refused because the inner numbers its lines.
    insta::assert_snapshot!(json_lines(&mut ScreenParser::new(None)));
}
