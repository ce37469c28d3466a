//! Which provider to call, where, with which key and models; read from the environment or set explicitly.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::retry::{RetryPolicy, Timeouts};

/// The wire dialects and services this crate speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// Anthropic Messages API (`/v1/messages`).
    Anthropic,
    /// OpenAI chat completions.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenRouter (OpenAI-compatible, its own base URL and key).
    #[serde(rename = "openrouter")]
    OpenRouter,
    /// Ollama through its OpenAI-compatible `/v1` endpoint.
    Ollama,
    /// Ollama through its native `/api/chat` endpoint (newline-delimited JSON stream).
    OllamaNative,
    /// Any OpenAI-compatible server by base URL (LM Studio, vLLM, llama.cpp's server).
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
}

/// The environment variables that select a provider, in the order [`ProviderConfig::detect_from_env`] tries
/// them, with the provider each selects. Anything that tells whether a model is configured reads this list.
pub const PROVIDER_VARIABLES: [(&str, ProviderKind); 5] = [
    ("ANTHROPIC_API_KEY", ProviderKind::Anthropic),
    ("OPENAI_API_KEY", ProviderKind::OpenAi),
    ("OPENROUTER_API_KEY", ProviderKind::OpenRouter),
    ("OLLAMA_HOST", ProviderKind::Ollama),
    ("OPENAI_BASE_URL", ProviderKind::OpenAiCompatible),
];

impl ProviderKind {
    /// The provider the environment selects (the first of [`PROVIDER_VARIABLES`] that is set and not blank),
    /// without reading or checking its other settings.
    pub fn detect(lookup: impl Fn(&str) -> Option<String>) -> Option<ProviderKind> {
        PROVIDER_VARIABLES
            .into_iter()
            .find(|(name, _)| lookup(name).is_some_and(|value| !value.trim().is_empty()))
            .map(|(_, kind)| kind)
    }

    /// Every provider, in the order [`ProviderConfig::detect_from_env`] tries them.
    pub const ALL: [ProviderKind; 6] = [
        ProviderKind::Anthropic,
        ProviderKind::OpenAi,
        ProviderKind::OpenRouter,
        ProviderKind::Ollama,
        ProviderKind::OllamaNative,
        ProviderKind::OpenAiCompatible,
    ];

    /// The provider's name as used on the command line and in settings.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenRouter => "openrouter",
            ProviderKind::Ollama => "ollama",
            ProviderKind::OllamaNative => "ollama-native",
            ProviderKind::OpenAiCompatible => "openai-compatible",
        }
    }

    /// The environment variable holding this provider's API key, if it uses one.
    pub fn api_key_variable(self) -> Option<&'static str> {
        match self {
            ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => Some("OPENAI_API_KEY"),
            ProviderKind::OpenRouter => Some("OPENROUTER_API_KEY"),
            ProviderKind::Ollama | ProviderKind::OllamaNative => None,
        }
    }

    /// Whether calls fail without an API key.
    pub fn requires_api_key(self) -> bool {
        matches!(self, ProviderKind::Anthropic | ProviderKind::OpenAi | ProviderKind::OpenRouter)
    }

    /// The environment variable holding the base URL, and the built-in default (`None`: must be given).
    pub(crate) fn base_url_source(self) -> (&'static str, Option<&'static str>) {
        match self {
            ProviderKind::Anthropic => ("ANTHROPIC_BASE_URL", Some("https://api.anthropic.com")),
            ProviderKind::OpenAi => ("OPENAI_BASE_URL", Some("https://api.openai.com/v1")),
            ProviderKind::OpenRouter => ("OPENROUTER_BASE_URL", Some("https://openrouter.ai/api/v1")),
            ProviderKind::Ollama | ProviderKind::OllamaNative => ("OLLAMA_HOST", Some("http://127.0.0.1:11434")),
            ProviderKind::OpenAiCompatible => ("OPENAI_BASE_URL", None),
        }
    }

    /// The prefix of the model override variables (`<PREFIX>_MODEL`, `<PREFIX>_FAST_MODEL`).
    fn model_variable_prefix(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC",
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => "OPENAI",
            ProviderKind::OpenRouter => "OPENROUTER",
            ProviderKind::Ollama | ProviderKind::OllamaNative => "OLLAMA",
        }
    }

    /// The built-in `fast` and `default` models.
    pub fn default_models(self) -> ModelTiers {
        let (fast, default) = match self {
            ProviderKind::Anthropic => ("claude-haiku-4-5", "claude-sonnet-4-5"),
            ProviderKind::OpenAi => ("gpt-5-mini", "gpt-5"),
            ProviderKind::OpenRouter => ("anthropic/claude-haiku-4.5", "anthropic/claude-sonnet-4.5"),
            ProviderKind::Ollama | ProviderKind::OllamaNative => ("qwen2.5-coder:1.5b", "qwen2.5-coder:7b"),
            // Single-model servers (llama.cpp, LM Studio) ignore the name; vLLM needs the served name set.
            ProviderKind::OpenAiCompatible => ("default", "default"),
        };
        ModelTiers { fast: fast.to_owned(), default: default.to_owned() }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ProviderKind {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        ProviderKind::ALL.into_iter().find(|kind| kind.name() == name).ok_or_else(|| Error::InvalidSetting {
            setting: "provider".to_owned(),
            value: name.to_owned(),
            reason: "use one of anthropic, openai, openrouter, ollama, ollama-native, openai-compatible".to_owned(),
        })
    }
}

/// Which of a provider's two models a request uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelTier {
    /// A cheap, quick model for classification and small edits.
    Fast,
    /// The capable model for planning and writing.
    #[default]
    Default,
}

/// A provider's `fast` and `default` model names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelTiers {
    /// Model for [`ModelTier::Fast`].
    pub fast: String,
    /// Model for [`ModelTier::Default`].
    pub default: String,
}

impl ModelTiers {
    /// The model for a tier.
    pub fn for_tier(&self, tier: ModelTier) -> &str {
        match tier {
            ModelTier::Fast => &self.fast,
            ModelTier::Default => &self.default,
        }
    }
}

/// An API key. Its `Debug` and `Display` print `***`, so it cannot leak into logs.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for building the request header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Everything needed to talk to one provider.
///
/// ```
/// use clive_models::{ProviderConfig, ProviderKind};
/// let config = ProviderConfig::new(ProviderKind::OpenAiCompatible)
///     .base_url("http://127.0.0.1:8080/v1")?
///     .default_model("qwen2.5-coder");
/// assert_eq!(config.models.default, "qwen2.5-coder");
/// # Ok::<(), clive_models::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// The provider.
    pub kind: ProviderKind,
    /// Anthropic and Ollama: the host root (the client adds `/v1/messages`, `/v1/chat/completions` or
    /// `/api/chat`). OpenAI-style providers: the base including `/v1` (the client adds `/chat/completions`).
    /// `None` only for an OpenAI-compatible server whose URL was not given yet.
    pub base_url: Option<String>,
    /// The API key, if any.
    pub api_key: Option<ApiKey>,
    /// The `fast` and `default` models.
    pub models: ModelTiers,
    /// Connect, request and stream-idle deadlines.
    pub timeouts: Timeouts,
    /// When and how to retry.
    pub retry: RetryPolicy,
    /// Extra request headers, e.g. OpenRouter's `HTTP-Referer` and `X-Title` or Anthropic's `anthropic-beta`.
    pub extra_headers: Vec<(String, String)>,
}

impl ProviderConfig {
    /// A configuration with the provider's default base URL and models, no key, default timeouts and retries.
    pub fn new(kind: ProviderKind) -> Self {
        ProviderConfig {
            kind,
            base_url: kind.base_url_source().1.map(str::to_owned),
            api_key: None,
            models: kind.default_models(),
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
            extra_headers: Vec::new(),
        }
    }

    /// Sets the base URL (see [`ProviderConfig::base_url`] for what it includes). Accepts `host:port` for Ollama.
    pub fn base_url(mut self, url: &str) -> Result<Self> {
        self.base_url = Some(normalize_base_url(self.kind, url)?);
        Ok(self)
    }

    /// Sets the API key.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(ApiKey::new(key));
        self
    }

    /// Sets the `fast` model.
    pub fn fast_model(mut self, model: impl Into<String>) -> Self {
        self.models.fast = model.into();
        self
    }

    /// Sets the `default` model.
    pub fn default_model(mut self, model: impl Into<String>) -> Self {
        self.models.default = model.into();
        self
    }

    /// Sets the deadlines.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Sets the retry policy.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Adds a request header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra_headers.push((name.into(), value.into()));
        self
    }

    /// Reads this provider's settings from the process environment:
    /// - keys: `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `OPENROUTER_API_KEY` (Ollama needs none);
    /// - base URLs: `ANTHROPIC_BASE_URL` (host root), `OPENAI_BASE_URL` (including `/v1`), `OPENROUTER_BASE_URL`,
    ///   `OLLAMA_HOST` (`host:port` or a URL);
    /// - models: `<PREFIX>_MODEL` and `<PREFIX>_FAST_MODEL` with prefix `ANTHROPIC`, `OPENAI`, `OPENROUTER` or
    ///   `OLLAMA` (and Claude Code's `ANTHROPIC_SMALL_FAST_MODEL`).
    ///
    /// Fails with [`Error::MissingApiKey`] when a provider that needs a key has none.
    pub fn from_env(kind: ProviderKind) -> Result<Self> {
        Self::from_lookup(kind, |name| std::env::var(name).ok())
    }

    /// [`ProviderConfig::from_env`] with an explicit variable lookup (for tests and embedding).
    pub fn from_lookup(kind: ProviderKind, lookup: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let mut config = ProviderConfig::new(kind);
        let (url_variable, _) = kind.base_url_source();
        match get(url_variable) {
            Some(url) => {
                config.base_url = Some(normalize_base_url(kind, &url).map_err(|error| match error {
                    Error::InvalidSetting { value, reason, .. } => {
                        Error::InvalidSetting { setting: url_variable.to_owned(), value, reason }
                    }
                    other => other,
                })?)
            }
            None if kind == ProviderKind::OpenAiCompatible => {
                return Err(Error::InvalidSetting {
                    setting: "OPENAI_BASE_URL".to_owned(),
                    value: String::new(),
                    reason: "an OpenAI-compatible server needs its base URL, e.g. http://127.0.0.1:8080/v1".to_owned(),
                });
            }
            None => {}
        }
        if let Some(variable) = kind.api_key_variable() {
            config.api_key = get(variable).map(ApiKey::new);
            if config.api_key.is_none() && kind.requires_api_key() {
                return Err(Error::MissingApiKey { provider: kind, variable });
            }
        }
        let prefix = kind.model_variable_prefix();
        if let Some(model) = get(&format!("{prefix}_MODEL")) {
            config.models.default = model;
        }
        let fast = get(&format!("{prefix}_FAST_MODEL"))
            .or_else(|| (kind == ProviderKind::Anthropic).then(|| get("ANTHROPIC_SMALL_FAST_MODEL")).flatten());
        if let Some(model) = fast {
            config.models.fast = model;
        }
        Ok(config)
    }

    /// Picks the first configured provider from the process environment: `ANTHROPIC_API_KEY`, then
    /// `OPENAI_API_KEY`, `OPENROUTER_API_KEY`, `OLLAMA_HOST`, and finally `OPENAI_BASE_URL` without a key (any
    /// OpenAI-compatible server). Fails with [`Error::NotConfigured`], naming the variables, when none is set.
    pub fn detect_from_env() -> Result<Self> {
        Self::detect_from_lookup(|name| std::env::var(name).ok())
    }

    /// [`ProviderConfig::detect_from_env`] with an explicit variable lookup.
    pub fn detect_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let kind = ProviderKind::detect(&lookup).ok_or(Error::NotConfigured)?;
        Self::from_lookup(kind, lookup)
    }

    /// The model a request runs on: its explicit model, else the one for its tier.
    pub fn model_for<'a>(&'a self, explicit: Option<&'a str>, tier: ModelTier) -> &'a str {
        explicit.unwrap_or_else(|| self.models.for_tier(tier))
    }
}

/// Checks a base URL and brings it to one form: a scheme, no trailing slash; for Ollama, `host[:port]` is accepted
/// as `OLLAMA_HOST` allows, with the default port 11434.
fn normalize_base_url(kind: ProviderKind, url: &str) -> Result<String> {
    let invalid = |reason: &str| Error::InvalidSetting {
        setting: "base URL".to_owned(),
        value: url.to_owned(),
        reason: reason.to_owned(),
    };
    let trimmed = url.trim().trim_end_matches('/');
    let is_ollama = matches!(kind, ProviderKind::Ollama | ProviderKind::OllamaNative);
    let with_scheme = if trimmed.contains("://") {
        trimmed.to_owned()
    } else if is_ollama {
        format!("http://{trimmed}")
    } else {
        return Err(invalid("it needs a scheme, e.g. https://host/v1"));
    };
    let parsed = reqwest::Url::parse(&with_scheme).map_err(|error| invalid(&error.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid("only http and https are supported"));
    }
    if is_ollama && parsed.port().is_none() && !trimmed.contains("://") {
        return Ok(format!("{with_scheme}:11434"));
    }
    Ok(with_scheme)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn nothing_configured_names_the_variables() {
        let error = ProviderConfig::detect_from_lookup(lookup(&[])).unwrap_err();
        let message = error.to_string();
        for variable in ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "OLLAMA_HOST"] {
            assert!(message.contains(variable), "{message}");
        }
    }

    #[test]
    fn anthropic_from_env_reads_key_url_and_models() {
        let config = ProviderConfig::detect_from_lookup(lookup(&[
            ("ANTHROPIC_API_KEY", "sk-ant-secret"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ("ANTHROPIC_SMALL_FAST_MODEL", "claude-x-fast"),
            ("ANTHROPIC_MODEL", "claude-x"),
        ]))
        .unwrap();
        assert_eq!(config.kind, ProviderKind::Anthropic);
        assert_eq!(config.base_url.as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(config.models, ModelTiers { fast: "claude-x-fast".into(), default: "claude-x".into() });
        assert!(!format!("{config:?}").contains("sk-ant-secret"));
    }

    #[test]
    fn openai_needs_its_key() {
        let error = ProviderConfig::from_lookup(ProviderKind::OpenAi, lookup(&[])).unwrap_err();
        assert!(error.to_string().contains("OPENAI_API_KEY"), "{error}");
    }

    #[test]
    fn base_url_without_key_means_openai_compatible() {
        let config =
            ProviderConfig::detect_from_lookup(lookup(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")])).unwrap();
        assert_eq!(config.kind, ProviderKind::OpenAiCompatible);
        assert!(config.api_key.is_none());
    }

    #[test]
    fn ollama_host_accepts_host_port_and_bare_host() {
        let config = ProviderConfig::detect_from_lookup(lookup(&[("OLLAMA_HOST", "127.0.0.1:5000")])).unwrap();
        assert_eq!(config.base_url.as_deref(), Some("http://127.0.0.1:5000"));
        let config = ProviderConfig::from_lookup(ProviderKind::Ollama, lookup(&[("OLLAMA_HOST", "gpu-box")])).unwrap();
        assert_eq!(config.base_url.as_deref(), Some("http://gpu-box:11434"));
    }

    #[test]
    fn bad_base_url_names_the_variable() {
        let error = ProviderConfig::from_lookup(
            ProviderKind::Anthropic,
            lookup(&[("ANTHROPIC_API_KEY", "k"), ("ANTHROPIC_BASE_URL", "api.anthropic.com")]),
        )
        .unwrap_err();
        assert!(error.to_string().contains("ANTHROPIC_BASE_URL"), "{error}");
    }

    #[test]
    fn provider_names_round_trip() {
        for kind in ProviderKind::ALL {
            assert_eq!(kind.name().parse::<ProviderKind>().unwrap(), kind);
            assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(kind.name()));
        }
        assert!("gemini".parse::<ProviderKind>().unwrap_err().to_string().contains("anthropic"));
    }

    #[test]
    fn every_provider_has_a_fast_model_named_its_own_way() {
        // The predecessor's classifier default was an OpenRouter slug whatever the provider, which silently
        // turned the cheap tier off on the others.
        for kind in ProviderKind::ALL {
            let ModelTiers { fast, default } = kind.default_models();
            assert!(!fast.is_empty() && !default.is_empty(), "{kind}");
            let slug = |name: &str| name.contains('/');
            match kind {
                ProviderKind::OpenAiCompatible => continue,
                ProviderKind::OpenRouter => assert!(slug(&fast) && slug(&default), "{kind}: {fast}, {default}"),
                _ => assert!(!slug(&fast) && !slug(&default), "{kind}: {fast}, {default}"),
            }
            assert_ne!(fast, default, "{kind}: no cheaper tier");
        }
    }
}
