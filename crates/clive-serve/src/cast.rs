//! asciicast v2 files: what a recording is made of, how it is written line by line as a pane prints, and
//! how it is read back. The format is the one `asciinema play` and `asciinema cat` read: a JSON header
//! line, then one `[seconds, "o", text]` line per output event.

use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The first line of an asciicast v2 file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always 2.
    pub version: u32,
    /// Terminal width in columns.
    pub width: u16,
    /// Terminal height in rows.
    pub height: u16,
    /// When the recording started, seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<u64>,
    /// A title (clive writes the session and pane).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Environment of the recorded terminal (`TERM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<std::collections::BTreeMap<String, String>>,
}

impl Header {
    /// A header for a `width`×`height` terminal started now.
    pub fn new(width: u16, height: u16) -> Header {
        let timestamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).ok();
        let env = [("TERM".to_owned(), "tmux-256color".to_owned())].into_iter().collect();
        Header { version: 2, width, height, timestamp, title: None, env: Some(env) }
    }
}

/// One output event: `seconds` after the start, the pane printed `text`.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Seconds since the recording started.
    pub time: f64,
    /// What was printed.
    pub text: String,
}

/// A whole recording, read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Cast {
    /// The header line.
    pub header: Header,
    /// Output events in order (input, marker and resize events are skipped).
    pub events: Vec<Event>,
}

impl Cast {
    /// Parses an asciicast v2 file. A last line cut short (the recorder was killed mid-write) is ignored.
    pub fn parse(text: &str) -> Result<Cast> {
        let mut lines = text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty());
        let (_, first) = lines.next().ok_or_else(|| Error::Cast { line: 1, reason: "the file is empty".into() })?;
        let header: Header = serde_json::from_str(first)
            .map_err(|e| Error::Cast { line: 1, reason: format!("not an asciicast header: {e}") })?;
        if header.version != 2 {
            return Err(Error::Cast { line: 1, reason: format!("version {} (only 2 is read)", header.version) });
        }
        let lines: Vec<(usize, &str)> = lines.collect();
        let last = lines.len().saturating_sub(1);
        let mut events = Vec::new();
        for (i, (number, line)) in lines.into_iter().enumerate() {
            match serde_json::from_str::<(f64, String, String)>(line) {
                Ok((time, kind, text)) if kind == "o" => events.push(Event { time, text }),
                Ok(_) => {}
                Err(_) if i == last && !line.ends_with(']') => {}
                Err(e) => return Err(Error::Cast { line: number + 1, reason: format!("not an event: {e}") }),
            }
        }
        Ok(Cast { header, events })
    }

    /// Everything the pane printed, in order.
    pub fn output(&self) -> String {
        self.events.iter().map(|e| e.text.as_str()).collect()
    }
}

/// Writes an asciicast v2 file as events arrive. Bytes are decoded as UTF-8 across event boundaries (a
/// character split between two chunks is written whole with the second); bytes that are not UTF-8 become
/// U+FFFD.
#[derive(Debug)]
pub struct CastWriter<W: Write> {
    out: W,
    /// The start of a UTF-8 sequence the last chunk ended inside.
    pending: Vec<u8>,
}

impl<W: Write> CastWriter<W> {
    /// Writes the header line.
    pub fn new(mut out: W, header: &Header) -> Result<CastWriter<W>> {
        let line = serde_json::to_string(header).map_err(|e| Error::Cast { line: 1, reason: e.to_string() })?;
        writeln!(out, "{line}").map_err(|e| Error::io("writing a recording", e))?;
        Ok(CastWriter { out, pending: Vec::new() })
    }

    /// Records bytes printed `time` seconds after the start. Nothing is written while the bytes end inside a
    /// character and nothing complete came before it.
    pub fn output(&mut self, time: f64, bytes: &[u8]) -> Result<()> {
        self.pending.extend_from_slice(bytes);
        let text = take_complete_utf8(&mut self.pending);
        if text.is_empty() {
            return Ok(());
        }
        self.event(time, &text)
    }

    /// Records text that did not come from the stream (a redraw after lost output).
    pub fn redraw(&mut self, time: f64, text: &str) -> Result<()> {
        self.pending.clear();
        self.event(time, text)
    }

    fn event(&mut self, time: f64, text: &str) -> Result<()> {
        let text = serde_json::to_string(text).map_err(|e| Error::Cast { line: 0, reason: e.to_string() })?;
        writeln!(self.out, "[{time:.6}, \"o\", {text}]").map_err(|e| Error::io("writing a recording", e))
    }

    /// Flushes what was written to the underlying writer.
    pub fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| Error::io("writing a recording", e))
    }

    /// Writes what is left of a cut character (as U+FFFD) and returns the writer.
    pub fn finish(mut self, time: f64) -> Result<W> {
        if !self.pending.is_empty() {
            let text = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            self.event(time, &text)?;
        }
        self.flush()?;
        Ok(self.out)
    }
}

/// Takes the longest prefix of `buf` that ends on a character boundary, decoding invalid bytes as U+FFFD;
/// leaves an unfinished sequence at the end in `buf`.
fn take_complete_utf8(buf: &mut Vec<u8>) -> String {
    let mut text = String::new();
    let mut rest: &[u8] = buf;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                text.push_str(valid);
                rest = &[];
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                // `valid_up_to` bytes are UTF-8 by the error's contract.
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                match e.error_len() {
                    Some(bad) => {
                        text.push('\u{fffd}');
                        rest = &after[bad..];
                    }
                    None => {
                        rest = after;
                        break;
                    }
                }
            }
        }
    }
    let keep = rest.to_vec();
    *buf = keep;
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_recording_reads_back_as_written() {
        let mut header = Header::new(80, 24);
        header.title = Some("clive-ab12 %3".into());
        let mut writer = CastWriter::new(Vec::new(), &header).unwrap();
        writer.output(0.0, b"$ echo \xc3").unwrap(); // "é" split across two chunks
        writer.output(0.25, b"\xa9\r\n\"quoted\"\x1b[0m\r\n").unwrap();
        let file = String::from_utf8(writer.finish(0.5).unwrap()).unwrap();
        insta::assert_snapshot!(file.lines().skip(1).collect::<Vec<_>>().join("\n"), @r#"
        [0.000000, "o", "$ echo "]
        [0.250000, "o", "é\r\n\"quoted\"\u001b[0m\r\n"]
        "#);
        let cast = Cast::parse(&file).unwrap();
        assert_eq!(cast.header, header);
        assert_eq!(cast.output(), "$ echo é\r\n\"quoted\"\x1b[0m\r\n");
        assert_eq!(cast.events[1].time, 0.25);
    }

    #[test]
    fn a_line_cut_short_at_the_end_is_ignored_but_one_in_the_middle_is_an_error() {
        let good = "{\"version\":2,\"width\":10,\"height\":5}\n[0.1, \"o\", \"a\"]\n";
        assert_eq!(Cast::parse(&format!("{good}[0.2, \"o\", \"b")).unwrap().output(), "a");
        let err = Cast::parse(&format!("{good}[0.2, \"o\nxx\n[0.3, \"o\", \"c\"]\n")).unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
        let err = Cast::parse("{\"version\":1,\"width\":10,\"height\":5}\n").unwrap_err().to_string();
        assert!(err.contains("version 1"), "{err}");
    }

    #[test]
    fn input_and_marker_events_are_skipped() {
        let text =
            "{\"version\":2,\"width\":10,\"height\":5}\n[0.1, \"i\", \"x\"]\n[0.2, \"m\", \"\"]\n[0.3, \"o\", \"y\"]\n";
        assert_eq!(Cast::parse(text).unwrap().output(), "y");
    }

    proptest! {
        #[test]
        fn utf8_text_survives_any_chunking(text in "\\PC{0,60}", cuts in proptest::collection::vec(0..200usize, 0..8)) {
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut writer = CastWriter::new(Vec::new(), &Header::new(10, 5)).unwrap();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                writer.output(0.0, &bytes[from..cut]).unwrap();
                from = cut;
            }
            let file = String::from_utf8(writer.finish(0.0).unwrap()).unwrap();
            prop_assert_eq!(Cast::parse(&file).unwrap().output(), text);
        }

        #[test]
        fn any_bytes_are_written_as_valid_json(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let mut writer = CastWriter::new(Vec::new(), &Header::new(10, 5)).unwrap();
            writer.output(0.0, &bytes).unwrap();
            let file = String::from_utf8(writer.finish(0.0).unwrap()).unwrap();
            prop_assert_eq!(Cast::parse(&file).unwrap().output(), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
}
