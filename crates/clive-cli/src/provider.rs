//! Whether a language-model provider is configured, judged from the environment.
//!
//! The `llm` crate owns provider configuration; this check only needs to know whether any provider could
//! be used, and keeps `clive`'s tier-0 path free of the HTTP stack.

/// The variables that configure a provider, in the order they are named in messages.
pub const PROVIDER_VARIABLES: [&str; 5] =
    ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "OLLAMA_HOST", "OPENAI_BASE_URL"];

/// The first provider variable that is set and not empty.
pub fn configured_provider(lookup: impl Fn(&str) -> Option<String>) -> Option<&'static str> {
    PROVIDER_VARIABLES.into_iter().find(|name| lookup(name).is_some_and(|v| !v.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_do_not_count() {
        assert_eq!(configured_provider(|_| None), None);
        assert_eq!(configured_provider(|n| (n == "OPENAI_API_KEY").then(|| " ".into())), None);
        assert_eq!(configured_provider(|n| (n == "OLLAMA_HOST").then(|| "http://x".into())), Some("OLLAMA_HOST"));
    }
}
