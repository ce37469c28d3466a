//! `clive-eval`: parse the arguments, run the library, exit with its code.

use clap::Parser;

#[tokio::main]
#[allow(
    clippy::disallowed_methods,
    reason = "the binary's one exit point: no runtime teardown may wait on a blocked reader"
)]
async fn main() {
    let cli = clive_eval::cli::Cli::parse();
    clive_eval::cli::init_logging(cli.verbose);
    let code = clive_eval::cli::execute(cli).await;
    std::process::exit(code);
}
