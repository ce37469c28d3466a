//! The tokio driver: one reader task feeding the [`Parser`], one writer task
//! sending command lines, and handles to await replies and follow panes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::Child;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::Error;
use crate::command::IntoCommandLine;
use crate::events::{ConnectionEvent, Events};
use crate::matcher::ReplyMatcher;
use crate::parser::{Event, PaneId};
use crate::reply::Reply;
use crate::subscription::{OutputSubscription, PaneEvent, PaneQueue};
use crate::tasks::{WRITE_BATCH, read_loop, write_loop};

/// Settings of a [`Connection`].
#[derive(Debug, Clone)]
pub struct ConnectionOptions {
    /// Deadline of [`Connection::command`]. Default 10 s.
    pub command_timeout: Duration,
    /// Byte budget of each output subscription; output beyond it is dropped
    /// and reported as [`PaneEvent::Lagged`]. Default 4 MiB.
    pub output_budget_bytes: usize,
    /// How many notifications an [`Events`] receiver may fall behind before it
    /// gets [`ConnectionEvent::Lagged`]. Default 1024.
    pub event_capacity: usize,
    /// Hold commands until the first flags-0 reply block arrives. Default
    /// `true`. tmux runs the command on the control client's command line
    /// (`attach-session`, `new-session`) as a flags-0 block; a command that
    /// arrives before it finishes can fail with `no current client`. Turn this
    /// off only for a stream that does not start with such a block.
    pub wait_for_attach: bool,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        Self {
            command_timeout: Duration::from_secs(10),
            output_budget_bytes: 4 << 20,
            event_capacity: 1024,
            wait_for_attach: true,
        }
    }
}

/// A control-mode connection to tmux: send commands, await their replies,
/// follow pane output. Cheap to clone; all clones share the connection.
///
/// The connection does not start tmux. Its owner spawns the control client
/// (`tmux -S <socket> -C attach -f ignore-size -t <session>`, with `-C`, not
/// `-CC`, on pipes) and hands over its stdin and stdout. tmux only reports
/// `%output` for panes in the session the client is attached to, so use one
/// connection per session (or keep all watched panes in one session).
///
/// Dropping every clone closes tmux's stdin, which ends the control client.
#[derive(Debug, Clone)]
pub struct Connection {
    requests: mpsc::Sender<Vec<Request>>,
    shared: Arc<Shared>,
    command_timeout: Duration,
}

/// A reply, and for a command placed in a subscription's stream, how many of its output bytes came first.
pub(crate) type Answer = Result<(Reply, Option<u64>), Error>;

/// A command line on its way to the writer task. The writer takes requests in groups (one per call), and
/// never splits a group between two writes.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) line: String,
    pub(crate) reply: oneshot::Sender<Answer>,
    /// The subscription whose stream position the reply reports.
    pub(crate) placed_in: Option<Arc<PaneQueue>>,
}

/// A command written and waiting for its reply block.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) command: String,
    pub(crate) reply: oneshot::Sender<Answer>,
    pub(crate) placed_in: Option<Arc<PaneQueue>>,
}

/// What the handles and both tasks share.
#[derive(Debug)]
pub(crate) struct Shared {
    state: Mutex<State>,
    events: broadcast::Sender<ConnectionEvent>,
    closed: watch::Sender<bool>,
    /// Set by the first flags-0 block (the reply to the attach command).
    attached: watch::Sender<bool>,
    output_budget_bytes: usize,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) matcher: ReplyMatcher<Pending>,
    panes: HashMap<PaneId, Vec<Arc<PaneQueue>>>,
    pub(crate) closed_reason: Option<String>,
}

impl Connection {
    /// Starts driving a control client whose stdout is `reader` and stdin is
    /// `writer`, with default [`ConnectionOptions`]. Must be called inside a
    /// tokio runtime (it spawns two tasks).
    pub fn new<R, W>(reader: R, writer: W) -> (Self, Events)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::with_options(reader, writer, ConnectionOptions::default())
    }

    /// Like [`Connection::new`] with explicit options.
    pub fn with_options<R, W>(reader: R, writer: W, options: ConnectionOptions) -> (Self, Events)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::start(reader, writer, None, options)
    }

    /// Drives an already spawned control client process (stdin and stdout
    /// must be piped). The connection owns the child: when its output ends,
    /// its exit status goes into the close reason.
    pub fn from_child(mut child: Child, options: ConnectionOptions) -> Result<(Self, Events), Error> {
        let writer = child.stdin.take().ok_or(Error::MissingPipe { stream: "stdin" })?;
        let reader = child.stdout.take().ok_or(Error::MissingPipe { stream: "stdout" })?;
        Ok(Self::start(reader, writer, Some(child), options))
    }

    fn start<R, W>(reader: R, writer: W, child: Option<Child>, options: ConnectionOptions) -> (Self, Events)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (events, receiver) = broadcast::channel(options.event_capacity.max(1));
        let (closed, closed_watch) = watch::channel(false);
        let (attached, attached_watch) = watch::channel(!options.wait_for_attach);
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            events,
            closed,
            attached,
            output_budget_bytes: options.output_budget_bytes,
        });
        let (requests, request_receiver) = mpsc::channel(WRITE_BATCH * 4);
        tokio::spawn(write_loop(writer, request_receiver, shared.clone(), closed_watch, attached_watch));
        tokio::spawn(read_loop(reader, child, shared.clone()));
        let connection = Self { requests, shared, command_timeout: options.command_timeout };
        (connection, Events::new(receiver, None))
    }

    /// Sends one command and waits for its reply, with the default deadline.
    /// A `%error` reply is returned with `ok: false`, not as an error (use
    /// [`Reply::into_result`]). Many concurrent calls are pipelined: lines are
    /// written in the order the futures are first polled (so `join_all` over
    /// several calls sends them in order, in as few writes as possible).
    ///
    /// Fails fast with [`Error::ConnectionClosed`] once the connection ended,
    /// and with [`Error::BadCommand`] for lines that would break it (see
    /// [`crate::check_command_line`]).
    pub async fn command(&self, command: impl IntoCommandLine) -> Result<Reply, Error> {
        self.command_with_timeout(command, self.command_timeout).await
    }

    /// [`Connection::command`] with an explicit deadline.
    pub async fn command_with_timeout(&self, command: impl IntoCommandLine, timeout: Duration) -> Result<Reply, Error> {
        self.exchange(command, None, timeout).await.map(|(reply, _)| reply)
    }

    /// Sends a command and returns its reply with its place in `subscription`'s stream: how many output
    /// bytes of that pane the subscription was sent before the reply. tmux writes pane output and replies
    /// in the order they happen, so output up to that place was made before the command ran and output
    /// after it, after: a `capture-pane` placed this way shows exactly the first `place` bytes of the
    /// stream (counting bytes later reported as [`PaneEvent::Lagged`](crate::PaneEvent::Lagged) too). The
    /// subscription must be on this connection.
    pub async fn command_at(
        &self,
        command: impl IntoCommandLine,
        subscription: &OutputSubscription,
    ) -> Result<(Reply, u64), Error> {
        let mut answers = self.commands_at([command], subscription).await?;
        answers.pop().ok_or_else(|| self.closed_error())
    }

    /// Several commands placed in `subscription`'s stream like [`Connection::command_at`], written to tmux
    /// together in one write. tmux runs the commands of one read in one pass, before it reads pane output
    /// again, so their replies normally share one place; compare the places to be sure (a very long group
    /// may still be read in parts). Replies come in the order of `commands`.
    pub async fn commands_at<C: IntoCommandLine>(
        &self,
        commands: impl IntoIterator<Item = C>,
        subscription: &OutputSubscription,
    ) -> Result<Vec<(Reply, u64)>, Error> {
        let queue = subscription.queue();
        let lines = commands.into_iter().map(|c| Ok((c.into_command_line()?, Some(queue.clone()))));
        let answers = self.exchange_group(lines.collect::<Result<Vec<_>, Error>>()?, self.command_timeout).await?;
        Ok(answers.into_iter().map(|(reply, place)| (reply, place.unwrap_or_default())).collect())
    }

    async fn exchange(
        &self,
        command: impl IntoCommandLine,
        placed_in: Option<Arc<PaneQueue>>,
        timeout: Duration,
    ) -> Answer {
        let line = command.into_command_line()?;
        let mut answers = self.exchange_group(vec![(line, placed_in)], timeout).await?;
        answers.pop().ok_or_else(|| self.closed_error())
    }

    /// Sends the lines as one group (one write) and waits for every reply, all within `timeout`.
    async fn exchange_group(
        &self,
        lines: Vec<(String, Option<Arc<PaneQueue>>)>,
        timeout: Duration,
    ) -> Result<Vec<(Reply, Option<u64>)>, Error> {
        let described = lines.iter().map(|(line, _)| line.as_str()).collect::<Vec<_>>().join("; ");
        let mut group = Vec::with_capacity(lines.len());
        let mut receivers = Vec::with_capacity(lines.len());
        for (line, placed_in) in lines {
            let (reply, receiver) = oneshot::channel();
            group.push(Request { line, reply, placed_in });
            receivers.push(receiver);
        }
        let exchange = async {
            if self.requests.send(group).await.is_err() {
                return Err(self.closed_error());
            }
            let mut answers = Vec::with_capacity(receivers.len());
            for receiver in receivers {
                answers.push(receiver.await.unwrap_or_else(|_| Err(self.closed_error()))?);
            }
            Ok(answers)
        };
        tokio::time::timeout(timeout, exchange).await.unwrap_or(Err(Error::Timeout { command: described, timeout }))
    }

    /// Follows one pane's output. Each subscription has its own byte budget
    /// ([`ConnectionOptions::output_budget_bytes`]). Only panes in the
    /// attached session produce output.
    pub fn subscribe_output(&self, pane: PaneId) -> OutputSubscription {
        let queue = PaneQueue::new(self.shared.output_budget_bytes);
        let mut state = self.shared.lock();
        if state.closed_reason.is_some() {
            queue.close();
        } else {
            state.panes.entry(pane).or_default().push(queue.clone());
        }
        OutputSubscription::new(pane, queue)
    }

    /// Another receiver of this connection's notifications, from now on (just
    /// [`ConnectionEvent::Closed`] if the connection has already ended).
    pub fn events(&self) -> Events {
        // Subscribing under the state lock orders it against `close`.
        let state = self.shared.lock();
        Events::new(self.shared.events.subscribe(), state.closed_reason.clone())
    }

    /// Turns on tmux's flow control for this client
    /// (`refresh-client -f pause-after=<seconds>`): a pane whose output is that
    /// far behind is paused ([`PaneEvent::Paused`]) instead of queueing without
    /// bound or disconnecting the client with `too far behind`.
    pub async fn set_pause_after(&self, seconds: u32) -> Result<(), Error> {
        let line = format!("refresh-client -f pause-after={seconds}");
        self.command(line).await?.into_result().map(drop)
    }

    /// Resumes a paused pane's output (`refresh-client -A '%N:continue'`).
    /// Re-capture the pane first: output made while paused is not sent.
    pub async fn continue_pane(&self, pane: PaneId) -> Result<(), Error> {
        let line = format!("refresh-client -A '{pane}:continue'");
        self.command(line).await?.into_result().map(drop)
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed_reason.is_some()
    }

    /// Waits until the connection ends and returns why.
    pub async fn closed(&self) -> String {
        let mut watch = self.shared.closed.subscribe();
        // The sender lives in `shared`, which we hold, so this cannot fail.
        let _ = watch.wait_for(|closed| *closed).await;
        self.shared.lock().closed_reason.clone().unwrap_or_default()
    }

    fn closed_error(&self) -> Error {
        let reason = self.shared.lock().closed_reason.clone();
        Error::ConnectionClosed { reason: reason.unwrap_or_else(|| "the connection's tasks have stopped".to_owned()) }
    }
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // State holds plain data that every step leaves consistent.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Ends the connection once: fails every pending command, ends every
    /// subscription, emits `Closed`.
    pub(crate) fn close(&self, reason: String) {
        let mut state = self.lock();
        if state.closed_reason.is_some() {
            return;
        }
        tracing::debug!(%reason, "tmux control connection closed");
        state.closed_reason = Some(reason.clone());
        for pending in state.matcher.drain() {
            let _ = pending.reply.send(Err(Error::ConnectionClosed { reason: reason.clone() }));
        }
        for queue in state.panes.drain().flat_map(|(_, queues)| queues) {
            queue.close();
        }
        drop(state);
        let _ = self.events.send(ConnectionEvent::Closed { reason });
        self.closed.send_replace(true);
    }

    pub(crate) fn dispatch(&self, event: Event) {
        match event {
            Event::Block(block) => {
                let matched = self.lock().matcher.on_block(block);
                match matched {
                    Some((pending, block)) => {
                        // Every output line before this block has been queued already: the reader handles
                        // the stream in order, so the count now is the block's place in the stream.
                        let place = pending.placed_in.as_ref().map(|queue| queue.pushed_bytes());
                        // The caller may have timed out and gone; that is fine.
                        let _ = pending.reply.send(Ok((Reply::from_block(pending.command, block), place)));
                    }
                    None => {
                        tracing::trace!("skipped a reply block not sent by this client");
                        self.attached.send_replace(true);
                    }
                }
            }
            Event::Output { pane, data, .. } => {
                self.to_pane(pane, PaneEvent::Output(Bytes::from(data)));
            }
            Event::Pause { pane } => {
                self.to_pane(pane, PaneEvent::Paused);
                let _ = self.events.send(ConnectionEvent::Pause { pane });
            }
            Event::Continue { pane } => {
                self.to_pane(pane, PaneEvent::Continued);
                let _ = self.events.send(ConnectionEvent::Continue { pane });
            }
            Event::Notification { name, args } => {
                let args = Bytes::from(args);
                let _ = self.events.send(ConnectionEvent::Notification { name, args });
            }
            Event::Exit { reason } => {
                let reason = match reason {
                    Some(reason) => format!("tmux sent %exit ({reason})"),
                    None => "tmux sent %exit".to_owned(),
                };
                self.close(reason);
            }
        }
    }

    fn to_pane(&self, pane: PaneId, event: PaneEvent) {
        let mut state = self.lock();
        let Some(queues) = state.panes.get_mut(&pane) else {
            return;
        };
        // A queue only we hold belongs to a dropped subscription.
        queues.retain(|queue| Arc::strong_count(queue) > 1);
        if queues.is_empty() {
            state.panes.remove(&pane);
            return;
        }
        for queue in queues.iter() {
            queue.push(event.clone());
        }
    }
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod tests;
