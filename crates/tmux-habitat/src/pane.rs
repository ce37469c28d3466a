//! A pane, pinned to its immutable id: observe it, type into it, run commands in it.

use std::fmt;
use std::time::Duration;

use tmux_control::Command;

use crate::capture::CaptureOptions;
use crate::end_signal::EndSignal;
use crate::error::{Error, Result};
use crate::frame::TypedAt;
use crate::keys::Key;
use crate::screen::Screen;
use crate::server::Server;
use crate::wait::Backoff;

/// tmux's own limit on one command message is about 16 KB and it truncates silently past it; literal text is
/// sent in pieces well below that.
const SEND_CHUNK_BYTES: usize = 4096;

/// A terminal in canonical mode drops what goes past 4095 bytes on one line.
const CANONICAL_LINE_LIMIT: usize = 4095;

/// What the default shell prints when it exits, followed by its exit status.
pub(crate) const EXIT_MARKER: &str = "__HAB_X_";

/// A pane's immutable id, `%N`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneId(String);

impl PaneId {
    pub(crate) fn new(id: &str) -> PaneId {
        PaneId(id.to_owned())
    }

    /// The id as tmux writes it (`%3`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PaneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A pane's window as [`Pane::window_size`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowSize {
    /// Width in cells.
    pub width: u16,
    /// Height in cells.
    pub height: u16,
    /// How many panes the window has (resizing the window resizes them all).
    pub panes: usize,
    /// The window's own `window-size` option (`manual`, `latest` …), `None` when it inherits the session's.
    pub option: Option<String>,
}

impl WindowSize {
    /// `W H PANES` on the first line, the window's own `window-size` (or nothing) on the second.
    fn parse(out: &str) -> Option<WindowSize> {
        let mut lines = out.lines();
        let mut head = lines.next()?.split(' ');
        let width = head.next()?.parse().ok()?;
        let height = head.next()?.parse().ok()?;
        let panes = head.next()?.parse().ok()?;
        let option = lines.next().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
        Some(WindowSize { width, height, panes, option })
    }
}

/// What tmux knows about a pane at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneInfo {
    /// The pane id.
    pub id: PaneId,
    /// Width in cells.
    pub width: u16,
    /// Height in cells.
    pub height: u16,
    /// Pid of the pane's first process (its shell).
    pub pid: u32,
    /// Name of the foreground command (e.g. `bash`, `vim`).
    pub current_command: String,
    /// Whether the pane's program has exited (the pane stays because of `remain-on-exit`).
    pub dead: bool,
    /// Exit status of a dead pane's program, when it exited normally.
    pub dead_status: Option<i32>,
    /// Cursor column.
    pub cursor_x: u16,
    /// Cursor row.
    pub cursor_y: u16,
    /// The pane title.
    pub title: String,
    /// Whether the pane is in a mode (copy mode swallows keys).
    pub in_mode: bool,
    /// Whether the alternate screen is active (a full-screen program is running).
    pub alternate_screen: bool,
    /// Lines of scrollback above the visible screen.
    pub history_size: usize,
    /// The pane's terminal device.
    pub tty: String,
    /// The working directory of the pane's foreground process, as tmux sees it (empty when unknown).
    pub current_path: String,
}

pub(crate) const INFO_FORMAT: &str = "#{pane_id}\t#{pane_width}\t#{pane_height}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{cursor_x}\t#{cursor_y}\t#{pane_in_mode}\t#{alternate_on}\t#{history_size}\t#{pane_tty}\t#{pane_current_command}\t#{pane_current_path}\t#{pane_title}";

impl PaneInfo {
    pub(crate) fn parse(line: &str) -> Result<PaneInfo> {
        let bad =
            || Error::Protocol { command: "display-message".into(), detail: format!("unexpected pane info {line:?}") };
        // The title comes last: it may hold tabs.
        let f: Vec<&str> = line.trim_end_matches('\n').splitn(15, '\t').collect();
        if f.len() != 15 {
            return Err(bad());
        }
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad());
        Ok(PaneInfo {
            id: PaneId::new(f[0]),
            width: u16::try_from(num(f[1])?).map_err(|_| bad())?,
            height: u16::try_from(num(f[2])?).map_err(|_| bad())?,
            pid: u32::try_from(num(f[3])?).map_err(|_| bad())?,
            dead: f[4] == "1",
            dead_status: f[5].parse().ok(),
            cursor_x: u16::try_from(num(f[6])?).map_err(|_| bad())?,
            cursor_y: u16::try_from(num(f[7])?).map_err(|_| bad())?,
            in_mode: f[8] == "1",
            alternate_screen: f[9] == "1",
            history_size: usize::try_from(num(f[10])?).map_err(|_| bad())?,
            tty: f[11].to_owned(),
            current_command: f[12].to_owned(),
            current_path: f[13].to_owned(),
            title: f[14].to_owned(),
        })
    }
}

/// A handle on one pane. Cheap to clone. Every call targets the pane's id, so it keeps pointing at the same
/// pane whatever happens to window indexes or names.
#[derive(Debug, Clone)]
pub struct Pane {
    server: Server,
    id: PaneId,
}

/// What a pane shows and whether typing into it can reach its program, from one moment: see
/// [`Pane::capture_state`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PaneState {
    /// The visible screen with attributes and the cursor.
    pub screen: Screen,
    /// The pane is in a mode (copy mode): keys go to tmux, not to the program.
    pub in_mode: bool,
    /// The pane's program has exited.
    pub dead: bool,
    /// The screen as tmux printed it (`capture-pane -p -e`), for saving it as a fixture; `screen` is this,
    /// parsed.
    pub ansi: String,
}

/// Holds a pane's lock: while it lives no other holder in this process types into the pane.
#[derive(Debug)]
pub struct PaneGuard {
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

impl Pane {
    pub(crate) fn new(server: Server, id: PaneId) -> Pane {
        Pane { server, id }
    }

    /// The pane id (`%N`).
    pub fn id(&self) -> &PaneId {
        &self.id
    }

    /// The server the pane lives on.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Waits for the pane's lock. Two tasks that both lock before typing never type into the pane at once,
    /// whichever [`Server`] handles they reach it through. The lock is per process; `lane-send` adds a file
    /// lock for other processes.
    pub async fn lock(&self) -> PaneGuard {
        let mutex = crate::lock::pane_mutex(self.server.socket_path(), &self.id);
        PaneGuard { _guard: mutex.lock_owned().await }
    }

    /// Size, pid, command, dead status, cursor, title and mode, read in one call.
    pub async fn info(&self) -> Result<PaneInfo> {
        let out =
            self.server.tmux(Command::new("display-message").args(["-p", "-t", self.id.as_str(), INFO_FORMAT])).await;
        match out {
            // tmux 3.3 answers a display-message for a missing target with nothing and exit status 0.
            Ok(line) if line.trim().is_empty() => Err(self.not_found()),
            Ok(line) => PaneInfo::parse(&line),
            Err(e) => Err(self.gone_as_not_found(e)),
        }
    }

    /// Whether the pane still exists on the server (dead panes exist until killed).
    pub async fn exists(&self) -> Result<bool> {
        match self.server.tmux(Command::new("list-panes").args(["-a", "-F", "#{pane_id}"])).await {
            Ok(out) => Ok(out.lines().any(|l| l == self.id.as_str())),
            Err(Error::NoServer { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A missing pane or a server that is gone, as [`Error::NotFound`] for this pane; other errors unchanged.
    pub(crate) fn gone_as_not_found(&self, error: Error) -> Error {
        match error {
            Error::NotFound { kind: "pane", .. } | Error::NoServer { .. } => self.not_found(),
            other => other,
        }
    }

    pub(crate) fn not_found(&self) -> Error {
        Error::NotFound { kind: "pane", name: self.id.to_string(), socket: self.server.socket_path().to_owned() }
    }

    /// Captures text as the options say, as one atomic snapshot.
    pub async fn capture(&self, options: CaptureOptions) -> Result<String> {
        self.server.tmux(options.command(self.id.as_str())).await.map_err(|e| self.gone_as_not_found(e))
    }

    /// The visible screen as text.
    pub async fn capture_text(&self) -> Result<String> {
        self.capture(CaptureOptions::visible()).await
    }

    /// The visible screen with attributes, parsed into styled cells, with the cursor position; see
    /// [`Pane::capture_state`].
    pub async fn capture_screen(&self) -> Result<Screen> {
        Ok(self.capture_state().await?.screen)
    }

    /// The visible screen (styled cells and cursor) with the pane's mode and dead flag, from one moment: the
    /// size, cursor, mode and content are asked for in one chain, so they agree unless the pane is resized in
    /// between. What a caller checks before typing into a program it does not control.
    pub async fn capture_state(&self) -> Result<PaneState> {
        let id = self.id.as_str();
        let invocation = crate::Invocation::new(Command::new("display-message").args([
            "-p",
            "-t",
            id,
            "#{pane_width} #{cursor_x} #{cursor_y} #{pane_in_mode} #{pane_dead}",
        ]))
        .then(CaptureOptions::visible().with_escapes().command(id));
        let out = self.server.tmux(invocation).await.map_err(|e| self.gone_as_not_found(e))?;
        let (head, body) = out.split_once('\n').unwrap_or((out.as_str(), ""));
        if head.trim().is_empty() {
            // tmux 3.3 answers a display-message for a missing target with nothing and exit status 0.
            return Err(self.not_found());
        }
        let nums: Vec<u16> = head.split(' ').filter_map(|n| n.parse().ok()).collect();
        let [width, x, y, in_mode, dead] = nums[..] else {
            return Err(Error::Protocol { command: "display-message".into(), detail: format!("unexpected {head:?}") });
        };
        Ok(PaneState {
            screen: Screen::from_ansi(body, width).with_cursor(x, y),
            in_mode: in_mode == 1,
            dead: dead == 1,
            ansi: body.to_string(),
        })
    }

    /// Types `text` literally (`send-keys -l`): no key names are looked up and nothing is added. A newline is
    /// a newline keystroke. CRLF is normalised to LF. Long text goes in pieces below tmux's silent command
    /// limit; a line longer than a canonical-mode terminal accepts is refused rather than cut.
    pub async fn send_text(&self, text: &str) -> Result<()> {
        self.typed_into();
        let text = text.replace("\r\n", "\n");
        if text.is_empty() {
            return Ok(());
        }
        self.refuse_overlong_canonical_lines(&text).await?;
        for chunk in chunks_on_char_boundaries(&text, SEND_CHUNK_BYTES) {
            self.server.tmux(Command::new("send-keys").args(["-t", self.id.as_str(), "-l", chunk])).await?;
        }
        Ok(())
    }

    /// Types `text` and presses Enter: answering a prompt or driving a REPL. Nothing else is added.
    pub async fn send_line(&self, text: &str) -> Result<()> {
        self.send_text(text).await?;
        self.send_keys(&[Key::Enter]).await
    }

    /// Presses named keys, in order, in one call.
    pub async fn send_keys(&self, keys: &[Key]) -> Result<()> {
        self.typed_into();
        if keys.is_empty() {
            return Ok(());
        }
        let command = Command::new("send-keys").args(["-t", self.id.as_str()]).args(keys.iter().map(Key::tmux_name));
        self.server.tmux(command).await.map(drop)
    }

    /// Pastes `text` as one bracketed paste (if the program asked for bracketed paste): loaded through stdin
    /// into a uniquely named buffer, then `paste-buffer -p -r -d`, so LF stays LF and the buffer is deleted.
    /// CRLF is normalised to LF. Refused when a line is too long for a canonical-mode terminal.
    pub async fn paste(&self, text: &str) -> Result<()> {
        self.typed_into();
        let text = text.replace("\r\n", "\n");
        self.refuse_overlong_canonical_lines(&text).await?;
        let buffer = format!("habitat-{}-{:016x}", std::process::id(), rand::random::<u64>());
        let id = self.id.as_str();
        let invocation = crate::Invocation::new(Command::new("load-buffer").args(["-b", &buffer, "-"]))
            .then(Command::new("paste-buffer").args(["-p", "-r", "-d", "-b", &buffer, "-t", id]))
            .stdin(text.into_bytes());
        self.server.tmux(invocation).await.map(drop)
    }

    /// Refuses text with a line longer than a canonical-mode (cooked) terminal accepts, when the pane's
    /// terminal is in canonical mode. Shells with line editing (bash, zsh) are not in canonical mode.
    async fn refuse_overlong_canonical_lines(&self, text: &str) -> Result<()> {
        let longest = text.split('\n').map(str::len).max().unwrap_or(0);
        if longest <= CANONICAL_LINE_LIMIT {
            return Ok(());
        }
        let info = self.info().await?;
        if tty_is_canonical(&info.tty).await {
            return Err(Error::Refused {
                pane: self.id.to_string(),
                reason: format!(
                    "a line of {longest} bytes is longer than the {CANONICAL_LINE_LIMIT} bytes a canonical-mode \
                     terminal keeps; the program in the pane ({}) would silently lose the rest. Write the text \
                     to a file and pass its path instead",
                    info.current_command
                ),
            });
        }
        Ok(())
    }

    /// Resizes the pane's window.
    pub async fn resize(&self, width: u16, height: u16) -> Result<()> {
        let (width, height) = (width.to_string(), height.to_string());
        let command = Command::new("resize-window").args(["-t", self.id.as_str(), "-x", &width, "-y", &height]);
        self.server.tmux(command).await.map(drop)
    }

    /// The pane's window: its size, how many panes share it, and its own `window-size` option, read in one
    /// call. What [`Pane::restore_window_size`] puts back after a [`Pane::resize`] (which sets the window's
    /// `window-size` to `manual`, as tmux's `resize-window` does).
    pub async fn window_size(&self) -> Result<WindowSize> {
        let id = self.id.as_str();
        let invocation = crate::Invocation::new(Command::new("display-message").args([
            "-p",
            "-t",
            id,
            "#{window_width} #{window_height} #{window_panes}",
        ]))
        // Without -g or -A: the window's own value only, nothing when it inherits the session's.
        .then(Command::new("show-options").args(["-w", "-v", "-t", id, "window-size"]));
        let out = self.server.tmux(invocation).await.map_err(|e| self.gone_as_not_found(e))?;
        WindowSize::parse(&out).ok_or_else(|| {
            if out.trim().is_empty() {
                // tmux 3.3 answers a display-message for a missing target with nothing and exit status 0.
                self.not_found()
            } else {
                Error::Protocol { command: "display-message".into(), detail: format!("unexpected {out:?}") }
            }
        })
    }

    /// Puts the pane's window back to `saved`: its size, then its own `window-size` option (unset again when
    /// it had none, so a client that attaches later sizes the window as before).
    pub async fn restore_window_size(&self, saved: &WindowSize) -> Result<()> {
        let (id, width, height) = (self.id.as_str(), saved.width.to_string(), saved.height.to_string());
        let option = match &saved.option {
            Some(value) => Command::new("set-option").args(["-w", "-t", id, "window-size", value]),
            None => Command::new("set-option").args(["-w", "-u", "-t", id, "window-size"]),
        };
        let invocation = crate::Invocation::new(Command::new("resize-window").args([
            "-t",
            id,
            "-x",
            width.as_str(),
            "-y",
            height.as_str(),
        ]))
        .then(option);
        self.server.tmux(invocation).await.map(drop).map_err(|e| self.gone_as_not_found(e))
    }

    /// Wakes a detached full-screen program by resizing its window one row smaller and back (two SIGWINCHes),
    /// so it redraws.
    pub async fn wake(&self) -> Result<()> {
        let info = self.info().await?;
        self.resize(info.width, info.height.saturating_sub(1).max(2)).await?;
        self.resize(info.width, info.height).await
    }

    /// Kills the pane (and its window if it was the last pane).
    pub async fn kill(&self) -> Result<()> {
        self.typed_into();
        self.server.tmux(Command::new("kill-pane").args(["-t", self.id.as_str()])).await.map(drop)
    }

    /// Captures the visible screen until `done` accepts it, looking again with exponential backoff
    /// (10 ms doubling to 500 ms), and fails with the last screen when `timeout` passes. For programs that
    /// cannot signal; shells use [`Pane::wait_ready`] and [`Pane::run`], which wait on signals.
    pub async fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        mut done: impl FnMut(&str) -> bool,
    ) -> Result<String> {
        let mut backoff = Backoff::new(timeout);
        loop {
            let screen = self.capture_text().await?;
            if done(&screen) {
                return Ok(screen);
            }
            if !backoff.wait().await {
                return Err(Error::Timeout {
                    pane: self.id.to_string(),
                    what: what.to_owned(),
                    waited: timeout,
                    screen,
                });
            }
        }
    }

    /// Waits until the pane's shell proves it reads input. A fresh pane of the default shell does so by
    /// itself: its first prompt sets the pane title (seen on the output stream over control mode). Otherwise
    /// the shell runs a handshake line that prints a marker (seen on the output stream) or writes a unique
    /// token into a FIFO of ours (subprocess transport; the shell never needs to reach the tmux server, so a
    /// sandboxed shell works too). The line wipes itself and its marker from the screen, so a watcher sees
    /// just the prompt. Fails after `timeout` with the pane and what was on its screen.
    pub async fn wait_ready(&self, timeout: Duration) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        let stream = self.server.subscribe_output(&self.id).await?;
        let fresh = self.server.take_fresh_shell(&self.id);
        let Some(mut stream) = stream else {
            return self.ready_by_fifo(timeout).await;
        };
        if fresh {
            return self.ready_by_prompt(&mut stream, deadline, timeout).await;
        }
        let token = format!("{:016x}", rand::random::<u64>());
        let marker = format!("__HAB_R_{token}");
        // The cursor goes back to the prompt's row and clears it all, then the marker is printed concealed from
        // the first column and erased at once: the stream has seen it, and the screen is as it was before the line
        // was typed. Wiping first means that once the marker is seen, the screen no longer holds the typed line.
        // (Not by saving and restoring the cursor: bash's exit restores a saved cursor too.)
        let at = self.typed_at().await?;
        let marker_rows = (marker.len() - 1) / usize::from(at.width.max(1));
        let up = if marker_rows > 0 { format!("\\033[{marker_rows}A") } else { String::new() };
        let line = |wipe: &str| format!("printf '{wipe}\\033[8m%s%s\\r{up}\\033[J\\033[0m' __HAB_R_ {token}");
        // The line holds its own wipe, whose length depends on the rows the line takes: measure with a one-digit
        // row count, then build the line with the real one.
        let (_, rows) = at.fit(line(&at.wipe_all(9, 0)));
        let line = match rows {
            Some(rows) => at.fit(line(&at.wipe_all(rows, 0))).0,
            None => line(""),
        };
        self.type_line(&line).await?;
        match crate::stream::wait_for_marker(&mut stream, marker.as_bytes(), deadline).await {
            crate::stream::StreamWait::Found => Ok(()),
            crate::stream::StreamWait::Lost => {
                // The marker may have gone by unseen; a second handshake over a FIFO cannot be missed.
                self.server.continue_pane(&self.id).await;
                self.ready_by_fifo(deadline.saturating_duration_since(tokio::time::Instant::now())).await
            }
            crate::stream::StreamWait::TimedOut => Err(self.not_ready(timeout).await),
        }
    }

    /// The first prompt of a fresh default shell: its title on the stream, or already in the pane title (the
    /// stream is followed before the title is asked for, so a prompt in between is seen one way or the other).
    async fn ready_by_prompt(
        &self,
        stream: &mut tmux_control::OutputSubscription,
        deadline: tokio::time::Instant,
        timeout: Duration,
    ) -> Result<()> {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let title = crate::Invocation::new(Command::new("display-message").args([
            "-p",
            "-t",
            self.id.as_str(),
            "#{pane_title}",
        ]))
        .deadline(left);
        if crate::shell_prompt(self.server.tmux(title).await?.trim()).is_some() {
            return Ok(());
        }
        match crate::stream::wait_for_prompt_title(stream, deadline).await {
            crate::stream::StreamWait::Found => Ok(()),
            crate::stream::StreamWait::Lost => {
                // The title may have gone by unseen; a handshake over a FIFO cannot be missed.
                self.server.continue_pane(&self.id).await;
                self.ready_by_fifo(deadline.saturating_duration_since(tokio::time::Instant::now())).await
            }
            crate::stream::StreamWait::TimedOut => Err(self.not_ready(timeout).await),
        }
    }

    async fn not_ready(&self, timeout: Duration) -> Error {
        Error::Timeout {
            pane: self.id.to_string(),
            what: "the shell to become ready".into(),
            waited: timeout,
            screen: self.capture_text().await.unwrap_or_default(),
        }
    }

    /// The handshake over a FIFO: the shell writes a unique token into it with its printf builtin (no process,
    /// and no need to reach the tmux server), after wiping the typed line.
    async fn ready_by_fifo(&self, timeout: Duration) -> Result<()> {
        let token = format!("{:016x}", rand::random::<u64>());
        let mut signal = EndSignal::create(self.server.runtime_dir().join(format!("ready-{token}")))?;
        let fifo = crate::shell_quote(&signal.path().display().to_string());
        let at = self.typed_at().await?;
        let line = |wipe: &str| format!("printf '{wipe}'; printf '%s\\n' {token} 1<>{fifo}");
        let (_, rows) = at.fit(line(&at.wipe_all(9, 0)));
        let line = match rows {
            Some(rows) => at.fit(line(&at.wipe_all(rows, 0))).0,
            None => format!("printf '%s\\n' {token} 1<>{fifo}"),
        };
        self.type_line(&line).await?;
        self.wait_for_fifo(&mut signal, &token, timeout, "the shell to become ready").await
    }

    /// Where a line typed now would start, for wiping it afterwards.
    async fn typed_at(&self) -> Result<TypedAt> {
        let info = self.info().await?;
        Ok(TypedAt::of(&info))
    }

    /// Types `line` and Enter, in one call.
    /// Forgets that the pane is a fresh default shell: once anything is typed into it (or it is killed), its
    /// first prompt's title no longer says that it reads input now ([`Pane::wait_ready`]).
    pub(crate) fn typed_into(&self) {
        self.server.take_fresh_shell(&self.id);
    }

    async fn type_line(&self, line: &str) -> Result<()> {
        let id = self.id.as_str();
        let typed = crate::Invocation::new(Command::new("send-keys").args(["-t", id, "-l", line]))
            .then(Command::new("send-keys").args(["-t", id, "Enter"]));
        self.server.tmux(typed).await.map(drop)
    }

    /// The exit status of the pane's program once it has died (`None` while it runs, or if it cannot be
    /// known). tmux 3.3a sometimes marks a pane dead without ever reporting its status; for panes running the
    /// default shell the status its EXIT trap printed is read from the screen instead.
    pub async fn exit_status(&self) -> Result<Option<i32>> {
        let mut backoff =
            Backoff::with(Duration::from_millis(2), Duration::from_millis(50), Duration::from_millis(500));
        loop {
            let info = self.info().await?;
            if !info.dead {
                return Ok(None);
            }
            if info.dead_status.is_some() {
                return Ok(info.dead_status);
            }
            let screen = self.capture(CaptureOptions::visible().joined().scrollback(200)).await?;
            let printed = screen
                .lines()
                .rev()
                .find_map(|l| l.trim_end().strip_prefix(EXIT_MARKER).and_then(|code| code.parse().ok()));
            if printed.is_some() {
                return Ok(printed);
            }
            if !backoff.wait().await {
                return Ok(None);
            }
        }
    }

    pub(crate) async fn dead_status(&self) -> Option<i32> {
        self.exit_status().await.ok().flatten()
    }

    /// Blocks on a `wait-for` channel (a tmux client of its own, never a shared connection) until it is
    /// signalled, the pane dies, or `timeout` passes. Meanwhile it looks at the pane once a second: tmux
    /// 3.3a sometimes marks a pane dead without running its `pane-died` hook. (The waiting client is never
    /// replaced mid-wait: a signal that reaches a client being killed would be lost.)
    pub(crate) async fn wait_for_channel(&self, channel: &str, timeout: Duration, what: &str) -> Result<()> {
        let waiter = self.server.tmux(crate::Invocation::new(Command::new("wait-for").arg(channel)).deadline(timeout));
        tokio::select! {
            waited = waiter => match waited {
                Ok(_) => Ok(()),
                Err(Error::Deadline { .. }) => {
                    if self.info().await.is_ok_and(|info| info.dead) {
                        return Err(Error::PaneDead { pane: self.id.to_string(), status: self.dead_status().await });
                    }
                    let screen = self.capture_text().await.unwrap_or_default();
                    Err(Error::Timeout { pane: self.id.to_string(), what: what.to_owned(), waited: timeout, screen })
                }
                Err(e) => Err(e),
            },
            gone = self.death() => Err(gone),
        }
    }

    /// Waits until the shell writes `token` into `signal`'s FIFO, the pane dies, or `timeout` passes.
    async fn wait_for_fifo(&self, signal: &mut EndSignal, token: &str, timeout: Duration, what: &str) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        tokio::select! {
            seen = signal.wait(token, deadline) => match seen? {
                true => Ok(()),
                false => {
                    if self.info().await.is_ok_and(|info| info.dead) {
                        return Err(Error::PaneDead { pane: self.id.to_string(), status: self.dead_status().await });
                    }
                    let screen = self.capture_text().await.unwrap_or_default();
                    Err(Error::Timeout { pane: self.id.to_string(), what: what.to_owned(), waited: timeout, screen })
                }
            },
            gone = self.death() => Err(gone),
        }
    }

    /// Looks at the pane once a second until it is dead or gone (tmux 3.3a sometimes marks a pane dead without
    /// running its `pane-died` hook, so a wait cannot count on the hook alone).
    async fn death(&self) -> Error {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            match self.info().await {
                Ok(info) if info.dead => {
                    return Error::PaneDead { pane: self.id.to_string(), status: self.dead_status().await };
                }
                Err(gone @ Error::NotFound { .. }) => return gone,
                _ => {}
            }
        }
    }
}

/// Splits on UTF-8 character boundaries into pieces of at most `max` bytes.
pub(crate) fn chunks_on_char_boundaries(text: &str, max: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut rest = text;
    while rest.len() > max {
        let mut cut = max;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        chunks.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        chunks.push(rest);
    }
    chunks
}

/// Asks `stty` whether the terminal is in canonical mode. When it cannot tell, it says yes: refusing is safer
/// than truncating.
async fn tty_is_canonical(tty: &str) -> bool {
    let out = tokio::time::timeout(
        Duration::from_secs(2),
        tokio::process::Command::new("stty").arg("-F").arg(tty).arg("-a").kill_on_drop(true).output(),
    )
    .await;
    match out {
        Ok(Ok(out)) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            !text.split_whitespace().any(|w| w == "-icanon")
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_pane_info() {
        let info =
            PaneInfo::parse("%3\t200\t50\t1234\t1\t3\t0\t5\t0\t0\t12\t/dev/pts/4\tbash\t/home/ana\ttitle\twith tab\n")
                .unwrap();
        assert_eq!(info.id.as_str(), "%3");
        assert_eq!(info.current_path, "/home/ana");
        assert!(info.dead);
        assert_eq!(info.dead_status, Some(3));
        assert_eq!(info.title, "title\twith tab");
        assert_eq!(info.history_size, 12);
    }

    proptest! {
        #[test]
        fn chunks_rejoin_and_respect_the_limit(text in "\\PC{0,300}", max in 4usize..64) {
            let chunks = chunks_on_char_boundaries(&text, max);
            prop_assert!(chunks.iter().all(|c| c.len() <= max && !c.is_empty()));
            prop_assert!(chunks.concat() == text);
        }
    }
}
