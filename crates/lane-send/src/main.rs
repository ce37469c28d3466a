//! `lane-send`: deliver a signed message into another agent's input box through tmux, and prove it
//! arrived. Parses, calls the library, prints; everything else is in `lane_send::cli`.

use std::process::ExitCode;

use clap::Parser;
use lane_send::cli::{self, Cli};

fn main() -> ExitCode {
    let (stdout, code) = match Cli::try_parse() {
        Ok(cli) => {
            cli::init_logging(cli.global.verbose);
            cli::execute(&cli)
        }
        Err(error) => cli::parse_failure(&error, std::env::args().any(|arg| arg == "--json")),
    };
    cli::print(&stdout);
    ExitCode::from(code)
}
