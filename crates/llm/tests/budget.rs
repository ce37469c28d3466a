//! The token budget against the fake server: calls in flight hold their reservation, failed calls count, a call
//! that does not fit is refused before anything is sent.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

use std::sync::Arc;
use std::time::Duration;

use clive_models::testing::{FakeServer, Reply, Tokens, wire};
use clive_models::{Budgeted, ChatModel, ChatRequest, Error, ProviderKind, TokenBudget};
use futures_util::StreamExt;

fn request(max_tokens: u32) -> ChatRequest {
    ChatRequest::new("hello there").max_tokens(max_tokens)
}

#[tokio::test]
async fn a_call_in_flight_holds_its_reservation_and_settles_to_reported_usage() {
    let server = FakeServer::start().await.unwrap();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    server.push(
        Reply::json(200, wire::openai::completion("ok", "stop", Tokens::new(40, 2)))
            .headers_delay(Duration::from_millis(300)),
    );
    let budget = TokenBudget::new(1000);
    let model =
        Arc::new(Budgeted::new(clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap(), budget.clone()));
    let call = {
        let model = model.clone();
        tokio::spawn(async move {
            let reply = model.chat(&request(500)).await;
            let _ = release.send(());
            reply
        })
    };
    // While the first call is in flight its reservation (prompt estimate + 500) is held, so a second call of
    // 500 more does not fit and never reaches the server.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while budget.state().reserved == 0 {
        assert!(tokio::time::Instant::now() < deadline, "the first call never reserved");
        tokio::task::yield_now().await;
    }
    assert!(budget.state().reserved > 500, "{:?}", budget.state());
    let refused = model.chat(&request(500)).await.unwrap_err();
    assert!(matches!(refused, Error::BudgetExhausted { limit: 1000, .. }), "{refused:?}");
    assert!(refused.to_string().contains("in flight"), "{refused}");
    released.await.unwrap();
    call.await.unwrap().unwrap();
    assert_eq!(server.requests().len(), 1, "the refused call reached the server");
    let state = budget.state();
    assert_eq!((state.spent, state.reserved, state.refused_calls), (42, 0, 1));
}

#[tokio::test]
async fn failed_calls_spend_their_estimated_prompt() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(400, wire::openai::error_body("invalid_request_error", "no")));
    let budget = TokenBudget::new(10_000);
    let model = Budgeted::new(clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap(), budget.clone());
    let request = request(100);
    model.chat(&request).await.unwrap_err();
    let state = budget.state();
    assert_eq!(state.reserved, 0);
    assert_eq!(state.spent, clive_models::estimate_prompt_tokens(&request));
    assert!(state.spent > 0);
}

#[tokio::test]
async fn streams_settle_at_their_end_and_count_when_dropped_early() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::sse(wire::openai::stream(&["a", "b"], "stop", Tokens::new(10, 2))));
    server.push(
        Reply::sse(wire::openai::stream(&["abcdef"], "stop", Tokens::new(10, 2)))
            .chunk_delay(Duration::from_millis(200)),
    );
    let budget = TokenBudget::new(10_000);
    let model = Budgeted::new(clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap(), budget.clone());
    let reply = clive_models::collect_stream(model.chat_stream(&request(50)).await.unwrap()).await.unwrap();
    assert_eq!(reply.text, "ab");
    assert_eq!(budget.state().spent, 12);
    // A stream dropped before its end still spends its estimated prompt.
    let mut stream = model.chat_stream(&request(50)).await.unwrap();
    let _ = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
    drop(stream);
    let state = budget.state();
    assert_eq!(state.reserved, 0);
    assert!(state.spent >= 12 + clive_models::estimate_prompt_tokens(&request(50)), "{state:?}");
}
