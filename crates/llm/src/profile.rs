//! How much help a model needs: its profile, `small`, `standard` or `large`, chosen per model.
//!
//! What helps a small model (a 0.5B or 1.5B one: worked examples, the shell's fixes of its scripts, greedy
//! sampling, no tool cards, its router's command not trusted) gets in the way of a capable one, and the transport
//! tells nothing about which a model is: a 70B model behind Ollama is as capable as a hosted one, and a hosted 8B
//! is not. So the profile is chosen for the model, in this order ([`ProfileChoice::resolve`]):
//!
//! 1. what the user's config file says for the provider and model (the caller looks it up);
//! 2. the model's name ([`profile_from_name`]): a parameter count in it (`qwen2.5-coder:1.5b`, `llama3.3:70b`,
//!    `Qwen2.5-Coder-0.5B-Instruct-Q4_K_M.gguf`), else a hosted frontier family (`claude-…`, `gpt-5…`, `o3`);
//! 3. the provider ([`ModelProfile::default_for`]): a hosted one's models are `large`; a local server's model
//!    whose name tells nothing is `small`. Most such models are small ones, and single-model servers (llama.cpp,
//!    LM Studio) are sent the name `default`, which cannot tell: a large model there is named in the config file.
//!
//! `standard` and `large` are treated alike today (the hosted behaviour); the two are kept apart so that a
//! config file written now stays right when they are not.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::config::ProviderKind;
use crate::error::Error;

/// How much help a model needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelProfile {
    /// A small model (under 10B parameters): worked examples, the shell's fixes, greedy sampling, no shell tool
    /// cards, no final look, and a command its router wrote is not the first attempt.
    Small,
    /// A mid-sized model (10B to under 60B): treated as a hosted model.
    Standard,
    /// A frontier model, hosted or 60B and more.
    Large,
}

/// Models under this many billion parameters are small.
pub const SMALL_BELOW_BILLIONS: f64 = 10.0;
/// Models of this many billion parameters and more are large.
pub const LARGE_FROM_BILLIONS: f64 = 60.0;

/// Hosted frontier families, by how a model's name (its last `/` part: OpenRouter's `anthropic/claude-…`) starts:
/// `large` when the name gives no parameter count ([`starts_family`]).
const LARGE_FAMILIES: &[&str] = &[
    "claude",
    "gpt-4",
    "gpt-5",
    "chatgpt",
    "o1",
    "o3",
    "o4",
    "gemini",
    "grok",
    "deepseek-chat",
    "deepseek-reasoner",
    "mistral-large",
];

/// Small families whose names often carry no size (`tinyllama`, `smollm2`).
const SMALL_FAMILIES: &[&str] = &["tinyllama", "smollm"];

impl ModelProfile {
    /// Every profile, smallest first.
    pub const ALL: [ModelProfile; 3] = [ModelProfile::Small, ModelProfile::Standard, ModelProfile::Large];

    /// The profile's name, as in the config file and reports.
    pub fn name(self) -> &'static str {
        match self {
            ModelProfile::Small => "small",
            ModelProfile::Standard => "standard",
            ModelProfile::Large => "large",
        }
    }

    /// Whether the model gets what helps a small one.
    pub fn is_small(self) -> bool {
        self == ModelProfile::Small
    }

    /// The profile of a model of `billions` parameters.
    pub fn for_parameters(billions: f64) -> ModelProfile {
        if billions < SMALL_BELOW_BILLIONS {
            ModelProfile::Small
        } else if billions < LARGE_FROM_BILLIONS {
            ModelProfile::Standard
        } else {
            ModelProfile::Large
        }
    }

    /// The profile of a model whose name tells nothing, by its provider: `large` for a hosted one (Anthropic,
    /// OpenAI, OpenRouter), `small` for a local server (Ollama, an OpenAI-compatible server).
    pub fn default_for(kind: ProviderKind) -> ModelProfile {
        match kind {
            ProviderKind::Anthropic | ProviderKind::OpenAi | ProviderKind::OpenRouter => ModelProfile::Large,
            ProviderKind::Ollama | ProviderKind::OllamaNative | ProviderKind::OpenAiCompatible => ModelProfile::Small,
        }
    }
}

impl fmt::Display for ModelProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ModelProfile {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self, Error> {
        let wanted = name.trim();
        ModelProfile::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(wanted)).ok_or_else(|| {
            Error::InvalidSetting {
                setting: "profile".to_owned(),
                value: name.to_owned(),
                reason: "use small, standard or large".to_owned(),
            }
        })
    }
}

/// Where a model's profile came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProfileSource {
    /// The user's config file.
    Config,
    /// The model's name.
    Name,
    /// The provider's default.
    Default,
}

impl ProfileSource {
    /// The source's name, as in reports.
    pub fn name(self) -> &'static str {
        match self {
            ProfileSource::Config => "config",
            ProfileSource::Name => "name",
            ProfileSource::Default => "default",
        }
    }
}

/// A model's profile, where it came from and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileChoice {
    /// The profile.
    pub profile: ModelProfile,
    /// Where it came from.
    #[serde(rename = "profile_source")]
    pub source: ProfileSource,
    /// Why, in words (`providers.ollama.models.llama3.3:70b in ~/.config/clive/config.yaml`, `its name says 1.5B
    /// parameters`, `the default for ollama, a local server`).
    #[serde(rename = "profile_reason")]
    pub reason: String,
}

impl ProfileChoice {
    /// The profile of `model` served by `kind`: `configured` (what the config file says, and where) if any, else
    /// what the name tells ([`profile_from_name`]), else the provider's default ([`ModelProfile::default_for`]).
    pub fn resolve(kind: ProviderKind, model: &str, configured: Option<(ModelProfile, String)>) -> ProfileChoice {
        if let Some((profile, reason)) = configured {
            return ProfileChoice { profile, source: ProfileSource::Config, reason };
        }
        if let Some((profile, reason)) = profile_from_name(model) {
            return ProfileChoice { profile, source: ProfileSource::Name, reason };
        }
        let profile = ModelProfile::default_for(kind);
        let reason = match profile {
            ModelProfile::Small => {
                format!("the default for {kind}, a local server, when the model's name tells no size")
            }
            _ => format!("the default for {kind}, a hosted provider"),
        };
        ProfileChoice { profile, source: ProfileSource::Default, reason }
    }
}

/// The profile `model`'s name tells, and why: a parameter count in it ([`parameters_in_name`]) decides; else a
/// known family (hosted frontier ones are `large`). `None` for a name that tells neither (`default`, `my-model`).
pub fn profile_from_name(model: &str) -> Option<(ModelProfile, String)> {
    if let Some(billions) = parameters_in_name(model) {
        let profile = ModelProfile::for_parameters(billions);
        return Some((profile, format!("its name says {}B parameters", trim_float(billions))));
    }
    let lower = model.trim().to_ascii_lowercase();
    let last = lower.rsplit('/').next().unwrap_or(&lower);
    let family = |prefixes: &[&'static str]| prefixes.iter().copied().find(|prefix| starts_family(last, prefix));
    if let Some(prefix) = family(LARGE_FAMILIES) {
        return Some((ModelProfile::Large, format!("its name is of the hosted family {prefix}")));
    }
    family(SMALL_FAMILIES).map(|prefix| (ModelProfile::Small, format!("its name is of the small family {prefix}")))
}

/// Whether `name` starts with the family `prefix`, a prefix that ends in a digit not followed by another (`o3`
/// and `o3-mini` are `o3`, `o30` is not; `gpt-4.1` is `gpt-4`).
fn starts_family(name: &str, prefix: &str) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else { return false };
    let ends_in_digit = prefix.ends_with(|c: char| c.is_ascii_digit());
    !(ends_in_digit && rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// `1.5` as `1.5`, `70.0` as `70`.
fn trim_float(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The parameter count a model's name gives, in billions: the first `<number>b` or `<number>m` that stands
/// apart (after the start or a character that is not a letter, digit or `.`; before the end or such a character),
/// `<n>x<number>b` for a mixture (`8x7b` is 56). `qwen2.5-coder:1.5b` is 1.5, `llama3.3:70b` 70,
/// `Qwen2.5-Coder-0.5B-Instruct-Q4_K_M.gguf` 0.5, `smollm2:135m` 0.135; `qwen2.5` alone and `a3b` (of
/// `qwen3:30b-a3b`, the active parameters) are no count.
pub fn parameters_in_name(name: &str) -> Option<f64> {
    let lower = name.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let apart = |b: u8| !b.is_ascii_alphanumeric() && b != b'.';
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start].is_ascii_digit() && (start == 0 || apart(bytes[start - 1])) {
            if let Some(billions) = count_at(bytes, start).filter(|&(_, end)| end == bytes.len() || apart(bytes[end])) {
                return Some(billions.0);
            }
            // Not a count: skip the rest of this run of digits and dots, so `3.1` is not read again from `1`.
            while start < bytes.len() && (bytes[start].is_ascii_digit() || bytes[start] == b'.') {
                start += 1;
            }
            continue;
        }
        start += 1;
    }
    None
}

/// The count that starts at `start` (`1.5b`, `8x7b`, `135m`), in billions, and where it ends.
fn count_at(bytes: &[u8], start: usize) -> Option<(f64, usize)> {
    let (first, mut end) = number_at(bytes, start)?;
    let mut value = first;
    if bytes.get(end) == Some(&b'x')
        && let Some((each, after)) = number_at(bytes, end + 1)
    {
        value = first * each;
        end = after;
    }
    let scale = match bytes.get(end) {
        Some(b'b') => 1.0,
        Some(b'm') => 0.001,
        _ => return None,
    };
    (value > 0.0).then_some((value * scale, end + 1))
}

/// The decimal number (`7`, `1.5`) that starts at `start`, and where it ends.
fn number_at(bytes: &[u8], start: usize) -> Option<(f64, usize)> {
    let mut end = start;
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    if end == start {
        return None;
    }
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end += 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
    }
    let text = std::str::from_utf8(&bytes[start..end]).ok()?;
    text.parse().ok().map(|value| (value, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn named(model: &str) -> Option<ModelProfile> {
        profile_from_name(model).map(|(profile, _)| profile)
    }

    #[test]
    fn sizes_in_names_are_read() {
        let cases: &[(&str, Option<f64>)] = &[
            ("qwen2.5-coder:1.5b", Some(1.5)),
            ("qwen2.5-coder:0.5b-instruct-q4_K_M", Some(0.5)),
            ("Qwen2.5-Coder-0.5B-Instruct-Q4_K_M.gguf", Some(0.5)),
            ("llama3.3:70b", Some(70.0)),
            ("meta-llama/llama-3.1-8b-instruct", Some(8.0)),
            ("mixtral:8x7b", Some(56.0)),
            ("qwen3:30b-a3b", Some(30.0)),
            ("smollm2:135m", Some(0.135)),
            ("phi3:3.8b", Some(3.8)),
            ("Qwen/Qwen2.5-Coder-32B-Instruct", Some(32.0)),
            ("qwen2.5-coder", None),
            ("qwen2.5-coder:latest", None),
            ("default", None),
            ("gpt-4o", None),
            ("o3-mini", None),
            ("claude-sonnet-4-5", None),
            ("gemma3n:e4b", None),
            ("model-0b", None),
        ];
        for (name, billions) in cases {
            assert_eq!(parameters_in_name(name), *billions, "{name}");
        }
    }

    #[test]
    fn small_local_models_are_small_and_large_ones_are_not() {
        assert_eq!(named("qwen2.5-coder:0.5b"), Some(ModelProfile::Small));
        assert_eq!(named("qwen2.5-coder:1.5b"), Some(ModelProfile::Small));
        assert_eq!(named("qwen2.5-coder:7b"), Some(ModelProfile::Small));
        assert_eq!(named("qwen2.5-coder:14b"), Some(ModelProfile::Standard));
        assert_eq!(named("qwen2.5-coder:32b"), Some(ModelProfile::Standard));
        assert_eq!(named("llama3.3:70b"), Some(ModelProfile::Large));
        assert_eq!(named("deepseek-r1:671b"), Some(ModelProfile::Large));
        assert_eq!(named("tinyllama"), Some(ModelProfile::Small));
        assert_eq!(named("default"), None);
    }

    #[test]
    fn hosted_families_are_large() {
        for name in [
            "claude-sonnet-4-5",
            "claude-haiku-4-5",
            "anthropic/claude-sonnet-4.5",
            "gpt-5",
            "gpt-5-mini",
            "gpt-4o",
            "gpt-4.1-mini",
            "o3",
            "o4-mini",
            "gemini-2.5-pro",
        ] {
            assert_eq!(named(name), Some(ModelProfile::Large), "{name}");
        }
        for name in ["olmo2", "o30", "gpt-3.5-turbo", "mistral"] {
            assert_eq!(named(name), None, "{name}");
        }
        // A size wins over the family: an open-weights model of a hosted vendor is as large as it is.
        assert_eq!(named("gpt-oss:20b"), Some(ModelProfile::Standard));
    }

    #[test]
    fn the_config_wins_over_the_name_and_the_name_over_the_default() {
        let configured = Some((ModelProfile::Large, "providers.ollama.profile".to_owned()));
        let choice = ProfileChoice::resolve(ProviderKind::Ollama, "qwen2.5-coder:1.5b", configured);
        assert_eq!((choice.profile, choice.source), (ModelProfile::Large, ProfileSource::Config));
        let choice = ProfileChoice::resolve(ProviderKind::Ollama, "qwen2.5-coder:1.5b", None);
        assert_eq!((choice.profile, choice.source), (ModelProfile::Small, ProfileSource::Name));
        assert_eq!(choice.reason, "its name says 1.5B parameters");
        // A 70B model behind Ollama or an OpenAI-compatible server is not small.
        for kind in [ProviderKind::Ollama, ProviderKind::OllamaNative, ProviderKind::OpenAiCompatible] {
            assert_eq!(ProfileChoice::resolve(kind, "llama3.3:70b", None).profile, ModelProfile::Large);
        }
        // What llama.cpp's server is sent (the eval's local backend): a local server's default, small.
        let choice = ProfileChoice::resolve(ProviderKind::OpenAiCompatible, "default", None);
        assert_eq!((choice.profile, choice.source), (ModelProfile::Small, ProfileSource::Default));
        let choice = ProfileChoice::resolve(ProviderKind::Anthropic, "my-finetune", None);
        assert_eq!((choice.profile, choice.source), (ModelProfile::Large, ProfileSource::Default));
        for kind in ProviderKind::ALL {
            let default = kind.default_models().default;
            let expected = if ProfileChoice::resolve(kind, "x", None).profile.is_small() {
                ModelProfile::Small
            } else {
                ModelProfile::Large
            };
            assert_eq!(ProfileChoice::resolve(kind, &default, None).profile, expected, "{kind} {default}");
        }
    }

    #[test]
    fn profiles_parse_by_name_and_bad_ones_say_what_to_use() {
        assert_eq!("Small".parse::<ModelProfile>().unwrap(), ModelProfile::Small);
        assert_eq!(" large ".parse::<ModelProfile>().unwrap(), ModelProfile::Large);
        let error = "medium".parse::<ModelProfile>().unwrap_err().to_string();
        assert!(error.contains("medium") && error.contains("small, standard or large"), "{error}");
        assert_eq!(serde_json::to_string(&ModelProfile::Standard).unwrap(), "\"standard\"");
    }

    proptest! {
        #[test]
        fn any_name_reads_without_panicking(name in "\\PC{0,40}") {
            let _ = parameters_in_name(&name);
            let _ = profile_from_name(&name);
        }

        #[test]
        fn a_tagged_size_is_read_back(
            family in "[a-z][a-z0-9.-]{0,12}",
            whole in 1u32..1000,
            tenth in proptest::option::of(0u32..10),
            suffix in proptest::option::of("-[a-z0-9_]{1,8}"),
        ) {
            // A family that ends in a digit or dot would run into the size: a separator keeps them apart.
            let size = match tenth { Some(t) => format!("{whole}.{t}"), None => whole.to_string() };
            let name = format!("{family}:{size}b{}", suffix.unwrap_or_default());
            let expected: f64 = size.parse().unwrap();
            let read = parameters_in_name(&name);
            // The family may hold a count of its own (`x-7b`), which comes first.
            if parameters_in_name(&family).is_none() {
                prop_assert_eq!(read, Some(expected), "{}", name);
                prop_assert_eq!(named(&name), Some(ModelProfile::for_parameters(expected)));
            }
        }

        #[test]
        fn more_parameters_never_make_a_smaller_profile(a in 0.0f64..1000.0, b in 0.0f64..1000.0) {
            let (low, high) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(ModelProfile::for_parameters(low) <= ModelProfile::for_parameters(high));
        }
    }
}
