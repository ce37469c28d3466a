//! Reads successive screen captures of an inner agent's pane from stdin,
//! separated by form feeds, and prints each new protocol event as one JSON line.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::Parser;
use turn_protocol::{Nonce, ScreenParser};

/// Print the protocol events in saved screen captures, one JSON line each.
///
/// Captures come on stdin, oldest first, separated by form feeds (\f), e.g. as
/// written by `for i in ...; do tmux capture-pane -p -J -t %3; printf '\f'; done`.
/// Each event is printed once, when it first appears:
///
///   {"kind":"turn","state":"done"}
///   {"kind":"progress","text":"step 2"}
///   {"kind":"question","text":"which format?"}
///   {"kind":"context","value":{...}}
///   {"kind":"rejected","line":"TURN: done","why":"no tag, but this conversation has a nonce"}
///   {"kind":"lost","why":"lines 3..4 scrolled away before any capture showed them"}
///
/// Examples:
///
///   cargo run -p turn-protocol --example parse < captures.txt
///   cargo run -p turn-protocol --example parse -- --nonce "$CLIVE_TURN_NONCE" < captures.txt
///   cargo run -p turn-protocol --example parse -- --width 80 < unjoined-captures.txt
///
/// Exit codes: 0 all input read; 1 stdin or stdout failed; 2 bad arguments
/// (including a bad nonce).
#[derive(Debug, Parser)]
#[command(verbatim_doc_comment)]
struct Args {
    /// The conversation's nonce (hex); lines without a valid tag are then rejected.
    #[arg(long, value_name = "HEX")]
    nonce: Option<String>,
    /// Terminal width, for captures taken without `capture-pane -J`.
    #[arg(long, value_name = "COLUMNS")]
    width: Option<usize>,
    /// Text the outer typed into the pane (repeatable); its echo is not a message.
    #[arg(long, value_name = "TEXT")]
    echo: Vec<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let nonce = match args.nonce.as_deref().map(Nonce::from_hex).transpose() {
        Ok(nonce) => nonce,
        Err(error) => {
            eprintln!("parse: --nonce: {error}");
            return ExitCode::from(2);
        }
    };
    let mut parser = ScreenParser::new(nonce);
    if let Some(width) = args.width {
        parser = parser.wrap_width(width);
    }
    for typed in &args.echo {
        parser.expect_echo(typed);
    }
    match run(&mut parser) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("parse: {error}");
            ExitCode::from(1)
        }
    }
}

/// Feeds each capture as soon as its form feed arrives, so a live pipe works too.
fn run(parser: &mut ScreenParser) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut stdout = std::io::stdout().lock();
    let mut capture = Vec::new();
    loop {
        capture.clear();
        let read = input.read_until(b'\x0c', &mut capture)?;
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&capture);
        for event in parser.feed(text.trim_end_matches('\x0c')) {
            writeln!(stdout, "{}", event.to_json())?;
        }
        stdout.flush()?;
    }
    for event in parser.finish() {
        writeln!(stdout, "{}", event.to_json())?;
    }
    stdout.flush()
}
