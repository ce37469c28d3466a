//! Durations as people write them on a command line: `90`, `90s`, `30m`, `2h`, `500ms`.

use std::time::Duration;

use crate::error::CliError;

/// Parses `500ms`, `90s`, `30m`, `2h`, `1d`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, CliError> {
    let invalid = || CliError::Invalid {
        what: "duration",
        value: text.to_owned(),
        reason: "expected a number with an optional unit ms, s, m, h or d (e.g. 90s, 30m)".into(),
    };
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !c.is_ascii_digit()).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let number: u64 = number.parse().map_err(|_| invalid())?;
    let millis_per_unit = match unit.trim() {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(invalid()),
    };
    number.checked_mul(millis_per_unit).map(Duration::from_millis).ok_or_else(invalid)
}

/// The clap value parser for duration options.
pub(crate) fn clap_duration(text: &str) -> Result<Duration, String> {
    parse_duration(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("30m").unwrap(), Duration::from_secs(1800));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        for bad in ["", "m", "1.5m", "10 minutes", "-1", "99999999999999999999"] {
            let err = parse_duration(bad).unwrap_err().to_string();
            assert!(err.contains("invalid duration"), "{bad}: {err}");
        }
    }
}
