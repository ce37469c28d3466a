//! Connection-level notifications and their bounded receiver.

use bytes::Bytes;
use tokio::sync::broadcast;

use crate::parser::PaneId;

/// A notification from the connection (pane output goes to
/// [`crate::Connection::subscribe_output`] instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectionEvent {
    /// `%pause %N`: tmux paused the pane's output for this client.
    Pause {
        /// The paused pane.
        pane: PaneId,
    },
    /// `%continue %N`: the pane's output flows again.
    Continue {
        /// The pane.
        pane: PaneId,
    },
    /// Any other notification, such as `%window-add @1` (name `window-add`).
    Notification {
        /// The name without `%`.
        name: String,
        /// The raw rest of the line.
        args: Bytes,
    },
    /// This receiver fell behind and missed `missed` events.
    Lagged {
        /// How many events were lost.
        missed: u64,
    },
    /// The connection ended (`%exit`, end of file, or a failed write); the last
    /// event. Reconnect with a new control client.
    Closed {
        /// What ended it.
        reason: String,
    },
}

/// A receiver of [`ConnectionEvent`]s with a bounded buffer.
#[derive(Debug)]
pub struct Events {
    receiver: broadcast::Receiver<ConnectionEvent>,
    /// Set for a receiver made after the connection closed: it missed the
    /// broadcast `Closed`, so it yields this one.
    closed_before_subscribing: Option<String>,
    closed_seen: bool,
}

impl Events {
    /// A receiver; `closed_before_subscribing` is the close reason if the
    /// connection ended before it subscribed.
    pub(crate) fn new(
        receiver: broadcast::Receiver<ConnectionEvent>,
        closed_before_subscribing: Option<String>,
    ) -> Self {
        Self { receiver, closed_before_subscribing, closed_seen: false }
    }

    /// The next event; `None` after [`ConnectionEvent::Closed`] was returned.
    pub async fn recv(&mut self) -> Option<ConnectionEvent> {
        if self.closed_seen {
            return None;
        }
        if let Some(reason) = self.closed_before_subscribing.take() {
            self.closed_seen = true;
            return Some(ConnectionEvent::Closed { reason });
        }
        let event = match self.receiver.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(missed)) => ConnectionEvent::Lagged { missed },
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        self.closed_seen = matches!(event, ConnectionEvent::Closed { .. });
        Some(event)
    }
}
