//! The `lane-send` command line: its grammar, exit codes, output lines and the work behind each subcommand.
//! The binary only parses, calls [`run`] and prints.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tmux_habitat::{Server, SocketSpec};

use crate::commands::{self, MailOutcome};
use crate::error::Error;
use crate::outcome::Outcome;
use crate::paths::Dirs;
use crate::{DeliverOptions, notes};

/// The exit codes of `lane-send`, stable and documented in `--help` and `docs/lane-send.md`.
pub mod exit_code {
    /// Delivered (possibly into the agent's queue), or a command other than sending succeeded.
    pub const DELIVERED: u8 = 0;
    /// lane-send itself failed (tmux unreachable, files not writable, stdout not writable).
    pub const INTERNAL: u8 = 1;
    /// Bad arguments or an unsigned message.
    pub const USAGE: u8 = 2;
    /// Held: not proven delivered (see stage and reason).
    pub const HELD: u8 = 3;
}

const AFTER_HELP: &str = "\
Sending:
  lane-send <LANE> <MESSAGE>         positional form (the default)
  lane-send send <LANE> <MESSAGE>    explicit form; use it (or `--`) for a lane named like a subcommand
                                     (ls, send, note, notes, mail, inbox, frames)
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
  1  internal error (tmux unreachable, files not writable); outcome=error;
     also when stdout cannot be written (not a closed pipe): the outcome line goes to stderr
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
  lane-send --timeout 30s api \"web: long queue today\"
  lane-send ls
  lane-send note web \"API schema v3 is in docs/schema.md\"
  lane-send mail api \"web: long context …\"   # stored in the mailbox, wake line typed
  lane-send inbox api --mark-read              # for the agent's prompt hook
  lane-send frames capture api --note \"after /model\"   # a screen lane-send refused, saved as a fixture
  lane-send frames check tests/frames/*.ansi     # what the recogniser says about saved frames now";

/// Deliver a signed message into another agent's input box through tmux, and prove it arrived.
#[derive(Debug, Parser)]
#[command(
    name = "lane-send",
    version,
    after_help = AFTER_HELP,
    override_usage = "lane-send [OPTIONS] <LANE> <MESSAGE>\n       lane-send [OPTIONS] <COMMAND>",
    subcommand_negates_reqs = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// A subcommand; without one, `<LANE> <MESSAGE>` sends.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Target lane (session name or pane id).
    #[arg(required = true)]
    pub lane: Option<String>,
    /// Signed message: `sender: text`.
    #[arg(required = true)]
    pub message: Option<String>,
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// tmux socket name (as `tmux -L`).
    #[arg(short = 'L', value_name = "SOCKET-NAME", global = true, conflicts_with = "socket_path")]
    pub socket_name: Option<String>,
    /// tmux socket path (as `tmux -S`).
    #[arg(short = 'S', value_name = "SOCKET-PATH", global = true)]
    pub socket_path: Option<PathBuf>,
    /// Print one JSON object instead of a logfmt line.
    #[arg(long, global = true)]
    pub json: bool,
    /// Give up after this long, lock wait included: seconds (90), or with a unit (500ms, 10s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "10s", global = true, value_parser = parse_timeout)]
    pub timeout: Duration,
    /// More logging on stderr (-v debug, -vv trace); RUST_LOG also works.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
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
    /// Save screens as frame fixtures, and check saved ones (report a layout lane-send does not know).
    #[command(subcommand)]
    Frames(FramesCommand),
}

/// `lane-send frames …`.
#[derive(Debug, Subcommand)]
pub enum FramesCommand {
    /// Save what a lane shows now (`NAME.ansi`, the capture, and `NAME.json`: size, cursor, and what the
    /// recogniser says) into a directory. Nothing is typed.
    Capture {
        /// The lane (session name or pane id).
        lane: String,
        /// Directory to write into.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        /// File name stem (default: AGENT-KIND-TIME, e.g. claude-unknown-20261201T120000Z).
        #[arg(long)]
        name: Option<String>,
        /// What the pane was doing, kept in the .json.
        #[arg(long)]
        note: Option<String>,
    },
    /// Print what the recogniser says now about saved frames (give the .ansi or .json of each).
    Check {
        /// Saved frames.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// `--timeout`: the workspace's one duration grammar ([`tmux_habitat::parse_duration`]: a bare number is seconds,
/// or `500ms`, `10s`, `1m 30s`), at most an hour.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let timeout = tmux_habitat::parse_duration(text).map_err(|e| e.to_string())?;
    if timeout.is_zero() || timeout > Duration::from_secs(3600) {
        return Err("must be more than 0 and at most 1h".to_string());
    }
    Ok(timeout)
}

impl Cli {
    /// The lane the invocation addresses, for error lines.
    pub fn lane(&self) -> Option<&str> {
        match &self.command {
            Some(
                Command::Send { lane, .. }
                | Command::Mail { lane, .. }
                | Command::Inbox { lane, .. }
                | Command::Frames(FramesCommand::Capture { lane, .. }),
            ) => Some(lane),
            Some(_) => None,
            None => self.lane.as_deref(),
        }
    }

    fn server(&self) -> Result<Server, Error> {
        let spec = match (&self.global.socket_name, &self.global.socket_path) {
            (Some(name), _) => SocketSpec::Name(name.clone()),
            (None, Some(path)) => SocketSpec::Path(path.clone()),
            (None, None) => SocketSpec::Inherit,
        };
        Ok(Server::existing(spec)?)
    }
}

/// How a command ended: what goes to stdout, and the exit code.
#[derive(Debug)]
pub enum Report {
    /// Text, printed as is.
    Text(String),
    /// A delivery.
    Delivery(Outcome),
    /// A stored mail and the delivery of its wake line.
    Mail(MailOutcome),
}

impl Report {
    /// What to print on stdout (one line for deliveries).
    pub fn render(&self, json: bool) -> String {
        let line = |value: serde_json::Result<String>| match value {
            Ok(line) => line + "\n",
            Err(error) => error_line(true, "error", None, &error.to_string()) + "\n",
        };
        match self {
            Report::Text(text) => text.clone(),
            Report::Delivery(outcome) if json => line(serde_json::to_string(outcome)),
            Report::Delivery(outcome) => outcome.to_logfmt() + "\n",
            Report::Mail(mail) if json => line(serde_json::to_string(mail)),
            Report::Mail(mail) => format!("{} mail_id={}\n", mail.outcome.to_logfmt(), mail.mail_id),
        }
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        let outcome = match self {
            Report::Text(_) => return exit_code::DELIVERED,
            Report::Delivery(outcome) => outcome,
            Report::Mail(mail) => &mail.outcome,
        };
        if outcome.is_delivered() { exit_code::DELIVERED } else { exit_code::HELD }
    }
}

/// Runs the command line's command.
pub async fn run(cli: &Cli) -> Result<Report, Error> {
    let options = DeliverOptions { timeout: cli.global.timeout, dirs: Dirs::from_env()? };
    let json = cli.global.json;
    let (lane, message) = match (&cli.command, &cli.lane, &cli.message) {
        (Some(Command::Send { lane, message }), _, _) | (None, Some(lane), Some(message)) => (lane, message),
        (None, _, _) => {
            return Err(Error::Invalid {
                what: "arguments",
                value: String::new(),
                reason: "give a lane and a message: lane-send <LANE> \"sender: text\"",
            });
        }
        (Some(Command::Ls), _, _) => {
            let rows = commands::list_lanes(&cli.server()?, &options).await?;
            return Ok(Report::Text(if json {
                serde_json::json!({ "note": commands::SNAPSHOT_NOTE, "lanes": rows }).to_string() + "\n"
            } else {
                commands::render_lanes(&rows)
            }));
        }
        (Some(Command::Note { sender, text }), _, _) => {
            let path = notes::append_note(&options.dirs.state, sender, text)?;
            return Ok(Report::Text(format!("noted in {}\n", path.display())));
        }
        (Some(Command::Notes { date }), _, _) => {
            return Ok(Report::Text(notes::read_notes(&options.dirs.state, date.as_deref())?));
        }
        (Some(Command::Mail { lane, message }), _, _) => {
            return Ok(Report::Mail(commands::send_mail(&cli.server()?, lane, message, &options).await?));
        }
        (Some(Command::Frames(frames)), _, _) => return frames_command(cli, frames).await,
        (Some(Command::Inbox { lane, mark_read }), _, _) => {
            let mails = commands::read_inbox(&options, lane, *mark_read)?;
            return Ok(Report::Text(if json {
                serde_json::to_string(&mails).map_err(|source| Error::Encode { what: "inbox", source })? + "\n"
            } else {
                commands::render_inbox(lane, &mails)
            }));
        }
    };
    Ok(Report::Delivery(crate::deliver(&cli.server()?, lane, message, &options).await?))
}

async fn frames_command(cli: &Cli, command: &FramesCommand) -> Result<Report, Error> {
    let json = cli.global.json;
    let line = |path: &std::path::Path, recognition: &crate::frame::Recognition| {
        if json {
            serde_json::json!({ "path": path, "recognition": recognition }).to_string()
        } else {
            format!("{}\t{}\t{}", path.display(), recognition.kind(), recognition.describe())
        }
    };
    match command {
        FramesCommand::Capture { lane, out, name, note } => {
            let mut frame = crate::capture_lane(&cli.server()?, lane).await?;
            frame.meta.note.clone_from(note);
            let recognition = frame.recognise()?;
            let stem = name.clone().unwrap_or_else(|| {
                let agent = recognition.agent().map_or("unknown", crate::Agent::name);
                let at = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ");
                format!("{agent}-{}-{at}", recognition.kind())
            });
            let path = frame.save(out, &stem)?;
            Ok(Report::Text(line(&path, &recognition) + "\n"))
        }
        FramesCommand::Check { files } => {
            let mut out = String::new();
            for file in files {
                let recognition = crate::frame::SavedFrame::load(file)?.recognise()?;
                out.push_str(&line(file, &recognition));
                out.push('\n');
            }
            Ok(Report::Text(out))
        }
    }
}

/// Runs [`run`] on a runtime of its own and turns any error into its line: what goes to stdout and the exit
/// code. Errors are also named on stderr.
pub fn execute(cli: &Cli) -> (String, u8) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            let reason = format!("cannot start the async runtime: {error}");
            return (error_line(cli.global.json, "error", None, &reason) + "\n", exit_code::INTERNAL);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(report) => (report.render(cli.global.json), report.exit_code()),
        Err(error) => {
            eprintln!("lane-send: {error}");
            let (kind, code) =
                if error.is_usage() { ("usage_error", exit_code::USAGE) } else { ("error", exit_code::INTERNAL) };
            (error_line(cli.global.json, kind, cli.lane(), &error.to_string()) + "\n", code)
        }
    }
}

/// For a command line clap refused: clap's message on stderr, and the line for stdout with the exit code
/// (`--help` and `--version` print and succeed).
pub fn parse_failure(error: &clap::Error, json: bool) -> (String, u8) {
    let _ = error.print();
    if !error.use_stderr() {
        return (String::new(), exit_code::DELIVERED);
    }
    let rendered = error.render().to_string();
    let reason = rendered.lines().find(|line| !line.trim().is_empty()).unwrap_or("bad arguments; see --help").trim();
    (error_line(json, "usage_error", None, reason) + "\n", exit_code::USAGE)
}

/// The one line printed for an error: the outcome shape with `outcome` `error` or `usage_error`.
pub fn error_line(json: bool, kind: &str, lane: Option<&str>, reason: &str) -> String {
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

/// Writes to stdout. A reader that went away (`lane-send ls | head -1`) is not an error; any other failure to
/// write (`> /dev/full`) is: it is returned, for the caller to say on stderr and exit [`exit_code::INTERNAL`].
pub fn print(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Installs the stderr log subscriber: warnings by default, `-v` debug, `-vv` trace; `RUST_LOG` overrides.
pub fn init_logging(verbose: u8) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("lane-send").chain(args.iter().copied()))
    }

    #[test]
    fn positional_form_explicit_form_and_subcommands() {
        let cli = parse(&["api", "web: hi"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!((cli.lane.as_deref(), cli.message.as_deref()), (Some("api"), Some("web: hi")));
        assert!(matches!(parse(&["send", "ls", "web: hi"]).unwrap().command, Some(Command::Send { .. })));
        let after_dashes = parse(&["--", "ls", "web: hi"]).unwrap();
        assert!(after_dashes.command.is_none() && after_dashes.lane.as_deref() == Some("ls"));
        assert!(matches!(parse(&["ls", "--json"]).unwrap().command, Some(Command::Ls)));
        assert!(parse(&["--json", "-S", "/tmp/s", "ls"]).unwrap().global.json);
        assert!(parse(&["ls", "extra"]).is_err());
        assert!(parse(&["api"]).is_err());
    }

    #[test]
    fn timeouts_use_the_duration_grammar() {
        assert_eq!(parse(&["--timeout", "1m 30s", "a", "b: c"]).unwrap().global.timeout, Duration::from_secs(90));
        assert_eq!(parse(&["a", "b: c"]).unwrap().global.timeout, Duration::from_secs(10));
        // A bare number is seconds, as scripts written for `lane-send --timeout 90` expect.
        assert_eq!(parse(&["--timeout", "90", "a", "b: c"]).unwrap().global.timeout, Duration::from_secs(90));
        for bad in ["-1", "0s", "0", "2h", "3601", "soon"] {
            assert!(parse(&["--timeout", bad, "a", "b: c"]).is_err(), "{bad}");
        }
    }

    #[test]
    fn help_snapshot() {
        let help = <Cli as clap::CommandFactory>::command().render_long_help().to_string();
        insta::assert_snapshot!(help);
    }

    #[test]
    fn error_lines_have_the_outcome_shape() {
        assert_eq!(
            error_line(false, "error", Some("api"), "tmux: gone"),
            "outcome=error lane=api reason=\"tmux: gone\""
        );
        let value: serde_json::Value = serde_json::from_str(&error_line(true, "usage_error", None, "x")).unwrap();
        assert_eq!(value["outcome"], "usage_error");
        assert!(value["lane"].is_null() && value["stage"].is_null());
    }
}
