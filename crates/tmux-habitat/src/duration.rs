//! The workspace's one duration grammar for command lines and environment variables (`clive --timeout`,
//! `CLIVE_RETENTION`, `lane-send --timeout`): humantime's units, and a bare number is seconds.

use std::time::Duration;

/// A duration that could not be read, with the hint to write it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason} (write seconds as a number, 90, or with a unit: 500ms, 90s, 30m, 2h, 1h 30m)")]
pub struct InvalidDuration {
    /// What was wrong with it.
    pub reason: String,
}

/// Reads a duration: a bare number is seconds (`90`, `1.5`), as `timeout 90` and `sleep 90` read it; else
/// humantime's grammar (`500ms`, `90s`, `30m`, `2h`, `1d`, `1h 30m`).
///
/// ```
/// use std::time::Duration;
/// use tmux_habitat::parse_duration;
/// assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
/// assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
/// assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
/// assert!(parse_duration("soon").unwrap_err().to_string().contains("90s"));
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, InvalidDuration> {
    let text = text.trim();
    let is_number = !text.is_empty()
        && text.chars().all(|c| c.is_ascii_digit() || c == '.')
        && text.chars().filter(|&c| c == '.').count() <= 1
        && text.chars().any(|c| c.is_ascii_digit());
    if is_number {
        return text
            .parse::<f64>()
            .ok()
            .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
            .ok_or_else(|| InvalidDuration { reason: format!("`{text}` is too large") });
    }
    humantime::parse_duration(text).map_err(|e| InvalidDuration { reason: format!("`{text}`: {e}") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bare_numbers_are_seconds_and_units_still_work() {
        for (text, seconds) in
            [("90", 90.0), (" 90 ", 90.0), ("0", 0.0), ("1.5", 1.5), ("90s", 90.0), ("500ms", 0.5), ("1h 30m", 5400.0)]
        {
            assert_eq!(parse_duration(text), Ok(Duration::from_secs_f64(seconds)), "{text}");
        }
        for text in ["", "soon", "1.2.3", ".", "-5", "90 parsecs", "99999999999999999999999999"] {
            assert!(parse_duration(text).is_err(), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn a_bare_number_is_that_many_seconds(seconds in 0u64..10_000_000) {
            prop_assert_eq!(parse_duration(&seconds.to_string()), Ok(Duration::from_secs(seconds)));
            prop_assert_eq!(parse_duration(&format!("{seconds}s")), Ok(Duration::from_secs(seconds)));
        }
    }
}
