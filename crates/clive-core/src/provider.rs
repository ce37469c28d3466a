//! Whether a language-model provider is configured, judged from the environment by `llm`'s own list
//! ([`llm::PROVIDER_VARIABLES`]), so the two never drift apart.

/// The variables that configure a provider, in the order `llm` tries them.
pub fn provider_variables() -> impl Iterator<Item = &'static str> {
    llm::PROVIDER_VARIABLES.into_iter().map(|(name, _)| name)
}

/// The provider variables, named for a message: `A, B, C or D`.
pub fn provider_variables_text() -> String {
    let names: Vec<&str> = provider_variables().collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The first provider variable that is set and not empty.
pub fn configured_provider(lookup: impl Fn(&str) -> Option<String>) -> Option<&'static str> {
    provider_variables().find(|name| lookup(name).is_some_and(|v| !v.trim().is_empty()))
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

    #[test]
    fn an_openai_compatible_base_url_counts_as_llm_says() {
        let lookup = |n: &str| (n == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:8080/v1".to_owned());
        assert_eq!(configured_provider(lookup), Some("OPENAI_BASE_URL"));
        assert_eq!(llm::ProviderKind::detect(lookup), Some(llm::ProviderKind::OpenAiCompatible));
        assert!(provider_variables_text().ends_with(" or OPENAI_BASE_URL"), "{}", provider_variables_text());
    }
}
