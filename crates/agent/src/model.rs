//! Calling the model for one subtask: the request built from a [`Prompt`], a deadline, and everything recorded —
//! calls, tokens, cost and time in the [`RunLedger`], the exchange in the subtask's transcript.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use llm::{ChatModel, ChatRequest, ChatResponse};
use serde_json::json;

use crate::config::AgentConfig;
use crate::prompt::Prompt;
use crate::stats::{RunLedger, Tokens};

/// Why a model call gave no reply.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The provider failed (after its own retries), or the budget refused the call.
    #[error(transparent)]
    Model(#[from] llm::Error),
    /// No reply within the turn's deadline.
    #[error("the model did not reply within {0:?}")]
    TimedOut(Duration),
}

impl CallError {
    /// Whether the run's token budget refused the call.
    pub fn is_budget(&self) -> bool {
        matches!(self, CallError::Model(llm::Error::BudgetExhausted { .. }))
    }
}

/// What one call asks for besides the prompt.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallShape<'a> {
    /// What the call is for, in the transcript (`turn 3`, `script attempt 1`).
    pub purpose: &'a str,
    /// The longest reply.
    pub max_tokens: u32,
    /// Constrain the reply to this JSON Schema (name, schema).
    pub schema: Option<(&'a str, &'a serde_json::Value)>,
    /// Stop sequences: the reply ends where one would begin.
    pub stop: &'a [&'a str],
    /// The sampling temperature of this call, instead of the configured one.
    pub temperature: Option<f32>,
}

/// Calls the model on behalf of one subtask (or of the run, for the final answer).
#[derive(Clone)]
pub(crate) struct Caller {
    model: Arc<dyn ChatModel>,
    config: Arc<AgentConfig>,
    ledger: RunLedger,
    id: String,
    transcript: Option<PathBuf>,
}

impl Caller {
    pub(crate) fn new(
        model: Arc<dyn ChatModel>,
        config: Arc<AgentConfig>,
        ledger: RunLedger,
        id: &str,
        transcript: Option<PathBuf>,
    ) -> Caller {
        Caller { model, config, ledger, id: id.to_owned(), transcript }
    }

    /// Sends `prompt` and returns the reply, recording the call.
    pub(crate) async fn call(&self, prompt: &Prompt, shape: CallShape<'_>) -> Result<ChatResponse, CallError> {
        let mut request = ChatRequest::from_messages(prompt.messages.clone())
            .system(&prompt.system)
            .tier(self.config.tier)
            .max_tokens(shape.max_tokens);
        if let Some(model) = &self.config.model {
            request = request.model(model);
        }
        if let Some(temperature) = shape.temperature.or(self.config.temperature) {
            request = request.temperature(temperature);
        }
        if let Some((name, schema)) = shape.schema {
            request = request.json_schema(name, schema.clone());
        }
        for stop in shape.stop {
            request = request.stop_sequence(*stop);
        }
        let started = Instant::now();
        let reply = match tokio::time::timeout(self.config.model_timeout, self.model.chat(&request)).await {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(error)) => Err(CallError::Model(error)),
            Err(_) => Err(CallError::TimedOut(self.config.model_timeout)),
        };
        let elapsed = started.elapsed();
        let model_name = self.model.model_for(&request);
        let cost = reply.as_ref().ok().map(|r| self.config.prices.cost(&r.model, &r.usage));
        // A refused call never reached the provider: it is not a call, but the refusal is recorded by the budget.
        let counted = !matches!(&reply, Err(e) if e.is_budget());
        self.ledger.update(&self.id, |stats| {
            if counted {
                stats.model_calls += 1;
            }
            stats.model_ms += millis(elapsed);
            if let Ok(reply) = &reply {
                stats.tokens += Tokens::from(reply.usage);
                match cost.flatten() {
                    Some(cost) => stats.cost_usd += cost,
                    None => stats.unpriced_calls += 1,
                }
            }
        });
        self.record(shape.purpose, prompt, &model_name, &reply, elapsed);
        reply
    }

    /// Appends the exchange to the transcript (one JSON object per line); a failed write is logged, not fatal.
    fn record(
        &self,
        purpose: &str,
        prompt: &Prompt,
        model: &str,
        reply: &Result<ChatResponse, CallError>,
        elapsed: Duration,
    ) {
        let Some(path) = &self.transcript else { return };
        let entry = match reply {
            Ok(reply) => json!({
                "purpose": purpose, "model": model, "ms": millis(elapsed), "system": prompt.system,
                "messages": prompt.messages, "reply": reply.text, "usage": reply.usage,
            }),
            Err(error) => json!({
                "purpose": purpose, "model": model, "ms": millis(elapsed), "system": prompt.system,
                "messages": prompt.messages, "error": error.to_string(),
            }),
        };
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut file| writeln!(file, "{entry}"));
        if let Err(error) = written {
            tracing::warn!(path = %path.display(), %error, "could not write the transcript");
        }
    }

    /// Tokens spent by this caller's subtask so far.
    pub(crate) fn tokens_so_far(&self) -> u64 {
        self.ledger.get(&self.id).map_or(0, |s| s.tokens.total())
    }
}

pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
