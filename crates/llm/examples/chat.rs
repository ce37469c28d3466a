//! Ask a chat model one question from the command line.
//!
//! ```text
//! cargo run -p clive-models --example chat -- [--provider anthropic|openai|openrouter|ollama|ollama-native|openai-compatible]
//!     [--model M] [--fast] [--stream] [--json] [--max-tokens N] [--system TEXT] "prompt"
//! ```
//!
//! Prints the reply on stdout and one usage line on stderr. Keys and base URLs come from the environment
//! (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENROUTER_API_KEY`,
//! `OLLAMA_HOST`); without `--provider` the first configured one is used. Exit codes: 0 success, 1 the call
//! failed, 2 bad arguments or configuration.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use clive_models::{
    ChatModel, ChatRequest, Metered, ModelTier, PriceTable, ProviderConfig, ProviderKind, StreamEvent, UsageLedger,
};
use futures_util::StreamExt;

#[derive(Parser)]
#[command(
    about = "Ask a chat model one question",
    after_help = "Examples:\n  \
    ANTHROPIC_API_KEY=... cargo run -p clive-models --example chat -- \"Name one Unix shell\"\n  \
    OLLAMA_HOST=127.0.0.1:11434 cargo run -p clive-models --example chat -- --provider ollama --model llama3.2 --stream \"hi\"\n\n\
    Exit codes: 0 success, 1 the call failed, 2 bad arguments or configuration."
)]
struct Args {
    /// Provider; default: the first configured in the environment.
    #[arg(long)]
    provider: Option<ProviderKind>,
    /// Model name; default: the provider's default (or fast) model.
    #[arg(long)]
    model: Option<String>,
    /// Use the provider's fast model.
    #[arg(long)]
    fast: bool,
    /// Stream the reply as it is generated.
    #[arg(long)]
    stream: bool,
    /// Most tokens in the reply.
    #[arg(long, default_value_t = 1024)]
    max_tokens: u32,
    /// System prompt.
    #[arg(long)]
    system: Option<String>,
    /// Print one JSON object (text, stop_reason, usage, model, provider, cost_usd) instead of the text.
    #[arg(long)]
    json: bool,
    /// The prompt.
    prompt: String,
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let config = match args.provider {
        Some(kind) => ProviderConfig::from_env(kind),
        None => ProviderConfig::detect_from_env(),
    };
    let model = match config.and_then(clive_models::connect) {
        Ok(model) => model,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let ledger = Arc::new(UsageLedger::new(PriceTable::default()));
    let model = Metered::new(model, ledger.clone());
    let mut request = ChatRequest::new(args.prompt).max_tokens(args.max_tokens).tier(if args.fast {
        ModelTier::Fast
    } else {
        ModelTier::Default
    });
    request.model = args.model;
    request.system = args.system;

    let outcome = if args.json {
        json(&model, &request, args.stream, &ledger).await
    } else if args.stream {
        stream(&model, &request).await
    } else {
        plain(&model, &request).await
    };
    match outcome {
        Ok((model_name, stop_reason)) => {
            let totals = ledger.totals();
            let cost =
                if totals.unpriced_calls > 0 { "cost unknown".to_owned() } else { format!("~${:.6}", totals.cost_usd) };
            let usage = totals.usage;
            eprintln!(
                "{} {model_name}: stop {stop_reason:?}, {} input ({} cached), {} output tokens, {cost}",
                model.provider(),
                usage.input_tokens,
                usage.cached_input_tokens,
                usage.output_tokens
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(1)
        }
    }
}

async fn plain(model: &Metered, request: &ChatRequest) -> clive_models::Result<(String, clive_models::StopReason)> {
    let reply = model.chat(request).await?;
    println!("{}", reply.text);
    Ok((reply.model, reply.stop_reason))
}

async fn json(
    model: &Metered,
    request: &ChatRequest,
    streamed: bool,
    ledger: &UsageLedger,
) -> clive_models::Result<(String, clive_models::StopReason)> {
    let reply = if streamed {
        clive_models::collect_stream(model.chat_stream(request).await?).await?
    } else {
        model.chat(request).await?
    };
    let totals = ledger.totals();
    let output = serde_json::json!({
        "text": reply.text,
        "stop_reason": reply.stop_reason,
        "usage": reply.usage,
        "model": reply.model,
        "provider": model.provider(),
        "cost_usd": (totals.unpriced_calls == 0).then_some(totals.cost_usd),
    });
    println!("{output}");
    Ok((reply.model, reply.stop_reason))
}

async fn stream(model: &Metered, request: &ChatRequest) -> clive_models::Result<(String, clive_models::StopReason)> {
    let mut stream = model.chat_stream(request).await?;
    let mut stdout = std::io::stdout();
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::TextDelta(text) => {
                // A closed stdout (e.g. `| head`) is not the model's failure; stop quietly.
                if stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).is_err() {
                    break;
                }
            }
            StreamEvent::End(end) => {
                println!();
                return Ok((end.model, end.stop_reason));
            }
        }
    }
    Ok((model.model_for(request), clive_models::StopReason::Other("interrupted".to_owned())))
}
