//! UTC days and timestamps: log and notes files are per UTC day. Calendar arithmetic is jiff's.

use jiff::Timestamp;

/// `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn timestamp(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The UTC day of `at`, `YYYY-MM-DD`.
pub(crate) fn day(at: Timestamp) -> String {
    at.strftime("%Y-%m-%d").to_string()
}

#[cfg(feature = "coordination")]
/// A `YYYY-MM-DD` argument that names a real day, written back the same way; `None` for anything else.
pub(crate) fn parse_day(text: &str) -> Option<String> {
    let shaped = text.len() == 10 && text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-';
    shaped.then(|| text.parse::<jiff::civil::Date>().ok()).flatten().map(|date| date.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        let at = |ms: i64| Timestamp::from_millisecond(ms).unwrap();
        assert_eq!(timestamp(at(0)), "1970-01-01T00:00:00Z");
        assert_eq!(day(at(951_782_400_000)), "2000-02-29");
        assert_eq!(timestamp(at(1_796_000_000_000)), "2026-11-30T00:53:20Z");
    }

    #[cfg(feature = "coordination")]
    #[test]
    fn only_real_days_are_days() {
        assert_eq!(parse_day("2026-11-30").as_deref(), Some("2026-11-30"));
        assert_eq!(parse_day("2024-02-29").as_deref(), Some("2024-02-29"));
        for bad in ["2026-99-99", "2026-02-30", "2025-02-29", "2026-1-30", "20261130", "yesterday!", ""] {
            assert_eq!(parse_day(bad), None, "{bad}");
        }
    }
}
