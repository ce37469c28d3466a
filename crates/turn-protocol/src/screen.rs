//! Screen captures as text: joining wrapped rows and lining up successive captures.

use crate::line;

/// Rows a speculative join of a wrapped protocol line may span.
const MAX_JOINED_ROWS: usize = 256;

/// Splits a capture into logical lines: trailing whitespace removed, trailing
/// empty lines dropped, and (when the terminal width is known) rows that the
/// terminal wrapped joined back together.
///
/// `accept_join` is asked about a speculative join of a protocol line whose
/// break fell on spaces that the capture trimmed; it should say yes only for a
/// line whose trailer checks out, so that unrelated rows are never glued on.
pub(crate) fn logical_lines(
    capture: &str,
    wrap_width: Option<usize>,
    accept_join: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut rows: Vec<&str> = capture.split('\n').map(|row| row.trim_end()).collect();
    while rows.last().is_some_and(|row| row.is_empty()) {
        rows.pop();
    }
    let mut lines = Vec::with_capacity(rows.len());
    let mut index = 0;
    while index < rows.len() {
        let (line, used) = match wrap_width {
            Some(width) if width > 0 => join_wrapped(&rows[index..], width, accept_join),
            _ => (rows[index].to_string(), 1),
        };
        lines.push(line);
        index += used;
    }
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    lines
}

/// The logical line starting at `rows[0]` and the number of rows it used.
fn join_wrapped(rows: &[&str], width: usize, accept_join: &dyn Fn(&str) -> bool) -> (String, usize) {
    // A row that fills the width continues on the next one, except when the
    // line is already a complete message (tmux does not wrap a line that just
    // fills the width) or the next row starts a protocol line (or, as the
    // last row, may be one being written): losing a real message to a false
    // join is worse than the ambiguity, which `-J` removes.
    let mut hard = rows[0].to_string();
    let mut used = 1;
    while used < rows.len()
        && rows[used - 1].chars().count() >= width
        && !line::is_complete_message(&hard)
        && line::head_keyword(rows[used]).is_none()
        && !(used + 1 == rows.len() && line::may_become_head(rows[used]))
    {
        hard.push_str(rows[used]);
        used += 1;
    }
    if line::head_keyword(&hard).is_none() || line::has_trailer(&hard) {
        return (hard, used);
    }
    // The capture trims trailing spaces of each row, so a break that fell on a
    // space leaves a short row. Re-pad rows to the width and look for the
    // trailer that ends every numbered line.
    let mut padded = String::new();
    for (count, row) in rows.iter().enumerate().take(MAX_JOINED_ROWS) {
        if count > 0 && (row.is_empty() || line::head_keyword(row).is_some()) {
            break;
        }
        let candidate = format!("{padded}{row}");
        if count + 1 > used && line::has_trailer(&candidate) && accept_join(&candidate) {
            return (candidate, count + 1);
        }
        padded = candidate;
        let pad = width.saturating_sub(row.chars().count());
        padded.extend(std::iter::repeat_n(' ', pad));
    }
    (hard, used)
}

/// How a new capture lines up with the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Alignment {
    /// Number of leading lines of the new capture that were already on the previous one.
    pub(crate) overlap: usize,
    /// Whether the last overlapping line has grown since (the previous capture
    /// caught it half-written).
    pub(crate) last_grew: bool,
}

/// Leading rows of a new capture that may be fragments of a wrapped line cut
/// by the top of the window (unjoined captures split them into several lines).
const MAX_TOP_FRAGMENTS: usize = 8;

/// Finds the smallest scroll offset at which the previous capture's lines
/// reappear at the top of the new one. The previous last line only needs to
/// be a prefix, because it may have been caught half-written; the new first
/// line only a suffix, because the window may now start inside a wrapped
/// line, whose other fragments (never protocol lines) may come before it.
pub(crate) fn align(previous: &[String], next: &[String]) -> Alignment {
    for shift in 0..previous.len() {
        for skip in 0..=MAX_TOP_FRAGMENTS.min(next.len()) {
            if skip > 0 && line::head_keyword(&next[skip - 1]).is_some() {
                break;
            }
            if let Some(alignment) = align_at(&previous[shift..], &next[skip..]) {
                return Alignment { overlap: alignment.overlap + skip, ..alignment };
            }
        }
    }
    Alignment { overlap: 0, last_grew: false }
}

/// Whether `kept` (the surviving end of the previous capture) starts `next`.
fn align_at(kept: &[String], next: &[String]) -> Option<Alignment> {
    if kept.is_empty() || kept.len() > next.len() {
        return None;
    }
    let last = kept.len() - 1;
    let same = |index: usize| {
        let (old, new) = (&kept[index], &next[index]);
        match (index == 0, index == last) {
            (true, false) => old.ends_with(new.as_str()),
            (false, true) => new.starts_with(old.as_str()),
            (true, true) => new.starts_with(old.as_str()) || old.ends_with(new.as_str()),
            (false, false) => old == new,
        }
    };
    if !(0..=last).all(same) {
        return None;
    }
    let grew = next[last] != kept[last] && next[last].starts_with(kept[last].as_str());
    Some(Alignment { overlap: kept.len(), last_grew: grew })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|text| text.to_string()).collect()
    }

    fn no_join(_: &str) -> bool {
        false
    }

    #[test]
    fn joins_full_rows_only_when_width_known() {
        let capture = "TURN: thin\nking [1]\n$ \n\n";
        assert_eq!(logical_lines(capture, Some(10), &no_join), lines(&["TURN: thinking [1]", "$"]));
        assert_eq!(logical_lines(capture, None, &no_join), lines(&["TURN: thin", "king [1]", "$"]));
    }

    #[test]
    fn full_rows_do_not_swallow_the_next_protocol_line() {
        let capture = "TURN: done [1]\nnoise\n0123456789abcd\nTURN: done [2]";
        assert_eq!(
            logical_lines(capture, Some(14), &no_join),
            lines(&["TURN: done [1]", "noise", "0123456789abcd", "TURN: done [2]"])
        );
    }

    #[test]
    fn rejoins_breaks_on_trimmed_spaces_when_trailer_checks_out() {
        let capture = "PROGRESS:\nstep 2 [4]\nnext";
        let accept = |line: &str| line.ends_with("[4]");
        assert_eq!(logical_lines(capture, Some(10), &accept), lines(&["PROGRESS: step 2 [4]", "next"]));
        // Without the trailer check the short row stays alone (and the full
        // row after it is taken as wrapped).
        assert_eq!(logical_lines(capture, Some(10), &no_join), lines(&["PROGRESS:", "step 2 [4]next"]));
    }

    #[test]
    fn alignment_after_scroll_and_growth() {
        let previous = lines(&["a", "b", "c", "TURN: thi"]);
        let next = lines(&["c", "TURN: thinking [3]", "d"]);
        assert_eq!(align(&previous, &next), Alignment { overlap: 2, last_grew: true });
        assert_eq!(align(&previous, &lines(&["x"])), Alignment { overlap: 0, last_grew: false });
        let cut = lines(&["inking [3]", "d"]);
        assert_eq!(align(&lines(&["c", "TURN: thinking [3]"]), &cut), Alignment { overlap: 1, last_grew: false });
        let same = lines(&["p", "p"]);
        assert_eq!(align(&same, &same), Alignment { overlap: 2, last_grew: false });
    }
}
