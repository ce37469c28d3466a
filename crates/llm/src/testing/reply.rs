//! A scripted reply of the fake server.

use std::time::Duration;

/// What the fake server answers to one request.
#[derive(Debug, Clone)]
pub struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) chunks: Vec<Vec<u8>>,
    pub(crate) streamed: bool,
    pub(crate) chunk_delay: Duration,
    pub(crate) headers_delay: Duration,
    pub(crate) cut: bool,
}

impl Reply {
    /// A JSON body with `status` (use the `wire` builders for bodies and errors).
    pub fn json(status: u16, body: serde_json::Value) -> Self {
        Reply {
            status,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            chunks: vec![body.to_string().into_bytes()],
            streamed: false,
            chunk_delay: Duration::ZERO,
            headers_delay: Duration::ZERO,
            cut: false,
        }
    }

    /// A `text/event-stream` body sent frame by frame (each item a whole frame ending in a blank line).
    pub fn sse(frames: Vec<String>) -> Self {
        Reply {
            status: 200,
            headers: vec![
                ("content-type".to_owned(), "text/event-stream".to_owned()),
                ("cache-control".to_owned(), "no-cache".to_owned()),
            ],
            chunks: frames.into_iter().map(String::into_bytes).collect(),
            streamed: true,
            chunk_delay: Duration::ZERO,
            headers_delay: Duration::ZERO,
            cut: false,
        }
    }

    /// An `application/x-ndjson` body sent one JSON line per chunk (Ollama's native stream).
    pub fn ndjson(lines: Vec<serde_json::Value>) -> Self {
        let mut reply = Reply::sse(lines.into_iter().map(|line| format!("{line}\n")).collect());
        reply.headers = vec![("content-type".to_owned(), "application/x-ndjson".to_owned())];
        reply
    }

    /// Adds a response header (e.g. `retry-after`, `x-should-retry`, `request-id`).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits this long before each chunk of a stream.
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Waits this long before sending the status and headers.
    pub fn headers_delay(mut self, delay: Duration) -> Self {
        self.headers_delay = delay;
        self
    }

    /// Sends only the first `chunks` chunks, then breaks the connection (no proper end of the body).
    pub fn cut_after(mut self, chunks: usize) -> Self {
        self.chunks.truncate(chunks);
        self.streamed = true;
        self.cut = true;
        self
    }

    /// Re-splits a stream's bytes into chunks of `size` bytes, so frames and lines arrive split anywhere.
    pub fn rechunk(mut self, size: usize) -> Self {
        let bytes: Vec<u8> = self.chunks.concat();
        self.chunks = bytes.chunks(size.max(1)).map(<[u8]>::to_vec).collect();
        self
    }
}
