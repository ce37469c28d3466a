//! Deliver one message from Rust: `cargo run -p lane-send --example send -- <LANE> "<sender>: <text>"`.
//!
//! Uses the tmux server `tmux` itself would use (`$TMUX`, else the default socket) and the
//! usual lane-send directories (or `LANE_SEND_HOME`).

use lane_send::paths::Dirs;
use lane_send::{DeliverOptions, Stage};
use tmux_habitat::{Server, SocketSpec};

#[tokio::main(flavor = "current_thread")]
#[allow(clippy::disallowed_methods, reason = "usage errors exit 2, like the lane-send binary")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(lane), Some(message)) = (args.next(), args.next()) else {
        eprintln!("usage: send <LANE> \"<sender>: <text>\"");
        std::process::exit(2);
    };
    let server = Server::existing(SocketSpec::Inherit)?;
    let options = DeliverOptions::new(Dirs::from_env()?);
    let outcome = lane_send::deliver(&server, &lane, &message, &options).await?;
    match outcome.stage {
        None => println!("delivered to {} ({}), queued: {}", lane, outcome.pane.unwrap_or_default(), outcome.queued),
        Some(Stage::NotPasted) => println!("held, nothing typed: {}", outcome.reason),
        Some(stage) => println!("held at {}: {} — do not resend blindly", stage.name(), outcome.reason),
    }
    Ok(())
}
