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
    if let Err(error) = cli::print(&stdout) {
        // The outcome line is the contract: a caller that cannot read it must not see a success.
        eprintln!("lane-send: writing to stdout failed: {error}; the outcome line was: {}", stdout.trim_end());
        return ExitCode::from(cli::exit_code::INTERNAL);
    }
    ExitCode::from(code)
}
