//! One MCP connection's clive session: its panes by name, what runs in each, and their recordings.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use agent::GatedPane;
use router::safety::GatePolicy;
use tmux_habitat::{Pane, Server, Session};
use toolbox::{Launcher, READY_TIMEOUT};

use crate::error::ToolError;
use crate::job::Job;

/// The name of the session's first shell pane, where `run` goes by default.
pub const DEFAULT_PANE: &str = "shell";

/// How a [`Habitat`] opens and guards its panes.
#[derive(Debug, Clone)]
pub struct HabitatOptions {
    /// Opens panes: the directory, the never-hang environment, and the sandbox (a launcher without one runs
    /// the caller's commands unconfined).
    pub launcher: Launcher,
    /// The safety gate every command and typed text passes.
    pub gate: GatePolicy,
    /// Where the panes' recordings go (`<session>.cast` for the first pane, `<session>.<pane>.cast` for the
    /// others); `None` records nothing.
    pub recordings: Option<PathBuf>,
}

/// What occupies a pane.
#[derive(Debug, Clone)]
enum Occupant {
    /// Nothing has run yet.
    Free,
    /// A caller has claimed it and is about to type `command`.
    Claimed(String),
    /// A command was typed; it runs or has ended.
    Job(Arc<Job>),
}

/// One pane of the session.
#[derive(Debug)]
pub(crate) struct Slot {
    /// Its name in this session (the window name).
    pub name: String,
    /// The pane, typed into only through `gated` (text) or key presses.
    pub gated: GatedPane,
    occupant: Mutex<Occupant>,
    /// The screen as last read by the client, for `screen` with `since`.
    pub last_read: Mutex<Option<String>>,
}

/// Locks a mutex whose holder never panics while holding it (plain assignments); a poisoned one is used as is.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Slot {
    /// The pane.
    pub fn pane(&self) -> &Pane {
        self.gated.pane()
    }

    /// The command in flight or last run here.
    pub fn job(&self) -> Option<Arc<Job>> {
        match &*lock(&self.occupant) {
            Occupant::Job(job) => Some(Arc::clone(job)),
            _ => None,
        }
    }

    /// Claims the pane for `command`, unless something runs in it: then the error says what.
    pub fn claim(&self, command: &str) -> Result<(), ToolError> {
        let mut occupant = lock(&self.occupant);
        let busy = match &*occupant {
            Occupant::Free => None,
            Occupant::Claimed(other) => Some((other.clone(), 0)),
            Occupant::Job(job) if job.ended().is_some() => None,
            Occupant::Job(job) => Some((job.command.clone(), job.started.elapsed().as_secs())),
        };
        if let Some((command, seconds)) = busy {
            return Err(ToolError::Busy { pane: self.name.clone(), command, seconds });
        }
        *occupant = Occupant::Claimed(command.to_owned());
        Ok(())
    }

    /// Whether something runs (or is about to) in the pane.
    pub fn busy(&self) -> bool {
        match &*lock(&self.occupant) {
            Occupant::Free => false,
            Occupant::Claimed(_) => true,
            Occupant::Job(job) => job.ended().is_none(),
        }
    }

    /// The claimed pane now runs `job`.
    pub fn set_job(&self, job: Arc<Job>) {
        *lock(&self.occupant) = Occupant::Job(job);
    }

    /// Gives up a claim that typed nothing (the last job, if any, is forgotten: nothing runs).
    pub fn release(&self) {
        let mut occupant = lock(&self.occupant);
        if matches!(*occupant, Occupant::Claimed(_)) {
            *occupant = Occupant::Free;
        }
    }
}

/// One MCP connection's clive session and its panes.
pub struct Habitat {
    session: Session,
    options: HabitatOptions,
    /// The panes, oldest first.
    slots: Mutex<Vec<Arc<Slot>>>,
    /// Taken while a pane is chosen or opened, so two callers never open or claim the same one.
    opening: tokio::sync::Mutex<()>,
    recordings: tokio::sync::Mutex<Vec<clive_serve::Recording>>,
}

impl std::fmt::Debug for Habitat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Habitat").field("session", &self.session.name()).finish_non_exhaustive()
    }
}

impl Habitat {
    /// Creates the session `name` on `server`, its first pane the shell pane [`DEFAULT_PANE`], launched as
    /// `options.launcher` says, and waits until its shell reads input.
    pub async fn open(server: &Server, name: &str, options: HabitatOptions) -> Result<Habitat, ToolError> {
        let session_options = options.launcher.session(server, name, DEFAULT_PANE)?.window_name(DEFAULT_PANE);
        let session = server.new_session(session_options).await?;
        let habitat = Habitat {
            session,
            options,
            slots: Mutex::new(Vec::new()),
            opening: tokio::sync::Mutex::new(()),
            recordings: tokio::sync::Mutex::new(Vec::new()),
        };
        let first = habitat.session.first_pane().clone();
        first.wait_ready(READY_TIMEOUT).await?;
        habitat.record(&first, DEFAULT_PANE).await;
        habitat.adopt(DEFAULT_PANE, first);
        Ok(habitat)
    }

    /// The tmux session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The safety gate's policy.
    pub fn gate(&self) -> GatePolicy {
        self.options.gate
    }

    /// Whether the panes run in the sandbox.
    pub fn sandboxed(&self) -> bool {
        self.options.launcher.sandbox_in_use().is_some()
    }

    fn adopt(&self, name: &str, pane: Pane) -> Arc<Slot> {
        let slot = Arc::new(Slot {
            name: name.to_owned(),
            gated: GatedPane::new(pane, self.options.gate),
            occupant: Mutex::new(Occupant::Free),
            last_read: Mutex::new(None),
        });
        lock(&self.slots).push(Arc::clone(&slot));
        slot
    }

    /// Every pane, oldest first.
    pub(crate) fn slots(&self) -> Vec<Arc<Slot>> {
        lock(&self.slots).clone()
    }

    /// The pane named `name`.
    pub(crate) fn slot(&self, name: &str) -> Result<Arc<Slot>, ToolError> {
        let slots = lock(&self.slots);
        slots.iter().find(|s| s.name == name).cloned().ok_or_else(|| ToolError::NoSuchPane {
            pane: name.to_owned(),
            known: slots.iter().map(|s| format!("`{}`", s.name)).collect::<Vec<_>>().join(", "),
        })
    }

    /// A pane for `command`, claimed for it: `requested` (opened when new; an error when busy), or with no
    /// name, `fallback` when idle, else the first idle `fallback-N`, else a new one.
    pub(crate) async fn claim(
        &self,
        tool: &'static str,
        requested: Option<&str>,
        fallback: &str,
        command: &str,
    ) -> Result<Arc<Slot>, ToolError> {
        let _opening = self.opening.lock().await;
        let existing = self.slots();
        if let Some(name) = requested {
            validate_name(tool, name)?;
            let slot = match existing.iter().find(|s| s.name == name) {
                Some(slot) => Arc::clone(slot),
                None => self.open_pane(name).await?,
            };
            slot.claim(command)?;
            return Ok(slot);
        }
        let family = |s: &Slot| {
            s.name == fallback
                || s.name
                    .strip_prefix(fallback)
                    .and_then(|n| n.strip_prefix('-'))
                    .is_some_and(|n| n.parse::<u32>().is_ok())
        };
        for slot in existing.iter().filter(|s| family(s)) {
            if slot.claim(command).is_ok() {
                return Ok(Arc::clone(slot));
            }
        }
        let name = if existing.iter().any(|s| s.name == fallback) {
            let taken = |n: &usize| existing.iter().any(|s| s.name == format!("{fallback}-{n}"));
            format!("{fallback}-{}", (2..).find(|n| !taken(n)).unwrap_or(2))
        } else {
            fallback.to_owned()
        };
        let slot = self.open_pane(&name).await?;
        slot.claim(command)?;
        Ok(slot)
    }

    /// Opens the shell pane `name` as the launcher says (sandboxed unless turned off) and records it.
    async fn open_pane(&self, name: &str) -> Result<Arc<Slot>, ToolError> {
        let pane = self.options.launcher.open(&self.session, name).await?;
        self.record(&pane, name).await;
        Ok(self.adopt(name, pane))
    }

    /// Where the pane `name`'s recording goes, if panes are recorded.
    pub(crate) fn recording_path(&self, name: &str) -> Option<PathBuf> {
        let dir = self.options.recordings.as_ref()?;
        let session = self.session.name();
        Some(match name {
            DEFAULT_PANE => dir.join(format!("{session}.cast")),
            other => dir.join(format!("{session}.{other}.cast")),
        })
    }

    async fn record(&self, pane: &Pane, name: &str) {
        let Some(path) = self.recording_path(name) else { return };
        let title = format!("{} ({name})", self.session.name());
        let options = clive_serve::RecordOptions { title: Some(title), current_screen: true };
        match clive_serve::Recording::start(pane, &path, options).await {
            Ok(recording) => self.recordings.lock().await.push(recording),
            Err(e) => tracing::warn!(path = %path.display(), error = %e, "the pane is not recorded"),
        }
    }

    /// Ends the recordings (once what has arrived is written) and forgets the commands in flight (they keep
    /// running in their panes). The session itself is left for the caller to keep or kill.
    pub async fn close(&self) {
        lock(&self.slots).clear();
        let recordings = std::mem::take(&mut *self.recordings.lock().await);
        for recording in recordings {
            if let Err(e) = recording.stop().await {
                tracing::warn!(error = %e, "finishing a recording failed");
            }
        }
    }
}

/// Pane names become tmux window names: letters, digits, `_` and `-`, so tmux never reads them as targets.
fn validate_name(tool: &'static str, name: &str) -> Result<(), ToolError> {
    let fits = !name.is_empty()
        && name.len() <= 32
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.starts_with('-');
    if fits {
        Ok(())
    } else {
        Err(ToolError::bad(
            tool,
            format!("pane name {name:?} is not one of up to 32 letters, digits, `_` and `-` (e.g. `build`)"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_names_are_plain_words() {
        for good in ["shell", "build-2", "py_repl"] {
            assert!(validate_name("run", good).is_ok(), "{good}");
        }
        for bad in ["", "a:b", "a.b", "has space", "-x", "%3", &"x".repeat(33)] {
            let err = validate_name("run", bad).unwrap_err().to_string();
            assert!(err.contains("Nothing was typed"), "{err}");
        }
    }
}
