//! Signed messages (`sender: text`) and matching a message against what a box shows.

use std::sync::OnceLock;

use regex::Regex;

use crate::error::Error;

/// A message signed by its sender's lane name: `sender: text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedMessage {
    sender: String,
    full: String,
}

fn signature() -> &'static Regex {
    static SIGNATURE: OnceLock<Regex> = OnceLock::new();
    // A tmux session name cannot contain `:` or `.`; whitespace would make the signature
    // ambiguous with prose such as "Note: …".
    SIGNATURE.get_or_init(|| {
        // A constant pattern, compiled by every signature test.
        #[allow(clippy::expect_used, reason = "a constant pattern, tested")]
        Regex::new(r"^([A-Za-z0-9_][A-Za-z0-9_@+\-]{0,63}):[ \t\n]+\S").expect("SIGNATURE compiles")
    })
}

/// The sender of signed text, if the text is signed.
pub(crate) fn signer_of(text: &str) -> Option<&str> {
    signature().captures(text).and_then(|captures| captures.get(1)).map(|sender| sender.as_str())
}

impl SignedMessage {
    /// Parses a message; unsigned text is an error that says how to sign it.
    pub fn parse(full: &str) -> Result<Self, Error> {
        match signer_of(full) {
            Some(sender) => Ok(Self { sender: sender.to_string(), full: full.to_string() }),
            None => Err(Error::Unsigned { message: shorten(full, 60) }),
        }
    }

    /// The sender's lane name.
    pub fn sender(&self) -> &str {
        &self.sender
    }

    /// The whole message, signature included, exactly as it will be pasted.
    pub fn as_str(&self) -> &str {
        &self.full
    }
}

/// Shortens text for error messages and logs, on a character boundary.
pub(crate) fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut short: String = text.chars().take(max_chars).collect();
    short.push('…');
    short
}

/// Removes all whitespace (a box wraps, indents and pads; tabs may show as spaces).
pub(crate) fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether the box text can be (part of) our message: after removing paste tokens and
/// whitespace, what is left must appear inside the message. A box that shows only paste tokens
/// counts as ours, because we hold the lane's lock and the box was empty before we pasted.
pub(crate) fn box_shows_message(box_text: &str, paste_tokens: &[String], message: &str) -> bool {
    let mut rest = box_text.to_string();
    for token in paste_tokens {
        rest = rest.replacen(token.as_str(), " ", 1);
    }
    let rest = squeeze(&rest);
    if rest.is_empty() {
        return !paste_tokens.is_empty();
    }
    let message = squeeze(message);
    // A box too narrow for the whole message shows a window of it; when tokens are present the
    // visible text is split around them, so compare each visible piece on its own.
    if paste_tokens.is_empty() {
        return message.contains(&rest);
    }
    let mut pieces = box_text.to_string();
    for token in paste_tokens {
        pieces = pieces.replacen(token.as_str(), "\u{0}", 1);
    }
    pieces.split('\u{0}').map(squeeze).filter(|piece| !piece.is_empty()).all(|piece| message.contains(&piece))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_needs_a_name_a_colon_and_text() {
        assert_eq!(signer_of("lane-a: hi"), Some("lane-a"));
        assert_eq!(signer_of("lane-a:\nmulti"), Some("lane-a"));
        assert_eq!(signer_of("lane-a:hi"), None);
        assert_eq!(signer_of("hello world: hi"), None);
        assert_eq!(signer_of(": hi"), None);
        assert_eq!(signer_of("lane-a:   "), None);
        assert!(SignedMessage::parse("no signature").unwrap_err().to_string().contains("sender: text"));
    }

    #[test]
    fn wrapped_and_windowed_text_matches() {
        let message = "lane-a: a long message\twith a tab and more words";
        assert!(box_shows_message("lane-a: a long message with a tab\n  and more words", &[], message));
        assert!(box_shows_message("tab and more words", &[], message));
        assert!(!box_shows_message("something else", &[], message));
        assert!(box_shows_message("lane-a: [Pasted text #1 +3 lines]", &["[Pasted text #1 +3 lines]".into()], message));
        assert!(box_shows_message("[Pasted Content 1482 chars]", &["[Pasted Content 1482 chars]".into()], message));
        assert!(!box_shows_message("other: [Pasted #1 3+ lines]", &["[Pasted #1 3+ lines]".into()], message));
    }
}
