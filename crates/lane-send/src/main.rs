//! `lane-send`: deliver a signed message into another agent's input box through tmux, and prove
//! it arrived. Arguments are parsed here; everything else is in the `lane_send` library.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use lane_send::commands::{self, MailOutcome};
use lane_send::paths::Dirs;
use lane_send::{DeliverOptions, Error, Outcome, notes};
use tmux_habitat::{Server, SocketSpec};

const EXIT_DELIVERED: u8 = 0;
const EXIT_INTERNAL: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_HELD: u8 = 3;

const AFTER_HELP: &str = "\
Sending:
  lane-send <LANE> <MESSAGE>         positional form (the default)
  lane-send send <LANE> <MESSAGE>    explicit form; use it for a lane named like a subcommand
                                     (ls, send, note, notes, mail, inbox, help)
  LANE is a tmux session name (its active pane) or a pane id such as %3.
  MESSAGE must be signed with your own lane name: \"sender: text\".

Output: exactly one line on stdout, logfmt by default, one JSON object with --json:
  outcome=delivered lane=api pane=%3 agent=claude queued=false enters=1 elapsed_ms=231 reason=…
  outcome=held lane=api pane=%3 stage=not_pasted agent=claude … reason=\"…draft…\"
  stage (held only): not_pasted = nothing typed; pasted = text pasted, Enter not pressed;
  entered = Enter pressed but the box did not empty. A held message is never pasted twice:
  do not blindly resend a `pasted` or `entered` message.

Exit codes:
  0  delivered (possibly into the agent's queue: queued=true)
  1  internal error (tmux unreachable, files not writable); outcome=error
  2  usage error (bad arguments, unsigned message); outcome=usage_error
  3  held (see stage and reason)

Files (LANE_SEND_HOME overrides all three roots):
  locks     $XDG_RUNTIME_DIR/lane-send/locks/
  log       $XDG_STATE_HOME/lane-send/log/YYYY-MM-DD.jsonl
  notes     $XDG_STATE_HOME/lane-send/notes/YYYY-MM-DD.md
  mailbox   $XDG_STATE_HOME/lane-send/mailbox.sqlite
  registry  $XDG_CONFIG_HOME/lane-send/lanes.yaml

Examples:
  lane-send api \"web: the login endpoint now returns 401 on expiry\"
  lane-send --json -L work %7 \"ops: deploy frozen until 15:00\"
  lane-send ls
  lane-send note web \"API schema v3 is in docs/schema.md\"
  lane-send mail api \"web: long context …\"   # stored in the mailbox, wake line typed
  lane-send inbox api --mark-read              # for the agent's prompt hook";

/// Deliver a signed message into another agent's input box through tmux, and prove it arrived.
#[derive(Debug, Parser)]
#[command(name = "lane-send", version, after_help = AFTER_HELP, subcommand_required = true)]
struct Cli {
    /// tmux socket name (as `tmux -L`).
    #[arg(short = 'L', value_name = "SOCKET-NAME", global = true, conflicts_with = "socket_path")]
    socket_name: Option<String>,
    /// tmux socket path (as `tmux -S`).
    #[arg(short = 'S', value_name = "SOCKET-PATH", global = true)]
    socket_path: Option<PathBuf>,
    /// Print one JSON object instead of a logfmt line.
    #[arg(long, global = true)]
    json: bool,
    /// Give up after this many seconds (lock wait included).
    #[arg(long, value_name = "SECS", default_value_t = 10.0, global = true)]
    timeout: f64,
    /// More logging on stderr (-v debug, -vv trace); RUST_LOG also works.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Deliver a message (explicit form of `lane-send <LANE> <MESSAGE>`).
    Send {
        /// Target lane (session name or pane id).
        lane: String,
        /// Signed message: `sender: text`.
        message: String,
    },
    /// List live lanes joined with the registry and the frame detected now (a snapshot).
    Ls,
    /// Append a dated, signed line to today's coordination notes.
    Note {
        /// Your lane name.
        sender: String,
        /// The note.
        text: String,
    },
    /// Print a day's coordination notes.
    Notes {
        /// The day (UTC), default today.
        #[arg(long, value_name = "YYYY-MM-DD")]
        date: Option<String>,
    },
    /// Store a message in the lane's mailbox and deliver only a short wake line.
    Mail {
        /// Recipient lane.
        lane: String,
        /// Signed message: `sender: text`.
        message: String,
    },
    /// Print unread mail of a lane (for an agent hook to inject as context).
    Inbox {
        /// The lane whose mail to read.
        lane: String,
        /// Mark the printed mail as read.
        #[arg(long)]
        mark_read: bool,
    },
}

/// How a command ended, for stdout and the exit code.
enum Report {
    Text(String),
    Delivery(Outcome),
    Mail(MailOutcome),
}

fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "lane_send=debug,tmux_habitat=debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(colour).try_init();
}

fn error_line(json: bool, kind: &str, lane: Option<&str>, reason: &str) -> String {
    if json {
        serde_json::json!({
            "lane": lane, "pane": null, "outcome": kind, "stage": null,
            "reason": reason, "agent": null, "queued": false,
        })
        .to_string()
    } else {
        let quoted = serde_json::Value::String(reason.to_string()).to_string();
        format!("outcome={kind} lane={} reason={quoted}", lane.unwrap_or("-"))
    }
}

fn outcome_exit(outcome: &Outcome) -> u8 {
    if outcome.is_delivered() { EXIT_DELIVERED } else { EXIT_HELD }
}

fn server_for(cli: &Cli) -> Result<Server, Error> {
    let spec = match (&cli.socket_name, &cli.socket_path) {
        (Some(name), _) => SocketSpec::Name(name.clone()),
        (None, Some(path)) => SocketSpec::Path(path.clone()),
        (None, None) => SocketSpec::Inherit,
    };
    Ok(Server::existing(spec)?)
}

async fn run(cli: &Cli) -> Result<Report, Error> {
    if !(cli.timeout.is_finite() && cli.timeout > 0.0 && cli.timeout <= 3600.0) {
        return Err(Error::Usage(format!("--timeout {} must be a number of seconds between 0 and 3600", cli.timeout)));
    }
    let options = DeliverOptions { timeout: Duration::from_secs_f64(cli.timeout), dirs: Dirs::from_env()? };
    let (lane, message) = match &cli.command {
        Command::Send { lane, message } => (lane, message),
        Command::Ls => {
            let rows = commands::list_lanes(&server_for(cli)?, &options).await?;
            return Ok(Report::Text(if cli.json {
                serde_json::json!({ "note": commands::SNAPSHOT_NOTE, "lanes": rows }).to_string() + "\n"
            } else {
                commands::render_lanes(&rows)
            }));
        }
        Command::Note { sender, text } => {
            let path = notes::append_note(&options.dirs.state, sender, text)?;
            return Ok(Report::Text(format!("noted in {}\n", path.display())));
        }
        Command::Notes { date } => {
            return Ok(Report::Text(notes::read_notes(&options.dirs.state, date.as_deref())?));
        }
        Command::Mail { lane, message } => {
            return Ok(Report::Mail(commands::send_mail(&server_for(cli)?, lane, message, &options).await?));
        }
        Command::Inbox { lane, mark_read } => {
            let mails = commands::read_inbox(&options, lane, *mark_read)?;
            return Ok(Report::Text(if cli.json {
                serde_json::to_string(&mails)
                    .map_err(|error| Error::Encode { what: "inbox", detail: error.to_string() })?
                    + "\n"
            } else {
                commands::render_inbox(lane, &mails)
            }));
        }
    };
    let outcome = lane_send::deliver(&server_for(cli)?, lane, message, &options).await?;
    Ok(Report::Delivery(outcome))
}

fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string(value) {
        Ok(line) => println!("{line}"),
        Err(error) => println!("{}", error_line(true, "error", None, &error.to_string())),
    }
}

/// Subcommand names; any other first word is a lane and gets an implicit `send` before it.
const SUBCOMMANDS: [&str; 7] = ["send", "ls", "note", "notes", "mail", "inbox", "help"];

/// Turns the positional form `lane-send [OPTIONS] <LANE> <MESSAGE>` into
/// `lane-send [OPTIONS] send <LANE> <MESSAGE>`: the first word that is not an option (or a `--`)
/// gets `send` in front unless it names a subcommand. A lane literally named like a subcommand
/// is reached with `lane-send send ls "…"` or `lane-send -- ls "…"`.
fn with_default_subcommand(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut index = 1;
    while index < args.len() {
        let word = args[index].to_string_lossy();
        if word == "--" {
            break;
        }
        if !word.starts_with('-') || word == "-" {
            if SUBCOMMANDS.contains(&word.as_ref()) {
                return args;
            }
            break;
        }
        // Options that take a separate value: skip the value too.
        let takes_value = matches!(word.as_ref(), "-L" | "-S" | "--timeout");
        index += if takes_value { 2 } else { 1 };
    }
    if index < args.len() {
        args.insert(index, "send".into());
    }
    args
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(with_default_subcommand(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            let _ = error.print();
            let json = std::env::args().any(|arg| arg == "--json");
            let rendered = error.render().to_string();
            let reason = rendered
                .lines()
                .find(|line| !line.trim().is_empty())
                .unwrap_or("bad arguments; see --help")
                .trim()
                .to_string();
            println!("{}", error_line(json, "usage_error", None, &reason));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    init_tracing(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            println!("{}", error_line(cli.json, "error", None, &format!("cannot start the async runtime: {error}")));
            return ExitCode::from(EXIT_INTERNAL);
        }
    };
    let lane = match &cli.command {
        Command::Send { lane, .. } | Command::Mail { lane, .. } | Command::Inbox { lane, .. } => Some(lane.clone()),
        _ => None,
    };
    match runtime.block_on(run(&cli)) {
        Ok(Report::Text(text)) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Ok(Report::Delivery(outcome)) => {
            if cli.json {
                print_json(&outcome)
            } else {
                println!("{}", outcome.to_logfmt())
            }
            ExitCode::from(outcome_exit(&outcome))
        }
        Ok(Report::Mail(mail)) => {
            if cli.json {
                print_json(&mail)
            } else {
                println!("{} mail_id={}", mail.outcome.to_logfmt(), mail.mail_id)
            }
            ExitCode::from(outcome_exit(&mail.outcome))
        }
        Err(error @ (Error::Usage(_) | Error::Unsigned { .. })) => {
            eprintln!("lane-send: {error}");
            println!("{}", error_line(cli.json, "usage_error", lane.as_deref(), &error.to_string()));
            ExitCode::from(EXIT_USAGE)
        }
        Err(error) => {
            eprintln!("lane-send: {error}");
            println!("{}", error_line(cli.json, "error", lane.as_deref(), &error.to_string()));
            ExitCode::from(EXIT_INTERNAL)
        }
    }
}
