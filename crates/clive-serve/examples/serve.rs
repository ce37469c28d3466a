//! The smallest server: every session on one tmux socket, read-only unless `--allow-input`.
//!
//! ```text
//! cargo run -p clive-serve --example serve -- /tmp/tmux-0/default [--allow-input]
//! ```

use std::sync::Arc;

use clive_serve::{Access, AccessToken, Catalog, InputPolicy, ServeConfig, TmuxCatalog};
use tmux_habitat::SocketSpec;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let socket = args.next().ok_or("usage: serve <tmux socket path> [--allow-input]")?;
    let allow_input = args.any(|a| a == "--allow-input");
    let catalog: Arc<dyn Catalog> = Arc::new(TmuxCatalog::socket(SocketSpec::Path(socket.into()), "").await?);
    let mut config = ServeConfig::new(AccessToken::generate());
    config.addr = "127.0.0.1:0".parse()?;
    if allow_input {
        config.policy = InputPolicy::everywhere(Access::Input);
    }
    let server = clive_serve::serve(config, vec![catalog]).await?;
    println!("{}", server.url());
    server.wait().await?;
    Ok(())
}
