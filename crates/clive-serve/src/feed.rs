//! One followed pane: its output stream kept in a ring for clients that reconnect, a terminal kept current
//! for snapshots, and what frame recognition sees on it (which agent, which approval dialog).
//!
//! Nothing here polls: the pump wakes on output, and looks at the screen a moment after output stops or
//! every [`LOOK_EVERY`] while it flows. An idle pane costs nothing.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use lane_send::frame::{self, Menu, Recognition};
use tmux_habitat::{CaptureOptions, OutputEvent, Pane, PaneOutput, Screen};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use crate::error::Result;
use crate::fit::{Fitting, ViewerId};
use crate::protocol::{AnswerResult, ChoiceView, DialogView};
use crate::ring::{Position, Ring};
use crate::terminal::Terminal;

/// How long after output the screen is looked at (and how often while output flows).
pub(crate) const LOOK_EVERY: Duration = Duration::from_millis(150);

/// How long after a resize a dialog may vanish and come back redrawn (tmux reflows the old screen, then the
/// agent draws it again for the new width) and still be the same dialog: announced once, answered once.
const RESIZE_SETTLE: Duration = Duration::from_secs(2);

/// Sizes of what a feed keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FeedSettings {
    /// Bytes of output kept for clients that reconnect.
    pub(crate) ring_bytes: usize,
    /// Lines of history in snapshots.
    pub(crate) scrollback: usize,
}

/// What recognition last saw on the pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    pub(crate) agent: Option<String>,
    pub(crate) dialog: Option<DialogView>,
    /// The dialog shown was answered from a page; its buttons are spent.
    pub(crate) answered: bool,
}

/// The pane drawn at one stream position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub(crate) position: Position,
    /// `(cols, rows)`.
    pub(crate) size: (u16, u16),
    pub(crate) data: String,
}

/// What a client at some position gets next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Next {
    /// Output from its position on (empty: it has everything).
    Bytes(Vec<u8>),
    /// It cannot continue from where it is (another run, or too far behind): start over from this.
    Snapshot(Snapshot),
    /// The pane is gone and the client has everything it printed.
    Ended,
}

struct Stream {
    ring: Ring,
    terminal: Terminal,
    ended: bool,
}

/// A dialog on screen and whether a page answered it.
#[derive(Debug, Clone)]
struct DialogSlot {
    id: u64,
    fingerprint: u64,
    menu: Option<Menu>,
    view: DialogView,
    answered: bool,
}

/// A followed pane, shared by the pump that feeds it and every client that watches it.
pub(crate) struct Feed {
    pane: Pane,
    settings: FeedSettings,
    stream: Mutex<Stream>,
    /// Bumped whenever the stream changes (output, a new run, the end).
    changed: watch::Sender<u64>,
    seen: watch::Sender<Seen>,
    dialog: Mutex<Option<DialogSlot>>,
    /// Dialog ids count up from a random start, so an id from before a restart never names a new dialog.
    next_dialog: std::sync::atomic::AtomicU64,
    resync: Notify,
    /// When the pane was last resized (a fit, or a size change seen by the hub).
    resized: Mutex<Option<Instant>>,
    fitting: Fitting,
}

impl Feed {
    /// Subscribes to the pane's output, seeds the terminal from a capture placed in that stream (nothing
    /// printed around it is lost or applied twice), and starts the pump.
    pub(crate) async fn start(
        pane: Pane,
        settings: FeedSettings,
        on_seen: Arc<Notify>,
        stopping: watch::Receiver<bool>,
    ) -> Result<Arc<Feed>> {
        let mut output = pane.subscribe().await?;
        let terminal = seed(&mut output, settings.scrollback).await?;
        let feed = Arc::new(Feed {
            pane,
            settings,
            stream: Mutex::new(Stream { ring: Ring::new(rand::random(), settings.ring_bytes), terminal, ended: false }),
            changed: watch::channel(0).0,
            seen: watch::channel(Seen::default()).0,
            dialog: Mutex::new(None),
            next_dialog: std::sync::atomic::AtomicU64::new(rand::random::<u32>().into()),
            resync: Notify::new(),
            resized: Mutex::new(None),
            fitting: Fitting::default(),
        });
        tokio::spawn(pump(Arc::clone(&feed), output, on_seen, stopping));
        Ok(feed)
    }

    pub(crate) fn pane(&self) -> &Pane {
        &self.pane
    }

    fn stream(&self) -> MutexGuard<'_, Stream> {
        self.stream.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn dialog_slot(&self) -> MutexGuard<'_, Option<DialogSlot>> {
        self.dialog.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notified whenever the stream changes.
    pub(crate) fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Notified whenever recognition sees something new.
    pub(crate) fn seen(&self) -> watch::Receiver<Seen> {
        self.seen.subscribe()
    }

    pub(crate) fn has_ended(&self) -> bool {
        self.stream().ended
    }

    /// Where a client that has everything before `since` starts: there, or from a snapshot.
    pub(crate) fn start_from(&self, since: Option<Position>) -> std::result::Result<Position, Snapshot> {
        let stream = self.stream();
        match stream.ring.resume(since) {
            Some(offset) => Ok(Position { epoch: stream.ring.epoch(), offset }),
            None => Err(snapshot_of(&stream)),
        }
    }

    /// Up to `max` bytes for a client at `at`.
    pub(crate) fn next(&self, at: Position, max: usize) -> Next {
        let stream = self.stream();
        if at.epoch != stream.ring.epoch() {
            return Next::Snapshot(snapshot_of(&stream));
        }
        match stream.ring.read(at.offset, max) {
            Some(bytes) if bytes.is_empty() && stream.ended => Next::Ended,
            Some(bytes) => Next::Bytes(bytes),
            None => Next::Snapshot(snapshot_of(&stream)),
        }
    }

    /// Asks the pump to start a new run from a fresh capture (the pane was resized).
    pub(crate) fn request_resync(&self) {
        *self.resized.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        self.resync.notify_one();
    }

    /// Until when a dialog that vanished may still be the one redrawn after a resize.
    fn settling_until(&self) -> Option<Instant> {
        let resized = *self.resized.lock().unwrap_or_else(|p| p.into_inner());
        resized.map(|at| at + RESIZE_SETTLE).filter(|until| *until > Instant::now())
    }

    /// Makes the pane `cols` × `rows` for `viewer` while it stays (see [`Fitting`]), and starts a new run at
    /// the new size.
    pub(crate) async fn fit(&self, viewer: ViewerId, cols: u16, rows: u16) -> Result<()> {
        let result = self.fitting.request(&self.pane, viewer, cols, rows).await;
        self.request_resync();
        result
    }

    /// Withdraws `viewer`'s fit request; the pane takes the size in force before it.
    pub(crate) async fn unfit(&self, viewer: ViewerId) -> Result<()> {
        if self.fitting.release(&self.pane, viewer).await? {
            self.request_resync();
        }
        Ok(())
    }

    /// Puts the pane's size back as it was before any fit request (the server is stopping).
    pub(crate) async fn restore_size(&self) -> Result<()> {
        self.fitting.restore(&self.pane).await
    }

    /// The viewer whose fit request is in force, kept current.
    pub(crate) fn fit_holder(&self) -> watch::Receiver<Option<ViewerId>> {
        self.fitting.holder()
    }

    /// `(cols, rows)` of the feed's terminal.
    pub(crate) fn size(&self) -> (u16, u16) {
        self.stream().terminal.size()
    }

    fn apply(&self, bytes: &[u8]) {
        {
            let mut stream = self.stream();
            stream.terminal.process(bytes);
            stream.ring.push(bytes);
        }
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Starts a new run from a capture placed in the stream: after lost output, or when the pane's size
    /// changed.
    async fn restart_run(&self, output: &mut PaneOutput) -> Result<()> {
        let terminal = seed(output, self.settings.scrollback).await?;
        {
            let mut stream = self.stream();
            stream.terminal = terminal;
            let epoch = rand::random();
            stream.ring.restart(epoch);
        }
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
        Ok(())
    }

    fn end(&self) {
        self.stream().ended = true;
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Looks at the screen: which agent, which dialog. Publishes what changed. Returns when to look again
    /// (a dialog kept through a resize is checked once more when the resize has settled).
    fn look(&self) -> Option<Instant> {
        let settling = self.settling_until();
        let screen = self.stream().terminal.screen();
        let recognition = frame::recognise(&screen);
        let agent = recognition.as_ref().ok().and_then(Recognition::agent).map(|a| a.name().to_owned());
        let dialog = match &recognition {
            Ok(Recognition::Dialog(dialog)) => Some(read_dialog(&screen, &dialog.line)),
            _ => None,
        };
        let mut look_again = None;
        let view = {
            let mut slot = self.dialog_slot();
            match (dialog, slot.as_mut()) {
                // Gone mid-redraw, perhaps: kept until the resize settles, then looked at again.
                (None, Some(_)) if settling.is_some() => look_again = settling,
                (None, _) => *slot = None,
                (Some((fingerprint, _)), Some(current)) if current.fingerprint == fingerprint => {}
                // The same question redrawn for a new width: the same dialog, its choices read anew.
                (Some((fingerprint, menu)), Some(current))
                    if settling.is_some() && dialog_view(current.id, &menu).prompt == current.view.prompt =>
                {
                    current.fingerprint = fingerprint;
                    current.view = dialog_view(current.id, &menu);
                    current.menu = menu.menu;
                }
                (Some((fingerprint, menu)), _) => {
                    let id = self.next_dialog.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let view = dialog_view(id, &menu);
                    *slot = Some(DialogSlot { id, fingerprint, menu: menu.menu, view, answered: false });
                }
            }
            slot.as_ref().map(|s| (s.view.clone(), s.answered))
        };
        let seen = Seen {
            agent,
            answered: view.as_ref().is_some_and(|(_, answered)| *answered),
            dialog: view.map(|(view, _)| view),
        };
        self.seen.send_if_modified(|old| {
            let changed = *old != seen;
            *old = seen;
            changed
        });
        look_again
    }

    /// Sends the keys of choice `choice` of dialog `id`, once. The pane itself is looked at first (under the
    /// pane's lock, so no other writer in this process types in between): if the dialog on it is not the
    /// one the page saw, or a page already answered it, nothing is sent.
    pub(crate) async fn answer(&self, id: &str, choice: usize) -> Result<(AnswerResult, Option<String>)> {
        let stale = |reason: &str| Ok((AnswerResult::Stale, Some(reason.to_owned())));
        let Ok(id) = id.parse::<u64>() else { return stale("no such dialog") };
        let _writer = self.pane.lock().await;
        let (fingerprint, keys) = {
            let slot = self.dialog_slot();
            match slot.as_ref() {
                Some(d) if d.id == id && d.answered => return stale("this dialog was answered already"),
                Some(d) if d.id == id => match d.menu.as_ref().and_then(|m| m.keys(choice)) {
                    Some(keys) => (d.fingerprint, keys),
                    None => return stale("no such choice"),
                },
                _ => return stale("the dialog is gone"),
            }
        };
        let now = self.pane.capture_state().await?;
        if now.in_mode {
            return Ok((AnswerResult::Refused, Some("the pane is in copy mode; keys would go to tmux".into())));
        }
        let on_screen = match frame::recognise(&now.screen) {
            Ok(Recognition::Dialog(dialog)) => Some(read_dialog(&now.screen, &dialog.line).0),
            _ => None,
        };
        if on_screen != Some(fingerprint) {
            return stale("the dialog on the pane changed");
        }
        {
            let mut slot = self.dialog_slot();
            match slot.as_mut() {
                Some(d) if d.id == id && !d.answered => d.answered = true,
                _ => return stale("this dialog was answered already"),
            }
        }
        self.pane.send_keys(&keys).await?;
        self.seen.send_modify(|seen| seen.answered = true);
        Ok((AnswerResult::Sent, None))
    }
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed").field("pane", self.pane.id()).finish_non_exhaustive()
    }
}

fn snapshot_of(stream: &Stream) -> Snapshot {
    Snapshot { position: stream.ring.position(), size: stream.terminal.size(), data: stream.terminal.snapshot() }
}

/// A dialog's choices as read from the screen, and a fingerprint that changes with what a click would mean.
struct ReadDialog {
    menu: Option<Menu>,
    line: String,
}

fn read_dialog(screen: &Screen, line: &str) -> (u64, ReadDialog) {
    let menu = frame::read_menu(screen);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    match &menu {
        Some(menu) => {
            menu.prompt.hash(&mut hasher);
            menu.selected.hash(&mut hasher);
            for choice in &menu.choices {
                choice.label.hash(&mut hasher);
            }
        }
        None => line.trim().hash(&mut hasher),
    }
    (hasher.finish(), ReadDialog { menu, line: line.trim().to_owned() })
}

fn dialog_view(id: u64, dialog: &ReadDialog) -> DialogView {
    match &dialog.menu {
        Some(menu) => DialogView {
            id: id.to_string(),
            prompt: menu.prompt.clone(),
            choices: menu.choices.iter().map(|c| ChoiceView { label: c.label.clone() }).collect(),
        },
        // Recognised as a dialog, but its choices are not a numbered menu: answer it in the terminal.
        None => DialogView { id: id.to_string(), prompt: dialog.line.clone(), choices: Vec::new() },
    }
}

/// A terminal seeded from the pane's screen and history, at the stream's current place.
async fn seed(output: &mut PaneOutput, scrollback: usize) -> Result<Terminal> {
    let capture = output.capture(CaptureOptions::visible().scrollback(scrollback).with_escapes()).await?;
    let info = &capture.info;
    Ok(Terminal::seeded((info.width, info.height), scrollback, &capture.text, (info.cursor_x, info.cursor_y)))
}

async fn pump(feed: Arc<Feed>, mut output: PaneOutput, on_seen: Arc<Notify>, mut stopping: watch::Receiver<bool>) {
    let mut seen = feed.seen();
    // Look once at the start: a dialog may already be waiting.
    let mut look_at = Some(Instant::now());
    loop {
        let event = tokio::select! {
            () = crate::hub::stopped(&mut stopping) => break,
            // Cancel-safe: a read interrupted by another branch loses nothing.
            event = output.recv() => event,
            () = feed.resync.notified() => {
                if let Err(e) = feed.restart_run(&mut output).await {
                    tracing::warn!(pane = %feed.pane.id(), error = %e, "re-capturing a resized pane failed");
                }
                look_at.get_or_insert_with(Instant::now);
                continue;
            }
            () = sleep_until(look_at) => {
                look_at = feed.look();
                if seen.has_changed().unwrap_or(false) {
                    seen.borrow_and_update();
                    on_seen.notify_one();
                }
                continue;
            }
        };
        match event {
            None => break,
            Some(OutputEvent::Bytes(bytes)) => {
                feed.apply(&bytes);
                look_soon(&mut look_at);
            }
            Some(OutputEvent::Lost) => {
                tracing::debug!(pane = %feed.pane.id(), "output lost on the way; starting a new run from a capture");
                if let Err(e) = feed.restart_run(&mut output).await {
                    tracing::warn!(pane = %feed.pane.id(), error = %e, "re-capturing the pane failed");
                }
                look_soon(&mut look_at);
            }
        }
    }
    feed.end();
    on_seen.notify_one();
}

/// A look within [`LOOK_EVERY`]; an earlier one stays (while output flows, it is looked at that often).
fn look_soon(look_at: &mut Option<Instant>) {
    let soon = Instant::now() + LOOK_EVERY;
    *look_at = Some(look_at.map_or(soon, |at| at.min(soon)));
}

/// Sleeps until `at`, or forever when there is nothing to wait for.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
