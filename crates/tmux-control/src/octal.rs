//! The `%output` escaping: tmux writes bytes below 0x20 and the backslash as
//! `\ooo` (exactly three octal digits) and every other byte raw.

/// Decodes the data field of a `%output` line into raw pane bytes, appending
/// them to `out`.
///
/// The result is bytes, not text: one UTF-8 character can be split across two
/// `%output` lines. A backslash not followed by three octal digits is kept
/// literally, so malformed input loses nothing.
pub fn decode_output_into(data: &[u8], out: &mut Vec<u8>) {
    out.reserve(data.len());
    let mut rest = data;
    // Copy the raw runs between escapes in one go: most output has few escapes.
    while let Some(at) = rest.iter().position(|&b| b == b'\\') {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at..];
        match octal_escape(rest) {
            Some(byte) => {
                out.push(byte);
                rest = &rest[4..];
            }
            None => {
                out.push(b'\\');
                rest = &rest[1..];
            }
        }
    }
    out.extend_from_slice(rest);
}

/// Decodes the data field of a `%output` line into raw pane bytes.
///
/// ```
/// assert_eq!(tmux_control::decode_output(br"a\015\012\134b"), b"a\r\n\\b");
/// ```
pub fn decode_output(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    decode_output_into(data, &mut out);
    out
}

/// Encodes raw bytes the way tmux writes them in `%output`: the inverse of
/// [`decode_output`]. Useful to build test input.
///
/// ```
/// assert_eq!(tmux_control::encode_output(b"a\r\n\\b"), br"a\015\012\134b");
/// ```
pub fn encode_output(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &byte in bytes {
        if byte < 0x20 || byte == b'\\' {
            out.extend_from_slice(&[b'\\', b'0' + (byte >> 6), b'0' + ((byte >> 3) & 7), b'0' + (byte & 7)]);
        } else {
            out.push(byte);
        }
    }
    out
}

/// The byte of a `\ooo` escape at the start of `text`, if there is a valid one.
fn octal_escape(text: &[u8]) -> Option<u8> {
    let digits = text.get(1..4)?;
    let mut value: u16 = 0;
    for &digit in digits {
        if !(b'0'..=b'7').contains(&digit) {
            return None;
        }
        value = value * 8 + u16::from(digit - b'0');
    }
    u8::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_byte_round_trips() {
        let all: Vec<u8> = (0..=255).collect();
        let encoded = encode_output(&all);
        assert!(!encoded.contains(&b'\n'), "an encoded line must not contain a newline");
        assert_eq!(decode_output(&encoded), all);
    }

    #[test]
    fn malformed_escapes_are_kept_literally() {
        assert_eq!(decode_output(br"\"), br"\");
        assert_eq!(decode_output(br"\01"), br"\01");
        assert_eq!(decode_output(br"\08x"), br"\08x");
        assert_eq!(decode_output(br"\777"), br"\777");
        assert_eq!(decode_output(br"x\134\"), b"x\\\\");
    }

    #[test]
    fn utf8_passes_raw() {
        assert_eq!(decode_output("héllo ✓".as_bytes()), "héllo ✓".as_bytes());
    }

    proptest! {
        #[test]
        fn round_trip_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            prop_assert_eq!(decode_output(&encode_output(&bytes)), bytes);
        }
    }
}
