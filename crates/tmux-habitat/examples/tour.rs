//! A tour of tmux-habitat: a private server, two panes, commands run in parallel, results printed.
//!
//! ```text
//! cargo run -p tmux-habitat --example tour            # everything is cleaned up at the end
//! cargo run -p tmux-habitat --example tour -- --keep  # leaves the server running and says how to watch it
//! ```

use std::time::Duration;

use clap::Parser;
use tmux_habitat::{Pane, Server, SessionOptions};

/// Runs commands in two panes of a private tmux server at the same time and prints what they returned.
#[derive(Parser)]
struct Args {
    /// Leave the server running and print the `tmux … attach` line to watch it.
    #[arg(long)]
    keep: bool,
}

const TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::main]
async fn main() -> Result<(), tmux_habitat::Error> {
    let args = Args::parse();
    let server = Server::builder().keep_on_drop(args.keep).start().await?;
    let session = server.new_session(SessionOptions::new("tour").window_name("left")).await?;
    let left = session.first_pane().clone();
    let right = session.new_window("right").await?;
    tokio::try_join!(left.wait_ready(TIMEOUT), right.wait_ready(TIMEOUT))?;

    let left_jobs = ["uname -sr", "sleep 1; echo slept on the left", "ls /nonexistent"];
    let right_jobs = ["cd /tmp && pwd", "sleep 1; echo slept on the right", "printf 'one\\ntwo\\n' | wc -l"];
    let (l, r) = tokio::join!(run_all("left", &left, &left_jobs), run_all("right", &right, &right_jobs));
    l?;
    r?;

    if args.keep {
        println!("\nthe server is still running; watch it with:\n  {}", server.attach_command("tour"));
        println!("stop it with:\n  tmux -S {} kill-server", server.socket_path().display());
    }
    Ok(())
}

async fn run_all(name: &str, pane: &Pane, jobs: &[&str]) -> Result<(), tmux_habitat::Error> {
    for job in jobs {
        let out = pane.run(job, TIMEOUT).await?;
        println!(
            "[{name} {}] $ {job}\n  exit {} in {:.1} ms\n{}",
            pane.id(),
            out.exit_code,
            out.duration.as_secs_f64() * 1000.0,
            out.output.lines().map(|l| format!("  | {l}\n")).collect::<String>()
        );
    }
    Ok(())
}
