//! Whether a goal asks a question, whose script must print its answer, or makes a request phrased as one.
//!
//! People ask for work politely: "Can you sort out the config so the sync runs?", "Could you rename the scans so
//! they have no spaces?". Those end in `?` and ask for nothing to be told: the result is the changed files, and a
//! script that prints nothing did what was asked. Taken for a question, each such script was failed for printing
//! nothing ("print the answer") and its right work taken back. A polite form asks a question only when it asks to
//! be told or shown something ("Can you tell me how many…?", "Could you check which host…?").

use std::sync::LazyLock;

use regex::Regex;

/// A sentence that opens as a polite request: "can you", "could you please", "would you mind", "please, can you".
static POLITE_OPENING: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)^\W*(?:(?:so|and|also|then|ok|okay|hi|hey|please)\W+)*(?:can|could|would|will)\s+(?:you|u)\b(?:\s+(?:please|kindly|also|just|mind))*",
    )
});

/// Words that ask to be told or shown something, or ask what, which, who, where, whether, how many or how much.
static ASKS_TO_BE_TOLD: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\b(?:tell|say|show|report|print|list|display|count|find|answer|explain|confirm|check
        |let\s+(?:me|us)\s+know|give\s+(?:me|us)|what(?:'s)?|which|who|whom|whose|where|whether
        |how\s+(?:many|much|big|large|long|old|often|far))\b",
    )
});

/// The end of a sentence: `.`, `!` or `?` before white space or the end, or a line end.
static SENTENCE_END: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"[.!?]+(?:\s+|$)|\n+"));

/// Whether `goal` asks a question: one of its sentences ends in `?` and is not a polite request for work that asks
/// to be told nothing ([`POLITE_OPENING`] without [`ASKS_TO_BE_TOLD`]).
pub(crate) fn asks_question(goal: &str) -> bool {
    let mut start = 0;
    let mut sentences = Vec::new();
    for end in SENTENCE_END.find_iter(goal) {
        sentences.push(&goal[start..end.end()]);
        start = end.end();
    }
    sentences.push(&goal[start..]);
    sentences.into_iter().any(|sentence| {
        let sentence = sentence.trim();
        let polite_request = POLITE_OPENING.is_match(sentence) && !ASKS_TO_BE_TOLD.is_match(sentence);
        sentence.ends_with('?') && !polite_request
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_patterns_compile() {
        for re in [&*POLITE_OPENING, &*ASKS_TO_BE_TOLD, &*SENTENCE_END] {
            assert!(!re.as_str().is_empty());
        }
    }

    #[test]
    fn a_polite_request_for_work_is_no_question() {
        for goal in [
            "The scanner's files have spaces in their names. Could you rename them so the spaces are dashes?",
            "render.py stopped working after the upgrade. Can you sort out layout.ini so it runs again?",
            "Would you please move the old invoices into archive/?",
            "Hi, can you add a line timeout=30 to client.conf?",
            "Will you unpack bundle.tar.gz into site/? Keep the archive.",
            "Please, could you convert notes.txt to Unix line endings?",
            "Delete the .bak files in drafts/.",
        ] {
            assert!(!asks_question(goal), "{goal}");
        }
    }

    #[test]
    fn a_question_or_a_polite_request_to_be_told_is_a_question() {
        for goal in [
            "How many lines of kiln.log are warnings?",
            "What's the median page weight in pages.tsv?",
            "Can you tell me how many users in roster.csv are admins?",
            "Could you check which host in pings.log answered slowest?",
            "Can you count the empty files under drafts/?",
            "Rename the scans so they have no spaces. Then, which of them is the largest?",
            "Could you find the newest file in exports/?",
            "Can you let me know whether port 8443 is set in proxy.conf?",
            "Which folder under media/ is the biggest?",
        ] {
            assert!(asks_question(goal), "{goal}");
        }
    }
}
