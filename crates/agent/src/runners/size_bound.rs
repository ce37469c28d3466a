//! `find -size` at a bound the goal includes: "2048 bytes or bigger" is `-size +2047c`, not `-size +2048c`.
//!
//! `find -size +Nc` means more than N bytes, and `-size -Nc` fewer than N: a file of exactly N bytes is left out
//! by both. A goal that includes the bound ("N bytes or more", "at least N bytes", "N bytes or smaller", "at most
//! N bytes") asked of a small model gets `+Nc` / `-Nc` (Qwen2.5-Coder 1.5B), which misses exactly the file on
//! the bound. The script's bound is moved by one byte where the goal states an inclusive bound in bytes and the
//! script compares with that same number.

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// An inclusive bound in bytes, at or above (`at`) or at or below (`below`).
static INCLUSIVE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)
        \b(?P<at>\d+)\s*(?:bytes?|b)\s+or\s+(?:more|bigger|larger|greater|above|over|up)\b
        | \bat\s+least\s+(?P<at2>\d+)\s*(?:bytes?|b)\b
        | \b(?P<below>\d+)\s*(?:bytes?|b)\s+or\s+(?:less|smaller|fewer|below|under)\b
        | \bat\s+most\s+(?P<below2>\d+)\s*(?:bytes?|b)\b
        | \bno\s+(?:more|bigger|larger)\s+than\s+(?P<below3>\d+)\s*(?:bytes?|b)\b
        | \bno\s+(?:less|smaller|fewer)\s+than\s+(?P<at3>\d+)\s*(?:bytes?|b)\b",
    )
});

/// `-size +Nc` or `-size -Nc`.
static FIND_SIZE: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?P<before>-size\s+)(?P<sign>[+-])(?P<n>\d+)c\b"));

/// `text` with each `-size ±Nc` made to include the bound the goal includes.
pub(crate) fn inclusive_sizes(goal: &str, text: &str) -> String {
    let (mut at, mut below) = (Vec::new(), Vec::new());
    for found in INCLUSIVE.captures_iter(goal) {
        let number =
            |names: &[&str]| names.iter().find_map(|n| found.name(n)).and_then(|m| m.as_str().parse::<u64>().ok());
        if let Some(n) = number(&["at", "at2", "at3"]) {
            at.push(n);
        }
        if let Some(n) = number(&["below", "below2", "below3"]) {
            below.push(n);
        }
    }
    if at.is_empty() && below.is_empty() {
        return text.to_owned();
    }
    FIND_SIZE
        .replace_all(text, |c: &Captures<'_>| {
            let n: u64 = c["n"].parse().unwrap_or(u64::MAX);
            let moved = match &c["sign"] {
                "+" if at.contains(&n) && n > 0 => Some(n - 1),
                "-" if below.contains(&n) => n.checked_add(1),
                _ => None,
            };
            match moved {
                Some(m) => format!("{}{}{m}c", &c["before"], &c["sign"]),
                None => c[0].to_owned(),
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inclusive_bound_takes_the_file_on_it() {
        let script = "find photos -type f -size +4096c -exec mv {} big/ \\;";
        assert_eq!(
            inclusive_sizes("Move every photo of 4096 bytes or more into big/.", script),
            "find photos -type f -size +4095c -exec mv {} big/ \\;"
        );
        assert_eq!(inclusive_sizes("files of at least 4096 bytes", script), script.replace("+4096c", "+4095c"));
        let small = "find . -size -100c";
        assert_eq!(inclusive_sizes("List the files of 100 bytes or smaller.", small), "find . -size -101c");
        assert_eq!(inclusive_sizes("files of at most 100 bytes", small), "find . -size -101c");
    }

    #[test]
    fn a_strict_bound_or_another_number_is_left_alone() {
        let script = "find photos -size +4096c";
        for goal in [
            "Move every photo bigger than 4096 bytes into big/.",
            "Move every photo of 1000 bytes or more into big/.",
            "Move every photo over 4 KB.",
        ] {
            assert_eq!(inclusive_sizes(goal, script), script, "{goal}");
        }
        // Already right, or in other units.
        assert_eq!(inclusive_sizes("4096 bytes or more", "find . -size +4095c"), "find . -size +4095c");
        assert_eq!(inclusive_sizes("4096 bytes or more", "find . -size +4k"), "find . -size +4k");
    }
}
