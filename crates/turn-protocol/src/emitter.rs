//! The inner side: writes protocol lines to stdout (or any writer).

use std::io::Write;

use crate::Error;
use crate::line::{self, encode_text, quote};
use crate::message::{Context, Message, TurnState};
use crate::nonce::Nonce;

/// Default longest CONTEXT payload per line, in characters; longer ones are chunked.
///
/// 200 characters plus the head and trailer fit in three rows of an 80-column
/// terminal, so even a small pane shows every chunk whole.
pub const DEFAULT_CHUNK_CHARS: usize = 200;

/// Smallest accepted chunk size.
const MIN_CHUNK_CHARS: usize = 16;

/// How the emitter writes lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineFormat {
    /// The seed format: `TURN: done`, no number, no tag, no chunking. Readable by
    /// the oldest parsers; spoofable and ambiguous when identical lines repeat.
    Seed,
    /// Each line ends with its sequence number: `TURN: done [7]`. Exact
    /// deduplication; still spoofable by anyone who can print to the pane.
    Numbered,
    /// Each line ends with its sequence number and a tag keyed by the nonce:
    /// `TURN: done [7 a1b2c3d4]`. Unforgeable without the nonce.
    Tagged(Nonce),
}

/// Writes protocol messages as complete lines, flushing after each message.
///
/// ```
/// use turn_protocol::{Emitter, Message, TurnState};
/// let mut emitter = Emitter::new(Vec::new());
/// emitter.turn(TurnState::Thinking)?;
/// emitter.progress("step 2")?;
/// assert_eq!(String::from_utf8(emitter.into_inner())?, "TURN: thinking [1]\nPROGRESS: step 2 [2]\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Emitter<W: Write> {
    out: W,
    format: LineFormat,
    next_seq: u64,
    chunk_chars: usize,
}

impl<W: Write> Emitter<W> {
    /// An emitter of numbered lines without a tag.
    pub fn new(out: W) -> Emitter<W> {
        Emitter::with_format(out, LineFormat::Numbered)
    }

    /// An emitter of the given format.
    pub fn with_format(out: W, format: LineFormat) -> Emitter<W> {
        Emitter { out, format, next_seq: 1, chunk_chars: DEFAULT_CHUNK_CHARS }
    }

    /// Tagged lines when `CLIVE_TURN_NONCE` is set, numbered lines otherwise.
    pub fn from_env(out: W) -> Result<Emitter<W>, Error> {
        let format = match Nonce::from_env()? {
            Some(nonce) => LineFormat::Tagged(nonce),
            None => LineFormat::Numbered,
        };
        Ok(Emitter::with_format(out, format))
    }

    /// Sets the CONTEXT payload per line, in characters, for the numbered and
    /// tagged formats (a chunk may run a few characters over so that the next
    /// one does not start with `[`).
    pub fn chunk_chars(mut self, chunk_chars: usize) -> Result<Emitter<W>, Error> {
        if chunk_chars < MIN_CHUNK_CHARS {
            return Err(Error::ChunkTooSmall(chunk_chars));
        }
        self.chunk_chars = chunk_chars;
        Ok(self)
    }

    /// The format in use.
    pub fn format(&self) -> &LineFormat {
        &self.format
    }

    /// Writes one message (one line, or several for a chunked CONTEXT) and flushes.
    pub fn emit(&mut self, message: &Message) -> Result<(), Error> {
        let mut text = String::new();
        for line in self.render(message)? {
            text.push_str(&line);
            text.push('\n');
        }
        // One write per message: a reader never sees half of a chunk sequence
        // from us interleaved with our next message.
        self.out.write_all(text.as_bytes())?;
        self.out.flush()?;
        Ok(())
    }

    /// `TURN: <state>`.
    pub fn turn(&mut self, state: TurnState) -> Result<(), Error> {
        self.emit(&Message::Turn(state))
    }

    /// `PROGRESS: <text>`.
    pub fn progress(&mut self, text: &str) -> Result<(), Error> {
        self.emit(&Message::Progress(text.to_string()))
    }

    /// `QUESTION: "<text>"`.
    pub fn question(&mut self, text: &str) -> Result<(), Error> {
        self.emit(&Message::Question(text.to_string()))
    }

    /// `CONTEXT: {…}`, chunked when long.
    pub fn context(&mut self, context: &Context) -> Result<(), Error> {
        self.emit(&Message::Context(context.clone()))
    }

    /// The lines a message would be written as, consuming sequence numbers
    /// exactly as [`Emitter::emit`] does, without writing them.
    pub fn render(&mut self, message: &Message) -> Result<Vec<String>, Error> {
        let bodies = match message {
            Message::Turn(state) => vec![format!("TURN: {state}")],
            Message::Progress(text) => vec![format!("PROGRESS: {}", encode_text(text))],
            Message::Question(text) => vec![format!("QUESTION: {}", quote(text))],
            Message::Context(context) => self.context_bodies(context)?,
        };
        Ok(bodies.iter().map(|body| self.finish_line(body)).collect())
    }

    /// Gives the writer back.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn context_bodies(&self, context: &Context) -> Result<Vec<String>, Error> {
        let json = line::escape_brackets_after_spaces(&serde_json::to_string(context.as_map())?);
        let chars: Vec<char> = json.chars().collect();
        if self.format == LineFormat::Seed || chars.len() <= self.chunk_chars {
            return Ok(vec![format!("CONTEXT: {json}")]);
        }
        let parts = split_chunks(&chars, self.chunk_chars);
        let total = parts.len();
        Ok(parts.iter().enumerate().map(|(index, part)| format!("CONTEXT[{}/{total}]: {part}", index + 1)).collect())
    }

    fn finish_line(&mut self, body: &str) -> String {
        let (seq, nonce) = match &self.format {
            LineFormat::Seed => return line::render(body, None, None),
            LineFormat::Numbered => (self.next_seq, None),
            LineFormat::Tagged(nonce) => (self.next_seq, Some(nonce)),
        };
        self.next_seq += 1;
        line::render(body, Some(seq), nonce)
    }
}

/// Splits JSON text into pieces of about `size` characters. No piece starts
/// with `[`: after the `CONTEXT[i/n]: ` head it would let a half-written line
/// such as `CONTEXT[2/3]: [5]` look complete.
fn split_chunks(chars: &[char], size: usize) -> Vec<String> {
    let mut parts = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let mut end = (start + size).min(chars.len());
        while end < chars.len() && chars[end] == '[' {
            end += 1;
        }
        parts.push(chars[start..end].iter().collect());
        start = end;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitted(format: LineFormat, messages: &[Message]) -> String {
        let mut emitter = Emitter::with_format(Vec::new(), format).chunk_chars(40).unwrap();
        for message in messages {
            emitter.emit(message).unwrap();
        }
        String::from_utf8(emitter.into_inner()).unwrap()
    }

    fn conversation() -> Vec<Message> {
        vec![
            Message::Turn(TurnState::Thinking),
            Message::Progress("step 2".into()),
            Message::Progress("two\nlines".into()),
            Message::Question("which format?".into()),
            Message::Turn(TurnState::Waiting),
            Message::Context(Context::with_result("summary here: the quarterly numbers went up").files(["report.pdf"])),
            Message::Turn(TurnState::Done),
        ]
    }

    #[test]
    fn snapshot_seed_lines() {
        insta::assert_snapshot!(emitted(LineFormat::Seed, &conversation()));
    }

    #[test]
    fn snapshot_numbered_lines() {
        insta::assert_snapshot!(emitted(LineFormat::Numbered, &conversation()));
    }

    #[test]
    fn snapshot_tagged_lines() {
        let nonce = Nonce::from_hex("00112233445566778899aabbccddeeff").unwrap();
        insta::assert_snapshot!(emitted(LineFormat::Tagged(nonce), &conversation()));
    }

    #[test]
    fn chunks_never_start_with_a_bracket() {
        let chars: Vec<char> = r#"{"a":[[[1]]],"b":"x"}"#.chars().collect();
        for size in 1..chars.len() {
            let parts = split_chunks(&chars, size);
            assert_eq!(parts.concat(), chars.iter().collect::<String>());
            assert!(parts.iter().all(|part| !part.starts_with('[')), "{size}: {parts:?}");
        }
    }

    #[test]
    fn tiny_chunks_are_refused() {
        let error = Emitter::new(Vec::new()).chunk_chars(3).unwrap_err();
        assert!(error.to_string().contains("chunk size 3"));
    }
}
