//! One HTTP client per provider: POSTs JSON with deadlines and retries, and maps error replies to [`Error::Api`].

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::time::{Instant, timeout_at};

use crate::config::{ProviderConfig, ProviderKind};
use crate::error::{Error, Result, status_is_retryable};
use crate::retry::{RetryPolicy, Timeouts, retry_after};

/// The shared HTTP machinery of every provider client.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    client: reqwest::Client,
    provider: ProviderKind,
    headers: HeaderMap,
    pub(crate) timeouts: Timeouts,
    retry: RetryPolicy,
}

/// A failed attempt: the error, and what the server said about retrying.
struct Failure {
    error: Error,
    retryable: bool,
    retry_after: Option<Duration>,
}

/// What a successful attempt delivers.
enum Delivery {
    Body(Vec<u8>),
    Stream(reqwest::Response),
}

impl Transport {
    /// Builds the client. `secret_headers` (the API key) are marked sensitive so that no `Debug` shows them.
    pub(crate) fn new(config: &ProviderConfig, secret_headers: &[(&str, String)]) -> Result<Self> {
        let mut headers = HeaderMap::new();
        for (name, value) in secret_headers {
            let mut value = header_value(name, value, true)?;
            value.set_sensitive(true);
            headers.insert(header_name(name)?, value);
        }
        for (name, value) in &config.extra_headers {
            headers.insert(header_name(name)?, header_value(name, value, false)?);
        }
        let mut builder = reqwest::Client::builder()
            .connect_timeout(config.timeouts.connect)
            .user_agent(concat!("clive-llm/", env!("CARGO_PKG_VERSION")));
        // A server on this machine (Ollama, llama.cpp, a test fake) is never reached through an HTTP proxy.
        if config.base_url.as_deref().is_some_and(is_loopback) {
            builder = builder.no_proxy();
        }
        let client =
            builder.build().map_err(|source| Error::Transport { provider: config.kind, url: String::new(), source })?;
        Ok(Transport { client, provider: config.kind, headers, timeouts: config.timeouts, retry: config.retry })
    }

    /// POSTs `body` and returns the parsed JSON reply, retrying transient failures.
    pub(crate) async fn post_json(&self, url: &str, body: &Value) -> Result<Value> {
        match self.send_with_retries(url, body, false).await? {
            Delivery::Body(bytes) => serde_json::from_slice(&bytes).map_err(|error| Error::Protocol {
                provider: self.provider,
                reason: format!("reply is not JSON ({error}): {}", preview(&bytes)),
            }),
            Delivery::Stream(_) => Err(Error::Protocol { provider: self.provider, reason: "unexpected stream".into() }),
        }
    }

    /// POSTs `body` and returns the response once its headers say 2xx, retrying transient failures until then.
    /// The body is left to the caller to stream.
    pub(crate) async fn post_stream(&self, url: &str, body: &Value) -> Result<reqwest::Response> {
        match self.send_with_retries(url, body, true).await? {
            Delivery::Stream(response) => Ok(response),
            Delivery::Body(_) => Err(Error::Protocol { provider: self.provider, reason: "unexpected body".into() }),
        }
    }

    async fn send_with_retries(&self, url: &str, body: &Value, stream: bool) -> Result<Delivery> {
        let mut retry = 0;
        loop {
            let failure = match self.attempt(url, body, stream).await {
                Ok(delivery) => return Ok(delivery),
                Err(failure) => failure,
            };
            if !failure.retryable || retry >= self.retry.max_retries {
                return Err(failure.error);
            }
            let delay = match failure.retry_after {
                Some(wait) if wait > self.retry.max_retry_after => return Err(failure.error),
                Some(wait) => wait,
                None => self.retry.backoff(retry),
            };
            tracing::warn!(provider = %self.provider, error = %failure.error, ?delay, retry = retry + 1, "retrying");
            tokio::time::sleep(delay).await;
            retry += 1;
        }
    }

    async fn attempt(&self, url: &str, body: &Value, stream: bool) -> Result<Delivery, Failure> {
        let deadline = Instant::now() + self.timeouts.request;
        let timed_out = || Failure {
            error: Error::Timeout { provider: self.provider, what: "request", after: self.timeouts.request },
            retryable: true,
            retry_after: None,
        };
        let transport = |source: reqwest::Error| {
            // A refused connection on this machine means the server is not running: retrying only makes the
            // user wait (3 retries in each of the router's two tiers cost about 5 s).
            if is_loopback(url) && is_connection_refused(&source) {
                let start = crate::error::what_to_start(self.provider);
                let error = Error::LocalServerDown { provider: self.provider, url: url.to_owned(), start };
                return Failure { error, retryable: false, retry_after: None };
            }
            Failure {
                retryable: !source.is_builder(),
                error: Error::Transport { provider: self.provider, url: url.to_owned(), source },
                retry_after: None,
            }
        };
        tracing::debug!(provider = %self.provider, url, stream, "POST");
        let request = self.client.post(url).headers(self.headers.clone()).json(body).send();
        let response = timeout_at(deadline, request).await.map_err(|_| timed_out())?.map_err(transport)?;
        let status = response.status();
        if status.is_success() {
            if stream {
                return Ok(Delivery::Stream(response));
            }
            let bytes = timeout_at(deadline, response.bytes()).await.map_err(|_| timed_out())?.map_err(transport)?;
            return Ok(Delivery::Body(bytes.to_vec()));
        }
        let headers = response.headers().clone();
        // The error body is best effort: a broken one still leaves the status to report.
        let bytes = match timeout_at(deadline, response.bytes()).await {
            Ok(Ok(bytes)) => bytes.to_vec(),
            _ => Vec::new(),
        };
        let (kind, message) = serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|value| error_in_json(&value))
            .unwrap_or_else(|| (format!("http_{}", status.as_u16()), preview(&bytes)));
        let header_text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::to_owned);
        let request_id = header_text("request-id").or_else(|| header_text("x-request-id"));
        let retryable = match header_text("x-should-retry").as_deref() {
            Some("true") => true,
            Some("false") => false,
            _ => status_is_retryable(status.as_u16()) || kind == "overloaded_error",
        };
        Err(Failure {
            error: Error::Api { provider: self.provider, status: status.as_u16(), kind, message, request_id },
            retryable,
            retry_after: retry_after(&headers),
        })
    }
}

/// Finds a provider error in a JSON body or stream item, in any of the shapes in use:
/// Anthropic `{"type":"error","error":{"type","message"}}`, OpenAI `{"error":{"type","code","message"}}`,
/// OpenRouter `{"error":{"code":429,"message"}}`, Ollama `{"error":"message"}`.
pub(crate) fn error_in_json(value: &Value) -> Option<(String, String)> {
    match value.get("error")? {
        Value::String(message) => Some(("error".to_owned(), message.clone())),
        Value::Object(error) => {
            let as_text = |value: &Value| match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                _ => None,
            };
            let kind = error.get("type").and_then(as_text).or_else(|| error.get("code").and_then(as_text));
            let message =
                error.get("message").and_then(as_text).unwrap_or_else(|| Value::Object(error.clone()).to_string());
            Some((kind.unwrap_or_else(|| "error".to_owned()), message))
        }
        _ => None,
    }
}

/// The start of a body, for error messages.
pub(crate) fn preview(bytes: &[u8]) -> String {
    const LIMIT: usize = 500;
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None if text.is_empty() => "(empty body)".to_owned(),
        None => text.into_owned(),
    }
}

/// Whether the connection was refused (nothing listens at the address), anywhere in the error's chain.
fn is_connection_refused(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if current.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        {
            return true;
        }
        source = current.source();
    }
    false
}

fn is_loopback(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else { return false };
    // IPv6 hosts come bracketed: `[::1]`.
    url.host_str().is_some_and(|host| {
        host == "localhost"
            || host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    })
}

fn header_name(name: &str) -> Result<HeaderName> {
    HeaderName::from_bytes(name.as_bytes()).map_err(|error| Error::InvalidSetting {
        setting: "header name".to_owned(),
        value: name.to_owned(),
        reason: error.to_string(),
    })
}

fn header_value(name: &str, value: &str, secret: bool) -> Result<HeaderValue> {
    HeaderValue::from_str(value).map_err(|_| Error::InvalidSetting {
        setting: format!("value of header {name}"),
        value: if secret { "***".to_owned() } else { value.to_owned() },
        reason: "header values must be visible ASCII; check for stray newlines or quotes".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn error_shapes_of_every_provider() {
        let anthropic = json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}});
        assert_eq!(error_in_json(&anthropic), Some(("overloaded_error".into(), "Overloaded".into())));
        let openai =
            json!({"error":{"message":"bad key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}});
        assert_eq!(error_in_json(&openai), Some(("invalid_request_error".into(), "bad key".into())));
        let openrouter = json!({"error":{"code":402,"message":"no credits"}});
        assert_eq!(error_in_json(&openrouter), Some(("402".into(), "no credits".into())));
        let ollama = json!({"error":"model \"x\" not found"});
        assert_eq!(error_in_json(&ollama), Some(("error".into(), "model \"x\" not found".into())));
        assert_eq!(error_in_json(&json!({"choices":[]})), None);
    }

    #[test]
    fn loopback_hosts_are_recognised() {
        for url in ["http://127.0.0.1:8080/v1", "http://localhost:11434", "http://[::1]:9"] {
            assert!(is_loopback(url), "{url}");
        }
        for url in ["https://api.openai.com/v1", "http://10.0.0.2:11434", "not a url"] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn preview_cuts_long_bodies() {
        assert_eq!(preview(b""), "(empty body)");
        assert!(preview("é".repeat(600).as_bytes()).ends_with('…'));
    }
}
