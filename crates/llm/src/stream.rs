//! Turns a streamed HTTP body into a [`ChatStream`] through a provider's sans-IO decoder.

use std::collections::VecDeque;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;

use crate::config::ProviderKind;
use crate::error::{Error, Result};
use crate::response::{ChatStream, StreamEvent};

/// A provider's stream format, fed bytes as they arrive.
pub(crate) trait Decoder: Send + 'static {
    /// Adds bytes, appending the events they complete to `events`; fails with the error the provider reported
    /// (events appended before it are still delivered).
    fn feed(&mut self, bytes: &[u8], events: &mut Vec<StreamEvent>) -> Result<()>;

    /// The body ended: appends the last events, or fails with [`Error::StreamTruncated`] if the end marker never
    /// came.
    fn finish(&mut self, events: &mut Vec<StreamEvent>) -> Result<()>;
}

struct State<D> {
    body: BoxStream<'static, reqwest::Result<Vec<u8>>>,
    decoder: D,
    queue: VecDeque<Result<StreamEvent>>,
    body_done: bool,
    closed: bool,
    provider: ProviderKind,
    url: String,
    idle: Duration,
}

/// Streams `response` through `decoder`. Each chunk must arrive within `idle` of the previous one. The stream ends
/// after [`StreamEvent::End`] or the first error.
pub(crate) fn decode_stream<D: Decoder>(
    response: reqwest::Response,
    decoder: D,
    provider: ProviderKind,
    idle: Duration,
) -> ChatStream {
    let url = response.url().to_string();
    let body = response.bytes_stream().map(|chunk| chunk.map(|bytes| bytes.to_vec())).boxed();
    let state =
        State { body, decoder, queue: VecDeque::new(), body_done: false, closed: false, provider, url, idle };
    Box::pin(futures_util::stream::unfold(state, |mut state| async move {
        loop {
            if state.closed {
                return None;
            }
            if let Some(item) = state.queue.pop_front() {
                if matches!(item, Err(_) | Ok(StreamEvent::End(_))) {
                    state.closed = true;
                }
                return Some((item, state));
            }
            if state.body_done {
                return None;
            }
            match tokio::time::timeout(state.idle, state.body.next()).await {
                Err(_) => {
                    let error = Error::Timeout { provider: state.provider, what: "stream idle", after: state.idle };
                    state.queue.push_back(Err(error));
                }
                Ok(Some(Ok(bytes))) => {
                    let mut events = Vec::new();
                    let result = state.decoder.feed(&bytes, &mut events);
                    enqueue(&mut state.queue, events, result);
                }
                Ok(Some(Err(source))) => {
                    let error = Error::Transport { provider: state.provider, url: state.url.clone(), source };
                    state.queue.push_back(Err(error));
                }
                Ok(None) => {
                    state.body_done = true;
                    let mut events = Vec::new();
                    let result = state.decoder.finish(&mut events);
                    enqueue(&mut state.queue, events, result);
                }
            }
        }
    }))
}

fn enqueue(queue: &mut VecDeque<Result<StreamEvent>>, events: Vec<StreamEvent>, result: Result<()>) {
    queue.extend(events.into_iter().map(Ok));
    if let Err(error) = result {
        queue.push_back(Err(error));
    }
}
