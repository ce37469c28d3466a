//! Usage accounting: a [`ChatModel`] wrapper that adds every call's usage and cost to a shared ledger.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use futures_util::StreamExt;

use crate::config::{ProviderConfig, ProviderKind};
use crate::error::Result;
use crate::model::ChatModel;
use crate::pricing::PriceTable;
use crate::request::ChatRequest;
use crate::response::{ChatResponse, ChatStream, StreamEvent, Usage};

/// Running totals of a [`UsageLedger`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageTotals {
    /// Completed calls.
    pub calls: u64,
    /// Summed token counts.
    pub usage: Usage,
    /// Estimated cost in USD of the calls whose model has a price.
    pub cost_usd: f64,
    /// Calls on models without a price (not in `cost_usd`).
    pub unpriced_calls: u64,
}

/// Adds up usage and estimated cost across calls; shareable between tasks.
#[derive(Debug, Default)]
pub struct UsageLedger {
    prices: PriceTable,
    totals: Mutex<UsageTotals>,
}

impl UsageLedger {
    /// A ledger pricing calls with `prices`.
    pub fn new(prices: PriceTable) -> Self {
        UsageLedger { prices, totals: Mutex::new(UsageTotals::default()) }
    }

    /// Records one call; returns its estimated cost if the model has a price.
    pub fn record(&self, model: &str, usage: &Usage) -> Option<f64> {
        let cost = self.prices.cost(model, usage);
        let mut totals = self.totals.lock().unwrap_or_else(PoisonError::into_inner);
        totals.calls += 1;
        totals.usage += *usage;
        match cost {
            Some(cost) => totals.cost_usd += cost,
            None => totals.unpriced_calls += 1,
        }
        cost
    }

    /// The totals so far.
    pub fn totals(&self) -> UsageTotals {
        *self.totals.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The price table in use.
    pub fn prices(&self) -> &PriceTable {
        &self.prices
    }
}

/// A [`ChatModel`] that records every completed call (streamed ones at their end) in a [`UsageLedger`].
///
/// ```no_run
/// # async fn demo() -> Result<(), clive_models::Error> {
/// use std::sync::Arc;
/// let ledger = Arc::new(clive_models::UsageLedger::default());
/// let model = clive_models::Metered::new(clive_models::connect(clive_models::ProviderConfig::detect_from_env()?)?, ledger.clone());
/// # use clive_models::ChatModel;
/// model.chat(&clive_models::ChatRequest::new("hi")).await?;
/// println!("{:.4} USD so far", ledger.totals().cost_usd);
/// # Ok(()) }
/// ```
pub struct Metered {
    inner: Arc<dyn ChatModel>,
    ledger: Arc<UsageLedger>,
}

impl Metered {
    /// Wraps `inner`, recording into `ledger`.
    pub fn new(inner: Arc<dyn ChatModel>, ledger: Arc<UsageLedger>) -> Self {
        Metered { inner, ledger }
    }

    /// The ledger.
    pub fn ledger(&self) -> &Arc<UsageLedger> {
        &self.ledger
    }
}

#[async_trait]
impl ChatModel for Metered {
    fn provider(&self) -> ProviderKind {
        self.inner.provider()
    }

    fn config(&self) -> &ProviderConfig {
        self.inner.config()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let response = self.inner.chat(request).await?;
        self.ledger.record(&response.model, &response.usage);
        Ok(response)
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream> {
        let ledger = self.ledger.clone();
        let stream = self.inner.chat_stream(request).await?;
        Ok(Box::pin(stream.inspect(move |event| {
            if let Ok(StreamEvent::End(end)) = event {
                ledger.record(&end.model, &end.usage);
            }
        })))
    }
}
