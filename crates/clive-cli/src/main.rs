//! `clive`: parse the arguments, run the library, exit with its code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Inside a sandbox, clive is also the bridge to its network proxy (toolbox::bridge): before any runtime.
    if let Some(code) = toolbox::bridge::run_if_requested() {
        return clive_cli::exit_code::to_exit_code(code);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("clive: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(async {
        let cli = clive_cli::Cli::parse();
        clive_cli::init_logging(cli.global.verbose);
        clive_cli::execute(cli).await
    });
    // No teardown may wait on a blocked reader (a terminal read for a question, on a blocking thread).
    runtime.shutdown_background();
    code
}
