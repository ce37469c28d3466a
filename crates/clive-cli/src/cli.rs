//! The command line grammar of `clive` (clap).

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

const EXAMPLES: &str = "\
Examples:
  clive \"ls -la\"                  run a shell command in a fresh tmux session, print its output
  clive --json \"git status\"       one JSON object: task, route, command, exit_code, output, ...
  clive --keep \"make test\"        keep the session afterwards (failed runs are always kept)
  clive run sessions              a task named like a management command: `run` (or `--`) forces a task
  clive -- ls -la                 the words after `--` are the task
  clive run -- ./deploy.sh --dry  a shell command run as it is: no routing, no model (the safety gate still judges it)
  clive sessions                  clive's sessions: id, state, age, exit code, task
  clive attach 3fa2               watch a session (the view the agent has); detach with C-b d
  clive logs 3fa2                 its output: live, or the archived log once it is gone
  clive gc                        archive and remove expired sessions (--all: every session)
  clive tools                     the panes and tools a model may use, their versions, and the sandbox
  clive serve                     watch every session live in a browser (read-only; prints the URL)
  clive serve --allow-approvals   …and answer agents' approval dialogs from the page
  clive replay 3fa2               play a session's recording in this terminal (--speed 4, --instant)
  clive undo 3fa2                 restore every file a task changed to what it was before
  clive \"clive@devbox check disk usage\"   hand a task to the clive on devbox over ssh (docs/remote.md)
  clive agents                    the agents clive@<host> reaches, and whether each answers
  clive mcp                       serve this habitat to Claude Code, Codex or Gemini CLI over MCP (docs/mcp.md)

Task or management command: a first word that is exactly `run`, `sessions`, `attach`, `logs`, `gc`,
`plan`, `tools`, `agents`, `serve`, `replay`, `undo` or `mcp` is the management command (also when quoted
alone: `clive \"sessions\"`); anything else is a task.

Environment:
  CLIVE_TMUX_SOCKET   clive's tmux socket: a name (tmux -L) or a path (tmux -S); default `clive`
  CLIVE_TMUX          the tmux binary (default `tmux` on PATH)
  CLIVE_HOME          keep all state under this directory (default $XDG_STATE_HOME/clive)
  CLIVE_RETENTION     how long kept sessions stay (default 30m)
  CLIVE_TIMEOUT       how long a command may run (default 10m)
  CLIVE_MAX_TOKENS    the model token budget of one task (default 50000)
  CLIVE_CONFIG        the config file (default $XDG_CONFIG_HOME/clive/config.yaml; docs/tools.md)
  RUST_LOG            log filter (overrides -v); logs go to stderr
  ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, OLLAMA_HOST, OPENAI_BASE_URL
                      the model provider for tasks in words (the first one set; see docs/clive.md)";

/// Runs tasks in tmux: `clive "<task>"` routes the task, runs it in a fresh detached session on clive's own
/// tmux server, prints its output and exits with its exit code.
#[derive(Debug, Parser)]
#[command(
    name = "clive",
    version,
    after_help = format!("{EXAMPLES}\n\n{}", crate::exit_code::HELP_TABLE),
    disable_help_subcommand = true,
)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// A management command (when the first word names one).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The task: a shell command, or words that need a model. Several words are joined with spaces; quote
    /// the task as one argument to keep its own quoting.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "TASK")]
    pub task: Vec<String>,
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// More logs on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Print one JSON object (or array) on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Keep the task's session after a success too (failed runs are always kept).
    #[arg(long, global = true)]
    pub keep: bool,
    /// How long a kept session stays before it is archived and removed (seconds, or with a unit: 90s, 30m, 2h).
    #[arg(long, global = true, env = "CLIVE_RETENTION", hide_env_values = true, default_value = "30m", value_parser = parse_duration)]
    pub retain: Duration,
    /// How long the command may run before clive gives up on it (its session is kept): seconds (90), or with a
    /// unit (500ms, 90s, 30m, 2h).
    #[arg(long, global = true, env = "CLIVE_TIMEOUT", hide_env_values = true, default_value = "10m", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Let the safety gate pass destructive commands (`rm -rf ~`, `mkfs`, `curl … | sh`).
    #[arg(long, global = true)]
    pub allow_destructive: bool,
    /// Run the task in this directory instead of the current one.
    #[arg(short = 'C', long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// The most model tokens a task may spend: every call's input and output, calls in flight and failed ones
    /// included. When it is spent, running subtasks stop and pending ones are skipped (exit code 4).
    #[arg(long, global = true, env = "CLIVE_MAX_TOKENS", default_value_t = 50_000, value_name = "N")]
    pub max_tokens: u64,
    /// The most turns (model calls) of one interactive subtask.
    #[arg(long, global = true, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_turns: u32,
    /// Print the answer on one line.
    #[arg(long, global = true)]
    pub oneline: bool,
    /// The task is a yes/no question: print YES or NO and exit 0 or 1 (3 when there is no answer).
    #[arg(long = "bool", global = true)]
    pub yes_no: bool,
    /// Route and plan the task, print the route and the plan (with --json: the plan file itself), run nothing.
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// The panes and tools a model may use: a profile (minimal, standard, full), pane kinds (shell, browser,
    /// data, docs) or tools (jq, lynx, …), separated by commas. Default: the config file's, else minimal.
    #[arg(long, global = true, value_name = "PROFILE|LIST")]
    pub tools: Option<String>,
    /// Let panes a model types into run unconfined (by default they run under bubblewrap).
    #[arg(long, global = true)]
    pub no_sandbox: bool,
    /// Cut sandboxed panes off the network, even from the hosts the task names (by default they reach only
    /// those, over HTTP and HTTPS through clive's proxy).
    #[arg(long, global = true, conflicts_with = "network")]
    pub no_network: bool,
    /// Let sandboxed panes reach the whole network, as commands you type do.
    #[arg(long, global = true)]
    pub network: bool,
    /// Be an agent another clive drives (`clive@host`): read a task from this terminal, run it, and report
    /// in turn-protocol lines (docs/remote.md). The nonce comes from `CLIVE_TURN_NONCE`.
    #[arg(long)]
    pub conversational: bool,
    /// With --conversational: run the conversation ID in a detached tmux session on this host (created on
    /// first use) and attach this terminal to it, so a dropped connection loses nothing.
    #[arg(long, value_name = "ID", requires = "conversational")]
    pub attach: Option<String>,
}

/// Durations in the workspace's one grammar ([`tmux_habitat::parse_duration`], shared with `lane-send --timeout`):
/// a bare number is seconds (`90`), or `500ms`, `90s`, `30m`, `2h`, `1d`, `1h 30m`.
fn parse_duration(text: &str) -> Result<Duration, tmux_habitat::InvalidDuration> {
    tmux_habitat::parse_duration(text)
}

/// Management commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a task (the words after `run` are always the task, even `sessions` or `gc`).
    ///
    /// `run -- <command>` runs a shell command as it is, with no routing (no model; the safety gate still judges
    /// it).
    Run {
        /// The task.
        #[arg(allow_hyphen_values = true, num_args = 1.., required_unless_present = "command", value_name = "TASK")]
        task: Vec<String>,
        /// After `--`: the shell command to run with no routing.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// List clive's sessions: id, state (running, finished, dead), age, exit code, task.
    Sessions,
    /// Attach this terminal to a session (detach with C-b d).
    Attach {
        /// Session id, name (`clive-ID`) or a unique id prefix.
        id: String,
    },
    /// Print a session's output: live while it exists, else its archived log.
    Logs {
        /// Session id, name (`clive-ID`) or a unique id prefix.
        id: String,
    },
    /// Plan files (dag-sched): run, check, show.
    #[command(subcommand)]
    Plan(PlanCommand),
    /// List the panes and tools a model may use, whether each is installed (and its version), and the
    /// sandbox.
    Tools,
    /// List the agents `clive@<host>` can reach (the config file's `agents:` and ~/.ssh/config hosts) and
    /// check that each answers over ssh within a deadline.
    Agents {
        /// How long each check may take (seconds, or with a unit: 500ms, 5s, 1m).
        #[arg(long, default_value = "5s", value_parser = parse_duration)]
        deadline: Duration,
    },
    /// Archive and remove expired sessions.
    Gc {
        /// Remove every clive session, expired or not.
        #[arg(long)]
        all: bool,
    },
    /// Watch every session live in a browser (read-only unless allowed; see docs/serve.md).
    ///
    /// Prints the page's URL, which carries the access token, and runs until Ctrl-C.
    Serve(ServeArgs),
    /// Serve a clive session to an MCP client (Claude Code, Codex, Gemini CLI) on stdin and stdout (docs/mcp.md).
    ///
    /// Its tools run commands, drive programs and read screens in the session's panes. Honours --tools,
    /// --no-sandbox, --allow-destructive, -C, --keep and --retain.
    Mcp,
    /// Play a session's recording (asciicast v2) in this terminal.
    Replay {
        /// Session id, name (`clive-ID`) or a unique id prefix.
        id: String,
        /// Playback speed (2 = twice as fast).
        #[arg(long, default_value_t = 1.0)]
        speed: f64,
        /// Print everything at once, without the recorded pauses.
        #[arg(long)]
        instant: bool,
        /// Cut longer pauses to this (seconds, or with a unit: 500ms, 2s).
        #[arg(long, default_value = "2s", value_parser = parse_duration)]
        idle_limit: Duration,
    },
    /// Restore every file a task changed to what it was before.
    ///
    /// The pre-images are in the task's run directory; undo refuses, naming the file and restoring nothing, when a
    /// file has changed since the task changed it.
    Undo {
        /// Session id, name (`clive-ID`) or a unique id prefix (`clive --json` reports it as `session`).
        id: String,
    },
}

/// `clive serve`'s options.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Keep the default (loopback) and reach it from elsewhere with `ssh -L`.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: IpAddr,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = clive_serve::DEFAULT_PORT)]
    pub port: u16,
    /// Let the page type into every pane and answer dialogs.
    #[arg(long)]
    pub allow_input: bool,
    /// Let the page type into this session only (repeatable).
    #[arg(long, value_name = "SESSION")]
    pub allow_input_for: Vec<String>,
    /// Let the page answer recognised approval dialogs (its buttons), without typing.
    #[arg(long)]
    pub allow_approvals: bool,
    /// Also show the sessions of this tmux socket: a path, or a name as for `tmux -L` (repeatable).
    #[arg(long, value_name = "SOCKET")]
    pub socket: Vec<String>,
    /// On the sockets of --socket, only sessions whose name starts with this.
    #[arg(long, default_value = "", value_name = "PREFIX")]
    pub prefix: String,
    /// Make a new access token (the URL of open pages stops working).
    #[arg(long)]
    pub new_token: bool,
    /// Run this shell command once per new approval dialog, with CLIVE_SESSION, CLIVE_PANE, CLIVE_AGENT,
    /// CLIVE_QUESTION (and CLIVE_CHOICES, CLIVE_DIALOG, CLIVE_PANE_KEY, CLIVE_URL) in its environment. A
    /// failing command is logged; serving goes on.
    #[arg(long, value_name = "CMD")]
    pub on_waiting: Option<String>,
}

/// `clive plan …`.
#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// Run a plan file: live progress on stderr, a summary table (or `--json`) on stdout; Ctrl-C cancels.
    Run {
        /// The plan (JSON, see docs/plan.md).
        file: PathBuf,
    },
    /// Validate a plan file and say what is wrong with it.
    Check {
        /// The plan (JSON).
        file: PathBuf,
    },
    /// Render a plan as a graph.
    Show {
        /// The plan (JSON).
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "dot")]
        format: crate::plan_cmd::PlanFormat,
    },
}

impl GlobalArgs {
    /// The tool options (`--tools`, `--no-sandbox`, `--no-network`, `--network`).
    pub fn tools_args(&self) -> clive_core::ToolsArgs {
        clive_core::ToolsArgs {
            tools: self.tools.clone(),
            no_sandbox: self.no_sandbox,
            no_network: self.no_network,
            network: self.network,
        }
    }
}

impl Cli {
    /// The task as one string, when this invocation runs a task.
    pub fn task_text(&self) -> Option<String> {
        match &self.command {
            Some(Command::Run { command, .. }) if !command.is_empty() => Some(command.join(" ")),
            Some(Command::Run { task, .. }) => Some(task.join(" ")),
            Some(_) => None,
            None if self.task.is_empty() => None,
            None => Some(self.task.join(" ")),
        }
    }

    /// Whether the task is a shell command to run with no routing (`clive run -- <command>`).
    pub fn unrouted(&self) -> bool {
        matches!(&self.command, Some(Command::Run { command, .. }) if !command.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("clive").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn a_quoted_task_is_a_task() {
        assert_eq!(parse(&["ls -la"]).task_text().as_deref(), Some("ls -la"));
        assert_eq!(parse(&["ls"]).task_text().as_deref(), Some("ls"));
    }

    #[test]
    fn unquoted_words_with_flags_are_the_task() {
        assert_eq!(parse(&["ls", "-la", "--json"]).task_text().as_deref(), Some("ls -la --json"));
        let cli = parse(&["--json", "-v", "echo", "hi"]);
        assert!(cli.global.json);
        assert_eq!(cli.task_text().as_deref(), Some("echo hi"));
    }

    #[test]
    fn management_words_are_commands_and_run_or_dashes_force_a_task() {
        assert!(matches!(parse(&["sessions"]).command, Some(Command::Sessions)));
        assert!(matches!(parse(&["sessions", "--json"]).command, Some(Command::Sessions)));
        assert!(matches!(parse(&["gc", "--all"]).command, Some(Command::Gc { all: true })));
        assert!(matches!(parse(&["-vv", "gc"]).command, Some(Command::Gc { all: false })));
        assert!(matches!(parse(&["--json", "sessions"]).command, Some(Command::Sessions)));
        assert_eq!(parse(&["run", "sessions"]).task_text().as_deref(), Some("sessions"));
        assert_eq!(parse(&["run", "ls", "-la"]).task_text().as_deref(), Some("ls -la"));
        assert!(!parse(&["run", "ls", "-la"]).unrouted());
        let words = parse(&["run", "echo", "--json", "-v", "gc"]);
        assert_eq!((words.task_text().as_deref(), words.global.json), (Some("echo --json -v gc"), false));
        let unrouted = parse(&["run", "--", "count", "-la", "--x"]);
        assert_eq!((unrouted.task_text().as_deref(), unrouted.unrouted()), (Some("count -la --x"), true));
        assert!(!parse(&["--", "count", "-la"]).unrouted(), "`clive -- …` is a task, routed");
        assert!(Cli::try_parse_from(["clive", "run"]).is_err());
        assert_eq!(parse(&["--", "sessions"]).task_text().as_deref(), Some("sessions"));
        assert_eq!(parse(&["--", "ls", "-la"]).task_text().as_deref(), Some("ls -la"));
        assert!(matches!(parse(&["logs", "ab12"]).command, Some(Command::Logs { .. })));
        assert!(matches!(parse(&["serve"]).command, Some(Command::Serve(_))));
        assert!(matches!(parse(&["replay", "ab12", "--instant"]).command, Some(Command::Replay { instant: true, .. })));
        assert!(matches!(parse(&["undo", "ab12"]).command, Some(Command::Undo { .. })));
        assert!(matches!(parse(&["tools", "--json"]).command, Some(Command::Tools)));
        assert!(matches!(parse(&["--no-sandbox", "mcp"]).command, Some(Command::Mcp)));
        let cli = parse(&["--tools", "standard,jq", "--no-sandbox", "--no-network", "tools"]);
        assert_eq!(cli.global.tools.as_deref(), Some("standard,jq"));
        assert!(cli.global.no_sandbox && cli.global.no_network);
    }

    #[test]
    fn options_parse() {
        let cli = parse(&["--keep", "--retain", "2s", "--timeout", "1m", "--allow-destructive", "true"]);
        assert!(cli.global.keep && cli.global.allow_destructive);
        assert_eq!(cli.global.retain, Duration::from_secs(2));
        assert_eq!(cli.global.timeout, Duration::from_secs(60));
    }

    #[test]
    fn model_options_parse() {
        let cli = parse(&["--max-tokens", "900", "--max-turns", "3", "--bool", "--oneline", "is it up"]);
        assert_eq!((cli.global.max_tokens, cli.global.max_turns), (900, 3));
        assert!(cli.global.yes_no && cli.global.oneline);
        assert_eq!(parse(&["x"]).global.max_tokens, 50_000);
        assert!(Cli::try_parse_from(["clive", "--max-turns", "0", "x"]).is_err());
    }

    #[test]
    fn durations_follow_the_one_grammar() {
        assert_eq!(parse(&["--retain", "1h 30m", "true"]).global.retain, Duration::from_secs(5400));
        assert_eq!(parse(&["--timeout", "500ms", "true"]).global.timeout, Duration::from_millis(500));
        assert_eq!(parse(&["--retain", "1.5m", "true"]).global.retain, Duration::from_secs(90));
        // A bare number is seconds, for every duration option (scripts written for `--timeout 90` keep working).
        assert_eq!(parse(&["--timeout", "90", "true"]).global.timeout, Duration::from_secs(90));
        assert_eq!(parse(&["--retain", "90", "true"]).global.retain, Duration::from_secs(90));
        assert!(
            matches!(parse(&["agents", "--deadline", "3"]).command, Some(Command::Agents { deadline }) if deadline == Duration::from_secs(3))
        );
        let replay = parse(&["replay", "x", "--idle-limit", "1.5"]).command;
        assert!(
            matches!(replay, Some(Command::Replay { idle_limit, .. }) if idle_limit == Duration::from_millis(1500))
        );
        for bad in ["-1s", "soon", "10 minutes ago"] {
            let err = Cli::try_parse_from(["clive", "--retain", bad, "true"]).unwrap_err().to_string();
            assert!(err.contains("seconds as a number, 90, or with a unit"), "{bad}: {err}");
        }
    }

    #[test]
    fn help_names_the_exit_codes() {
        let help = <Cli as clap::CommandFactory>::command().render_long_help().to_string();
        assert!(help.contains("Exit codes:") && help.contains("77") && help.contains("clive run sessions"), "{help}");
        insta::assert_snapshot!("clive_help", help);
    }
}
