//! The local model (llama.cpp + Qwen2.5-Coder-0.5B-Instruct) at `LOCAL_LLM_URL`, shared by the smoke tests and
//! the routing benchmark.

use std::sync::Arc;
use std::time::Duration;

use llm::{ChatModel, ProviderConfig, ProviderKind, Timeouts};

/// A client of the llama.cpp server at `url` (its OpenAI-compatible endpoint), with deadlines generous enough
/// for a 2-core machine that is compiling while the model generates.
pub fn connect(url: &str) -> Arc<dyn ChatModel> {
    let timeouts = Timeouts {
        connect: Duration::from_secs(5),
        request: Duration::from_secs(180),
        stream_idle: Duration::from_secs(60),
    };
    let config = ProviderConfig::new(ProviderKind::OpenAiCompatible)
        .base_url(&format!("{}/v1", url.trim_end_matches('/')))
        .unwrap()
        .timeouts(timeouts);
    llm::connect(config).unwrap()
}
