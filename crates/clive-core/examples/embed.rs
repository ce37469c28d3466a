//! Runs a task with clive's engine and prints its events as they come, then its outcome:
//! `cargo run -p clive-core --example embed -- "ls -la"` (a task in words needs a provider, e.g. OPENAI_API_KEY).

use clive_core::{CancelToken, Config, Task, ToolsArgs};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), clive_core::Error> {
    let text = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    // The environment and the config file, as `clive` reads them; `Config::builder()` sets each part in code.
    let config = Config::from_env(&ToolsArgs::default())?;
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let printer = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            println!("event: {event:?}");
        }
    });
    // The caller owns cancellation: here Ctrl-C cancels the run.
    let cancel = CancelToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        on_ctrl_c.cancel();
    });
    let outcome = clive_core::run(&config, Task::new(text).events(sender).cancel(cancel)).await;
    let _ = printer.await;
    println!("outcome: {outcome:#?}");
    Ok(())
}
