//! Deadlines and the retry policy: exponential backoff with jitter, honouring `retry-after`.

use std::time::Duration;

use rand::Rng;

/// Deadlines for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the TCP/TLS connection.
    pub connect: Duration,
    /// One attempt of a request: until the whole reply (non-streaming) or the response headers (streaming).
    pub request: Duration,
    /// The longest silence allowed between two chunks of a stream.
    pub stream_idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            request: Duration::from_secs(300),
            stream_idle: Duration::from_secs(90),
        }
    }
}

/// When to retry a failed attempt and how long to wait.
///
/// Retried: connection errors and timeouts, HTTP 408, 409, 429 and 5xx (Anthropic's 529 `overloaded_error`
/// included), unless the server says `x-should-retry: false`. Never retried: other 4xx, and streams that already
/// delivered text. The wait is the server's `retry-after-ms` / `retry-after` when given (up to
/// [`RetryPolicy::max_retry_after`]; a longer request gives up at once), else `initial_backoff · 2^n` capped at
/// `max_backoff`, with jitter between half and all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// The first backoff.
    pub initial_backoff: Duration,
    /// The largest backoff.
    pub max_backoff: Duration,
    /// The longest `retry-after` that is waited out.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy { max_retries: 0, ..RetryPolicy::default() }
    }

    /// Millisecond backoffs, for tests.
    pub fn fast_for_tests() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(5),
            max_retry_after: Duration::from_secs(2),
        }
    }

    /// The jittered exponential backoff before retry number `retry` (0-based).
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(30));
        let full = self.initial_backoff.saturating_mul(factor).min(self.max_backoff);
        let half = full / 2;
        half + rand::rng().random_range(Duration::ZERO..=full - half)
    }
}

/// Reads `retry-after-ms` (OpenAI) or `retry-after` in seconds from response headers. HTTP-date values are
/// ignored (no provider we talk to sends them), falling back to the backoff.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|value| value.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    text("retry-after").and_then(|value| value.parse::<f64>().ok()).and_then(|s| Duration::try_from_secs_f64(s).ok())
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderMap, HeaderValue};

    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        for _ in 0..50 {
            let first = policy.backoff(0);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100), "{first:?}");
            let third = policy.backoff(2);
            assert!(third >= Duration::from_millis(200) && third <= Duration::from_millis(400), "{third:?}");
            assert!(policy.backoff(40) <= Duration::from_millis(1000));
        }
    }

    #[test]
    fn retry_after_prefers_milliseconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
        let mut dated = HeaderMap::new();
        dated.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&dated), None);
    }
}
