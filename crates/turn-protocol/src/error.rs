//! The one error type of this crate.

/// Everything that can go wrong when configuring or using the protocol.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A nonce was not a hexadecimal string of the required length.
    #[error(
        "bad turn nonce: {why}; give at least {min} hex digits (e.g. from `Nonce::generate().to_hex()`)",
        min = crate::nonce::MIN_NONCE_HEX_DIGITS
    )]
    BadNonce {
        /// What exactly was wrong with it.
        why: String,
    },
    /// The `CLIVE_TURN_NONCE` environment variable is set but unusable.
    #[error("environment variable {var} is set but holds a bad nonce: {source}")]
    BadNonceInEnvironment {
        /// The variable's name.
        var: &'static str,
        /// Why the value was rejected.
        #[source]
        source: Box<Error>,
    },
    /// A chunk size too small to carry any payload.
    #[error("context chunk size {0} is too small; use at least 16 characters")]
    ChunkTooSmall(usize),
    /// Writing a protocol line to the output failed.
    #[error("cannot write protocol line to the output: {0}")]
    Write(#[from] std::io::Error),
    /// A CONTEXT value could not be serialized.
    #[error("cannot serialize CONTEXT as JSON: {0}")]
    Serialize(#[from] serde_json::Error),
}
