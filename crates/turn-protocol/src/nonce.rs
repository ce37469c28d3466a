//! The per-conversation secret and the line tags derived from it.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::Error;

/// The environment variable through which the outer hands the nonce to the inner.
pub const NONCE_ENV_VAR: &str = "CLIVE_TURN_NONCE";

/// The shortest accepted nonce, in hex digits (64 bits).
pub const MIN_NONCE_HEX_DIGITS: usize = 16;

/// Hex digits in a line tag (32 bits of HMAC-SHA256).
pub const TAG_HEX_DIGITS: usize = 8;

/// Bytes of a freshly generated nonce (128 bits).
const GENERATED_NONCE_BYTES: usize = 16;

/// Separates this use of HMAC from any other use of the same key.
const TAG_DOMAIN: &[u8] = b"clive-turn/1\n";

/// A per-conversation secret shared by the outer and the inner agent.
///
/// It travels only through the inner's environment ([`NONCE_ENV_VAR`]), never
/// through a prompt, a command line or the screen, so that nothing the inner's
/// LLM or tools can read contains it. `Debug` does not print it.
#[derive(Clone)]
pub struct Nonce {
    key: Vec<u8>,
    /// HMAC state keyed once, cloned for every tag.
    keyed: Hmac<Sha256>,
}

impl PartialEq for Nonce {
    fn eq(&self, other: &Nonce) -> bool {
        self.key == other.key
    }
}

impl Eq for Nonce {}

impl Nonce {
    /// A fresh random nonce (128 bits from the operating system's generator).
    pub fn generate() -> Nonce {
        let key: [u8; GENERATED_NONCE_BYTES] = rand::random();
        // HMAC accepts keys of any length, so keying cannot fail here.
        let keyed = <Hmac<Sha256> as Mac>::new_from_slice(&key);
        match keyed {
            Ok(keyed) => Nonce { key: key.to_vec(), keyed },
            Err(_) => unreachable!("HMAC accepts keys of any length"),
        }
    }

    /// Parses a hex string (upper or lower case, at least [`MIN_NONCE_HEX_DIGITS`] digits).
    pub fn from_hex(hex: &str) -> Result<Nonce, Error> {
        let hex = hex.trim();
        if hex.len() < MIN_NONCE_HEX_DIGITS {
            return Err(Error::BadNonce { why: format!("it has {} hex digits", hex.len()) });
        }
        if !hex.len().is_multiple_of(2) {
            return Err(Error::BadNonce { why: "it has an odd number of hex digits".into() });
        }
        let mut key = Vec::with_capacity(hex.len() / 2);
        for pair in hex.as_bytes().chunks(2) {
            let digits = std::str::from_utf8(pair).ok();
            let byte = digits.and_then(|digits| u8::from_str_radix(digits, 16).ok());
            match byte {
                Some(byte) => key.push(byte),
                None => {
                    return Err(Error::BadNonce {
                        why: format!("{:?} is not a pair of hex digits", String::from_utf8_lossy(pair)),
                    });
                }
            }
        }
        let keyed = <Hmac<Sha256> as Mac>::new_from_slice(&key)
            .map_err(|_| Error::BadNonce { why: "HMAC refused it as a key".into() })?;
        Ok(Nonce { key, keyed })
    }

    /// Reads [`NONCE_ENV_VAR`]: `Ok(None)` when unset or empty, an error when set but bad.
    pub fn from_env() -> Result<Option<Nonce>, Error> {
        match std::env::var(NONCE_ENV_VAR) {
            Ok(value) if value.trim().is_empty() => Ok(None),
            Ok(value) => Nonce::from_hex(&value)
                .map(Some)
                .map_err(|source| Error::BadNonceInEnvironment { var: NONCE_ENV_VAR, source: Box::new(source) }),
            Err(_) => Ok(None),
        }
    }

    /// The nonce as lowercase hex, for putting into the inner's environment.
    pub fn to_hex(&self) -> String {
        self.key.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// The tag of one line: the first [`TAG_HEX_DIGITS`] hex digits of
    /// HMAC-SHA256(nonce, "clive-turn/1\n" + seq + "\n" + body).
    pub fn tag(&self, seq: u64, body: &str) -> String {
        let mut mac = self.keyed.clone();
        mac.update(TAG_DOMAIN);
        mac.update(seq.to_string().as_bytes());
        mac.update(b"\n");
        mac.update(body.as_bytes());
        let digest = mac.finalize().into_bytes();
        digest.iter().take(TAG_HEX_DIGITS / 2).map(|byte| format!("{byte:02x}")).collect()
    }

    /// Whether `tag` is the tag of (`seq`, `body`), compared in constant time.
    pub fn verify(&self, seq: u64, body: &str, tag: &str) -> bool {
        let expected = self.tag(seq, body);
        expected.len() == tag.len() && expected.bytes().zip(tag.bytes()).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
    }
}

impl fmt::Debug for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Nonce(<secret>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let nonce = Nonce::generate();
        assert_eq!(nonce.to_hex().len(), 32);
        assert_eq!(Nonce::from_hex(&nonce.to_hex()).unwrap(), nonce);
        assert_eq!(Nonce::from_hex(&nonce.to_hex().to_uppercase()).unwrap(), nonce);
    }

    #[test]
    fn bad_hex_is_named() {
        let short = Nonce::from_hex("abcd").unwrap_err().to_string();
        assert!(short.contains("4 hex digits"), "{short}");
        let odd = Nonce::from_hex("0123456789abcdef0").unwrap_err().to_string();
        assert!(odd.contains("odd"), "{odd}");
        let junk = Nonce::from_hex("0123456789abcdeg").unwrap_err().to_string();
        assert!(junk.contains("\"eg\""), "{junk}");
    }

    #[test]
    fn tag_is_stable_and_bound_to_seq_and_body() {
        let nonce = Nonce::from_hex("00112233445566778899aabbccddeeff").unwrap();
        let tag = nonce.tag(7, "TURN: done");
        assert_eq!(tag.len(), TAG_HEX_DIGITS);
        assert!(nonce.verify(7, "TURN: done", &tag));
        assert!(!nonce.verify(8, "TURN: done", &tag));
        assert!(!nonce.verify(7, "TURN: failed", &tag));
        let other = Nonce::from_hex("ffeeddccbbaa99887766554433221100").unwrap();
        assert!(!other.verify(7, "TURN: done", &tag));
        // Cross-checked with Python: hmac.new(key, b"clive-turn/1\n7\nTURN: done", sha256).hexdigest()[:8]
        assert_eq!(tag, "489477f8");
    }

    #[test]
    fn debug_hides_the_secret() {
        let nonce = Nonce::from_hex("00112233445566778899aabbccddeeff").unwrap();
        assert!(!format!("{nonce:?}").contains("0011"));
    }
}
