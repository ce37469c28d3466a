//! The real local model (llama.cpp's server with Qwen2.5-Coder-0.5B-Instruct, `scripts/local-llm`) for smoke
//! tests with loose assertions.
//!
//! The workspace's convention: a test that needs the model is
//! `#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]`, so `cargo test` never passes it
//! silently, and gets its server from [`local_model_config`], which panics with what to do when
//! `LOCAL_LLM_URL` is unset. `.ci/run` runs the normal suite, then `cargo test --workspace -- --ignored` with
//! the model started.
//!
//! ```no_run
//! # async fn demo() -> Result<(), clive_models::Error> {
//! use clive_models::{ChatRequest, ProviderKind};
//! let model = clive_models::connect(clive_models::testing::local_model_config(ProviderKind::OpenAiCompatible))?;
//! let reply = model.chat(&ChatRequest::new("Say hi.").max_tokens(8)).await?;
//! # Ok(()) }
//! ```

use std::time::Duration;

use crate::{ProviderConfig, ProviderKind, RetryPolicy, Timeouts};

/// The environment variable that holds the local model server's URL (what `scripts/local-llm/start.sh`
/// prints).
pub const LOCAL_LLM_URL: &str = "LOCAL_LLM_URL";

/// The local model server's URL from `LOCAL_LLM_URL`.
///
/// # Panics
///
/// When `LOCAL_LLM_URL` is unset or empty, naming how to start the server: a test that needs the model must
/// fail loudly, never pass without it.
pub fn local_llm_url() -> String {
    match std::env::var(LOCAL_LLM_URL) {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "this test needs the local model, and LOCAL_LLM_URL is unset: run scripts/local-llm/setup.sh once, then \
             export LOCAL_LLM_URL=\"$(scripts/local-llm/start.sh)\" and run `cargo test -- --ignored`"
        ),
    }
}

/// A client configuration for the local model in the dialect `kind` (`Anthropic` talks to `/v1/messages`,
/// the OpenAI kinds to `/v1/chat/completions`), with deadlines generous enough for a busy 2-core machine.
///
/// # Panics
///
/// As [`local_llm_url`], or when the URL is not one.
pub fn local_model_config(kind: ProviderKind) -> ProviderConfig {
    let url = local_llm_url();
    let base = match kind {
        ProviderKind::Anthropic => url,
        _ => format!("{}/v1", url.trim_end_matches('/')),
    };
    let timeouts = Timeouts {
        connect: Duration::from_secs(5),
        request: Duration::from_secs(120),
        stream_idle: Duration::from_secs(60),
    };
    #[allow(clippy::expect_used, reason = "a test helper: a malformed URL is the test's failure")]
    let config = ProviderConfig::new(kind).base_url(&base).expect("LOCAL_LLM_URL is not a URL");
    config.timeouts(timeouts).retry(RetryPolicy::fast_for_tests())
}
