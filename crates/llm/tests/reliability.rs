//! Retries, deadlines, provider errors, broken and truncated streams, cancellation; against the fake server.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

use std::time::{Duration, Instant};

use clive_models::testing::{FakeServer, Reply, Tokens, wire};
use clive_models::{ChatRequest, ChatStream, Error, ProviderKind, RetryPolicy, StreamEvent, Timeouts};
use futures_util::StreamExt;

/// Reads a stream to its end; returns the text received and the final error (panics if it ends well).
async fn expect_stream_error(mut stream: ChatStream) -> (String, Error) {
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        match event {
            Ok(StreamEvent::TextDelta(delta)) => text.push_str(&delta),
            Ok(StreamEvent::End(end)) => panic!("stream ended well: {end:?}"),
            Err(error) => {
                assert!(stream.next().await.is_none(), "nothing may follow an error");
                return (text, error);
            }
        }
    }
    panic!("stream ended without End or an error");
}

fn request() -> ChatRequest {
    ChatRequest::new("hi").max_tokens(16)
}

#[tokio::test]
async fn rate_limit_is_retried_after_the_servers_retry_after() {
    let server = FakeServer::start().await.unwrap();
    let limited = wire::anthropic::error_body("rate_limit_error", "slow down");
    server.push(Reply::json(429, limited).header("retry-after-ms", "150"));
    server.push(Reply::json(200, wire::anthropic::message("ok", "end_turn", Tokens::new(3, 1))));
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();

    let started = Instant::now();
    assert_eq!(model.chat(&request()).await.unwrap().text, "ok");

    // The test policy's own backoff is at most 5 ms, so waiting this long means retry-after was honoured.
    assert!(started.elapsed() >= Duration::from_millis(150), "{:?}", started.elapsed());
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn anthropic_overloaded_529_and_5xx_are_retried() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(529, wire::anthropic::error_body("overloaded_error", "Overloaded")));
    server.push(Reply::json(500, wire::anthropic::error_body("api_error", "Internal")));
    server.push(Reply::json(408, wire::anthropic::error_body("timeout_error", "slow")));
    server.push(Reply::json(200, wire::anthropic::message("ok", "end_turn", Tokens::new(3, 1))));
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();

    assert_eq!(model.chat(&request()).await.unwrap().text, "ok");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn retries_give_up_with_the_providers_own_error() {
    let server = FakeServer::start().await.unwrap();
    for _ in 0..4 {
        server.push(
            Reply::json(503, wire::openai::error_body("server_error", "try later")).header("x-request-id", "req_42"),
        );
    }
    let model = clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap();

    let error = model.chat(&request()).await.unwrap_err();

    assert_eq!(server.requests().len(), 4, "1 attempt + 3 retries");
    match &error {
        Error::Api { status: 503, kind, message, request_id, .. } => {
            assert_eq!(
                (kind.as_str(), message.as_str(), request_id.as_deref()),
                ("server_error", "try later", Some("req_42"))
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(error.is_transient());
}

#[tokio::test]
async fn other_client_errors_are_not_retried() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(400, wire::anthropic::error_body("invalid_request_error", "max_tokens: too large")));
    server.push(Reply::json(200, wire::anthropic::message("never", "end_turn", Tokens::new(3, 1))));
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();

    let error = model.chat(&request()).await.unwrap_err();

    assert_eq!(server.requests().len(), 1);
    assert_eq!(error.to_string(), "anthropic returned HTTP 400 invalid_request_error: max_tokens: too large");
    assert!(!error.is_transient());
}

#[tokio::test]
async fn server_can_forbid_a_retry_and_long_retry_after_gives_up_at_once() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(500, wire::openai::error_body("server_error", "no")).header("x-should-retry", "false"));
    server
        .push(Reply::json(429, wire::openai::error_body("rate_limit_exceeded", "wait")).header("retry-after", "3600"));
    let model = clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap();

    assert!(matches!(model.chat(&request()).await, Err(Error::Api { status: 500, .. })));
    assert!(matches!(model.chat(&request()).await, Err(Error::Api { status: 429, .. })));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn ollama_error_body_is_reported() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(404, wire::ollama::error("model \"nope\" not found, try pulling it first")));
    let model = clive_models::connect(server.config(ProviderKind::OllamaNative)).unwrap();

    let error = model.chat(&request()).await.unwrap_err();

    assert!(error.to_string().contains("model \"nope\" not found"), "{error}");
}

#[tokio::test]
async fn stream_failures_before_the_first_byte_are_retried() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(529, wire::anthropic::error_body("overloaded_error", "Overloaded")));
    server.push(Reply::sse(wire::anthropic::stream(&["ok"], "end_turn", Tokens::new(3, 1))));
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();

    let reply = clive_models::collect_stream(model.chat_stream(&request()).await.unwrap()).await.unwrap();

    assert_eq!(reply.text, "ok");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn anthropic_error_event_after_http_200_ends_the_stream() {
    let server = FakeServer::start().await.unwrap();
    let mut frames = wire::anthropic::stream(&["par", "tial"], "end_turn", Tokens::new(3, 2));
    frames.truncate(5); // message_start, block start, ping, two deltas
    frames.push(wire::anthropic::error_event("overloaded_error", "Overloaded"));
    server.push(Reply::sse(frames).chunk_delay(Duration::from_millis(2)));
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();

    let (text, error) = expect_stream_error(model.chat_stream(&request()).await.unwrap()).await;

    assert_eq!(text, "partial");
    assert_eq!(error.to_string(), "anthropic reported an error mid-stream: overloaded_error: Overloaded");
    assert!(error.is_transient());
    assert_eq!(server.requests().len(), 1, "a stream that delivered text is not retried");
}

#[tokio::test]
async fn openai_and_ollama_mid_stream_errors_end_the_stream() {
    let server = FakeServer::start().await.unwrap();
    let mut frames = wire::openai::stream(&["a"], "stop", Tokens::new(3, 1));
    frames.truncate(2);
    frames.push(wire::openai::error_chunk("server_error", "upstream died"));
    server.push(Reply::sse(frames));
    let mut lines = wire::ollama::stream(&["b"], "stop", Tokens::new(3, 1));
    lines.truncate(1);
    lines.push(wire::ollama::error("out of memory"));
    server.push(Reply::ndjson(lines));

    let openai = clive_models::connect(server.config(ProviderKind::OpenRouter)).unwrap();
    let (text, error) = expect_stream_error(openai.chat_stream(&request()).await.unwrap()).await;
    assert_eq!(
        (text.as_str(), error.to_string().as_str()),
        ("a", "openrouter reported an error mid-stream: server_error: upstream died")
    );

    let ollama = clive_models::connect(server.config(ProviderKind::OllamaNative)).unwrap();
    let (text, error) = expect_stream_error(ollama.chat_stream(&request()).await.unwrap()).await;
    assert_eq!(
        (text.as_str(), error.to_string().as_str()),
        ("b", "ollama-native reported an error mid-stream: error: out of memory")
    );
}

#[tokio::test]
async fn connection_cut_halfway_through_a_stream_is_an_error_not_an_end() {
    for kind in [ProviderKind::Anthropic, ProviderKind::OpenAi, ProviderKind::OllamaNative] {
        let server = FakeServer::start().await.unwrap();
        // Cut right after the chunk carrying "two".
        let reply = match kind {
            ProviderKind::Anthropic => {
                Reply::sse(wire::anthropic::stream(&["one", "two", "three"], "end_turn", Tokens::new(3, 3)))
                    .cut_after(5)
            }
            ProviderKind::OpenAi => {
                Reply::sse(wire::openai::stream(&["one", "two", "three"], "stop", Tokens::new(3, 3))).cut_after(3)
            }
            _ => Reply::ndjson(wire::ollama::stream(&["one", "two", "three"], "stop", Tokens::new(3, 3))).cut_after(2),
        };
        server.push(reply.chunk_delay(Duration::from_millis(1)));
        let model = clive_models::connect(server.config(kind)).unwrap();

        let (text, error) = expect_stream_error(model.chat_stream(&request()).await.unwrap()).await;

        assert_eq!(text, "onetwo", "{kind}");
        assert!(matches!(error, Error::Transport { .. } | Error::StreamTruncated { .. }), "{kind}: {error:?}");
        assert!(error.is_transient());
    }
}

#[tokio::test]
async fn a_stream_that_ends_without_its_end_marker_is_truncated() {
    let server = FakeServer::start().await.unwrap();
    let mut anthropic = wire::anthropic::stream(&["x"], "end_turn", Tokens::new(3, 1));
    anthropic.pop(); // no message_stop
    server.push(Reply::sse(anthropic));
    let mut openai = wire::openai::stream(&["x"], "stop", Tokens::new(3, 1));
    openai.pop(); // no [DONE]
    server.push(Reply::sse(openai));

    let (_, error) = expect_stream_error(
        clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap().chat_stream(&request()).await.unwrap(),
    )
    .await;
    assert!(matches!(error, Error::StreamTruncated { expected: "message_stop", .. }), "{error:?}");
    let (_, error) = expect_stream_error(
        clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap().chat_stream(&request()).await.unwrap(),
    )
    .await;
    assert!(matches!(error, Error::StreamTruncated { expected: "data: [DONE]", .. }), "{error:?}");
}

fn short_deadlines() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(1),
        request: Duration::from_millis(100),
        stream_idle: Duration::from_millis(100),
    }
}

#[tokio::test]
async fn request_and_stream_idle_deadlines() {
    let server = FakeServer::start().await.unwrap();
    server.push(
        Reply::json(200, wire::openai::completion("late", "stop", Tokens::new(1, 1)))
            .headers_delay(Duration::from_secs(5)),
    );
    server.push(
        Reply::sse(wire::openai::stream(&["a", "b"], "stop", Tokens::new(1, 1))).chunk_delay(Duration::from_secs(5)),
    );
    let config = server.config(ProviderKind::OpenAi).timeouts(short_deadlines()).retry(RetryPolicy::none());
    let model = clive_models::connect(config).unwrap();

    let error = model.chat(&request()).await.unwrap_err();
    assert!(matches!(error, Error::Timeout { what: "request", .. }), "{error:?}");
    let (_, error) = expect_stream_error(model.chat_stream(&request()).await.unwrap()).await;
    assert!(matches!(error, Error::Timeout { what: "stream idle", .. }), "{error:?}");
}

#[tokio::test]
async fn timeouts_are_retried_like_other_transient_failures() {
    let server = FakeServer::start().await.unwrap();
    server.push(
        Reply::json(200, wire::openai::completion("late", "stop", Tokens::new(1, 1)))
            .headers_delay(Duration::from_secs(5)),
    );
    server.push(Reply::json(200, wire::openai::completion("ok", "stop", Tokens::new(1, 1))));
    let model = clive_models::connect(server.config(ProviderKind::OpenAi).timeouts(short_deadlines())).unwrap();

    assert_eq!(model.chat(&request()).await.unwrap().text, "ok");
}

#[tokio::test]
async fn dropping_the_future_cancels_the_call() {
    let server = FakeServer::start().await.unwrap();
    server.push(
        Reply::json(200, wire::openai::completion("slow", "stop", Tokens::new(1, 1)))
            .headers_delay(Duration::from_secs(30)),
    );
    server.push(Reply::json(200, wire::openai::completion("next", "stop", Tokens::new(1, 1))));
    let model = clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap();

    let request = request();
    let outcome = tokio::time::timeout(Duration::from_millis(50), model.chat(&request)).await;
    assert!(outcome.is_err(), "the slow reply came back within 50 ms");
    assert_eq!(model.chat(&request).await.unwrap().text, "next");
}

/// A loopback port where nothing listens: bound, then closed.
fn closed_loopback_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn a_local_server_that_is_down_fails_at_once_saying_what_to_start() {
    for (kind, base, start) in [
        (ProviderKind::OpenAiCompatible, "/v1", "OPENAI_BASE_URL"),
        (ProviderKind::Ollama, "/v1", "ollama serve"),
        (ProviderKind::OllamaNative, "", "ollama serve"),
    ] {
        let port = closed_loopback_port();
        let mut config = clive_models::ProviderConfig::new(kind).retry(RetryPolicy::default());
        config.base_url = Some(format!("http://127.0.0.1:{port}{base}"));
        let model = clive_models::connect(config).unwrap();
        let started = Instant::now();
        let error = model.chat(&request()).await.unwrap_err();
        // The default policy's 3 retries would wait 0.5 + 1 + 2 s before giving up.
        assert!(started.elapsed() < Duration::from_millis(400), "{kind}: {:?}", started.elapsed());
        assert!(matches!(error, Error::LocalServerDown { .. }), "{kind}: {error:?}");
        assert!(!error.is_transient());
        let message = error.to_string();
        assert!(message.contains(&format!("127.0.0.1:{port}/")) && message.contains(start), "{message}");
    }
}

#[tokio::test]
async fn a_local_server_that_drops_connections_is_still_retried() {
    // Listening, but closing every connection at once: a transient failure, unlike a refused connection.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = accepted.clone();
    let server = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(socket);
        }
    });
    let mut config =
        clive_models::ProviderConfig::new(ProviderKind::OpenAiCompatible).retry(RetryPolicy::fast_for_tests());
    config.base_url = Some(format!("http://127.0.0.1:{port}/v1"));
    let error = clive_models::connect(config).unwrap().chat(&request()).await.unwrap_err();
    server.abort();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert!(error.is_transient());
    let retries = RetryPolicy::fast_for_tests().max_retries as usize;
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1 + retries);
}
