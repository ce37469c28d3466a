//! One model call of a tier, with its cost, and the fallback for providers that refuse JSON schemas.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use llm::{ChatModel, ChatRequest, ChatResponse, Usage};

use crate::cost::TierStep;
use crate::route::Tier;

/// Adds up what one tier spends: calls, tokens, wall time, the model that answered.
pub(crate) struct Meter {
    tier: Tier,
    started: Instant,
    model: Option<String>,
    calls: u32,
    usage: Usage,
}

impl Meter {
    pub(crate) fn start(tier: Tier) -> Self {
        Meter { tier, started: Instant::now(), model: None, calls: 0, usage: Usage::default() }
    }

    /// Sends `request`; when `schemas` says the provider takes JSON schemas the schema is sent, and if the
    /// provider refuses the request for it (HTTP 400/422, or "unsupported"), the request is sent once more
    /// without it and `schemas` remembers that. Every call is counted, failed ones included.
    pub(crate) async fn chat(
        &mut self,
        model: &dyn ChatModel,
        schemas: &AtomicBool,
        mut request: ChatRequest,
    ) -> Result<ChatResponse, llm::Error> {
        if !schemas.load(Ordering::Relaxed) {
            request.json_schema = None;
        }
        let with_schema = request.json_schema.is_some();
        self.model.get_or_insert_with(|| model.model_for(&request));
        let first = self.call(model, &request).await;
        match first {
            Err(error) if with_schema && refuses_schema(&error) => {
                schemas.store(false, Ordering::Relaxed);
                request.json_schema = None;
                self.call(model, &request).await
            }
            other => other,
        }
    }

    async fn call(&mut self, model: &dyn ChatModel, request: &ChatRequest) -> Result<ChatResponse, llm::Error> {
        self.calls += 1;
        let response = model.chat(request).await?;
        self.usage += response.usage;
        // Single-model servers (llama.cpp) answer with a placeholder such as `-`; the requested name says more.
        if !response.model.is_empty() && response.model != "-" {
            self.model = Some(response.model.clone());
        }
        Ok(response)
    }

    /// The tier's record; `declined` says why it passed the task on.
    pub(crate) fn finish(self, declined: Option<String>) -> TierStep {
        let mut step = TierStep::new(self.tier, self.started.elapsed());
        step.model = self.model;
        step.calls = self.calls;
        step.usage = self.usage;
        step.declined = declined;
        step
    }
}

/// Whether the provider refused the request in a way a request without a schema may avoid.
fn refuses_schema(error: &llm::Error) -> bool {
    matches!(error, llm::Error::Api { status: 400 | 422, .. } | llm::Error::Unsupported { .. })
}
