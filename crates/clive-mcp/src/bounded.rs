//! Long output cut in the middle: a model gets the start (what the command set out to do) and the end (how it
//! ended), and a marked line saying what was left out between them.

/// The most bytes of output a tool result carries.
pub const MAX_OUTPUT_BYTES: usize = 16 * 1024;

/// `text` within `max` bytes: unchanged when it fits, else its start and its end, cut on line ends where
/// possible, with a line `[… N lines (M bytes) cut here …]` in place of what was left out. Returns the
/// text and whether it was cut.
pub fn bounded(text: &str, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text.to_owned(), false);
    }
    // A quarter from the start; the rest from the end, where errors and summaries are.
    let head_budget = max / 4;
    // The marker takes some of the budget; what it says is known only after the cut, so keep room for it.
    let tail_budget = max.saturating_sub(head_budget).saturating_sub(64);
    let mut head_end = floor_char_boundary(text, head_budget);
    if let Some(newline) = text[..head_end].rfind('\n') {
        head_end = newline + 1;
    }
    let mut tail_start = ceil_char_boundary(text, text.len() - tail_budget);
    if let Some(newline) = text[tail_start..].find('\n') {
        // Start on a whole line unless that would throw away most of the tail.
        if newline < tail_budget / 2 {
            tail_start += newline + 1;
        }
    }
    let cut = &text[head_end..tail_start];
    let lines = cut.matches('\n').count();
    let mut out = String::with_capacity(max);
    out.push_str(&text[..head_end]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("[… {lines} lines ({} bytes) cut here …]\n", cut.len()));
    out.push_str(&text[tail_start..]);
    (out, true)
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_output_is_untouched() {
        assert_eq!(bounded("a\nb\n", 100), ("a\nb\n".to_owned(), false));
    }

    #[test]
    fn long_output_keeps_its_start_and_end_and_marks_the_cut() {
        let text: String = (1..=2000).map(|n| format!("line {n}\n")).collect();
        let (out, cut) = bounded(&text, 1000);
        assert!(cut);
        assert!(out.starts_with("line 1\nline 2\n"), "{out}");
        assert!(out.ends_with("line 2000\n"), "{out}");
        let marker = out.lines().find(|l| l.starts_with("[… ")).unwrap();
        assert!(marker.ends_with("cut here …]"), "{marker}");
        // Whole lines on both sides of the marker.
        assert!(out.lines().all(|l| l.starts_with("line ") || l == marker), "{out}");
    }

    proptest! {
        #[test]
        fn stays_within_the_budget_and_keeps_both_ends(text in "\\PC{0,3000}", max in 200usize..2000) {
            let (out, cut) = bounded(&text, max);
            prop_assert!(out.len() <= max + 64, "{} > {}", out.len(), max);
            if !cut {
                prop_assert_eq!(&out, &text);
            } else {
                prop_assert!(out.contains("cut here"));
                let last: String = text.chars().rev().take(20).collect::<Vec<_>>().into_iter().rev().collect();
                prop_assert!(out.ends_with(&last));
            }
        }
    }
}
