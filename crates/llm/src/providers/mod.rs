//! One thin client per wire dialect.

pub mod anthropic;
pub mod ollama;
pub mod openai;
