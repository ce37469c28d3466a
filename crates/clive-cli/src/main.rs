//! `clive`: parse the arguments, run the library, exit with its code.

use clap::Parser;

#[tokio::main(flavor = "current_thread")]
#[allow(
    clippy::disallowed_methods,
    reason = "the binary's one exit point: no runtime teardown may wait on a blocked reader"
)]
async fn main() {
    let cli = clive_cli::Cli::parse();
    clive_cli::init_logging(cli.global.verbose);
    let code = clive_cli::execute(cli).await;
    std::process::exit(code);
}
