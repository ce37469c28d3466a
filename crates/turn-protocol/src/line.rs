//! The text of one protocol line: `KEYWORD: payload [seq tag]`.
//!
//! A line is a *body* (`TURN: done`, `CONTEXT[2/3]: …`) optionally followed by a
//! *trailer* in brackets: ` [7]` (numbered) or ` [7 a1b2c3d4]` (tagged). The
//! trailer is last so that the body stays readable and a wrapped line is
//! complete exactly when its trailer has arrived.

use crate::message::Keyword;
use crate::nonce::{Nonce, TAG_HEX_DIGITS};

/// The bracketed end of a numbered or tagged line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Trailer {
    pub(crate) seq: u64,
    pub(crate) tag: Option<String>,
}

/// A line that starts like a protocol message, split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProtocolLine<'a> {
    pub(crate) keyword: Keyword,
    /// The body, i.e. the line without the trailer; what the tag covers.
    pub(crate) body: &'a str,
    /// `(index, total)` of a `CONTEXT[i/n]:` chunk.
    pub(crate) chunk: Option<(u32, u32)>,
    /// Everything after the keyword's colon and one optional space.
    pub(crate) payload: &'a str,
    pub(crate) trailer: Option<Trailer>,
}

/// Joins a body and its trailer into the line to print.
pub(crate) fn render(body: &str, seq: Option<u64>, nonce: Option<&Nonce>) -> String {
    match (seq, nonce) {
        (Some(seq), Some(nonce)) => format!("{body} [{seq} {}]", nonce.tag(seq, body)),
        (Some(seq), None) => format!("{body} [{seq}]"),
        (None, _) => body.to_string(),
    }
}

/// The keyword a line starts with (`KEYWORD:` or `CONTEXT[`), if any.
pub(crate) fn head_keyword(line: &str) -> Option<Keyword> {
    Keyword::ALL.into_iter().find(|keyword| {
        let rest = line.strip_prefix(keyword.as_str());
        match rest {
            Some(rest) => rest.starts_with(':') || (*keyword == Keyword::Context && rest.starts_with('[')),
            None => false,
        }
    })
}

/// Whether a row is the start of a keyword being written (`T`, `PROGR`, …).
pub(crate) fn may_become_head(row: &str) -> bool {
    !row.is_empty()
        && ["TURN:", "PROGRESS:", "QUESTION:", "CONTEXT:", "CONTEXT["].iter().any(|head| head.starts_with(row))
}

/// Whether the line ends with a well-formed trailer.
pub(crate) fn has_trailer(line: &str) -> bool {
    split_trailer(line).1.is_some()
}

/// Splits a line that starts with a keyword; `None` for any other line.
pub(crate) fn parse(line: &str) -> Option<ProtocolLine<'_>> {
    let keyword = head_keyword(line)?;
    let (body, trailer) = split_trailer(line);
    let after_keyword = &body[keyword.as_str().len()..];
    let (chunk, after_head) = match after_keyword.strip_prefix('[') {
        Some(bracketed) => {
            let (numbers, rest) = bracketed.split_once("]:")?;
            let (index, total) = numbers.split_once('/')?;
            let chunk = (parse_decimal(index)?, parse_decimal(total)?);
            (Some(chunk), rest)
        }
        None => (None, after_keyword.strip_prefix(':')?),
    };
    let payload = after_head.strip_prefix(' ').unwrap_or(after_head);
    let chunk = chunk.and_then(|(index, total)| Some((u32::try_from(index).ok()?, u32::try_from(total).ok()?)));
    Some(ProtocolLine { keyword, body, chunk, payload, trailer })
}

/// Whether the line is a protocol line that cannot usefully go on: it ends
/// with a trailer, or is a seed line whose payload is already whole (a TURN
/// state, a JSON string, a JSON object). Raw seed text can always go on.
pub(crate) fn is_complete_message(line: &str) -> bool {
    let Some(parsed) = parse(line) else {
        return false;
    };
    if parsed.trailer.is_some() {
        return true;
    }
    let payload = parsed.payload.trim();
    match parsed.keyword {
        Keyword::Turn => crate::message::TurnState::from_word(payload).is_some(),
        Keyword::Progress | Keyword::Question => {
            payload.starts_with('"') && serde_json::from_str::<String>(payload).is_ok()
        }
        Keyword::Context => {
            parsed.chunk.is_none()
                && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(payload).is_ok()
        }
    }
}

/// Splits off a well-formed trailer; the whole line is the body when there is none.
fn split_trailer(line: &str) -> (&str, Option<Trailer>) {
    let Some(inner) = line.strip_suffix(']') else {
        return (line, None);
    };
    let Some(open) = inner.rfind(" [") else {
        return (line, None);
    };
    let (body, bracketed) = (&inner[..open], &inner[open + 2..]);
    let trailer = match bracketed.split_once(' ') {
        None => parse_decimal(bracketed).map(|seq| Trailer { seq, tag: None }),
        Some((seq, tag)) if is_tag(tag) => parse_decimal(seq).map(|seq| Trailer { seq, tag: Some(tag.to_string()) }),
        Some(_) => None,
    };
    match trailer {
        Some(trailer) => (body, Some(trailer)),
        None => (line, None),
    }
}

fn is_tag(text: &str) -> bool {
    text.len() == TAG_HEX_DIGITS && text.bytes().all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
}

/// A plain decimal number: digits only, at most 19 of them.
fn parse_decimal(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Writes free text so that it survives the screen unchanged: as is when that
/// is unambiguous, otherwise as a JSON string (which the parser unquotes).
pub(crate) fn encode_text(text: &str) -> String {
    let plain_is_safe = !text.is_empty()
        && !text.chars().any(char::is_control)
        && text.trim() == text
        && !text.starts_with('"')
        && !text.ends_with(']')
        && !text.contains(" [");
    if plain_is_safe { text.to_string() } else { quote(text) }
}

/// A JSON string literal, with trailer look-alikes escaped (see [`escape_brackets_after_spaces`]).
pub(crate) fn quote(text: &str) -> String {
    escape_brackets_after_spaces(&serde_json::Value::String(text.to_string()).to_string())
}

/// Rewrites every ` [` in compact JSON as ` \u005b`, so that no prefix of an
/// emitted line can end in something shaped like a trailer (` [7]`): a reader
/// that catches a line half-written then never takes it for a whole one.
///
/// Compact JSON has spaces only inside strings, where `\u005b` is a valid
/// spelling of `[`, so the value is unchanged.
pub(crate) fn escape_brackets_after_spaces(compact_json: &str) -> String {
    compact_json.replace(" [", " \\u005b")
}

/// The inverse of [`encode_text`]; also reads the seed format's quoted and unquoted text.
pub(crate) fn decode_text(payload: &str) -> String {
    let payload = payload.trim();
    if payload.starts_with('"')
        && let Ok(serde_json::Value::String(text)) = serde_json::from_str(payload)
    {
        return text;
    }
    payload.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_tagged_numbered_and_seed_lines() {
        let tagged = parse("TURN: done [7 a1b2c3d4]").unwrap();
        assert_eq!(tagged.keyword, Keyword::Turn);
        assert_eq!(tagged.body, "TURN: done");
        assert_eq!(tagged.payload, "done");
        assert_eq!(tagged.trailer, Some(Trailer { seq: 7, tag: Some("a1b2c3d4".into()) }));

        let numbered = parse("PROGRESS: items [3] [12]").unwrap();
        assert_eq!(numbered.payload, "items [3]");
        assert_eq!(numbered.trailer, Some(Trailer { seq: 12, tag: None }));

        let seed = parse("QUESTION: \"which format?\"").unwrap();
        assert_eq!(seed.trailer, None);
        assert_eq!(decode_text(seed.payload), "which format?");
    }

    #[test]
    fn malformed_trailers_stay_in_the_body() {
        for line in ["TURN: done [7 a1b2]", "TURN: done [7 A1B2C3D4]", "TURN: done [x]", "TURN: done [7 a1b2c3d4"] {
            let parsed = parse(line).unwrap();
            assert_eq!(parsed.trailer, None, "{line}");
            assert_eq!(parsed.body, line);
        }
    }

    #[test]
    fn chunk_heads() {
        let chunk = parse("CONTEXT[2/3]:  {\"a\" [9 00ff00ff]").unwrap();
        assert_eq!(chunk.chunk, Some((2, 3)));
        assert_eq!(chunk.payload, " {\"a\"");
        assert!(parse("CONTEXT[2/x]: y").is_none());
    }

    #[test]
    fn only_line_starts_count() {
        assert!(parse(" TURN: done").is_none());
        assert!(parse("$ TURN: done").is_none());
        assert!(parse("TURNS: done").is_none());
        assert!(parse("turn: done").is_none());
    }

    #[test]
    fn text_encoding_round_trips() {
        for text in ["step 2", "", " padded ", "two\nlines", "\"quoted\"", "ends [3]", "tab\there", "a [1] b"] {
            let encoded = encode_text(text);
            assert!(!encoded.contains('\n'));
            assert!(!encoded.contains(" ["), "{encoded}");
            assert_eq!(decode_text(&encoded), text, "{encoded}");
        }
        assert_eq!(encode_text("step 2"), "step 2");
    }
}
