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
    let state = State { body, decoder, queue: VecDeque::new(), body_done: false, closed: false, provider, url, idle };
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

#[cfg(all(test, feature = "testing"))]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::providers::anthropic::AnthropicDecoder;
    use crate::providers::ollama::OllamaDecoder;
    use crate::providers::openai::OpenAiDecoder;
    use crate::response::StreamEnd;
    use crate::testing::{Tokens, wire};

    /// Feeds `bytes` in pieces cut at `cuts`; returns the joined text and the end.
    fn decode(mut decoder: impl Decoder, bytes: &[u8], cuts: &[usize]) -> Result<(String, Option<StreamEnd>)> {
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut events = Vec::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            decoder.feed(&bytes[start..cut], &mut events)?;
            start = cut;
        }
        let mut text = String::new();
        let mut end = None;
        for event in events {
            match event {
                StreamEvent::TextDelta(delta) => text.push_str(&delta),
                StreamEvent::End(last) => end = Some(last),
            }
        }
        Ok((text, end))
    }

    const DELTAS: [&str; 4] = ["Grüße", ", ", "wörld", " ✓"];
    const TEXT: &str = "Grüße, wörld ✓";

    /// Decodes a whole stream cut at `cuts` and checks the text and usage.
    fn check(decoder: impl Decoder, body: &str, cuts: &[usize], tokens: Tokens) -> Result<(), TestCaseError> {
        let (text, end) =
            decode(decoder, body.as_bytes(), cuts).map_err(|error| TestCaseError::fail(error.to_string()))?;
        prop_assert_eq!(text, TEXT);
        prop_assert_eq!(end.map(|end| end.usage), Some(tokens.usage()));
        Ok(())
    }

    proptest! {
        #[test]
        fn decoding_ignores_chunk_boundaries(cuts in proptest::collection::vec(any::<usize>(), 0..16)) {
            let tokens = Tokens::new(40, 4).cached(16);
            let anthropic = wire::anthropic::stream(&DELTAS, "end_turn", tokens).concat();
            check(AnthropicDecoder::new(ProviderKind::Anthropic, "m".into()), &anthropic, &cuts, tokens)?;
            let openai = wire::openai::stream(&DELTAS, "stop", tokens).concat();
            check(OpenAiDecoder::new(ProviderKind::OpenAi, "m".into()), &openai, &cuts, tokens)?;
            let tokens = Tokens::new(40, 4);
            let ollama: String = wire::ollama::stream(&DELTAS, "stop", tokens).iter().map(|line| format!("{line}\n")).collect();
            check(OllamaDecoder::new(ProviderKind::OllamaNative, "m".into()), &ollama, &cuts, tokens)?;
        }

        #[test]
        fn decoders_never_panic_on_garbage(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut events = Vec::new();
            let _ = AnthropicDecoder::new(ProviderKind::Anthropic, "m".into()).feed(&bytes, &mut events);
            let _ = OpenAiDecoder::new(ProviderKind::OpenAi, "m".into()).feed(&bytes, &mut events);
            let _ = OllamaDecoder::new(ProviderKind::OllamaNative, "m".into()).feed(&bytes, &mut events);
        }
    }
}
