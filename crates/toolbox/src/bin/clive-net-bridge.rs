//! `clive-net-bridge`: the network bridge alone (see `clive_toolbox::bridge`), for launchers in programs other than
//! `clive`, whose own binary has the bridge mode built in.

#[allow(clippy::disallowed_methods, reason = "the bridge's one exit point, with the exit code of the shell it ran")]
fn main() {
    match clive_toolbox::bridge::run_if_requested() {
        Some(code) => std::process::exit(code),
        None => {
            eprintln!(
                "usage: clive-net-bridge {} <proxy socket> <port> -- <program> [args…]",
                clive_toolbox::bridge::BRIDGE_FLAG
            );
            std::process::exit(2);
        }
    }
}
