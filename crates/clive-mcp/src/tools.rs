//! What each tool does, on a [`Habitat`]: typed arguments in, a typed result or a [`ToolError`] out.

use std::path::Path;
use std::time::Duration;

use tmux_habitat::{Key, ScreenDiff, SocketSpec, shell_quote};
use tokio::time::Instant;

use crate::bounded::{MAX_OUTPUT_BYTES, bounded};
use crate::error::ToolError;
use crate::habitat::{DEFAULT_PANE, Habitat, Slot, lock};
use crate::job::{Ended, Job};
use crate::params::*;
use crate::watch;

/// `run`'s deadline when none is given.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// `wait`'s deadline when none is given.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest deadline a call may ask for.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
/// `wait`'s quiet spell when none is given.
const DEFAULT_QUIET: Duration = Duration::from_millis(500);
/// How long `start` waits for the program's first screen to settle.
const FIRST_SCREEN_QUIET: Duration = Duration::from_millis(300);
/// The most `start` waits for the first screen.
const FIRST_SCREEN_DEADLINE: Duration = Duration::from_secs(5);

fn timeout(tool: &'static str, secs: Option<f64>, default: Duration) -> Result<Duration, ToolError> {
    let Some(secs) = secs else { return Ok(default) };
    if !secs.is_finite() || secs <= 0.0 || secs > MAX_TIMEOUT.as_secs_f64() {
        return Err(ToolError::bad(
            tool,
            format!("timeout_secs {secs} is not between 0 and {} seconds", MAX_TIMEOUT.as_secs()),
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn non_empty(tool: &'static str, field: &str, text: &str) -> Result<(), ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::bad(tool, format!("`{field}` is empty")));
    }
    Ok(())
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Passes `text` through the safety gate without touching a pane.
fn gate(habitat: &Habitat, text: &str) -> Result<(), ToolError> {
    agent::GatedPane::new(habitat.session().first_pane().clone(), habitat.gate()).check(text).map_err(Into::into)
}

/// Types `command` into the claimed `slot` (the gate and the guard of the pane's directory first) and follows it;
/// the claim is given up if nothing was typed.
async fn launch(slot: &Slot, typed: &str, command: &str) -> Result<std::sync::Arc<Job>, ToolError> {
    match slot.gated.start(typed).await {
        Ok(running) => {
            let job = std::sync::Arc::new(Job::follow(command, running));
            slot.set_job(std::sync::Arc::clone(&job));
            Ok(job)
        }
        Err(e) => {
            slot.release();
            Err(e.into())
        }
    }
}

/// `run`: the command in a shell pane, to its signalled end or the deadline.
pub async fn run(habitat: &Habitat, args: RunArgs) -> Result<RunResult, ToolError> {
    const TOOL: &str = "run";
    non_empty(TOOL, "command", &args.command)?;
    let timeout = timeout(TOOL, args.timeout_secs, DEFAULT_RUN_TIMEOUT)?;
    let deadline = Instant::now() + timeout;
    let typed = match &args.cwd {
        None => args.command.clone(),
        Some(dir) => {
            if !Path::new(dir).is_dir() {
                return Err(ToolError::bad(TOOL, format!("cwd {dir:?} is not a directory")));
            }
            // A subshell: the directory is this command's only, the pane's shell stays where it was.
            format!("( cd -- {} || exit 1\n{}\n)", shell_quote(dir), args.command)
        }
    };
    gate(habitat, &args.command)?;
    let slot = habitat.claim(TOOL, args.pane.as_deref(), DEFAULT_PANE, &args.command).await?;
    let job = launch(&slot, &typed, &args.command).await?;
    match job.wait_until(deadline).await {
        Some(Ended::Exited(output)) => {
            let (text, cut) = bounded(&output.output, MAX_OUTPUT_BYTES);
            Ok(RunResult {
                exit_code: output.exit_code,
                output: text,
                pane: slot.name.clone(),
                duration_ms: millis(output.duration),
                truncated: cut || output.truncated,
            })
        }
        Some(Ended::Lost(reason)) => Err(ToolError::Lost { pane: slot.name.clone(), reason }),
        None => Err(ToolError::StillRunning {
            pane: slot.name.clone(),
            command: args.command,
            waited: timeout,
            output: bounded(&job.output_so_far().await, MAX_OUTPUT_BYTES / 4).0,
        }),
    }
}

/// The pane name `start` picks for `command`: its program's name.
fn program_name(command: &str) -> String {
    let first = command.split_whitespace().find(|w| !w.contains('=')).unwrap_or("program");
    let base = first.rsplit('/').next().unwrap_or(first);
    let name: String = base.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').take(24).collect();
    let name = name.trim_start_matches('-');
    if name.is_empty() { "program".to_owned() } else { name.to_owned() }
}

/// `start`: an interactive program in a pane, and its first screen.
pub async fn start(habitat: &Habitat, args: StartArgs) -> Result<StartResult, ToolError> {
    const TOOL: &str = "start";
    non_empty(TOOL, "command", &args.command)?;
    gate(habitat, &args.command)?;
    let fallback = program_name(&args.command);
    let slot = habitat.claim(TOOL, args.pane.as_deref(), &fallback, &args.command).await?;
    let job = launch(&slot, &args.command, &args.command).await?;
    let deadline = Instant::now() + FIRST_SCREEN_DEADLINE;
    let settled = watch::until_quiet(slot.pane(), FIRST_SCREEN_QUIET, deadline);
    let ended = job.wait_until(deadline);
    tokio::select! {
        watched = settled => drop(watched?),
        _ = ended => {}
    }
    *lock(&slot.last_read) = Some(watch::visible(slot.pane()).await?);
    // A full-screen program's screen is all its own; a line-mode program's first screen is what it printed
    // (not the shell's lines above it).
    let screen = if slot.pane().info().await?.alternate_screen {
        watch::visible(slot.pane()).await?
    } else {
        bounded(&job.output_so_far().await, MAX_OUTPUT_BYTES).0
    };
    let exit_code = match job.ended() {
        Some(Ended::Exited(output)) => Some(output.exit_code),
        _ => None,
    };
    Ok(StartResult { pane: slot.name.clone(), screen, exited: job.ended().is_some(), exit_code })
}

/// One key as the model wrote it: a tmux key name, or a single character typed as itself.
#[derive(Debug, Clone, PartialEq)]
enum Press {
    Key(Key),
    Char(char),
}

fn parse_key(name: &str) -> Option<Press> {
    if let Some(key) = Key::parse(name) {
        return Some(Press::Key(key));
    }
    let lower = name.to_ascii_lowercase();
    let alias = match lower.as_str() {
        "enter" | "return" => Some(Key::Enter),
        "esc" | "escape" => Some(Key::Escape),
        "tab" => Some(Key::Tab),
        "backspace" => Some(Key::Backspace),
        "space" => Some(Key::Space),
        "up" => Some(Key::Up),
        "down" => Some(Key::Down),
        "left" => Some(Key::Left),
        "right" => Some(Key::Right),
        "ctrl-c" | "ctrl+c" | "^c" => Some(Key::CTRL_C),
        "ctrl-d" | "ctrl+d" | "^d" => Some(Key::CTRL_D),
        _ => None,
    };
    if let Some(key) = alias {
        return Some(Press::Key(key));
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() => Some(Press::Char(c)),
        _ => None,
    }
}

/// `type`: text as one bracketed paste, then keys.
pub async fn type_into(habitat: &Habitat, args: TypeArgs) -> Result<TypeResult, ToolError> {
    const TOOL: &str = "type";
    let keys = args.keys.unwrap_or_default();
    let text = args.text.unwrap_or_default();
    if text.is_empty() && keys.is_empty() {
        return Err(ToolError::bad(TOOL, "give `text`, `keys` or both"));
    }
    let mut presses = Vec::with_capacity(keys.len());
    for name in &keys {
        presses.push(parse_key(name).ok_or_else(|| {
            ToolError::bad(
                TOOL,
                format!(
                    "key {name:?} is not a key name: use Enter, Tab, Escape, Backspace, Up, Down, Left, Right, \
                     PageUp, PageDown, Home, End, Space, F1-F12, C-c (Ctrl-C), M-x (Alt-x), or one character"
                ),
            )
        })?);
    }
    let slot = habitat.slot(&args.pane)?;
    if !text.is_empty() {
        slot.gated.check(&text)?;
    }
    let pane = slot.pane();
    let _typing = pane.lock().await;
    let state = pane.capture_state().await?;
    if state.dead {
        return Err(ToolError::PaneDead { pane: slot.name.clone(), status: pane.exit_status().await.ok().flatten() });
    }
    if state.in_mode {
        return Err(ToolError::bad(
            TOOL,
            format!("pane `{}` is in copy mode, where keys go to tmux; press `q` in it first", slot.name),
        ));
    }
    if !text.is_empty() {
        pane.paste(&text).await?;
    }
    let mut pressed = Vec::with_capacity(presses.len());
    for press in presses {
        match press {
            Press::Key(key) => {
                pane.send_keys(std::slice::from_ref(&key)).await?;
                pressed.push(key.tmux_name());
            }
            Press::Char(c) => {
                pane.send_text(&c.to_string()).await?;
                pressed.push(c.to_string());
            }
        }
    }
    Ok(TypeResult { pane: slot.name.clone(), text_chars: text.chars().count(), keys: pressed })
}

/// `screen`: the visible screen, or what changed since the last read.
pub async fn screen(habitat: &Habitat, args: ScreenArgs) -> Result<ScreenResult, ToolError> {
    let slot = habitat.slot(&args.pane)?;
    let now = watch::visible(slot.pane()).await?;
    let last = lock(&slot.last_read).replace(now.clone());
    let changed = last.as_deref() != Some(now.as_str());
    Ok(match args.since {
        None => ScreenResult { pane: slot.name.clone(), screen: Some(now), diff: None, changed },
        Some(Since::Last) => {
            let diff = ScreenDiff::between(last.as_deref().unwrap_or(""), &now).to_string();
            ScreenResult { pane: slot.name.clone(), screen: None, diff: Some(diff), changed }
        }
    })
}

/// `wait`: for text, quiet or the end of what runs in the pane, up to the deadline.
pub async fn wait(habitat: &Habitat, args: WaitArgs) -> Result<WaitResult, ToolError> {
    const TOOL: &str = "wait";
    let timeout = timeout(TOOL, args.timeout_secs, DEFAULT_WAIT_TIMEOUT)?;
    let text = match (args.what, args.text) {
        (WaitFor::Text, Some(text)) if !text.is_empty() => Some(text),
        (WaitFor::Text, _) => return Err(ToolError::bad(TOOL, "`for: \"text\"` needs the `text` to wait for")),
        (_, Some(_)) => return Err(ToolError::bad(TOOL, "`text` goes only with `for: \"text\"`")),
        (_, None) => None,
    };
    if args.quiet_ms.is_some() && args.what != WaitFor::Quiet {
        return Err(ToolError::bad(TOOL, "`quiet_ms` goes only with `for: \"quiet\"`"));
    }
    let slot = habitat.slot(&args.pane)?;
    let started = Instant::now();
    let deadline = started + timeout;
    let pane = slot.pane();
    let mut result = WaitResult {
        pane: slot.name.clone(),
        happened: false,
        waited_ms: 0,
        screen: String::new(),
        exit_code: None,
        output: None,
    };
    match args.what {
        WaitFor::Text => {
            let watched = watch::until_text(pane, text.as_deref().unwrap_or_default(), deadline).await?;
            (result.happened, result.screen) = (watched.happened, watched.screen);
        }
        WaitFor::Quiet => {
            let quiet = args.quiet_ms.map_or(DEFAULT_QUIET, Duration::from_millis);
            if quiet > timeout {
                return Err(ToolError::bad(TOOL, "`quiet_ms` is longer than the whole wait (`timeout_secs`)"));
            }
            let watched = watch::until_quiet(pane, quiet, deadline).await?;
            (result.happened, result.screen) = (watched.happened, watched.screen);
        }
        WaitFor::Exit => {
            let Some(job) = slot.job() else {
                return Err(ToolError::bad(
                    TOOL,
                    format!("nothing was started in pane `{}`: its shell waits for a command", slot.name),
                ));
            };
            match job.wait_until(deadline).await {
                Some(Ended::Exited(output)) => {
                    result.happened = true;
                    result.exit_code = Some(output.exit_code);
                    result.output = Some(bounded(&output.output, MAX_OUTPUT_BYTES).0);
                }
                Some(Ended::Lost(reason)) => return Err(ToolError::Lost { pane: slot.name.clone(), reason }),
                None => {}
            }
            result.screen = watch::visible(pane).await?;
        }
    }
    *lock(&slot.last_read) = Some(result.screen.clone());
    result.waited_ms = millis(started.elapsed());
    Ok(result)
}

/// `panes`: the session's panes, what runs in each and how the last command ended.
pub async fn panes(habitat: &Habitat) -> Result<PanesResult, ToolError> {
    let mut panes = Vec::new();
    for slot in habitat.slots() {
        let info = match slot.pane().info().await {
            Ok(info) => info,
            // Killed from outside (a person in `clive attach`): it is not a pane any more.
            Err(tmux_habitat::Error::NotFound { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        let job = slot.job();
        let ended = job.as_ref().and_then(|j| j.ended());
        let state = if info.dead {
            PaneStateName::Dead
        } else if slot.busy() {
            PaneStateName::Running
        } else {
            PaneStateName::Idle
        };
        panes.push(PaneEntry {
            name: slot.name.clone(),
            id: info.id.to_string(),
            command: job.as_ref().map(|j| j.command.clone()),
            state,
            exit_code: match ended {
                Some(Ended::Exited(output)) => Some(output.exit_code),
                _ => None,
            },
            foreground: info.current_command,
            cwd: info.current_path,
        });
    }
    Ok(PanesResult { session: habitat.session().name().to_owned(), panes })
}

/// `send`: lane-send's proven delivery into another agent's input box.
pub async fn send(args: SendArgs, dirs: Option<&lane_send::Dirs>) -> Result<SendResult, ToolError> {
    const TOOL: &str = "send";
    non_empty(TOOL, "lane", &args.lane)?;
    non_empty(TOOL, "message", &args.message)?;
    lane_send::SignedMessage::parse(&args.message)?;
    let spec = match args.socket.as_deref() {
        None | Some("") => SocketSpec::Inherit,
        Some(path) if path.contains('/') => SocketSpec::Path(path.into()),
        Some(name) => SocketSpec::Name(name.to_owned()),
    };
    let server = tmux_habitat::Server::existing(spec)?;
    let dirs = match dirs {
        Some(dirs) => dirs.clone(),
        None => lane_send::Dirs::from_env()?,
    };
    let outcome = lane_send::deliver(&server, &args.lane, &args.message, &lane_send::DeliverOptions::new(dirs)).await?;
    let details = outcome.details();
    Ok(SendResult {
        outcome: if outcome.is_delivered() { "delivered" } else { "held" }.to_owned(),
        stage: outcome.stage().map(|s| s.name().to_owned()),
        reason: details.reason.clone(),
        lane: details.lane.clone(),
        agent: details.agent.map(|a| a.name().to_owned()),
        queued: outcome.queued(),
        restored: details.restored,
        elapsed_ms: details.elapsed_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_tmux_names_aliases_or_one_character() {
        assert_eq!(parse_key("Enter"), Some(Press::Key(Key::Enter)));
        assert_eq!(parse_key("C-c"), Some(Press::Key(Key::CTRL_C)));
        assert_eq!(parse_key("ctrl-c"), Some(Press::Key(Key::CTRL_C)));
        assert_eq!(parse_key("up"), Some(Press::Key(Key::Up)));
        assert_eq!(parse_key("y"), Some(Press::Char('y')));
        assert_eq!(parse_key("yes"), None);
        assert_eq!(parse_key(""), None);
        assert_eq!(parse_key("\n"), None);
    }

    #[test]
    fn a_started_program_names_its_pane() {
        assert_eq!(program_name("python3 -q"), "python3");
        assert_eq!(program_name("/usr/bin/psql mydb"), "psql");
        assert_eq!(program_name("FOO=1 node"), "node");
        assert_eq!(program_name("./a.out"), "aout");
        assert_eq!(program_name("-"), "program");
    }

    #[test]
    fn deadlines_are_checked() {
        assert_eq!(timeout("run", None, DEFAULT_RUN_TIMEOUT).unwrap(), DEFAULT_RUN_TIMEOUT);
        assert_eq!(timeout("run", Some(0.5), DEFAULT_RUN_TIMEOUT).unwrap(), Duration::from_millis(500));
        for bad in [0.0, -1.0, 3601.0, f64::NAN] {
            let err = timeout("run", Some(bad), DEFAULT_RUN_TIMEOUT).unwrap_err().to_string();
            assert!(err.contains("timeout_secs") && err.contains("Nothing was typed"), "{err}");
        }
    }
}
