//! Per-pane output subscriptions with a byte budget: a slow subscriber loses
//! data (and is told so) instead of making memory grow.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use tokio::sync::Notify;

use crate::parser::PaneId;

/// What a pane subscription yields, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaneEvent {
    /// Raw bytes the pane wrote (decoded from `%output`/`%extended-output`).
    Output(Bytes),
    /// This subscriber fell behind its byte budget and `missed_bytes` of output
    /// were dropped here. Re-capture the pane (`capture-pane -p -e`) to resync.
    Lagged {
        /// How many bytes were dropped at this point.
        missed_bytes: u64,
    },
    /// tmux paused the pane for this client (`%pause`, after `pause-after`);
    /// output is being dropped by tmux. Re-capture the pane, then call
    /// [`crate::Connection::continue_pane`].
    Paused,
    /// tmux resumed the pane's output (`%continue`).
    Continued,
}

/// A stream of one pane's [`PaneEvent`]s, from
/// [`crate::Connection::subscribe_output`]. Ends (`None`) when the connection
/// closes. Dropping it unsubscribes.
#[derive(Debug)]
pub struct OutputSubscription {
    pane: PaneId,
    queue: Arc<PaneQueue>,
}

impl OutputSubscription {
    pub(crate) fn new(pane: PaneId, queue: Arc<PaneQueue>) -> Self {
        Self { pane, queue }
    }

    /// The pane this subscription follows.
    pub fn pane(&self) -> PaneId {
        self.pane
    }

    /// The next event, waiting for one; `None` once the connection has closed
    /// and everything queued was taken.
    pub async fn recv(&mut self) -> Option<PaneEvent> {
        loop {
            if let Some(next) = self.try_recv() {
                return next;
            }
            // One consumer per queue, so `notify_one`'s stored permit makes this
            // race-free: a push between `try_recv` and here wakes us at once.
            self.queue.notify.notified().await;
        }
    }

    /// The next event if one is queued: `Some(Some(event))`, `Some(None)` when
    /// the stream has ended, `None` when nothing is queued yet.
    pub fn try_recv(&mut self) -> Option<Option<PaneEvent>> {
        let mut state = self.queue.lock();
        if let Some(event) = state.items.pop_front() {
            if let PaneEvent::Output(bytes) = &event {
                state.queued_bytes -= bytes.len();
            }
            return Some(Some(event));
        }
        if state.dropped_bytes > 0 {
            let missed_bytes = std::mem::take(&mut state.dropped_bytes);
            return Some(Some(PaneEvent::Lagged { missed_bytes }));
        }
        state.closed.then_some(None)
    }

    /// Output bytes queued and not yet taken (at most the byte budget).
    pub fn queued_bytes(&self) -> usize {
        self.queue.lock().queued_bytes
    }

    pub(crate) fn queue(&self) -> &Arc<PaneQueue> {
        &self.queue
    }
}

/// The queue between the reader task and one subscriber.
#[derive(Debug)]
pub(crate) struct PaneQueue {
    state: Mutex<QueueState>,
    notify: Notify,
}

#[derive(Debug)]
struct QueueState {
    items: VecDeque<PaneEvent>,
    queued_bytes: usize,
    budget_bytes: usize,
    /// Bytes dropped since the last `Lagged` marker was queued.
    dropped_bytes: u64,
    /// Every output byte offered to this queue, queued or dropped: a place in the subscription's stream.
    pushed_bytes: u64,
    closed: bool,
}

impl PaneQueue {
    pub(crate) fn new(budget_bytes: usize) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(QueueState {
                items: VecDeque::new(),
                queued_bytes: 0,
                budget_bytes,
                dropped_bytes: 0,
                pushed_bytes: 0,
                closed: false,
            }),
            notify: Notify::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        // A panic while holding this lock leaves the queue consistent enough
        // (it only holds plain data), so carry on past poisoning.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues an event; output over the byte budget is dropped and counted.
    pub(crate) fn push(&self, event: PaneEvent) {
        let mut state = self.lock();
        if state.closed {
            return;
        }
        if let PaneEvent::Output(bytes) = &event {
            state.pushed_bytes += bytes.len() as u64;
            if state.queued_bytes + bytes.len() > state.budget_bytes {
                state.dropped_bytes += bytes.len() as u64;
                return;
            }
            if state.dropped_bytes > 0 {
                let missed_bytes = std::mem::take(&mut state.dropped_bytes);
                state.items.push_back(PaneEvent::Lagged { missed_bytes });
            }
            state.queued_bytes += bytes.len();
        }
        state.items.push_back(event);
        drop(state);
        self.notify.notify_one();
    }

    /// How many output bytes were offered to this subscription so far (queued or dropped as lag).
    pub(crate) fn pushed_bytes(&self) -> u64 {
        self.lock().pushed_bytes
    }

    /// Ends the stream after what is queued.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(text: &str) -> PaneEvent {
        PaneEvent::Output(Bytes::copy_from_slice(text.as_bytes()))
    }

    #[tokio::test]
    async fn over_budget_output_becomes_a_lag_marker_in_place() {
        let queue = PaneQueue::new(8);
        let mut subscription = OutputSubscription::new(PaneId(1), queue.clone());
        queue.push(output("abcd"));
        queue.push(output("efgh"));
        queue.push(output("dropped")); // over budget
        assert_eq!(subscription.queued_bytes(), 8);
        assert_eq!(subscription.recv().await, Some(output("abcd")));
        queue.push(output("ijkl"));
        queue.push(PaneEvent::Paused);
        queue.close();
        assert_eq!(subscription.recv().await, Some(output("efgh")));
        assert_eq!(subscription.recv().await, Some(PaneEvent::Lagged { missed_bytes: 7 }));
        assert_eq!(subscription.recv().await, Some(output("ijkl")));
        assert_eq!(subscription.recv().await, Some(PaneEvent::Paused));
        assert_eq!(subscription.recv().await, None);
    }

    #[tokio::test]
    async fn lag_at_the_end_is_reported_before_waiting() {
        let queue = PaneQueue::new(2);
        let mut subscription = OutputSubscription::new(PaneId(1), queue.clone());
        queue.push(output("toolong"));
        assert_eq!(subscription.recv().await, Some(PaneEvent::Lagged { missed_bytes: 7 }));
        assert_eq!(subscription.try_recv(), None);
    }
}
