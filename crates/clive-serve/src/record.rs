//! Recording a pane as an asciicast v2 file while it runs, and playing a recording back.

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::FutureExt;
use tmux_habitat::{CaptureOptions, OutputEvent, Pane, PaneCapture, PaneInfo, PaneOutput};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::cast::{Cast, CastWriter, Header};
use crate::error::{Error, Result};

/// How a pane is recorded.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// The recording's title (clive writes the session name).
    pub title: Option<String>,
    /// Start with the pane's current screen. Leave it off for a pane that was just created: what it prints
    /// from now on is the whole story, and a capture could overlap the first bytes of the stream.
    pub current_screen: bool,
}

/// What a finished recording holds.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordingSummary {
    /// The file.
    pub path: PathBuf,
    /// Output events written.
    pub events: u64,
    /// Bytes of pane output recorded.
    pub bytes: u64,
    /// Times output was lost on the way and the screen was redrawn from a capture instead.
    pub redraws: u64,
}

/// A pane being recorded. The recording ends when the pane's stream ends (its session is gone), or at
/// [`Recording::stop`]. Dropping the handle lets the recording run on to the end of the stream.
///
/// ```no_run
/// # async fn demo(pane: tmux_habitat::Pane) -> clive_serve::Result<()> {
/// use clive_serve::{RecordOptions, Recording};
///
/// let recording = Recording::start(&pane, "/tmp/demo.cast", RecordOptions::default()).await?;
/// pane.send_line("echo hello").await?;
/// // … later
/// let summary = recording.stop().await?;
/// println!("{} bytes in {}", summary.bytes, summary.path.display());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Recording {
    path: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<RecordingSummary>>,
}

impl Recording {
    /// Starts recording `pane` into `path` (created with mode 0600, its directory as needed; an existing
    /// file is replaced). Everything the pane prints after this returns is recorded. Needs the control-mode
    /// transport.
    pub async fn start(pane: &Pane, path: impl Into<PathBuf>, options: RecordOptions) -> Result<Recording> {
        let path = path.into();
        let mut output = pane.subscribe().await?;
        let file = create_private(&path)?;
        let started = Instant::now();
        let mut writer;
        if options.current_screen {
            // The screen at the stream's current place: what follows continues it exactly.
            let capture = output.capture(CaptureOptions::visible().with_escapes()).await?;
            writer = CastWriter::new(BufWriter::new(file), &header(&capture.info, &options))?;
            writer.redraw(0.0, &redraw(&capture))?;
        } else {
            let info = pane.info().await?;
            writer = CastWriter::new(BufWriter::new(file), &header(&info, &options))?;
        }
        writer.flush()?;
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(follow(output, writer, started, stopped, path.clone()));
        Ok(Recording { path, stop: Some(stop), task })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stops after writing the output that has already arrived, and returns what was recorded.
    pub async fn stop(mut self) -> Result<RecordingSummary> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.finished().await
    }

    /// Waits until the pane's stream ends (its session was killed) and returns what was recorded.
    pub async fn finished(self) -> Result<RecordingSummary> {
        match self.task.await {
            Ok(result) => result,
            Err(e) => Err(Error::io("recording a pane", std::io::Error::other(e))),
        }
    }
}

async fn follow(
    mut output: PaneOutput,
    mut writer: CastWriter<BufWriter<std::fs::File>>,
    started: Instant,
    mut stopped: oneshot::Receiver<()>,
    path: PathBuf,
) -> Result<RecordingSummary> {
    let mut summary = RecordingSummary { path, events: 0, bytes: 0, redraws: 0 };
    let seconds = || started.elapsed().as_secs_f64();
    loop {
        let event = tokio::select! {
            biased;
            _ = &mut stopped => {
                // Whatever has already arrived still belongs to the recording.
                while let Some(Some(event)) = output.recv().now_or_never() {
                    record_event(&mut output, &mut writer, &mut summary, seconds(), event).await?;
                }
                break;
            }
            // Cancel-safe: a read interrupted by the stop loses nothing.
            event = output.recv() => event,
        };
        let Some(event) = event else { break };
        record_event(&mut output, &mut writer, &mut summary, seconds(), event).await?;
        // One flush per burst: cheap at a high rate, and a killed process loses little.
        while let Some(Some(event)) = output.recv().now_or_never() {
            record_event(&mut output, &mut writer, &mut summary, seconds(), event).await?;
        }
        writer.flush()?;
    }
    writer.finish(seconds())?;
    Ok(summary)
}

async fn record_event(
    output: &mut PaneOutput,
    writer: &mut CastWriter<BufWriter<std::fs::File>>,
    summary: &mut RecordingSummary,
    time: f64,
    event: OutputEvent,
) -> Result<()> {
    match event {
        OutputEvent::Bytes(bytes) => {
            summary.events += 1;
            summary.bytes += bytes.len() as u64;
            writer.output(time, &bytes)
        }
        OutputEvent::Lost => {
            tracing::warn!("recording lost pane output; redrawing the screen from a capture");
            summary.redraws += 1;
            let capture = output.capture(CaptureOptions::visible().with_escapes()).await?;
            writer.redraw(time, &redraw(&capture))
        }
    }
}

fn header(info: &PaneInfo, options: &RecordOptions) -> Header {
    let mut header = Header::new(info.width, info.height);
    header.title = options.title.clone();
    header
}

/// Bytes that draw a captured screen on a terminal of its size: clear, each row in place, the cursor.
fn redraw(capture: &PaneCapture) -> String {
    let text = capture.text.strip_suffix('\n').unwrap_or(&capture.text);
    let mut out = String::from("\x1b[0m\x1b[H\x1b[2J");
    for (row, line) in text.split('\n').enumerate() {
        out.push_str(&format!("\x1b[{};1H{line}", row + 1));
    }
    out.push_str(&format!("\x1b[0m\x1b[{};{}H", capture.info.cursor_y + 1, capture.info.cursor_x + 1));
    out
}

fn create_private(path: &Path) -> Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(format!("creating {}", path.display()), e))
}

/// How a recording is played back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplayOptions {
    /// Playback speed (2.0: twice as fast). `None`: everything at once, no waiting.
    pub speed: Option<f64>,
    /// The longest pause kept; longer idle stretches are cut to this.
    pub idle_limit: Duration,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions { speed: Some(1.0), idle_limit: Duration::from_secs(2) }
    }
}

/// Plays a recording into `out` (a terminal), keeping its timing unless `options.speed` is `None`.
/// With no waiting, `out` receives exactly the recorded output.
pub async fn replay<W: AsyncWrite + Unpin>(cast: &Cast, out: &mut W, options: ReplayOptions) -> Result<()> {
    let start = Instant::now();
    let mut virtual_time = 0.0f64;
    let mut last = 0.0f64;
    for event in &cast.events {
        if let Some(speed) = options.speed.filter(|s| *s > 0.0) {
            let gap = (event.time - last).max(0.0).min(options.idle_limit.as_secs_f64());
            virtual_time += gap / speed;
            // Pacing, not synchronisation: a player shows output at the pace it was recorded.
            tokio::time::sleep_until(start + Duration::from_secs_f64(virtual_time)).await;
        }
        last = event.time;
        out.write_all(event.text.as_bytes()).await.map_err(|e| Error::io("writing the replay", e))?;
        out.flush().await.map_err(|e| Error::io("writing the replay", e))?;
    }
    Ok(())
}

/// Reads and parses a recording file.
pub fn read_cast(path: &Path) -> Result<Cast> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    Cast::parse(&text)
}
