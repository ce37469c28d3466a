//! UTC calendar dates and timestamps from the system clock (log files are per UTC day).

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC timestamp broken into fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    /// Year.
    pub year: i64,
    /// Month 1–12.
    pub month: u32,
    /// Day 1–31.
    pub day: u32,
    /// Seconds since midnight.
    pub second_of_day: u32,
    /// Milliseconds since the Unix epoch.
    pub unix_ms: u128,
}

impl UtcTime {
    /// Now.
    pub fn now() -> Self {
        Self::from_unix_ms(SystemTime::now().duration_since(UNIX_EPOCH).map(|since| since.as_millis()).unwrap_or(0))
    }

    /// From milliseconds since the epoch.
    pub fn from_unix_ms(unix_ms: u128) -> Self {
        let seconds = i64::try_from(unix_ms / 1000).unwrap_or(i64::MAX);
        let days = seconds.div_euclid(86_400);
        let second_of_day = u32::try_from(seconds.rem_euclid(86_400)).unwrap_or(0);
        let (year, month, day) = civil_from_days(days);
        Self { year, month, day, second_of_day, unix_ms }
    }

    /// `YYYY-MM-DD`.
    pub fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn timestamp(&self) -> String {
        let (hour, minute, second) = (self.second_of_day / 3600, self.second_of_day / 60 % 60, self.second_of_day % 60);
        format!("{}T{hour:02}:{minute:02}:{second:02}Z", self.date())
    }
}

/// Checks a `YYYY-MM-DD` argument.
pub fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes.iter().enumerate().all(|(index, byte)| index == 4 || index == 7 || byte.is_ascii_digit())
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, u32::try_from(month).unwrap_or(1), u32::try_from(day).unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(UtcTime::from_unix_ms(0).timestamp(), "1970-01-01T00:00:00Z");
        assert_eq!(UtcTime::from_unix_ms(951_782_400_000).date(), "2000-02-29");
        assert_eq!(UtcTime::from_unix_ms(1_796_000_000_000).timestamp(), "2026-11-30T00:53:20Z");
        assert!(is_date("2026-11-30") && !is_date("2026-1-30") && !is_date("yesterday!"));
    }
}
