//! Saved frames: a pane's screen kept as a file, so a layout met in live use becomes a test fixture.
//!
//! A saved frame is two files with one stem: `NAME.ansi`, exactly what `tmux capture-pane -p -e` printed,
//! and `NAME.json`, the [`FrameMeta`] a capture does not carry (size, cursor, who saved it, and what the
//! recogniser said then). `lane-send frames capture LANE` writes them; the crate's frame tests load every
//! pair under `tests/frames/` and snapshot what the recogniser says now.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tmux_habitat::Screen;

use super::{Recognition, spec};
use crate::error::Error;

/// What a saved frame's `.json` file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameMeta {
    /// The pane's width in cells.
    pub width: u16,
    /// The pane's height in rows.
    pub height: u16,
    /// The terminal cursor, `[x, y]`.
    pub cursor: (u16, u16),
    /// What saved it, e.g. `lane-send 0.1.0`.
    pub saved_by: String,
    /// The frame tables' versions when it was saved, by agent.
    pub tables: BTreeMap<String, u32>,
    /// What the recogniser said when it was saved (its kind and reasons), for the report.
    pub recognition: serde_json::Value,
    /// A note from whoever saved it (what the pane was doing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A saved screen: the capture and its meta.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedFrame {
    /// What `capture-pane -p -e` printed.
    pub ansi: String,
    /// Size, cursor and the rest.
    pub meta: FrameMeta,
}

fn io(action: &'static str, path: &Path, source: std::io::Error) -> Error {
    Error::Io { action, path: path.to_path_buf(), source }
}

impl SavedFrame {
    /// A frame from a capture (`capture-pane -p -e` output) of a pane `width`×`height` with the cursor at
    /// `cursor` (`(x, y)`), with what the recogniser says about it now.
    pub fn new(ansi: String, width: u16, height: u16, cursor: (u16, u16)) -> Result<Self, Error> {
        let mut frame = SavedFrame {
            ansi,
            meta: FrameMeta {
                width,
                height,
                cursor,
                saved_by: format!("lane-send {}", env!("CARGO_PKG_VERSION")),
                tables: spec::builtin_specs()?.iter().map(|spec| (spec.agent.to_string(), spec.version)).collect(),
                recognition: serde_json::Value::Null,
                note: None,
            },
        };
        let recognition = super::recognise(&frame.screen())?;
        frame.meta.recognition =
            serde_json::to_value(&recognition).map_err(|source| Error::Encode { what: "recognition", source })?;
        Ok(frame)
    }

    /// The screen, as the recogniser reads it.
    pub fn screen(&self) -> Screen {
        Screen::from_ansi(&self.ansi, self.meta.width).with_cursor(self.meta.cursor.0, self.meta.cursor.1)
    }

    /// What the recogniser says about it now (with the built-in tables).
    pub fn recognise(&self) -> Result<Recognition, Error> {
        super::recognise(&self.screen())
    }

    /// Loads `STEM.ansi` and `STEM.json` (give either file, or the stem).
    pub fn load(path: &Path) -> Result<Self, Error> {
        let ansi_path = path.with_extension("ansi");
        let meta_path = path.with_extension("json");
        let ansi = std::fs::read_to_string(&ansi_path).map_err(|source| io("read", &ansi_path, source))?;
        let meta = std::fs::read_to_string(&meta_path).map_err(|source| io("read", &meta_path, source))?;
        let meta = serde_json::from_str(&meta).map_err(|source| Error::Decode { path: meta_path, source })?;
        Ok(SavedFrame { ansi, meta })
    }

    /// Writes `DIR/STEM.ansi` and `DIR/STEM.json`; returns the `.ansi` path.
    pub fn save(&self, dir: &Path, stem: &str) -> Result<PathBuf, Error> {
        std::fs::create_dir_all(dir).map_err(|source| io("create", dir, source))?;
        let ansi_path = dir.join(format!("{stem}.ansi"));
        let meta_path = dir.join(format!("{stem}.json"));
        let meta =
            serde_json::to_string_pretty(&self.meta).map_err(|source| Error::Encode { what: "frame meta", source })?;
        std::fs::write(&ansi_path, &self.ansi).map_err(|source| io("write", &ansi_path, source))?;
        std::fs::write(&meta_path, meta + "\n").map_err(|source| io("write", &meta_path, source))?;
        Ok(ansi_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_frame_round_trips_with_its_cursor() {
        let ansi = "\u{1b}[38;5;244m────────────────────\n\u{1b}[39m❯\u{a0}hi\n\u{1b}[38;5;244m────────────────────\n";
        let frame = SavedFrame::new(ansi.to_string(), 20, 3, (4, 1)).unwrap();
        assert_eq!(frame.meta.recognition["kind"], "input");
        let dir = tempfile::tempdir().unwrap();
        let path = frame.save(dir.path(), "claude-test").unwrap();
        let loaded = SavedFrame::load(&path).unwrap();
        assert_eq!(loaded, frame);
        let input = loaded.recognise().unwrap().input().cloned().unwrap();
        assert_eq!((input.text.as_str(), input.cursor), ("hi", Some((1, 4))));
    }
}
