//! A number printed with a binary float's noise, printed as the number meant: `1273.9900000000002` is `1273.99`.
//!
//! Python's `sum` of money amounts prints `1273.9900000000002` (Qwen2.5-Coder wrote such sums with both local
//! models); asked for the total, the user is told a number no one wrote. A decimal printed with twelve digits or more
//! after its point, which a rounding to ten places or fewer gives back to within a float's error, is that rounding,
//! its trailing zeros dropped (within four units of the float's last place). A number with many digits that are its own
//! (`3.14159265358979`, `12345.678901234567`) is not within that error of any short rounding, and stays. Only where
//! the goal asks for a number, and only for a `small` model (the shell's fixes).

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// A decimal with twelve digits or more after its point, standing as a word of its own.
static LONG_DECIMAL: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"(?:^|\b|-)\d+\.\d{12,}\b"));

/// `text` with each number that carries a float's noise printed as the number meant (see the module).
pub(crate) fn without_float_noise(text: &str) -> String {
    if !text.contains('.') {
        return text.to_owned();
    }
    LONG_DECIMAL.replace_all(text, |c: &Captures<'_>| meant(&c[0]).unwrap_or_else(|| c[0].to_owned())).into_owned()
}

/// The short number `printed` is noise around, if it is.
fn meant(printed: &str) -> Option<String> {
    let value: f64 = printed.parse().ok()?;
    // Printed as a float prints itself (the shortest text that reads back as it): more digits than a float holds are
    // some other number's (a decimal's, a text's).
    if value.to_string() != printed.trim_start_matches('+') {
        return None;
    }
    // A float's error after a few sums: a few units of its last place.
    let tolerance = value.abs().max(f64::MIN_POSITIVE) * 4.0 * f64::EPSILON;
    (0..=10).find_map(|places| {
        let rounded = format!("{value:.places$}");
        let back: f64 = rounded.parse().ok()?;
        ((back - value).abs() <= tolerance).then(|| {
            if rounded.contains('.') { rounded.trim_end_matches('0').trim_end_matches('.').to_owned() } else { rounded }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_floats_noise_is_dropped() {
        assert_eq!(without_float_noise("1273.9900000000002\n"), "1273.99\n");
        assert_eq!(without_float_noise("total: 0.30000000000000004"), "total: 0.3");
        assert_eq!(without_float_noise("-3.3000000000000003 and 7.000000000000001"), "-3.3 and 7");
        assert_eq!(
            without_float_noise("groceries: 41.349999999999994\nrent: 900.0\n"),
            "groceries: 41.35\nrent: 900.0\n"
        );
    }

    #[test]
    fn numbers_of_their_own_are_left_alone() {
        for text in [
            "3.14159265358979",
            "1273.99",
            "0.333333333333",
            "v1.000000000000001a",
            "2024-01-05 10.5",
            "12345.678901234567",
            "1700000000.123456789012",
        ] {
            assert_eq!(without_float_noise(text), text, "{text}");
        }
    }
}
