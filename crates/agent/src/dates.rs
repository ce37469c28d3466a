//! A date the goal writes in words ("5 March 2024", "March 5th, 2024", "Friday the 14th of March 2025"), and how
//! the same day is written in another form: in a file's (`05/Mar/2024` in an access log, `2024-03-05`), or in the
//! form a program's question shows (`Date (YYYY-MM-DD):`).
//!
//! A model told "on 5 March 2024" and shown a log of `[05/Mar/2024:…]` lines counted every day (Qwen2.5-Coder 1.5B,
//! its preview's first lines all of the day before); asked `Delivery date (YYYY-MM-DD):`, the 0.5B typed the
//! task's words. The shell knows the calendar: it says the date in the file's form, and answers such a question.

use std::sync::LazyLock;

use regex::Regex;

/// A day of the calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Day {
    /// The year, four digits.
    pub(crate) year: u32,
    /// The month, 1 to 12.
    pub(crate) month: u32,
    /// The day of the month, 1 to 31.
    pub(crate) day: u32,
}

/// The months' names; the first three letters of each are its short name.
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A month's name or its short form (`Sept` too), as a regex group.
const MONTH: &str = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";

/// `5 March 2024`, `the 5th of March, 2024`; `March 5, 2024`, `March 5th 2024`.
static IN_WORDS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        format!(r"(?i)\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{MONTH}\.?,?\s+(?P<year>\d{{4}})\b"),
        format!(r"(?i)\b{MONTH}\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b"),
    ]
    .iter()
    .map(|p| crate::patterns::constant(p))
    .collect()
});

/// The forms a file may write a day in, each with how to write one.
#[allow(clippy::type_complexity)]
static FILE_FORMS: LazyLock<Vec<(Regex, fn(&Day) -> String)>> = LazyLock::new(|| {
    let forms: [(&str, fn(&Day) -> String); 4] = [
        (r"\b\d{4}-\d{2}-\d{2}\b", |d| format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)),
        (r"\b\d{2}/[A-Z][a-z]{2}/\d{4}\b", |d| format!("{:02}/{}/{:04}", d.day, short(d.month), d.year)),
        (r"\b\d{4}/\d{2}/\d{2}\b", |d| format!("{:04}/{:02}/{:02}", d.year, d.month, d.day)),
        (r"(?m)^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}", |d| format!("{} {:>2}", short(d.month), d.day)),
    ];
    forms.into_iter().map(|(p, write)| (crate::patterns::constant(p), write)).collect()
});

/// A month's name, capitalised: `March`.
fn month_name(month: u32) -> String {
    let mut name = MONTHS[(month as usize).clamp(1, 12) - 1].to_owned();
    name[..1].make_ascii_uppercase();
    name
}

/// A month's short name, `Mar`.
fn short(month: u32) -> String {
    month_name(month)[..3].to_owned()
}

/// `day` in words, `5 March 2024`.
pub(crate) fn in_words(day: &Day) -> String {
    format!("{} {} {}", day.day, month_name(day.month), day.year)
}

/// The days `text` writes in words, in order, each once.
pub(crate) fn days_in_words(text: &str) -> Vec<Day> {
    let mut days: Vec<Day> = Vec::new();
    for (_, day) in days_in_words_at(text) {
        if !days.contains(&day) {
            days.push(day);
        }
    }
    days
}

/// Each day `text` writes in words, with where its words start, in order.
pub(crate) fn days_in_words_at(text: &str) -> Vec<(usize, Day)> {
    let mut found: Vec<(usize, Day)> = IN_WORDS
        .iter()
        .flat_map(|re| re.captures_iter(text))
        .filter_map(|c| {
            let month_word = c.name("month")?.as_str().to_lowercase();
            let month = MONTHS.iter().position(|m| month_word.get(..3).is_some_and(|w| m.starts_with(w)))? + 1;
            let day: u32 = c["day"].parse().ok()?;
            let year: u32 = c["year"].parse().ok()?;
            (1..=31).contains(&day).then_some((c.get(0)?.start(), Day { year, month: month as u32, day }))
        })
        .collect();
    found.sort_by_key(|(at, _)| *at);
    found
}

/// `day` in the form `sample` (a file's first lines) writes days in, the form found first; `None` when it writes
/// none that is known.
pub(crate) fn in_form_of(day: &Day, sample: &str) -> Option<String> {
    FILE_FORMS
        .iter()
        .filter_map(|(form, write)| form.find(sample).map(|m| (m.start(), write)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, write)| write(day))
}

/// `day` written in `format`, a question's pattern made of `YYYY`, `YY`, `MM`, `DD` and separators (`YYYY-MM-DD`,
/// `dd/mm/yyyy`); `None` for any other pattern.
pub(crate) fn in_format(day: &Day, format: &str) -> Option<String> {
    static PATTERN: LazyLock<Regex> =
        LazyLock::new(|| crate::patterns::constant(r"(?i)^(?:yyyy|yy|mm|dd)(?:[-/.](?:yyyy|yy|mm|dd)){2}$"));
    let format = format.trim();
    if !PATTERN.is_match(format) {
        return None;
    }
    let parts: Vec<String> = format
        .split(['-', '/', '.'])
        .map(|part| match part.to_ascii_lowercase().as_str() {
            "yyyy" => format!("{:04}", day.year),
            "yy" => format!("{:02}", day.year % 100),
            "mm" => format!("{:02}", day.month),
            _ => format!("{:02}", day.day),
        })
        .collect();
    let separator = format.chars().find(|c| "-/.".contains(*c)).unwrap_or('-');
    Some(parts.join(&separator.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Day = Day { year: 2025, month: 3, day: 14 };

    #[test]
    fn days_written_in_words_are_read() {
        for text in [
            "Count the orders of 14 March 2025.",
            "What happened on Friday the 14th of March 2025?",
            "on March 14, 2025",
            "by Mar. 14th 2025, please",
        ] {
            assert_eq!(days_in_words(text), [DAY], "{text}");
        }
        assert!(days_in_words("in March 2025, 14 files").is_empty());
        assert_eq!(days_in_words("from 1 May 2024 to 3 May 2024").len(), 2);
    }

    #[test]
    fn a_day_is_written_in_the_form_a_file_writes_days_in() {
        let access = "10.0.0.9 - - [13/Mar/2025:00:31:31 +0000] \"GET / HTTP/1.1\" 200 81\n";
        assert_eq!(in_form_of(&DAY, access).as_deref(), Some("14/Mar/2025"));
        assert_eq!(in_form_of(&DAY, "2025-03-13 08:00:01 INFO up\n").as_deref(), Some("2025-03-14"));
        assert_eq!(in_form_of(&Day { day: 4, ..DAY }, "Mar 13 08:00:01 host sshd[1]: ok\n").as_deref(), Some("Mar  4"));
        assert_eq!(in_form_of(&DAY, "no dates here\n"), None);
        assert_eq!(in_words(&DAY), "14 March 2025");
    }

    #[test]
    fn a_day_is_written_in_a_questions_format() {
        assert_eq!(in_format(&DAY, "YYYY-MM-DD").as_deref(), Some("2025-03-14"));
        assert_eq!(in_format(&DAY, "dd/mm/yyyy").as_deref(), Some("14/03/2025"));
        assert_eq!(in_format(&DAY, "MM.DD.YY").as_deref(), Some("03.14.25"));
        assert_eq!(in_format(&DAY, "HH:MM"), None);
    }
}
