//! Logs through `tracing` on stderr: `-v` raises the level, `RUST_LOG` overrides it.

use std::io::IsTerminal as _;

use tracing_subscriber::EnvFilter;

/// Installs the stderr subscriber: warnings by default, `-v` info, `-vv` debug, `-vvv` trace.
pub fn init_logging(verbose: u8) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        EnvFilter::new(match verbose {
            0 => "warn",
            1 => "info",
            2 => "debug",
            _ => "trace",
        })
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}
