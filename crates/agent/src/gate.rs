//! The typing path: every command, script and text a model writes passes the safety gate here, before a byte
//! reaches the pane. Runners hold a [`GatedPane`], never a bare pane to type into, so the gate cannot be skipped
//! by accident.

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
        source: RouterError,
    },
    /// tmux failed.
    #[error(transparent)]
    Pane(#[from] tmux_habitat::Error),
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
                Err(TypeError::Refused { reasons, source })
            }
        }
    }

    /// Gates `command` and, if it passes, types it into the shell and returns the running command.
    pub async fn start(&self, command: &str) -> Result<RunningCommand, TypeError> {
        self.check(command)?;
        Ok(self.pane.start(command).await?)
    }

    /// Gates the literal text among `keys` and, if all of it passes, presses the keys in order.
    pub async fn send(&self, keys: &[KeyInput]) -> Result<(), TypeError> {
        for key in keys {
            if let KeyInput::Text(text) = key {
                self.check(text)?;
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
