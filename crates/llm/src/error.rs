//! The crate's one error type.

use std::time::Duration;

use crate::config::ProviderKind;

/// Everything that can go wrong when configuring or calling a chat model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No provider was configured, neither explicitly nor through the environment.
    #[error(
        "no LLM provider is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or OLLAMA_HOST \
         (or OPENAI_BASE_URL for any OpenAI-compatible server)"
    )]
    NotConfigured,

    /// A provider that needs an API key has none.
    #[error("the {provider} provider needs an API key: set {variable}")]
    MissingApiKey {
        /// The provider.
        provider: ProviderKind,
        /// The environment variable that holds its key.
        variable: &'static str,
    },

    /// A setting (base URL, provider name, header value, price table, ...) is malformed.
    #[error("invalid {setting} {value:?}: {reason}")]
    InvalidSetting {
        /// What the setting is, e.g. `"OLLAMA_HOST"` or `"base URL"`.
        setting: String,
        /// The rejected value (never an API key).
        value: String,
        /// Why it was rejected and what to do.
        reason: String,
    },

    /// The request asks for something this provider cannot do.
    #[error("the {provider} provider does not support {feature}")]
    Unsupported {
        /// The provider.
        provider: ProviderKind,
        /// The unsupported feature.
        feature: &'static str,
    },

    /// The provider answered with an HTTP error status.
    #[error("{provider} returned HTTP {status} {kind}: {message}")]
    Api {
        /// The provider.
        provider: ProviderKind,
        /// The HTTP status code.
        status: u16,
        /// The provider's own error type (e.g. `rate_limit_error`, `overloaded_error`, `invalid_request_error`).
        kind: String,
        /// The provider's own error message.
        message: String,
        /// The provider's request id (`request-id` / `x-request-id`), for support tickets.
        request_id: Option<String>,
    },

    /// The provider reported an error inside a stream that had started with HTTP 200.
    #[error("{provider} reported an error mid-stream: {kind}: {message}")]
    StreamError {
        /// The provider.
        provider: ProviderKind,
        /// The provider's own error type.
        kind: String,
        /// The provider's own error message.
        message: String,
    },

    /// The provider could not be reached, or the connection broke.
    #[error("could not talk to {provider} at {url}: {source}")]
    Transport {
        /// The provider.
        provider: ProviderKind,
        /// The URL that was requested.
        url: String,
        /// The underlying HTTP error.
        #[source]
        source: reqwest::Error,
    },

    /// Nothing listens at the loopback address of a model server on this machine (the connection was refused):
    /// it is not running. Never retried: starting it is what helps.
    #[error("nothing listens at {url} (connection refused): start {start}")]
    LocalServerDown {
        /// The provider.
        provider: ProviderKind,
        /// The URL that was requested.
        url: String,
        /// What to start, in words.
        start: String,
    },

    /// The provider did not answer (or a stream went silent) within the deadline.
    #[error("{provider} did not answer within {after:?} ({what}); raise the timeout or check the server")]
    Timeout {
        /// The provider.
        provider: ProviderKind,
        /// Which deadline passed: `"request"` or `"stream idle"`.
        what: &'static str,
        /// The deadline.
        after: Duration,
    },

    /// A stream ended before the provider's end-of-reply marker.
    #[error("{provider} stream ended early, before {expected}; the reply is incomplete")]
    StreamTruncated {
        /// The provider.
        provider: ProviderKind,
        /// The marker that never came, e.g. `"message_stop"` or `"data: [DONE]"`.
        expected: &'static str,
    },

    /// The provider sent something that does not follow its wire format.
    #[error("{provider} sent a malformed reply: {reason}")]
    Protocol {
        /// The provider.
        provider: ProviderKind,
        /// What was wrong.
        reason: String,
    },

    /// The run's token budget cannot cover this call (see [`crate::TokenBudget`]); nothing was sent.
    #[error(
        "the token budget of {limit} is spent: {spent} used, {in_flight} in flight, this call needs up to {needed}; \
         raise the limit (clive: --max-tokens) or give a smaller task"
    )]
    BudgetExhausted {
        /// The budget's limit.
        limit: u64,
        /// Tokens already spent.
        spent: u64,
        /// Tokens reserved by calls in flight.
        in_flight: u64,
        /// What this call would have reserved.
        needed: u64,
    },
}

impl Error {
    /// True when retrying the same request later may succeed (rate limits, overload, server errors, timeouts,
    /// broken connections).
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Api { status, kind, .. } => status_is_retryable(*status) || kind == "overloaded_error",
            Error::StreamError { kind, .. } => {
                matches!(kind.as_str(), "overloaded_error" | "api_error" | "rate_limit_error" | "timeout_error")
            }
            Error::Transport { .. } | Error::Timeout { .. } | Error::StreamTruncated { .. } => true,
            _ => false,
        }
    }
}

/// What to start when nothing listens at `provider`'s loopback address.
pub(crate) fn what_to_start(provider: ProviderKind) -> String {
    let (variable, _) = provider.base_url_source();
    match provider {
        ProviderKind::Ollama | ProviderKind::OllamaNative => {
            format!("Ollama (`ollama serve`), or point {variable} at a running server")
        }
        ProviderKind::OpenAiCompatible => format!(
            "the model server {variable} names (llama.cpp's `llama-server --port <port>`, vLLM, LM Studio), or point \
             {variable} at a running one"
        ),
        _ => format!("the server {variable} names, or unset {variable} to reach {provider} itself"),
    }
}

/// The HTTP statuses worth retrying: 408, 409, 429 and every 5xx (including Anthropic's 529 overloaded).
pub(crate) fn status_is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

/// Shorthand for this crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
