//! `clive`: parse the arguments, run the library, exit with its code.

use clap::Parser;

#[allow(
    clippy::disallowed_methods,
    reason = "the binary's one exit point: no runtime teardown may wait on a blocked reader"
)]
fn main() {
    // Inside a sandbox, clive is also the bridge to its network proxy (toolbox::bridge): before any runtime.
    if let Some(code) = toolbox::bridge::run_if_requested() {
        std::process::exit(code);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let code = match runtime {
        Ok(runtime) => runtime.block_on(async {
            let cli = clive_cli::Cli::parse();
            clive_cli::init_logging(cli.global.verbose);
            clive_cli::execute(cli).await
        }),
        Err(e) => {
            eprintln!("clive: cannot start the async runtime: {e}");
            1
        }
    };
    std::process::exit(code);
}
