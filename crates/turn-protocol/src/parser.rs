//! The outer side: turns successive screen captures into new protocol events.

use crate::event::Event;
use crate::line::{self, ProtocolLine, decode_text};
use crate::message::{Context, Keyword, Message, TurnState};
use crate::nonce::Nonce;
use crate::screen::{align, logical_lines};

/// Rows a half-written wrapped line may span in an unjoined capture.
const MAX_TAIL_ROWS: usize = 256;

/// Typed lines remembered for echo suppression; older ones are forgotten.
const MAX_EXPECTED_ECHOES: usize = 64;

/// Reads protocol messages from successive captures of the inner agent's pane.
///
/// Each [`ScreenParser::feed`] gets a whole capture (the visible screen,
/// optionally with scrollback) and returns only what is new since the previous
/// capture. Numbered lines are deduplicated by their sequence number; seed
/// lines (no number) by lining the new capture up with the previous one.
///
/// ```
/// use turn_protocol::{Event, Message, ScreenParser, TurnState};
/// let mut parser = ScreenParser::new(None);
/// let first = parser.feed("$ inner\nTURN: thinking [1]\n");
/// assert_eq!(first, vec![Event::Message(Message::Turn(TurnState::Thinking))]);
/// // The same line still on screen is not reported again.
/// let second = parser.feed("$ inner\nTURN: thinking [1]\nTURN: done [2]\n");
/// assert_eq!(second, vec![Event::Message(Message::Turn(TurnState::Done))]);
/// ```
#[derive(Debug, Default)]
pub struct ScreenParser {
    nonce: Option<Nonce>,
    wrap_width: Option<usize>,
    /// Logical lines of the previous capture.
    previous: Vec<String>,
    /// The line of the previous capture held back undecided.
    held: Option<HeldLine>,
    last_seq: u64,
    numbered_seen: bool,
    chunks: Option<ChunkAssembly>,
    expected_echo: Vec<String>,
}

/// Where a line stands relative to the bottom of the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bottom {
    /// Lines follow it, so it was written whole.
    No,
    /// It is the last line and new or changed since the previous capture.
    Changed,
    /// It is the last line and was the same, held back, in the previous capture.
    Unchanged,
}

/// A line held back because it may be half-written.
#[derive(Debug)]
struct HeldLine {
    /// Its index among the previous capture's lines.
    index: usize,
    text: String,
}

/// A chunked CONTEXT being put back together.
#[derive(Debug)]
struct ChunkAssembly {
    total: u32,
    received: u32,
    json: String,
}

impl ScreenParser {
    /// A parser; with a nonce it accepts only lines whose tag checks out.
    pub fn new(nonce: Option<Nonce>) -> ScreenParser {
        ScreenParser { nonce, ..ScreenParser::default() }
    }

    /// Declares the captures unjoined (taken without `capture-pane -J`) from a
    /// terminal this many columns wide, so that wrapped rows are joined here.
    /// Not needed for `-J` captures.
    pub fn wrap_width(mut self, columns: usize) -> ScreenParser {
        self.wrap_width = Some(columns);
        self
    }

    /// Accepts only numbered lines from the start (lines without a sequence
    /// number are rejected), for an inner known to use this crate's emitter.
    /// Without it, the parser switches to this after the first numbered line.
    pub fn numbered_only(mut self) -> ScreenParser {
        self.numbered_seen = true;
        self
    }

    /// Tells the parser what the outer typed into the pane, so that its echo is
    /// never taken for a message. Each typed protocol-looking line is ignored
    /// once when it appears.
    pub fn expect_echo(&mut self, typed: &str) {
        for typed_line in typed.lines().map(str::trim_end) {
            if line::head_keyword(typed_line).is_some() {
                self.expected_echo.push(typed_line.to_string());
            }
        }
        let excess = self.expected_echo.len().saturating_sub(MAX_EXPECTED_ECHOES);
        self.expected_echo.drain(..excess);
    }

    /// The sequence number of the last numbered line accepted (0 before any).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Reads one capture and returns the events that are new since the previous one.
    pub fn feed(&mut self, capture: &str) -> Vec<Event> {
        let lines = logical_lines(capture, self.wrap_width, &|candidate| self.trailer_checks_out(candidate));
        let mut events = Vec::new();
        let held = self.held.take();
        let (overlap, revisit) = match &held {
            Some(held) => self.line_up_held(held, &lines),
            None => {
                let alignment = align(&self.previous, &lines);
                (alignment.overlap, alignment.last_grew.then(|| alignment.overlap - 1))
            }
        };
        if let Some(held) = &held
            && revisit.is_none()
        {
            // The held line scrolled away (at most its tail is left) before a
            // capture showed it decided: decide it as it was last seen.
            self.judge(&held.text, true, Bottom::No, &mut events);
        }
        let unchanged_held = revisit.filter(|&index| held.as_ref().is_some_and(|held| held.text == lines[index]));
        let bottom_index = self.bottom_index(&lines);
        for (index, text) in lines.iter().enumerate() {
            let is_new = index >= overlap || Some(index) == revisit;
            // The bottom line may be half-written. A valid numbered line is
            // complete; a seed line is taken once it stayed the same for a
            // capture; anything else waits until more output follows it.
            let bottom = if Some(index) != bottom_index {
                Bottom::No
            } else if Some(index) == unchanged_held {
                Bottom::Unchanged
            } else {
                Bottom::Changed
            };
            if self.judge(text, is_new, bottom, &mut events) {
                self.held = Some(HeldLine { index, text: text.clone() });
            }
        }
        self.previous = lines;
        events
    }

    /// Lines up a capture with the previous one, in which a line was held:
    /// the lines before the held one must reappear, followed by the held line
    /// (possibly grown). Returns the overlap and the held line's new index.
    fn line_up_held(&self, held: &HeldLine, lines: &[String]) -> (usize, Option<usize>) {
        let alignment = align(&self.previous[..held.index], lines);
        let after_anchor = if held.index > 0 && alignment.overlap == 0 { None } else { Some(alignment.overlap) };
        let is_held = |index: &usize| lines.get(*index).is_some_and(|line| line.starts_with(held.text.as_str()));
        match after_anchor.filter(is_held) {
            Some(index) => (index + 1, Some(index)),
            // The captures do not line up (redraw, big scroll): look for it.
            // Unchanged first, the earliest: a later line may merely extend it
            // (`TURN: waiting` held, then `TURN: waiting [22 …]` printed), and
            // every line before the one taken for it counts as seen. Else the
            // last line it is the start of (it grew).
            None => match lines
                .iter()
                .position(|line| *line == held.text)
                .or_else(|| lines.iter().rposition(|line| line.starts_with(held.text.as_str())))
            {
                Some(index) => (index + 1, Some(index)),
                None => (alignment.overlap, None),
            },
        }
    }

    /// The line that may still be being written: the last one, or (for
    /// unjoined captures of numbered lines) a protocol line without its
    /// trailer whose wrapped rest runs to the end of the capture.
    fn bottom_index(&self, lines: &[String]) -> Option<usize> {
        let last = lines.len().checked_sub(1)?;
        let expect_trailers = self.nonce.is_some() || self.numbered_seen;
        if self.wrap_width.is_none() || !expect_trailers {
            return Some(last);
        }
        for index in (0..=last).rev().take(MAX_TAIL_ROWS) {
            let text = &lines[index];
            if line::head_keyword(text).is_some() {
                return Some(if line::has_trailer(text) { last } else { index });
            }
            if text.is_empty() {
                break;
            }
        }
        Some(last)
    }

    /// Reads a saved conversation: captures separated by form feeds (`\f`),
    /// oldest first, as written by a capture loop; returns every event and
    /// finishes (see [`ScreenParser::finish`]).
    pub fn feed_capture_log(&mut self, log: &str) -> Vec<Event> {
        let mut events = Vec::new();
        for capture in log.split('\u{c}') {
            events.extend(self.feed(capture));
        }
        events.extend(self.finish());
        events
    }

    /// Decides a bottom line held back by the last [`ScreenParser::feed`]
    /// (call when no more captures will come) and reports an unfinished
    /// chunked CONTEXT.
    pub fn finish(&mut self) -> Vec<Event> {
        let mut events = self.finish_held();
        if let Some(assembly) = self.chunks.take() {
            events.push(Event::Lost { why: assembly.unfinished("no more captures came") });
        }
        events
    }

    /// Decides the line held back at the bottom of the previous capture.
    fn finish_held(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if let Some(held) = self.held.take() {
            self.judge(&held.text, true, Bottom::No, &mut events);
        }
        events
    }

    /// Handles one logical line; returns whether it is held back undecided.
    fn judge(&mut self, text: &str, is_new: bool, bottom: Bottom, events: &mut Vec<Event>) -> bool {
        let Some(parsed) = line::parse(text) else {
            return false;
        };
        if is_new && let Some(position) = self.expected_echo.iter().position(|typed| typed == text) {
            self.expected_echo.remove(position);
            return false;
        }
        if !is_new && parsed.trailer.as_ref().is_some_and(|trailer| trailer.seq <= self.last_seq) {
            // Judged when it first appeared; spare the tag check.
            return false;
        }
        let refusal = match (&parsed.trailer, &self.nonce) {
            (Some(trailer), Some(nonce)) => match &trailer.tag {
                Some(tag) if nonce.verify(trailer.seq, parsed.body, tag) => {
                    self.accept_numbered(&parsed, trailer.seq, text, events);
                    return false;
                }
                Some(_) => "wrong tag: it was not made with this conversation's nonce".to_string(),
                None => "no tag, but this conversation has a nonce".to_string(),
            },
            (Some(trailer), None) => {
                self.accept_numbered(&parsed, trailer.seq, text, events);
                return false;
            }
            (None, Some(_)) => "no tag, but this conversation has a nonce".to_string(),
            (None, None) if self.numbered_seen => {
                "no sequence number, but the inner numbers its lines, so this one did not come from it".to_string()
            }
            (None, None) => {
                if is_new && bottom == Bottom::Changed {
                    return true;
                }
                if is_new {
                    self.deliver(&parsed, text, events);
                }
                return false;
            }
        };
        if !is_new {
            return false;
        }
        if bottom != Bottom::No {
            return true;
        }
        events.push(Event::Rejected { line: text.to_string(), why: refusal });
        false
    }

    fn accept_numbered(&mut self, parsed: &ProtocolLine<'_>, seq: u64, text: &str, events: &mut Vec<Event>) {
        if seq <= self.last_seq {
            // Still on screen from an earlier capture, or a replay of an old line.
            return;
        }
        self.numbered_seen = true;
        if seq > self.last_seq + 1 {
            let mut why = match seq - self.last_seq {
                2 => format!("line {} scrolled away before any capture showed it", self.last_seq + 1),
                _ => format!("lines {}..{} scrolled away before any capture showed them", self.last_seq + 1, seq - 1),
            };
            if let Some(assembly) = self.chunks.take() {
                why = format!("{why}; {}", assembly.unfinished("of that gap"));
            }
            events.push(Event::Lost { why });
        }
        self.last_seq = seq;
        self.deliver(parsed, text, events);
    }

    /// Turns an accepted line into a message (or a rejection of its content).
    fn deliver(&mut self, parsed: &ProtocolLine<'_>, text: &str, events: &mut Vec<Event>) {
        if let Some((index, total)) = parsed.chunk {
            self.add_chunk(index, total, parsed.payload, text, events);
            return;
        }
        if let Some(assembly) = self.chunks.take() {
            events.push(Event::Lost { why: assembly.unfinished(&format!("`{text}` came first")) });
        }
        match decode(parsed.keyword, parsed.payload) {
            Ok(message) => events.push(Event::Message(message)),
            Err(why) => events.push(Event::Rejected { line: text.to_string(), why }),
        }
    }

    fn add_chunk(&mut self, index: u32, total: u32, part: &str, text: &str, events: &mut Vec<Event>) {
        if index == 0 || index > total {
            let why = format!("CONTEXT chunk {index}/{total} is out of range; chunks count from 1 to the total");
            events.push(Event::Rejected { line: text.to_string(), why });
            return;
        }
        let continues =
            self.chunks.as_ref().is_some_and(|assembly| assembly.total == total && assembly.received + 1 == index);
        if !continues {
            if let Some(assembly) = self.chunks.take() {
                events.push(Event::Lost { why: assembly.unfinished(&format!("chunk {index}/{total} came next")) });
            }
            if index != 1 {
                let why = format!("CONTEXT chunk {index}/{total} came without the chunks before it");
                events.push(Event::Rejected { line: text.to_string(), why });
                return;
            }
            self.chunks = Some(ChunkAssembly { total, received: 0, json: String::new() });
        }
        let Some(assembly) = self.chunks.as_mut() else {
            return;
        };
        assembly.json.push_str(part);
        assembly.received = index;
        if index < total {
            return;
        }
        let json = std::mem::take(&mut assembly.json);
        self.chunks = None;
        match parse_context(&json) {
            Ok(context) => events.push(Event::Message(Message::Context(context))),
            Err(why) => events.push(Event::Rejected { line: format!("CONTEXT[1..{total}/{total}]: {json}"), why }),
        }
    }

    /// Whether a speculatively joined line carries a trailer this parser would accept.
    fn trailer_checks_out(&self, candidate: &str) -> bool {
        let Some(parsed) = line::parse(candidate) else {
            return false;
        };
        match (&parsed.trailer, &self.nonce) {
            (Some(trailer), Some(nonce)) => {
                trailer.tag.as_deref().is_some_and(|tag| nonce.verify(trailer.seq, parsed.body, tag))
            }
            // Without a nonce any trailer will do: the same line must join the
            // same way in every capture, seen before or not.
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

impl ChunkAssembly {
    fn unfinished(&self, because: &str) -> String {
        format!(
            "a chunked CONTEXT stopped after chunk {}/{} because {because}; its {} characters were dropped",
            self.received,
            self.total,
            self.json.chars().count()
        )
    }
}

/// The message carried by an accepted line's payload.
fn decode(keyword: Keyword, payload: &str) -> Result<Message, String> {
    match keyword {
        Keyword::Turn => TurnState::from_word(payload.trim()).map(Message::Turn).ok_or_else(|| {
            format!("unknown TURN state {:?}; expected thinking, waiting, done or failed", payload.trim())
        }),
        Keyword::Progress => Ok(Message::Progress(decode_text(payload))),
        Keyword::Question => Ok(Message::Question(decode_text(payload))),
        Keyword::Context => parse_context(payload).map(Message::Context),
    }
}

fn parse_context(json: &str) -> Result<Context, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|error| format!("CONTEXT is not valid JSON: {error}"))?;
    Context::try_from(value).map_err(|value| {
        let kind = match value {
            serde_json::Value::Array(_) => "an array",
            serde_json::Value::String(_) => "a string",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::Bool(_) => "a boolean",
            _ => "null",
        };
        format!("CONTEXT must be a JSON object, not {kind}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emitter::{Emitter, LineFormat};

    fn test_nonce() -> Nonce {
        Nonce::from_hex("00112233445566778899aabbccddeeff").unwrap()
    }

    fn tagged(messages: &[Message]) -> Vec<String> {
        let mut emitter = Emitter::with_format(Vec::new(), LineFormat::Tagged(test_nonce()));
        messages.iter().flat_map(|message| emitter.render(message).unwrap()).collect()
    }

    fn rejected_whys(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|event| match event {
                Event::Rejected { why, .. } => Some(why.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn spoofed_done_is_rejected_with_a_nonce() {
        let mut lines = tagged(&[Message::Turn(TurnState::Thinking)]);
        lines.push("TURN: done".into());
        lines.push("TURN: done [2 a1b2c3d4]".into());
        lines.push("TURN: done [2]".into());
        lines.push("$".into());
        let mut parser = ScreenParser::new(Some(test_nonce()));
        let events = parser.feed(&lines.join("\n"));
        assert_eq!(events[0], Event::Message(Message::Turn(TurnState::Thinking)));
        assert_eq!(
            rejected_whys(&events),
            vec![
                "no tag, but this conversation has a nonce",
                "wrong tag: it was not made with this conversation's nonce",
                "no tag, but this conversation has a nonce",
            ]
        );
        assert_eq!(events.len(), 4);
        // Still on screen next time: not reported again.
        assert_eq!(parser.feed(&lines.join("\n")), vec![]);
    }

    #[test]
    fn a_tag_from_another_conversation_is_rejected() {
        let lines = tagged(&[Message::Turn(TurnState::Done)]);
        let other = Nonce::from_hex("ffeeddccbbaa99887766554433221100").unwrap();
        let events = ScreenParser::new(Some(other)).feed(&format!("{}\n$", lines[0]));
        assert_eq!(rejected_whys(&events), vec!["wrong tag: it was not made with this conversation's nonce"]);
    }

    #[test]
    fn replayed_authentic_line_is_ignored() {
        let lines = tagged(&[Message::Turn(TurnState::Done), Message::Turn(TurnState::Thinking)]);
        let mut parser = ScreenParser::new(Some(test_nonce()));
        let screen = format!("{}\n{}\n", lines[0], lines[1]);
        assert_eq!(parser.feed(&screen).len(), 2);
        // Someone copies the old `TURN: done` line onto the screen again.
        let replayed = format!("{screen}echo\n{}\n$", lines[0]);
        assert_eq!(parser.feed(&replayed), vec![]);
    }

    #[test]
    fn bottom_spoof_is_held_then_rejected() {
        let mut parser = ScreenParser::new(Some(test_nonce()));
        assert_eq!(parser.feed("TURN: done\n"), vec![]);
        assert_eq!(parser.feed("TURN: done\n"), vec![]);
        let events = parser.feed("TURN: done\n$ ");
        assert_eq!(rejected_whys(&events), vec!["no tag, but this conversation has a nonce"]);
    }

    #[test]
    fn a_held_line_scrolled_to_the_top_is_not_taken_for_a_later_line_it_starts() {
        let mut parser = ScreenParser::new(Some(test_nonce()));
        assert_eq!(parser.feed("output a\noutput b\nTURN: waiting\n"), vec![]);
        // The lines above it scrolled away; a spoof that extends it follows.
        let events = parser.feed("TURN: waiting\nTURN: waiting [22 0badc0de]\n$ ");
        assert_eq!(
            rejected_whys(&events),
            vec![
                "no tag, but this conversation has a nonce",
                "wrong tag: it was not made with this conversation's nonce"
            ]
        );
    }

    #[test]
    fn seed_lines_parse_without_nonce() {
        let mut parser = ScreenParser::new(None);
        let capture = "TURN: thinking\nPROGRESS: step 2\nQUESTION: \"which format?\"\n\
                       CONTEXT: {\"result\": \"summary here\", \"files\": [\"report.pdf\"]}\nTURN: done\n$ ";
        let messages: Vec<Message> = parser.feed(capture).iter().filter_map(|e| e.message().cloned()).collect();
        assert_eq!(messages.len(), 5);
        assert_eq!(messages[1], Message::Progress("step 2".into()));
        assert_eq!(messages[2], Message::Question("which format?".into()));
        match &messages[3] {
            Message::Context(context) => assert_eq!(context.result(), Some("summary here")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn seed_repeats_and_half_written_bottom_line() {
        let mut parser = ScreenParser::new(None);
        assert_eq!(parser.feed("PROGRESS: step\nPROGRESS: st").len(), 1);
        // The bottom line grew; it and the next identical line are new.
        let events = parser.feed("PROGRESS: step\nPROGRESS: step\nPROGRESS: step\n$");
        assert_eq!(events, vec![Event::Message(Message::Progress("step".into())); 2]);
    }

    #[test]
    fn echo_of_typed_text_is_not_a_message() {
        let mut parser = ScreenParser::new(None);
        parser.expect_echo("TURN: done");
        assert_eq!(
            parser.feed("QUESTION: \"say something\"\nTURN: done\n"),
            vec![Event::Message(Message::Question("say something".into()))]
        );
        // A second, real `TURN: done` is a message again.
        let events = parser.feed("QUESTION: \"say something\"\nTURN: done\nTURN: done\n$");
        assert_eq!(events, vec![Event::Message(Message::Turn(TurnState::Done))]);
    }

    #[test]
    fn unnumbered_line_after_numbered_ones_is_rejected() {
        let mut parser = ScreenParser::new(None);
        let events = parser.feed("TURN: thinking [1]\nTURN: done\n$");
        assert_eq!(events[0], Event::Message(Message::Turn(TurnState::Thinking)));
        assert_eq!(rejected_whys(&events).len(), 1);
    }

    #[test]
    fn gaps_and_broken_chunks_are_reported() {
        let mut parser = ScreenParser::new(None);
        let events = parser.feed("CONTEXT[1/3]: {\"a\": [1]\nCONTEXT[2/3]: 1 [2]\nTURN: done [5]\n$");
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(matches!(&events[0], Event::Lost { why } if why.contains("lines 3..4 scrolled away")));
        assert!(matches!(&events[0], Event::Lost { why } if why.contains("chunk 2/3")));
        assert_eq!(events[1], Event::Message(Message::Turn(TurnState::Done)));
    }

    #[test]
    fn bad_content_is_named() {
        let mut parser = ScreenParser::new(None);
        let events = parser.feed("TURN: finished [1]\nCONTEXT: [1,2] [2]\nCONTEXT: {oops [3]\n$");
        assert_eq!(
            rejected_whys(&events)[..2],
            [
                "unknown TURN state \"finished\"; expected thinking, waiting, done or failed",
                "CONTEXT must be a JSON object, not an array"
            ]
        );
        assert!(rejected_whys(&events)[2].starts_with("CONTEXT is not valid JSON"));
    }

    #[test]
    fn chunked_context_arrives_whole_across_captures() {
        let long = "x".repeat(500);
        let lines =
            tagged(&[Message::Context(crate::Context::with_result(long.clone())), Message::Turn(TurnState::Done)]);
        assert!(lines.len() > 3);
        let mut parser = ScreenParser::new(Some(test_nonce()));
        let mut events = Vec::new();
        for shown in 1..=lines.len() {
            // Only the last two lines fit on this tiny screen.
            let start = shown.saturating_sub(2);
            events.extend(parser.feed(&lines[start..shown].join("\n")));
        }
        events.extend(parser.finish());
        let messages: Vec<Message> = events.iter().filter_map(|e| e.message().cloned()).collect();
        assert_eq!(messages, vec![Message::Context(crate::Context::with_result(long)), Message::Turn(TurnState::Done)]);
    }

    #[test]
    fn unfinished_chunks_are_reported_at_the_end() {
        let mut parser = ScreenParser::new(None);
        parser.feed("CONTEXT[1/2]: {\"a\": [1]\n$");
        let events = parser.finish();
        assert!(matches!(&events[..], [Event::Lost { why }] if why.contains("no more captures came")), "{events:?}");
    }
}
