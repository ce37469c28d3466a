//! A token budget shared by every call of a run: a [`ChatModel`] wrapper that reserves before a call and settles
//! after it, so calls in flight and calls that failed count too.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use futures_util::StreamExt;

use crate::config::{ProviderConfig, ProviderKind};
use crate::error::{Error, Result};
use crate::model::ChatModel;
use crate::request::ChatRequest;
use crate::response::{ChatResponse, ChatStream, StreamEvent};

/// Characters per token assumed when estimating a prompt before it is sent. Real tokenizers average 3.5–4.5
/// characters per token on English and code; 3 over-estimates on purpose, so a reservation is rarely too small.
const CHARS_PER_TOKEN: u64 = 3;
/// Tokens added per message for the chat template's framing (role markers, separators).
const TOKENS_PER_MESSAGE: u64 = 8;

/// How many tokens a run may spend, and how many it has spent or holds for calls in flight.
///
/// Cheap to share (`Arc`); every [`Budgeted`] model of a run points at the same one, so a router's calls and a
/// runner's calls draw from one pot.
#[derive(Debug)]
pub struct TokenBudget {
    limit: u64,
    state: Mutex<BudgetState>,
}

/// A snapshot of a [`TokenBudget`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BudgetState {
    /// Tokens settled: finished calls (their reported usage) and failed ones (their estimated prompt).
    pub spent: u64,
    /// Tokens held by calls in flight (their estimated prompt plus `max_tokens`).
    pub reserved: u64,
    /// Calls refused because the budget could not cover them.
    pub refused_calls: u64,
}

impl TokenBudget {
    /// A budget of `limit` tokens (input plus output, cached input included).
    pub fn new(limit: u64) -> Arc<TokenBudget> {
        Arc::new(TokenBudget { limit, state: Mutex::new(BudgetState::default()) })
    }

    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Spent and reserved tokens now.
    pub fn state(&self) -> BudgetState {
        *self.lock()
    }

    /// Tokens neither spent nor reserved.
    pub fn remaining(&self) -> u64 {
        let state = self.state();
        self.limit.saturating_sub(state.spent + state.reserved)
    }

    /// Whether a call was refused for lack of tokens (the run should stop).
    pub fn is_exhausted(&self) -> bool {
        let state = self.state();
        state.refused_calls > 0 || state.spent >= self.limit
    }

    /// Reserves `tokens` for a call, or refuses with [`Error::BudgetExhausted`].
    fn reserve(&self, tokens: u64) -> Result<()> {
        let mut state = self.lock();
        if state.spent + state.reserved + tokens > self.limit {
            state.refused_calls += 1;
            return Err(Error::BudgetExhausted {
                limit: self.limit,
                spent: state.spent,
                in_flight: state.reserved,
                needed: tokens,
            });
        }
        state.reserved += tokens;
        Ok(())
    }

    /// Releases a reservation of `reserved` tokens and spends `spent` instead.
    fn settle(&self, reserved: u64, spent: u64) {
        let mut state = self.lock();
        state.reserved = state.reserved.saturating_sub(reserved);
        state.spent += spent;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BudgetState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A conservative estimate of the prompt tokens of `request` (before the provider counts them).
pub fn estimate_prompt_tokens(request: &ChatRequest) -> u64 {
    let chars = request.system.as_deref().map_or(0, str::len)
        + request.messages.iter().map(|m| m.content.len()).sum::<usize>()
        + request.json_schema.as_ref().map_or(0, |f| f.schema.to_string().len());
    let messages = request.messages.len() as u64 + u64::from(request.system.is_some());
    (chars as u64).div_ceil(CHARS_PER_TOKEN) + messages * TOKENS_PER_MESSAGE
}

/// A [`ChatModel`] that draws every call from a [`TokenBudget`].
///
/// Before a call it reserves the estimated prompt plus `max_tokens` and refuses the call with
/// [`Error::BudgetExhausted`] when that does not fit; after the call it spends what the provider reported. A call
/// that fails (or a stream dropped before its end) spends its estimated prompt and whatever text it returned, since
/// the provider may have billed it.
///
/// ```
/// use clive_models::{Budgeted, TokenBudget};
/// # fn wrap(model: std::sync::Arc<dyn clive_models::ChatModel>) {
/// let budget = TokenBudget::new(50_000);
/// let model = Budgeted::new(model, budget.clone());
/// // ... calls through `model` ...
/// println!("{} of {} tokens left", budget.remaining(), budget.limit());
/// # }
/// ```
pub struct Budgeted {
    inner: Arc<dyn ChatModel>,
    budget: Arc<TokenBudget>,
}

impl Budgeted {
    /// Wraps `inner`, drawing from `budget`.
    pub fn new(inner: Arc<dyn ChatModel>, budget: Arc<TokenBudget>) -> Budgeted {
        Budgeted { inner, budget }
    }

    /// The budget.
    pub fn budget(&self) -> &Arc<TokenBudget> {
        &self.budget
    }
}

impl std::fmt::Debug for Budgeted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budgeted").field("provider", &self.inner.provider()).field("budget", &self.budget).finish()
    }
}

/// A reservation that settles when dropped, so a cancelled call (its future dropped) still counts.
struct Hold {
    budget: Arc<TokenBudget>,
    reserved: u64,
    prompt: u64,
    /// Output characters seen so far (streams).
    output_chars: u64,
    settled: bool,
}

impl Hold {
    fn settle(&mut self, spent: u64) {
        if !self.settled {
            self.settled = true;
            self.budget.settle(self.reserved, spent);
        }
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let spent = self.prompt + self.output_chars.div_ceil(CHARS_PER_TOKEN);
        self.settle(spent);
    }
}

impl Budgeted {
    fn hold(&self, request: &ChatRequest) -> Result<Hold> {
        let prompt = estimate_prompt_tokens(request);
        let reserved = prompt + u64::from(request.max_tokens);
        self.budget.reserve(reserved)?;
        Ok(Hold { budget: self.budget.clone(), reserved, prompt, output_chars: 0, settled: false })
    }
}

#[async_trait]
impl ChatModel for Budgeted {
    fn provider(&self) -> ProviderKind {
        self.inner.provider()
    }

    fn config(&self) -> &ProviderConfig {
        self.inner.config()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let mut hold = self.hold(request)?;
        let response = self.inner.chat(request).await?;
        hold.settle(response.usage.input_tokens + response.usage.output_tokens);
        Ok(response)
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream> {
        let mut hold = self.hold(request)?;
        let stream = self.inner.chat_stream(request).await?;
        Ok(Box::pin(stream.map(move |event| {
            match &event {
                Ok(StreamEvent::TextDelta(text)) => hold.output_chars += text.len() as u64,
                Ok(StreamEvent::End(end)) => hold.settle(end.usage.input_tokens + end.usage.output_tokens),
                Err(_) => {}
            }
            event
        })))
    }

    fn model_for(&self, request: &ChatRequest) -> String {
        self.inner.model_for(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Message;

    #[test]
    fn reservations_count_until_settled() {
        let budget = TokenBudget::new(1000);
        budget.reserve(600).unwrap();
        assert_eq!(budget.remaining(), 400);
        let error = budget.reserve(500).unwrap_err();
        assert!(error.to_string().contains("600 in flight"), "{error}");
        assert!(budget.is_exhausted());
        budget.settle(600, 250);
        assert_eq!(budget.state(), BudgetState { spent: 250, reserved: 0, refused_calls: 1 });
        assert_eq!(budget.remaining(), 750);
    }

    #[test]
    fn estimates_cover_system_messages_and_schema() {
        let request = ChatRequest::from_messages(vec![Message::user("x".repeat(300))]).system("y".repeat(30));
        assert_eq!(estimate_prompt_tokens(&request), 110 + 16);
        let with_schema = request.json_schema("a", serde_json::json!({"type": "object"}));
        assert!(estimate_prompt_tokens(&with_schema) > 126);
    }
}
