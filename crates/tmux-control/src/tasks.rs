//! The connection's two tasks: the reader feeds the parser and dispatches
//! events; the writer sends command lines in batches.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::{mpsc, watch};

use crate::Error;
use crate::connection::{Pending, Request, Shared};
use crate::parser::Parser;

/// Largest number of queued command groups written with one write call.
pub(crate) const WRITE_BATCH: usize = 256;
/// How long to wait for an owned child to exit after its output ended, to
/// put its exit status into the close reason.
const CHILD_EXIT_GRACE: Duration = Duration::from_secs(1);

/// Reads until `%exit`, end of file or an error, then closes the connection.
pub(crate) async fn read_loop<R>(mut reader: R, child: Option<Child>, shared: Arc<Shared>)
where
    R: AsyncRead + Unpin,
{
    let mut parser = Parser::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let reason = loop {
        match reader.read(&mut buffer).await {
            Ok(0) => break "the tmux control client closed its output (end of file)".to_owned(),
            Ok(read) => {
                parser.push(&buffer[..read]);
                while let Some(event) = parser.next_event() {
                    shared.dispatch(event);
                }
                if parser.has_exited() {
                    // `%exit` already closed the connection; just reap the child.
                    finish_child(child).await;
                    return;
                }
            }
            Err(error) => break format!("reading from the tmux control client failed: {error}"),
        }
    };
    let reason = match finish_child(child).await {
        Some(status) => format!("{reason}; {status}"),
        None => reason,
    };
    shared.close(reason);
}

/// Reaps an owned child, describing how it ended (if it does so promptly).
async fn finish_child(child: Option<Child>) -> Option<String> {
    let mut child = child?;
    match tokio::time::timeout(CHILD_EXIT_GRACE, child.wait()).await {
        Ok(Ok(status)) => Some(format!("the tmux client process exited with {status}")),
        Ok(Err(error)) => Some(format!("waiting for the tmux client process failed: {error}")),
        Err(_) => {
            let _ = child.start_kill();
            Some("the tmux client process did not exit and was killed".to_owned())
        }
    }
}

/// Writes command lines until the connection closes or every handle is gone,
/// then closes tmux's stdin and fails whatever is still queued.
pub(crate) async fn write_loop<W>(
    mut writer: W,
    mut requests: mpsc::Receiver<Vec<Request>>,
    shared: Arc<Shared>,
    mut closed: watch::Receiver<bool>,
    mut attached: watch::Receiver<bool>,
) where
    W: AsyncWrite + Unpin,
{
    let mut batch = Vec::with_capacity(WRITE_BATCH);
    if wait_until_attached(&mut requests, &mut batch, &mut closed, &mut attached).await {
        loop {
            if let Err(error) = write_batch(&mut writer, &mut batch, &shared).await {
                shared.close(format!("writing to the tmux control client failed: {error}"));
                break;
            }
            tokio::select! {
                received = requests.recv_many(&mut batch, WRITE_BATCH) => {
                    if received == 0 {
                        break; // every Connection handle is gone
                    }
                }
                _ = closed.wait_for(|closed| *closed) => break,
            }
        }
    }
    // Closing tmux's stdin ends the control client.
    let _ = writer.shutdown().await;
    requests.close();
    let reason = shared.lock().closed_reason.clone().unwrap_or_default();
    for request in batch.drain(..).flatten() {
        let _ = request.reply.send(Err(Error::ConnectionClosed { reason: reason.clone() }));
    }
    while let Some(group) = requests.recv().await {
        for request in group {
            let _ = request.reply.send(Err(Error::ConnectionClosed { reason: reason.clone() }));
        }
    }
}

/// Collects requests until the attach block arrived (`true`), or until the
/// connection closed or every handle is gone (`false`).
async fn wait_until_attached(
    requests: &mut mpsc::Receiver<Vec<Request>>,
    batch: &mut Vec<Vec<Request>>,
    closed: &mut watch::Receiver<bool>,
    attached: &mut watch::Receiver<bool>,
) -> bool {
    loop {
        tokio::select! {
            biased;
            _ = closed.wait_for(|closed| *closed) => return false,
            _ = attached.wait_for(|attached| *attached) => return true,
            received = requests.recv_many(batch, WRITE_BATCH), if batch.len() < WRITE_BATCH => {
                if received == 0 {
                    return false;
                }
            }
        }
    }
}

/// Records and writes the batched groups of command lines (one write, one flush).
async fn write_batch<W>(writer: &mut W, batch: &mut Vec<Vec<Request>>, shared: &Shared) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let mut bytes = Vec::new();
    {
        let mut state = shared.lock();
        for request in batch.drain(..).flatten() {
            if let Some(reason) = &state.closed_reason {
                let reason = reason.clone();
                let _ = request.reply.send(Err(Error::ConnectionClosed { reason }));
                continue;
            }
            bytes.extend_from_slice(request.line.as_bytes());
            bytes.push(b'\n');
            // Recorded before writing: a reply cannot precede its command.
            state.matcher.sent(Pending { command: request.line, reply: request.reply, placed_in: request.placed_in });
        }
    }
    if bytes.is_empty() {
        return Ok(());
    }
    write_all_and_flush(writer, &bytes).await
}

async fn write_all_and_flush<W: AsyncWrite + Unpin>(writer: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    writer.write_all(bytes).await?;
    writer.flush().await
}
