//! The outer side: turns successive screen captures into new protocol events.

use crate::event::Event;
use crate::line::{self, ProtocolLine, decode_text};
use crate::message::{Context, Keyword, Message, TurnState};
use crate::nonce::Nonce;
use crate::screen::{align, logical_lines};

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
    /// Whether the previous capture's last line was held back undecided.
    held_last: bool,
    last_seq: u64,
    numbered_seen: bool,
    chunks: Option<ChunkAssembly>,
    expected_echo: Vec<String>,
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
        let alignment = align(&self.previous, &lines);
        let revisit = (alignment.overlap > 0 && (self.held_last || alignment.last_grew)).then(|| alignment.overlap - 1);
        let decide_now = self.held_last && !alignment.last_grew;
        self.held_last = false;
        let mut events = Vec::new();
        for (index, text) in lines.iter().enumerate() {
            let is_new = index >= alignment.overlap || Some(index) == revisit;
            // The bottom line may be half-written; it is decided once it has a
            // valid trailer, is no longer last, or stayed the same for a capture.
            let may_hold = index + 1 == lines.len() && !(decide_now && Some(index) == revisit);
            if self.judge(text, is_new, may_hold, &mut events) {
                self.held_last = true;
            }
        }
        self.previous = lines;
        events
    }

    /// Decides a bottom line held back by the last [`ScreenParser::feed`]
    /// (call when no more captures will come) and reports an unfinished
    /// chunked CONTEXT.
    pub fn finish(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if std::mem::take(&mut self.held_last)
            && let Some(text) = self.previous.last().cloned()
        {
            self.judge(&text, true, false, &mut events);
        }
        if let Some(assembly) = self.chunks.take() {
            events.push(Event::Lost { why: assembly.unfinished("no more captures came") });
        }
        events
    }

    /// Handles one logical line; returns whether it is held back undecided.
    fn judge(&mut self, text: &str, is_new: bool, may_hold: bool, events: &mut Vec<Event>) -> bool {
        let Some(parsed) = line::parse(text) else {
            return false;
        };
        if is_new && let Some(position) = self.expected_echo.iter().position(|typed| typed == text) {
            self.expected_echo.remove(position);
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
                if is_new && may_hold {
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
        if may_hold {
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
        let continues = self.chunks.as_ref().is_some_and(|assembly| assembly.total == total && assembly.received + 1 == index);
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
            (Some(trailer), None) => trailer.seq > self.last_seq,
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
