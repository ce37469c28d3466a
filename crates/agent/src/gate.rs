//! The typing path: every command, script and text a model writes passes the safety gate here, before a byte
//! reaches the pane. Runners hold a [`GatedPane`], never a bare pane to type into, so the gate cannot be skipped
//! by accident.

use std::path::{Component, Path, PathBuf};

use router::RouterError;
use router::safety::{self, GateDecision, GatePolicy};
use tmux_habitat::{Key, Pane, RunningCommand};

use crate::action::KeyInput;

/// Why nothing was typed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TypeError {
    /// The safety gate refused the text; nothing was typed.
    #[error("refused by the safety gate: {reasons}")]
    Refused {
        /// The gate's reasons, one line.
        reasons: String,
        /// The gate's error.
        #[source]
        source: Box<RouterError>,
    },
    /// The command would remove the directory the pane works in (or one above it); nothing was typed.
    #[error("refused: {reasons}")]
    Endangers {
        /// What it would remove, in words.
        reasons: String,
    },
    /// tmux failed.
    #[error(transparent)]
    Pane(#[from] tmux_habitat::Error),
}

impl TypeError {
    /// Why nothing was typed, when the text was refused (by the gate or the workplace guard).
    pub fn refusal(&self) -> Option<&str> {
        match self {
            TypeError::Refused { reasons, .. } | TypeError::Endangers { reasons } => Some(reasons),
            TypeError::Pane(_) => None,
        }
    }
}

/// The directory a recursive `rm` in `command` would remove that holds `cwd` (the working directory itself, or a
/// directory above it), if any. The router's gate knows fixed dangerous paths; this knows where the pane works.
pub fn endangered_workplace(command: &str, cwd: &Path) -> Option<PathBuf> {
    use router::shell_syntax::{parse, program_name, strip_prefixes};
    let line = parse(command);
    for simple in line.commands() {
        let (words, _) = strip_prefixes(&simple.words);
        let Some((program, args)) = words.split_first() else { continue };
        if program_name(&program.text) != "rm" {
            continue;
        }
        let flag = |text: &str| text.starts_with('-') && text != "-";
        let recursive = args.iter().any(|a| {
            a.text == "--recursive" || (flag(&a.text) && !a.text.starts_with("--") && a.text.contains(['r', 'R']))
        });
        if !recursive {
            continue;
        }
        for target in args.iter().filter(|a| !flag(&a.text)) {
            let removed = lexical(&cwd.join(&target.text));
            if !removed.as_os_str().is_empty() && lexical(cwd).starts_with(&removed) {
                return Some(removed);
            }
        }
    }
    None
}

/// `path` with `.` and `..` resolved by name (no file system look-ups).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A pane that model-written text reaches only through the safety gate.
#[derive(Debug, Clone)]
pub struct GatedPane {
    pane: Pane,
    policy: GatePolicy,
}

impl GatedPane {
    /// Guards `pane` with `policy`.
    pub fn new(pane: Pane, policy: GatePolicy) -> GatedPane {
        GatedPane { pane, policy }
    }

    /// The pane, for looking at it (captures, info). Type through [`GatedPane::start`] and [`GatedPane::send`].
    pub fn pane(&self) -> &Pane {
        &self.pane
    }

    /// Checks `text` with the gate, as a command line.
    pub fn check(&self, text: &str) -> Result<(), TypeError> {
        match safety::check(text, self.policy) {
            Ok(GateDecision::Clear) => Ok(()),
            Ok(GateDecision::Overridden(findings)) => {
                for finding in findings {
                    tracing::warn!(%finding, "destructive command typed because destructive commands are allowed");
                }
                Ok(())
            }
            Err(source) => {
                let reasons = match &source {
                    RouterError::Refused { findings, .. } => {
                        findings.iter().map(|f| f.hazard.reason()).collect::<Vec<_>>().join("; ")
                    }
                    other => other.to_string(),
                };
                Err(TypeError::Refused { reasons, source: Box::new(source) })
            }
        }
    }

    /// Gates `command` and, if it passes, types it into the shell and returns the running command.
    pub async fn start(&self, command: &str) -> Result<RunningCommand, TypeError> {
        self.check(command)?;
        self.guard_workplace(command).await?;
        Ok(self.pane.start(command).await?)
    }

    /// Refuses a recursive `rm` of the pane's own directory or one above it (see [`endangered_workplace`]).
    async fn guard_workplace(&self, command: &str) -> Result<(), TypeError> {
        if self.policy.allow_destructive || !command.contains("rm") {
            return Ok(());
        }
        let cwd = self.pane.info().await?.current_path;
        self.guard_workplace_in(command, &cwd)
    }

    /// [`GatedPane::guard_workplace`] for a pane known to work in `cwd` (empty: unknown, nothing refused).
    pub(crate) fn guard_workplace_in(&self, text: &str, cwd: &str) -> Result<(), TypeError> {
        if self.policy.allow_destructive || cwd.is_empty() {
            return Ok(());
        }
        match endangered_workplace(text, Path::new(cwd)) {
            Some(removed) => Err(TypeError::Endangers {
                reasons: format!("it removes `{}`, the directory this pane works in", removed.display()),
            }),
            None => Ok(()),
        }
    }

    /// Gates the literal text among `keys` and, if all of it passes, presses the keys in order.
    pub async fn send(&self, keys: &[KeyInput]) -> Result<(), TypeError> {
        for key in keys {
            if let KeyInput::Text(text) = key {
                self.check(text)?;
                self.guard_workplace(text).await?;
            }
        }
        // Runs of named keys go in one call; text goes literally.
        let mut named: Vec<Key> = Vec::new();
        for key in keys {
            match key {
                KeyInput::Key(key) => named.push(key.clone()),
                KeyInput::Text(text) => {
                    self.pane.send_keys(&std::mem::take(&mut named)).await?;
                    self.pane.send_text(text).await?;
                }
            }
        }
        self.pane.send_keys(&named).await?;
        Ok(())
    }

    /// Presses C-c until the shell reads input again; says how that went.
    pub async fn interrupt(&self) -> String {
        dag_sched::interrupt(&self.pane).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_the_working_directory_or_above_is_endangering() {
        let cwd = Path::new("/tmp/run/work");
        let hit = |command: &str| endangered_workplace(command, cwd);
        assert_eq!(hit("rm -rf /tmp/run/work"), Some(PathBuf::from("/tmp/run/work")));
        assert_eq!(hit("rm -r ."), Some(PathBuf::from("/tmp/run/work")));
        assert_eq!(hit("cd x && sudo rm -fr ../"), Some(PathBuf::from("/tmp/run")));
        assert_eq!(hit("rm --recursive /tmp"), Some(PathBuf::from("/tmp")));
        assert_eq!(hit("rm -rf build ./out /tmp/run/work/cache"), None);
        assert_eq!(hit("rm -f ."), None, "not recursive");
        assert_eq!(hit("rm -rf *"), None, "the contents, not the directory");
        assert_eq!(hit("echo rm -rf ."), None);
    }
}
