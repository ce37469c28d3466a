//! The data side of the recogniser: one YAML table per agent (`specs/*.yaml`), compiled once.
//!
//! A new frame variant is a data change: add a variant to the agent's table, bump its
//! `version`, and add a fixture plus snapshot.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;
use tmux_habitat::Key;

use crate::Agent;
use crate::error::{Error, FrameSpecProblem};

/// The embedded tables, one per agent.
const SPEC_SOURCES: [(&str, &str); 5] = [
    ("claude.yaml", include_str!("specs/claude.yaml")),
    ("codex.yaml", include_str!("specs/codex.yaml")),
    ("gemini.yaml", include_str!("specs/gemini.yaml")),
    ("grok.yaml", include_str!("specs/grok.yaml")),
    ("qwen.yaml", include_str!("specs/qwen.yaml")),
];

/// How the input box is delimited on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Input rows between a top and a bottom full-width rule row.
    Rules,
    /// A rounded box `╭─╮ │ … │ ╰─╯`; input is inside the vertical borders.
    Box,
    /// No glyphs: a prompt row plus continuation rows, proven by a known footer row beneath or by the
    /// terminal cursor on one of its rows.
    Block,
}

/// Where an overlay's rows are looked for, relative to the input box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The rows just above the box.
    Above,
    /// The rows below the box.
    Below,
    /// Anywhere near the box; or, with no box on screen, anywhere in the screen's lower part.
    Anywhere,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRefusal {
    prompt: String,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOverlay {
    name: String,
    pattern: String,
    place: Place,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRewrite {
    from: String,
    to: String,
    note: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    name: String,
    layout: Layout,
    #[serde(default)]
    top: Option<String>,
    #[serde(default)]
    bottom: Option<String>,
    prompt: String,
    continuation: String,
    #[serde(default)]
    refuse: Vec<RawRefusal>,
    #[serde(default)]
    inline_separator: Option<String>,
    #[serde(default)]
    opaque_multiline: bool,
    footer: Vec<String>,
    #[serde(default)]
    placeholders: Vec<String>,
    #[serde(default)]
    ghost_fg: Vec<u8>,
    #[serde(default)]
    queue_markers: Vec<String>,
    #[serde(default)]
    busy_markers: Vec<String>,
    #[serde(default)]
    pending_markers: Vec<String>,
    #[serde(default)]
    paste_tokens: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgentSpec {
    agent: Agent,
    version: u32,
    settle_ms: u64,
    enter_retry_ms: u64,
    clear_line: Vec<String>,
    join_line: Vec<String>,
    variants: Vec<RawVariant>,
    #[serde(default)]
    dialogs: Vec<String>,
    #[serde(default)]
    overlays: Vec<RawOverlay>,
    #[serde(default)]
    rewrites: Vec<RawRewrite>,
}

/// A prompt form that is recognised but must not be typed into (shell mode, memory mode …).
#[derive(Debug)]
pub struct Refusal {
    /// Matches the first input row.
    pub prompt: Regex,
    /// Why typing is refused, for the held outcome.
    pub reason: String,
}

/// A menu, help panel or other screen of the agent's own that opens over or beside the box: while it is
/// open, keys go to it, not to the box.
#[derive(Debug)]
pub struct Overlay {
    /// What it is, for the held reason (`slash-command menu`, `help screen` …).
    pub name: String,
    /// Matches one of its rows.
    pub pattern: Regex,
    /// Where its rows are, relative to the box.
    pub place: Place,
}

/// A change the agent itself makes to pasted text (Claude Code turns a TAB into spaces): verification allows
/// exactly this change, and the outcome says it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// The text the agent replaces.
    pub from: String,
    /// What it shows and submits instead.
    pub to: String,
    /// Says what happened, for the outcome.
    pub note: String,
}

/// One compiled frame variant.
#[derive(Debug)]
pub struct VariantSpec {
    /// Variant name, e.g. `claude-2`.
    pub name: String,
    /// How the box is delimited.
    pub layout: Layout,
    /// Top rule (layout `rules`).
    pub top: Option<Regex>,
    /// Bottom rule (layout `rules`).
    pub bottom: Option<Regex>,
    /// Matches the start of the first input row; the match is the prompt, stripped from input.
    pub prompt: Regex,
    /// Matches the start of a continuation row; stripped from input.
    pub continuation: Regex,
    /// Recognised but refused prompt forms.
    pub refuse: Vec<Refusal>,
    /// Marks where one line of a multi-line input ends inside a single screen row (Grok's Ink box shows a
    /// multi-line paste side by side, `line one│ line two`).
    pub inline_separator: Option<Regex>,
    /// The box draws multi-line input unreadably (Grok's Ink box lays the lines out as narrow columns and
    /// grows past the screen): after lane-send pasted a multi-line message into the empty box it holds the
    /// lock of, any text in the box is taken for that message, as a collapsed paste token is.
    pub opaque_multiline: bool,
    /// Rows the agent draws below the box. A block box is proven by one of them (or by the cursor); below a
    /// box with rules or borders, rows that match none are reported as notices, not refused.
    pub footer: Vec<Regex>,
    /// Whole-input patterns that are placeholders, not input.
    pub placeholders: Vec<Regex>,
    /// Palette colours that mark ghost text even without dim.
    pub ghost_fg: Vec<u8>,
    /// Rows near the box that show the agent's queue.
    pub queue_markers: Vec<Regex>,
    /// Rows near the box that show the agent working.
    pub busy_markers: Vec<Regex>,
    /// Rows near the box that show Enter was taken and the submit waits on the agent (Codex's `Waiting for
    /// startup` while its tools start): keys pressed then edit the held text.
    pub pending_markers: Vec<Regex>,
    /// Collapsed-paste tokens that count as real input.
    pub paste_tokens: Vec<Regex>,
}

/// One agent's compiled table.
#[derive(Debug)]
pub struct AgentSpec {
    /// Which agent.
    pub agent: Agent,
    /// Table version, reported with every recognition.
    pub version: u32,
    /// Protocol delay between paste and Enter (not synchronisation: agents read an Enter that
    /// follows a paste too closely as a newline).
    pub settle_ms: u64,
    /// Minimum time between two Enter presses while our text stays in the box.
    pub enter_retry_ms: u64,
    /// The keys that delete the line the cursor is on, from the cursor to its start (checked when the table
    /// loads). Clearing presses End, then these; while text is left, [`join_line`](Self::join_line) and these
    /// again, reading the box after each round and pressing each key on its own after a redraw.
    pub clear_line: Vec<Key>,
    /// The keys that join an emptied line with the one above it, the cursor ending there.
    pub join_line: Vec<Key>,
    /// Frame variants, tried in order.
    pub variants: Vec<VariantSpec>,
    /// Screen text that means a dialog replaced the box.
    pub dialogs: Vec<Regex>,
    /// Menus and panels that open over or beside the box.
    pub overlays: Vec<Overlay>,
    /// Changes the agent makes to pasted text.
    pub rewrites: Vec<Rewrite>,
}

fn invalid(file: &str, problem: FrameSpecProblem) -> Error {
    Error::FrameSpec { file: file.to_string(), problem: Box::new(problem) }
}

fn compile(file: &str, pattern: &str) -> Result<Regex, Error> {
    Regex::new(pattern)
        .map_err(|source| invalid(file, FrameSpecProblem::Pattern { pattern: pattern.to_string(), source }))
}

fn compile_all(file: &str, patterns: &[String]) -> Result<Vec<Regex>, Error> {
    patterns.iter().map(|pattern| compile(file, pattern)).collect()
}

fn compile_variant(file: &str, raw: &RawVariant) -> Result<VariantSpec, Error> {
    let optional = |pattern: &Option<String>| pattern.as_deref().map(|p| compile(file, p)).transpose();
    if raw.layout == Layout::Rules && (raw.top.is_none() || raw.bottom.is_none()) {
        return Err(invalid(file, FrameSpecProblem::RulesWithoutPatterns { variant: raw.name.clone() }));
    }
    Ok(VariantSpec {
        name: raw.name.clone(),
        layout: raw.layout,
        top: optional(&raw.top)?,
        bottom: optional(&raw.bottom)?,
        prompt: compile(file, &raw.prompt)?,
        continuation: compile(file, &raw.continuation)?,
        refuse: raw
            .refuse
            .iter()
            .map(|refusal| Ok(Refusal { prompt: compile(file, &refusal.prompt)?, reason: refusal.reason.clone() }))
            .collect::<Result<_, Error>>()?,
        inline_separator: optional(&raw.inline_separator)?,
        opaque_multiline: raw.opaque_multiline,
        footer: compile_all(file, &raw.footer)?,
        placeholders: compile_all(file, &raw.placeholders)?,
        ghost_fg: raw.ghost_fg.clone(),
        queue_markers: compile_all(file, &raw.queue_markers)?,
        busy_markers: compile_all(file, &raw.busy_markers)?,
        pending_markers: compile_all(file, &raw.pending_markers)?,
        paste_tokens: compile_all(file, &raw.paste_tokens)?,
    })
}

/// Parses and compiles one agent table.
pub fn parse_spec(file: &str, source: &str) -> Result<AgentSpec, Error> {
    let raw: RawAgentSpec = serde_saphyr::from_str(source).map_err(|source| invalid(file, source.into()))?;
    let keys = |names: &[String]| {
        names
            .iter()
            .map(|key| Key::parse(key).ok_or_else(|| invalid(file, FrameSpecProblem::UnknownKey { key: key.clone() })))
            .collect::<Result<Vec<Key>, _>>()
    };
    Ok(AgentSpec {
        agent: raw.agent,
        version: raw.version,
        settle_ms: raw.settle_ms,
        enter_retry_ms: raw.enter_retry_ms,
        clear_line: keys(&raw.clear_line)?,
        join_line: keys(&raw.join_line)?,
        variants: raw.variants.iter().map(|variant| compile_variant(file, variant)).collect::<Result<_, _>>()?,
        dialogs: compile_all(file, &raw.dialogs)?,
        overlays: raw
            .overlays
            .iter()
            .map(|overlay| {
                Ok(Overlay {
                    name: overlay.name.clone(),
                    pattern: compile(file, &overlay.pattern)?,
                    place: overlay.place,
                })
            })
            .collect::<Result<_, Error>>()?,
        rewrites: raw
            .rewrites
            .iter()
            .map(|rewrite| Rewrite { from: rewrite.from.clone(), to: rewrite.to.clone(), note: rewrite.note.clone() })
            .collect(),
    })
}

/// All embedded agent tables, compiled on first use. (A table that fails fails on every call, with its
/// own error: the tables are constants, and a test proves they compile.)
pub fn builtin_specs() -> Result<&'static [AgentSpec], Error> {
    static SPECS: OnceLock<Vec<AgentSpec>> = OnceLock::new();
    if let Some(specs) = SPECS.get() {
        return Ok(specs);
    }
    let specs = SPEC_SOURCES.iter().map(|(file, source)| parse_spec(file, source)).collect::<Result<Vec<_>, _>>()?;
    Ok(SPECS.get_or_init(|| specs))
}

/// The embedded table of one agent.
pub fn spec_for(agent: Agent) -> Result<&'static AgentSpec, Error> {
    builtin_specs()?
        .iter()
        .find(|spec| spec.agent == agent)
        .ok_or_else(|| invalid(&format!("{agent}.yaml"), FrameSpecProblem::Missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_table_parses_and_compiles() {
        let specs = builtin_specs().unwrap();
        assert_eq!(specs.len(), 5);
        for spec in specs {
            assert!(!spec.variants.is_empty(), "{} has no variants", spec.agent);
            assert!(spec.settle_ms >= 50, "{} settle too short for paste protection", spec.agent);
        }
    }

    #[test]
    fn a_bad_pattern_names_the_file_and_pattern() {
        let source = "agent: claude\nversion: 1\nsettle_ms: 100\nenter_retry_ms: 100\nclear_line: []\njoin_line: []\nvariants:\n  - {name: x, layout: block, prompt: '(', continuation: '^', footer: []}\n";
        let error = parse_spec("broken.yaml", source).unwrap_err();
        assert!(
            matches!(&error, Error::FrameSpec { problem, .. } if matches!(**problem, FrameSpecProblem::Pattern { .. })),
            "{error:?}"
        );
        let text = error.to_string();
        assert!(text.contains("broken.yaml") && text.contains("\"(\""), "{text}");
    }

    #[test]
    fn a_misspelled_clear_key_is_refused_at_load() {
        let source = "agent: claude\nversion: 1\nsettle_ms: 100\nenter_retry_ms: 100\nclear_line: [C-u]\njoin_line: [Bspace]\nvariants: []\n";
        let error = parse_spec("typo.yaml", source).unwrap_err();
        assert!(
            matches!(&error, Error::FrameSpec { problem, .. } if matches!(&**problem, FrameSpecProblem::UnknownKey { key } if key == "Bspace")),
            "{error:?}"
        );
    }
}
