//! Sans-IO framing of streamed bodies: lines (Ollama's NDJSON) and server-sent events (Anthropic, OpenAI).

/// Splits a byte stream into lines ending in `\n` or `\r\n`, however the bytes are chunked.
#[derive(Debug, Default)]
pub(crate) struct LineBuffer {
    pending: Vec<u8>,
}

impl LineBuffer {
    /// Adds bytes and returns the lines they complete, without their line ends.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut lines = Vec::new();
        let mut start = 0;
        while let Some(offset) = self.pending[start..].iter().position(|&byte| byte == b'\n') {
            let end = start + offset;
            let line = &self.pending[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            // Lines are whole here, so a multi-byte character is never split; lossy only for invalid input.
            lines.push(String::from_utf8_lossy(line).into_owned());
            start = end + 1;
        }
        self.pending.drain(..start);
        lines
    }

    /// The unterminated last line at the end of the body, if any.
    pub(crate) fn take_rest(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        let rest = String::from_utf8_lossy(&rest).trim().to_owned();
        (!rest.is_empty()).then_some(rest)
    }
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, if the frame had one (Anthropic does; OpenAI does not).
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub(crate) data: String,
}

/// Parses `text/event-stream` per the WHATWG grammar: `field: value` lines, comments (`:` lines, e.g.
/// OpenRouter's `: OPENROUTER PROCESSING`) skipped, an event dispatched at each blank line.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    lines: LineBuffer,
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    /// Adds bytes and returns the events they complete.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for line in self.lines.push(bytes) {
            if line.is_empty() {
                let event = self.event.take();
                if let Some(data) = self.data.take() {
                    events.push(SseEvent { event, data });
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line.as_str(), ""),
            };
            match field {
                "event" => self.event = Some(value.to_owned()),
                "data" => match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                },
                // `id` and `retry` matter only to reconnecting browsers.
                _ => {}
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const STREAM: &str = "event: message_start\ndata: {\"a\":1}\n\n: OPENROUTER PROCESSING\n\r\ndata: x\r\ndata: y\r\n\r\ndata:[DONE]\n\nevent: ping\ndata: {}\n\n";

    fn expected() -> Vec<SseEvent> {
        vec![
            SseEvent { event: Some("message_start".into()), data: "{\"a\":1}".into() },
            SseEvent { event: None, data: "x\ny".into() },
            SseEvent { event: None, data: "[DONE]".into() },
            SseEvent { event: Some("ping".into()), data: "{}".into() },
        ]
    }

    #[test]
    fn parses_fields_comments_and_crlf() {
        assert_eq!(SseParser::default().push(STREAM.as_bytes()), expected());
    }

    #[test]
    fn an_unfinished_event_is_not_dispatched() {
        let mut parser = SseParser::default();
        assert!(parser.push(b"data: half").is_empty());
        assert!(parser.push(b"\n").is_empty());
        assert_eq!(parser.push(b"\n").len(), 1);
    }

    #[test]
    fn lines_keep_multibyte_characters_across_chunks() {
        let mut lines = LineBuffer::default();
        let text = "héllo\n{\"k\":\"ü\"}\npartial";
        let bytes = text.as_bytes();
        let mut got = lines.push(&bytes[..2]);
        got.extend(lines.push(&bytes[2..]));
        assert_eq!(got, vec!["héllo".to_owned(), "{\"k\":\"ü\"}".to_owned()]);
        assert_eq!(lines.take_rest().as_deref(), Some("partial"));
        assert_eq!(lines.take_rest(), None);
    }

    proptest! {
        #[test]
        fn chunking_never_changes_the_events(cuts in proptest::collection::vec(0..STREAM.len(), 0..12)) {
            let mut cuts = cuts;
            cuts.sort_unstable();
            let bytes = STREAM.as_bytes();
            let mut parser = SseParser::default();
            let mut events = Vec::new();
            let mut start = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                events.extend(parser.push(&bytes[start..cut]));
                start = cut;
            }
            prop_assert_eq!(events, expected());
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut parser = SseParser::default();
            let _ = parser.push(&bytes);
        }
    }
}
