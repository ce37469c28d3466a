//! Driving a delivery over tmux: resolve the lane, lock it, run the [`Delivery`] state machine
//! against real captures, log the outcome.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use tmux_habitat::{Backoff, Key, Pane, Server};

use crate::delivery::{Action, Delivery, Event, KeysFor};
use crate::error::Error;
use crate::frame::{self, Choice, Recognition, SavedFrame};
use crate::journal::{self, Record};
use crate::lock;
use crate::message::SignedMessage;
use crate::outcome::{Outcome, Stage, Verdict};
use crate::paths::Dirs;

/// The default time budget for one delivery.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one key may take to show on screen before the next is sent anyway.
const KEY_REDRAW_CAP: Duration = Duration::from_millis(120);
/// How long an arrow key in a dialog may take to move the selection.
const CHOICE_REDRAW_CAP: Duration = Duration::from_secs(1);

/// Settings for [`deliver`].
#[derive(Debug, Clone)]
pub struct DeliverOptions {
    /// The whole budget: lock wait, inspection, paste, Enter and confirmation.
    pub timeout: Duration,
    /// Where locks and logs go.
    pub dirs: Dirs,
}

impl DeliverOptions {
    /// Options with the default timeout and the given directories.
    pub fn new(dirs: Dirs) -> Self {
        Self { timeout: DEFAULT_TIMEOUT, dirs }
    }
}

/// What the pane shows now, recognised; copy mode and dead panes are refusals.
async fn look(pane: &Pane) -> Result<Recognition, Error> {
    let capture = pane.capture_state().await?;
    if capture.dead {
        return Ok(Recognition::Unknown { reason: "the pane's program has exited".to_string() });
    }
    if capture.in_mode {
        return Ok(Recognition::Unknown {
            reason: "the pane is in copy mode (keys would go to tmux, not the agent)".to_string(),
        });
    }
    frame::recognise(&capture.screen)
}

/// Recognises what a lane shows now, without typing anything (for `ls`).
pub async fn inspect_lane(server: &Server, lane: &str) -> Result<Recognition, Error> {
    look(&server.pane(lane).await?).await
}

/// What a lane shows now, as a [`SavedFrame`] (the capture, its size and cursor, and what the recogniser
/// says), for `lane-send frames capture`: a layout met in live use becomes a fixture with one command.
pub async fn capture_lane(server: &Server, lane: &str) -> Result<SavedFrame, Error> {
    let pane = server.pane(lane).await?;
    let state = pane.capture_state().await?;
    let height = u16::try_from(state.screen.height()).unwrap_or(u16::MAX);
    SavedFrame::new(state.ansi, state.screen.width(), height, state.screen.cursor())
}

/// What a key could change: the box's text, rows and cursor (spinners and clocks elsewhere on the screen do
/// not count), or what the screen is when it shows no box.
async fn key_visible_state(pane: &Pane) -> Result<String, Error> {
    Ok(match look(pane).await? {
        Recognition::Input(input) => format!("{:?} {:?} {:?}", input.text, input.rows, input.cursor),
        other => other.describe(),
    })
}

/// Presses `keys` in a pane one at a time, each after the box redrew from the one before (or 120 ms passed,
/// for a key that changes nothing visible). An agent that reads two keys in one chunk takes them for one
/// unknown sequence or for text: Grok's box ignores `End C-u` sent at once and types a Backspace that arrives
/// with a paste; Claude Code's dialogs drop an arrow that arrives with the next key.
pub async fn press_keys(pane: &Pane, keys: &[Key]) -> Result<(), Error> {
    for key in keys {
        let before = key_visible_state(pane).await?;
        pane.send_keys(std::slice::from_ref(key)).await?;
        let mut backoff = Backoff::with(Duration::from_millis(2), Duration::from_millis(20), KEY_REDRAW_CAP);
        while key_visible_state(pane).await? == before && backoff.wait().await {}
    }
    Ok(())
}

/// Picks choice `number` (as shown) of the dialog `lane` shows now, the way a person would: its keys
/// ([`Menu::keys`](crate::frame::Menu::keys)) one at a time — an arrow only once the selection was seen on the choice before (two reads
/// agreeing: a dialog that animates is read mid-redraw at times), Enter only once it is on this one. Nothing is
/// sent when the lane shows no dialog or no such choice, and Enter is not pressed when the selection did not
/// arrive. Returns the choice picked.
pub async fn choose(server: &Server, lane: &str, number: u32) -> Result<Choice, Error> {
    let refuse = |reason: String| Error::Choice { lane: lane.to_string(), reason };
    let pane = server.pane(lane).await?;
    let recognition = look(&pane).await?;
    let menu = recognition.dialog().and_then(|dialog| dialog.menu.clone());
    let Some((menu, index)) =
        menu.and_then(|menu| menu.choices.iter().position(|choice| choice.number == number).map(|index| (menu, index)))
    else {
        return Err(refuse(format!("no choice {number} on screen ({})", recognition.describe())));
    };
    let keys = menu.keys(index).unwrap_or_default();
    let mut at = menu.selected;
    for key in &keys {
        pane.send_keys(std::slice::from_ref(key)).await?;
        let next = match key {
            Key::Down => at + 1,
            Key::Up => at.saturating_sub(1),
            _ => continue,
        };
        selection_reaches(&pane, next).await.map_err(|seen| {
            refuse(format!(
                "the selection did not move from choice {} to {} ({seen}); Enter not pressed",
                at + 1,
                next + 1
            ))
        })?;
        at = next;
    }
    Ok(menu.choices[index].clone())
}

/// Waits until two reads in a row show the dialog's selection on choice `index`; `Err` with what was seen last
/// when it does not within [`CHOICE_REDRAW_CAP`].
async fn selection_reaches(pane: &Pane, index: usize) -> Result<(), String> {
    let mut backoff = Backoff::with(Duration::from_millis(5), Duration::from_millis(50), CHOICE_REDRAW_CAP);
    let mut agreeing = 0;
    loop {
        let now = look(pane).await.map_err(|error| error.to_string())?;
        let selected = now.dialog().and_then(|dialog| dialog.menu.as_ref()).map(|menu| menu.selected);
        agreeing = if selected == Some(index) { agreeing + 1 } else { 0 };
        if agreeing == 2 {
            return Ok(());
        }
        if !backoff.wait().await {
            return Err(now.describe());
        }
    }
}

/// The names of the sessions on the server: the lanes that are live now.
pub async fn live_lanes(server: &Server) -> Result<BTreeSet<String>, Error> {
    let sessions = server.list_sessions().await?;
    Ok(sessions.into_iter().map(|session| session.name).collect())
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Delivers a signed `message` into the input box of `lane` (a session name or a pane id) and
/// proves it arrived, or says how far it got. Every outcome is logged.
///
/// Errors are for things that are not the lane's fault (unsigned message, tmux unreachable,
/// unwritable log); a missing lane, a busy lock, a dialog or a draft are held outcomes.
///
/// ```no_run
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// use lane_send::{DeliverOptions, Dirs};
/// use tmux_habitat::{Server, SocketSpec};
///
/// let server = Server::existing(SocketSpec::Inherit)?;
/// let options = DeliverOptions::new(Dirs::from_env()?);
/// let outcome = lane_send::deliver(&server, "api", "web: the schema changed", &options).await?;
/// match &outcome {
///     lane_send::Outcome::Delivered { queued, .. } => println!("delivered (queued: {queued})"),
///     lane_send::Outcome::Held { stage, details } => println!("held at {}: {}", stage.name(), details.reason),
/// }
/// # Ok(()) }
/// ```
pub async fn deliver(server: &Server, lane: &str, message: &str, options: &DeliverOptions) -> Result<Outcome, Error> {
    let started = Instant::now();
    let message = SignedMessage::parse(message)?;
    let outcome = deliver_signed(server, lane, &message, options, started).await?;
    journal::append(
        &options.dirs.state,
        &Record::Outcome { at: journal::now_stamp(), message: message.as_str(), outcome: &outcome },
    )?;
    Ok(outcome)
}

async fn deliver_signed(
    server: &Server,
    lane: &str,
    message: &SignedMessage,
    options: &DeliverOptions,
    started: Instant,
) -> Result<Outcome, Error> {
    let held =
        |reason: String, pane: Option<String>| Outcome::held_before_typing(lane, pane, reason, elapsed_ms(started));
    let pane = match server.pane(lane).await {
        Ok(pane) => pane,
        Err(tmux_habitat::Error::NotFound { .. }) => {
            return Ok(held(
                format!("lane {lane:?} not found on tmux server {}", server.socket_path().display()),
                None,
            ));
        }
        Err(tmux_habitat::Error::NoServer { .. }) => {
            return Ok(held(
                format!("lane {lane:?} not found: no tmux server runs on {}", server.socket_path().display()),
                None,
            ));
        }
        Err(error) => return Err(error.into()),
    };
    let pane_id = pane.id().as_str().to_string();
    // The pane's lock keeps this process's senders apart; the file lock keeps other processes out.
    let Ok(_pane_guard) = tokio::time::timeout(options.timeout, pane.lock()).await else {
        return Ok(held(
            "another sender in this process held the lane for the whole timeout".to_string(),
            Some(pane_id),
        ));
    };
    let lock_path = lock::lock_file(&options.dirs.runtime, &server.socket_path().to_string_lossy(), &pane_id);
    let remaining = options.timeout.saturating_sub(started.elapsed());
    let _file_lock = match lock::acquire(&lock_path, lane, remaining).await {
        Ok(lock) => lock,
        Err(Error::LockTimeout { waited_ms, .. }) => {
            return Ok(held(
                format!("another sender held the lane's lock for {waited_ms} ms; retry later"),
                Some(pane_id),
            ));
        }
        Err(error) => return Err(error),
    };
    let live = live_lanes(server).await?;
    let machine_started = Instant::now();
    let mut delivery = Delivery::new(message.as_str(), live, options.timeout.saturating_sub(started.elapsed()));
    let mut event = Event::Start;
    loop {
        let action = delivery.step(event, machine_started.elapsed());
        tracing::debug!(?action, lane, "delivery step");
        event = match action {
            Action::Capture => match look(&pane).await {
                Ok(recognition) => Event::Screen(recognition),
                Err(error) => return typing_failed(&delivery, lane, &pane_id, error, started),
            },
            Action::Wait(wait) => {
                tokio::time::sleep(wait).await;
                Event::Tick
            }
            Action::SendKeys { keys, why } => {
                if let Err(error) = press_keys(&pane, &keys).await {
                    return typing_failed(&delivery, lane, &pane_id, error, started);
                }
                if let KeysFor::ClearLeftover(leftover) = &why {
                    journal::append(
                        &options.dirs.state,
                        &Record::ClearedLeftover { at: journal::now_stamp(), lane, pane: &pane_id, leftover },
                    )?;
                }
                Event::Done
            }
            Action::Paste => match pane.paste(message.as_str()).await {
                Ok(()) => Event::Done,
                Err(error) => return typing_failed(&delivery, lane, &pane_id, error.into(), started),
            },
            Action::PressEnter => match pane.send_keys(&[Key::Enter]).await {
                Ok(()) => Event::Done,
                Err(error) => return typing_failed(&delivery, lane, &pane_id, error.into(), started),
            },
            Action::Finish(verdict) => {
                return Ok(Outcome::from_verdict(lane, Some(pane_id), verdict, elapsed_ms(started)));
            }
        };
    }
}

/// A tmux failure in the middle of a delivery: before the paste it is an error (nothing was
/// typed, the caller may retry); after it, a held outcome at the stage reached, because the
/// text may be in the box and a retry must not paste it again.
fn typing_failed(
    delivery: &Delivery,
    lane: &str,
    pane_id: &str,
    error: Error,
    started: Instant,
) -> Result<Outcome, Error> {
    if !delivery.has_pasted() {
        return Err(error);
    }
    let verdict = Verdict::held(
        Stage::Pasted,
        format!("tmux failed after the paste ({error}); the text may be in the box"),
        Some(false),
    );
    Ok(Outcome::from_verdict(lane, Some(pane_id.to_string()), verdict, elapsed_ms(started)))
}
