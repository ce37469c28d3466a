//! Fitting a pane to a viewer's screen: a page with input access asks for the pane to take its terminal's
//! columns × rows, so the agent redraws for a phone's width instead of being scaled down to it.
//!
//! The window's size and its `window-size` option are saved before the first request and put back when the
//! last page that asked has left. Requests stack: the latest one is in force; when its page leaves, the
//! latest request still standing takes over, and when none is left the saved size comes back.

use tmux_habitat::{Pane, WindowSize};
use tokio::sync::watch;

use crate::error::{Error, Result};

/// The smallest and largest sizes a page may ask for: smaller is unusable, larger is a mistake.
const COLS: std::ops::RangeInclusive<u16> = 20..=1000;
const ROWS: std::ops::RangeInclusive<u16> = 5..=500;

/// Names one page on one pane socket.
pub(crate) type ViewerId = u64;

#[derive(Debug, Default)]
struct State {
    /// The window as it was before the first standing request.
    saved: Option<WindowSize>,
    /// Standing requests, oldest first: `(viewer, cols, rows)`. The last one is in force.
    requests: Vec<(ViewerId, u16, u16)>,
}

/// The fit requests on one pane.
#[derive(Debug)]
pub(crate) struct Fitting {
    /// Held across the tmux calls, so two requests never interleave their resizes.
    state: tokio::sync::Mutex<State>,
    /// The viewer whose request is in force.
    holder: watch::Sender<Option<ViewerId>>,
}

impl Default for Fitting {
    fn default() -> Fitting {
        Fitting { state: tokio::sync::Mutex::new(State::default()), holder: watch::channel(None).0 }
    }
}

impl Fitting {
    /// Notified when another viewer's request comes into force (or none does).
    pub(crate) fn holder(&self) -> watch::Receiver<Option<ViewerId>> {
        self.holder.subscribe()
    }

    /// Resizes `pane`'s window to `cols` × `rows` for `viewer`, saving the window's size first if no request
    /// stands. Refused (with what to do) for a size out of range or a pane that shares its window.
    pub(crate) async fn request(&self, pane: &Pane, viewer: ViewerId, cols: u16, rows: u16) -> Result<()> {
        if !COLS.contains(&cols) || !ROWS.contains(&rows) {
            return Err(Error::Invalid {
                what: "pane size",
                reason: format!(
                    "{cols}×{rows} is outside {}–{} columns × {}–{} rows",
                    COLS.start(),
                    COLS.end(),
                    ROWS.start(),
                    ROWS.end()
                ),
            });
        }
        let mut state = self.state.lock().await;
        if state.saved.is_none() {
            let saved = pane.window_size().await?;
            if saved.panes > 1 {
                return Err(Error::Invalid {
                    what: "pane to fit",
                    reason: format!(
                        "it shares its window with {} other pane(s), which would be resized too; move it to a \
                         window of its own (tmux break-pane) to fit it",
                        saved.panes - 1
                    ),
                });
            }
            state.saved = Some(saved);
        }
        state.requests.retain(|(v, _, _)| *v != viewer);
        state.requests.push((viewer, cols, rows));
        let result = pane.resize(cols, rows).await;
        if result.is_err() {
            state.requests.retain(|(v, _, _)| *v != viewer);
        }
        self.settle(pane, &mut state).await;
        result.map_err(Error::from)
    }

    /// Withdraws `viewer`'s request (it left, or stopped fitting). If it was in force, the latest request
    /// still standing is applied, or the saved size is put back. Returns whether the pane was resized.
    pub(crate) async fn release(&self, pane: &Pane, viewer: ViewerId) -> Result<bool> {
        let mut state = self.state.lock().await;
        let Some(index) = state.requests.iter().position(|(v, _, _)| *v == viewer) else { return Ok(false) };
        let in_force = index + 1 == state.requests.len();
        state.requests.remove(index);
        if !in_force {
            return Ok(false);
        }
        let result = match state.requests.last() {
            Some(&(_, cols, rows)) => pane.resize(cols, rows).await,
            None => Ok(()),
        };
        self.settle(pane, &mut state).await;
        result.map(|()| true).map_err(Error::from)
    }

    /// Drops every request and puts the saved size back (the server is stopping).
    pub(crate) async fn restore(&self, pane: &Pane) -> Result<()> {
        let mut state = self.state.lock().await;
        state.requests.clear();
        let result = match state.saved.take() {
            Some(saved) => pane.restore_window_size(&saved).await.map_err(Error::from),
            None => Ok(()),
        };
        self.holder.send_replace(None);
        result
    }

    /// After a change: with no request standing the saved size comes back; the holder is published.
    async fn settle(&self, pane: &Pane, state: &mut State) {
        if state.requests.is_empty()
            && let Some(saved) = state.saved.take()
            && let Err(e) = pane.restore_window_size(&saved).await
        {
            tracing::warn!(pane = %pane.id(), error = %e, "putting the pane's size back failed");
        }
        let holder = state.requests.last().map(|(v, _, _)| *v);
        self.holder.send_if_modified(|old| std::mem::replace(old, holder) != holder);
    }
}
