//! Prices per model, to turn token counts into an estimated cost.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::response::Usage;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Input tokens not served from the cache.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Input tokens read from the prompt cache.
    pub cached_input: f64,
    /// Input tokens written to the prompt cache; when absent, 1.25 × `input` (Anthropic's 5-minute rate).
    #[serde(default)]
    pub cache_write: Option<f64>,
}

impl ModelPrice {
    /// A price without a separate cache-write rate.
    pub const fn new(input: f64, output: f64, cached_input: f64) -> Self {
        ModelPrice { input, output, cached_input, cache_write: None }
    }

    /// The cost in USD of `usage` at this price.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per_token = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per_token(usage.uncached_input_tokens(), self.input)
            + per_token(usage.cached_input_tokens, self.cached_input)
            + per_token(usage.cache_write_tokens, self.cache_write.unwrap_or(self.input * 1.25))
            + per_token(usage.output_tokens, self.output)
    }
}

/// Model name → price. Starts with list prices of current models (late 2026; check your provider's page) and
/// takes overrides. Local models (Ollama, llama.cpp) are absent, so their cost is unknown rather than wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceTable {
    prices: HashMap<String, ModelPrice>,
}

const BUILT_IN: &[(&str, ModelPrice)] = &[
    ("claude-opus-4-5", ModelPrice::new(5.0, 25.0, 0.5)),
    ("claude-opus-4-1", ModelPrice::new(15.0, 75.0, 1.5)),
    ("claude-sonnet-4-5", ModelPrice::new(3.0, 15.0, 0.3)),
    ("claude-sonnet-4", ModelPrice::new(3.0, 15.0, 0.3)),
    ("claude-haiku-4-5", ModelPrice::new(1.0, 5.0, 0.1)),
    ("claude-3-5-haiku", ModelPrice::new(0.8, 4.0, 0.08)),
    ("gpt-5", ModelPrice::new(1.25, 10.0, 0.125)),
    ("gpt-5-mini", ModelPrice::new(0.25, 2.0, 0.025)),
    ("gpt-5-nano", ModelPrice::new(0.05, 0.4, 0.005)),
    ("gpt-4.1", ModelPrice::new(2.0, 8.0, 0.5)),
    ("gpt-4.1-mini", ModelPrice::new(0.4, 1.6, 0.1)),
    ("gpt-4o", ModelPrice::new(2.5, 10.0, 1.25)),
    ("gpt-4o-mini", ModelPrice::new(0.15, 0.6, 0.075)),
];

impl Default for PriceTable {
    fn default() -> Self {
        PriceTable { prices: BUILT_IN.iter().map(|(model, price)| ((*model).to_owned(), *price)).collect() }
    }
}

impl PriceTable {
    /// A table with no prices at all.
    pub fn empty() -> Self {
        PriceTable { prices: HashMap::new() }
    }

    /// Sets (or replaces) a model's price.
    pub fn set(&mut self, model: impl Into<String>, price: ModelPrice) -> &mut Self {
        self.prices.insert(model.into(), price);
        self
    }

    /// Merges overrides from JSON: `{"model": {"input": 3.0, "output": 15.0, "cached_input": 0.3}, …}`.
    pub fn merge_json(&mut self, json: &str) -> Result<&mut Self> {
        let overrides: HashMap<String, ModelPrice> = serde_json::from_str(json).map_err(|error| {
            Error::InvalidSetting {
                setting: "price table".to_owned(),
                value: json.chars().take(80).collect(),
                reason: format!(
                    "{error}; expected {{\"model\": {{\"input\": 3.0, \"output\": 15.0, \"cached_input\": 0.3}}}} in USD per million tokens"
                ),
            }
        })?;
        self.prices.extend(overrides);
        Ok(self)
    }

    /// The price of `model`. Also finds dated snapshots (`claude-sonnet-4-5-20250929`, `gpt-5-2025-08-07`) and
    /// OpenRouter names (`anthropic/claude-sonnet-4.5`) under their base name.
    pub fn price(&self, model: &str) -> Option<ModelPrice> {
        if let Some(price) = self.prices.get(model) {
            return Some(*price);
        }
        let unprefixed = model.rsplit_once('/').map_or(model, |(_, name)| name);
        let mut name = unprefixed.replace('.', "-");
        if let Some(price) = self.prices.get(unprefixed).or_else(|| self.prices.get(&name)) {
            return Some(*price);
        }
        // Strip trailing date parts (`-20250929`, `-2025-08-07`) one at a time.
        while let Some((head, tail)) = name.rsplit_once('-') {
            if !tail.chars().all(|c| c.is_ascii_digit()) || tail.len() < 2 {
                break;
            }
            name = head.to_owned();
            if let Some(price) = self.prices.get(&name) {
                return Some(*price);
            }
        }
        None
    }

    /// The cost of `usage` on `model`, if its price is known.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        self.price(model).map(|price| price.cost(usage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_prices_each_kind_of_token() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            cached_input_tokens: 500_000,
            cache_write_tokens: 0,
        };
        let cost = PriceTable::default().cost("claude-sonnet-4-5", &usage).unwrap();
        assert!((cost - (1.5 + 0.15 + 15.0)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn finds_snapshots_and_openrouter_names() {
        let table = PriceTable::default();
        assert_eq!(table.price("claude-sonnet-4-5-20250929"), table.price("claude-sonnet-4-5"));
        assert_eq!(table.price("gpt-5-2025-08-07"), table.price("gpt-5"));
        assert_eq!(table.price("anthropic/claude-haiku-4.5"), table.price("claude-haiku-4-5"));
        assert_eq!(table.price("openai/gpt-4.1-mini"), table.price("gpt-4.1-mini"));
        assert!(table.price("qwen2.5-coder:7b").is_none());
        assert!(table.price("gpt-5").is_some());
    }

    #[test]
    fn overrides_replace_and_add() {
        let mut table = PriceTable::default();
        table.merge_json(r#"{"gpt-5": {"input": 1, "output": 2, "cached_input": 0.5}, "local": {"input": 0, "output": 0, "cached_input": 0}}"#).unwrap();
        assert_eq!(table.price("gpt-5"), Some(ModelPrice::new(1.0, 2.0, 0.5)));
        assert_eq!(table.cost("local", &Usage { input_tokens: 10, ..Usage::default() }), Some(0.0));
        let error = table.merge_json("{\"x\": 1}").unwrap_err();
        assert!(error.to_string().contains("USD per million"), "{error}");
    }
}
