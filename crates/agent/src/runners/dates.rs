//! Dates a task gives, written the way a program's question asks for them.
//!
//! A program asking `Date (YYYY-MM-DD):` wants `2025-03-14`; a person writes "Friday the 14th of March 2025" or
//! "March 14, 2025". The question answerer offers only the task's own words (it never guesses), and no run of them
//! is the date in the asked format: the answer would be left to the model to invent, or not given. Here the
//! task's dates are read (with a year: one without is not a date to rewrite) and written in the question's format.

use std::sync::LazyLock;

use regex::Regex;

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Date {
    year: u32,
    month: u32,
    day: u32,
}

impl Date {
    fn new(year: u32, month: u32, day: u32) -> Option<Date> {
        let days = match month {
            2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => return None,
        };
        ((1..=days).contains(&day) && (1000..=9999).contains(&year)).then_some(Date { year, month, day })
    }
}

const MONTH: &str = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";

/// `14 March 2025`, `14th of March, 2025`, `the 3rd of Sept 2024`.
static DAY_MONTH_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(&format!(r"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH}\b\.?,?\s+(\d{{4}})\b"))
});

/// `March 14, 2025`, `Mar 14th 2025`.
static MONTH_DAY_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(&format!(r"(?i)\b{MONTH}\b\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"))
});

/// `2025-03-14`, `2025/3/14`: year first is never ambiguous (`03/04/2025` is, and is left alone).
static YEAR_FIRST: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"\b(\d{4})([-/.])(\d{1,2})([-/.])(\d{1,2})\b"));

/// A date format a question shows: `YYYY-MM-DD`, `DD/MM/YYYY`, `MM.DD.YY` (parts one letter two or four times).
static FORMAT: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(yyyy|yy|mm|dd)([-/.])(yyyy|yy|mm|dd)([-/.])(yyyy|yy|mm|dd)\b"));

fn month_number(name: &str) -> Option<u32> {
    let names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let lower = name.to_lowercase();
    names.iter().position(|short| lower.starts_with(short)).and_then(|index| u32::try_from(index + 1).ok())
}

/// The dates `text` gives with a year, in the order written, each once.
pub(crate) fn dates_in(text: &str) -> Vec<Date> {
    let number = |found: Option<regex::Match<'_>>| found.and_then(|m| m.as_str().parse::<u32>().ok());
    let mut found: Vec<(usize, Date)> = Vec::new();
    for captures in DAY_MONTH_YEAR.captures_iter(text) {
        let month = captures.get(2).and_then(|m| month_number(m.as_str()));
        if let (Some(day), Some(month), Some(year)) = (number(captures.get(1)), month, number(captures.get(3)))
            && let Some(date) = Date::new(year, month, day)
        {
            found.push((captures.get(0).map_or(0, |m| m.start()), date));
        }
    }
    for captures in MONTH_DAY_YEAR.captures_iter(text) {
        let month = captures.get(1).and_then(|m| month_number(m.as_str()));
        if let (Some(month), Some(day), Some(year)) = (month, number(captures.get(2)), number(captures.get(3)))
            && let Some(date) = Date::new(year, month, day)
        {
            found.push((captures.get(0).map_or(0, |m| m.start()), date));
        }
    }
    for captures in YEAR_FIRST.captures_iter(text) {
        let same_separator = captures.get(2).map(|m| m.as_str()) == captures.get(4).map(|m| m.as_str());
        if let (true, Some(year), Some(month), Some(day)) =
            (same_separator, number(captures.get(1)), number(captures.get(3)), number(captures.get(5)))
            && let Some(date) = Date::new(year, month, day)
        {
            found.push((captures.get(0).map_or(0, |m| m.start()), date));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut dates: Vec<Date> = Vec::new();
    for (_, date) in found {
        if !dates.contains(&date) {
            dates.push(date);
        }
    }
    dates
}

/// `date` written in the date format `question` shows, if it shows one.
pub(crate) fn in_asked_format(question: &str, date: Date) -> Option<String> {
    let captures = FORMAT.captures(question)?;
    let parts: Vec<String> =
        [1, 3, 5].iter().filter_map(|&i| captures.get(i).map(|m| m.as_str().to_lowercase())).collect();
    // Each of year, month and day once.
    for part in ["y", "m", "d"] {
        if parts.iter().filter(|p| p.starts_with(part)).count() != 1 {
            return None;
        }
    }
    let render = |part: &str| match part {
        "yyyy" => format!("{:04}", date.year),
        "yy" => format!("{:02}", date.year % 100),
        "mm" => format!("{:02}", date.month),
        _ => format!("{:02}", date.day),
    };
    let (first, second) = (captures.get(2)?.as_str(), captures.get(4)?.as_str());
    Some(format!("{}{first}{}{second}{}", render(&parts[0]), render(&parts[1]), render(&parts[2])))
}

/// The task's dates, written as `question` asks (none when it shows no date format).
pub(crate) fn answers(task: &str, question: &str) -> Vec<String> {
    dates_in(task).into_iter().filter_map(|date| in_asked_format(question, date)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_written_in_words_or_year_first_are_read() {
        let task = "The boiler service moved from Tuesday the 3rd of June 2025 to June 10th, 2025; it was booked on 2025-05-28.";
        let asked = "Service date (YYYY-MM-DD):";
        assert_eq!(answers(task, asked), vec!["2025-06-03", "2025-06-10", "2025-05-28"]);
        assert_eq!(answers("Sept 9 2024 at noon", "When? [DD/MM/YYYY]"), vec!["09/09/2024"]);
        assert_eq!(answers("on 29 February 2024", "Day (dd.mm.yy):"), vec!["29.02.24"]);
    }

    #[test]
    fn no_date_no_format_or_no_year_gives_nothing() {
        // No year; an impossible day; a slashed date whose order is ambiguous; no such month.
        for task in ["the 14th of March", "31 April 2025", "03/04/2025", "2025-13-01"] {
            assert_eq!(answers(task, "Date (YYYY-MM-DD):"), Vec::<String>::new(), "{task}");
        }
        assert_eq!(answers("on 3 June 2025", "Date:"), Vec::<String>::new());
        // A format missing the day is no date format.
        assert_eq!(answers("on 3 June 2025", "Month (YYYY-MM-MM):"), Vec::<String>::new());
    }

    #[test]
    fn each_date_once_in_the_order_written() {
        let task = "From 1 July 2025 (2025-07-01) until 2025-06-30... no: until August 2, 2025.";
        assert_eq!(answers(task, "(YYYY-MM-DD)"), vec!["2025-07-01", "2025-06-30", "2025-08-02"]);
    }
}
