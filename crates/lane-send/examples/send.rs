//! Deliver one message from Rust: `cargo run -p lane-send --example send -- <LANE> "<sender>: <text>"`.
//!
//! Uses the tmux server `tmux` itself would use (`$TMUX`, else the default socket) and the
//! usual lane-send directories (or `LANE_SEND_HOME`).

use lane_send::{DeliverOptions, Dirs, Outcome, Stage};
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
    match &outcome {
        Outcome::Delivered { details, queued } => {
            println!("delivered to {lane} ({}), queued: {queued}", details.pane.as_deref().unwrap_or_default())
        }
        Outcome::Held { stage: Stage::NotPasted, details } => println!("held, nothing typed: {}", details.reason),
        Outcome::Held { stage, details } => {
            println!("held at {}: {} — do not resend blindly", stage.name(), details.reason)
        }
    }
    Ok(())
}
