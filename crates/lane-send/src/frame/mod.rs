//! Recognises the input frame an agent draws around its input box, from a styled screen.
//!
//! Pure: a [`Screen`] goes in, a [`Recognition`] comes out. The knowledge of each agent
//! lives in data tables (`specs/*.yaml`, see [`spec`]); this module only knows three layouts
//! (rules, box, block) and how to read input rows without ghost text.

mod input;
mod menu;
pub mod spec;

use serde::Serialize;

use crate::Agent;
use crate::error::Error;
use spec::{AgentSpec, Layout, VariantSpec};
use tmux_habitat::Screen;

pub use input::RowText;
pub use menu::{Choice, Menu, read_menu};

/// How far above the box to look for busy and queue markers.
const MARKER_ROWS_ABOVE: usize = 10;
/// The most input rows a box may hold before the match is refused as implausible.
const MAX_INPUT_ROWS: usize = 40;
/// How many rows at the bottom of the screen are searched for dialog text.
const DIALOG_ROWS: usize = 25;

/// A recognised input box and what is in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputBox {
    /// Which agent drew it.
    pub agent: Agent,
    /// Which variant of that agent's frame (e.g. `claude-2`).
    pub variant: String,
    /// Version of the agent's table that matched.
    pub table_version: u32,
    /// First and last input row (0-based screen rows).
    pub rows: (usize, usize),
    /// Real input: prompt, ghost text and placeholders removed; rows joined with `\n`.
    pub text: String,
    /// Text that was dropped as ghost (dim or grey).
    pub ghost: String,
    /// The placeholder shown, when the box holds only a placeholder.
    pub placeholder: Option<String>,
    /// Collapsed paste tokens found in the real input.
    pub paste_tokens: Vec<String>,
    /// The agent shows a busy marker near the box.
    pub busy: bool,
    /// The agent shows its queue marker near the box.
    pub queue_marker: bool,
}

impl InputBox {
    /// True when the box holds no real input (ghost text and placeholders do not count).
    pub fn is_empty(&self) -> bool {
        self.text.trim_matches(|c: char| c.is_whitespace()).is_empty()
    }
}

/// What the screen shows where an input box would be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Recognition {
    /// A known input box.
    Input(InputBox),
    /// A known box in a mode that must not be typed into (shell mode, memory mode …).
    Refused {
        /// Which agent.
        agent: Agent,
        /// Which variant.
        variant: String,
        /// Why typing is refused.
        reason: String,
    },
    /// A dialog (permission prompt, menu, trust prompt) instead of the box: Enter would answer it.
    Dialog {
        /// The agent whose dialog text matched, when known.
        agent: Option<Agent>,
        /// The screen row that matched.
        line: String,
    },
    /// No known frame.
    Unknown {
        /// What was looked for and why nothing matched.
        reason: String,
    },
}

impl Recognition {
    /// The agent, when one was recognised.
    pub fn agent(&self) -> Option<Agent> {
        match self {
            Recognition::Input(input) => Some(input.agent),
            Recognition::Refused { agent, .. } => Some(*agent),
            Recognition::Dialog { agent, .. } => *agent,
            Recognition::Unknown { .. } => None,
        }
    }

    /// The input box, when one was recognised.
    pub fn input(&self) -> Option<&InputBox> {
        match self {
            Recognition::Input(input) => Some(input),
            _ => None,
        }
    }

    /// A one-line description for logs and held reasons.
    pub fn describe(&self) -> String {
        match self {
            Recognition::Input(input) => format!("{} box", input.variant),
            Recognition::Refused { reason, .. } => reason.clone(),
            Recognition::Dialog { line, .. } => format!("a dialog is open instead of the input box: {:?}", line.trim()),
            Recognition::Unknown { reason } => reason.clone(),
        }
    }
}

/// One input row: screen row, first column, end column (exclusive).
type InputRow = (usize, usize, usize);

/// Input rows plus, when the prompt is a refused form, why typing is refused.
type InnerRows = (Vec<InputRow>, Option<String>);

/// Where a variant matched, before its content is read.
struct Candidate<'a> {
    spec: &'a AgentSpec,
    variant: &'a VariantSpec,
    /// Top-most row of the frame (rule, border or prompt row).
    top: usize,
    /// Last row of the frame (bottom rule, border or last input row).
    bottom: usize,
    /// Input rows: (row, first column, end column exclusive), first one is the prompt row.
    input_rows: Vec<InputRow>,
    refusal: Option<String>,
}

/// Recognises the input frame on `screen` with the built-in tables.
pub fn recognise(screen: &Screen) -> Result<Recognition, Error> {
    Ok(recognise_with(screen, spec::builtin_specs()?))
}

/// Recognises the input frame on `screen` with the given tables.
pub fn recognise_with(screen: &Screen, specs: &[AgentSpec]) -> Recognition {
    let rows: Vec<RowText> = (0..screen.height()).map(|row| RowText::new(screen.row(row))).collect();
    let mut matches: Vec<Candidate<'_>> = Vec::new();
    let mut rejections: Vec<String> = Vec::new();
    for spec in specs {
        for variant in &spec.variants {
            match find_candidate(&rows, spec, variant) {
                Ok(Some(candidate)) => matches.push(candidate),
                Ok(None) => {}
                Err(why) => rejections.push(format!("{}: {why}", variant.name)),
            }
        }
    }
    // The live box is the lowest frame on screen; anything above it is history.
    let lowest = matches.iter().map(|candidate| candidate.bottom).max();
    let best: Vec<Candidate<'_>> = match lowest {
        Some(bottom) => matches.into_iter().filter(|candidate| candidate.bottom == bottom).collect(),
        None => Vec::new(),
    };
    let mut best = best.into_iter();
    let Some(chosen) = best.next() else {
        return no_frame(&rows, specs, &rejections);
    };
    if let Some(other) = best.find(|other| other.spec.agent != chosen.spec.agent) {
        return Recognition::Unknown {
            reason: format!(
                "ambiguous frame: both {} and {} match the same rows",
                chosen.variant.name, other.variant.name
            ),
        };
    }
    if let Some(reason) = chosen.refusal.clone() {
        return Recognition::Refused { agent: chosen.spec.agent, variant: chosen.variant.name.clone(), reason };
    }
    Recognition::Input(read_box(screen, &rows, &chosen))
}

fn no_frame(rows: &[RowText], specs: &[AgentSpec], rejections: &[String]) -> Recognition {
    let start = rows.len().saturating_sub(DIALOG_ROWS);
    for row in rows[start..].iter().rev() {
        for spec in specs {
            if spec.dialogs.iter().any(|dialog| dialog.is_match(&row.text)) {
                return Recognition::Dialog { agent: Some(spec.agent), line: row.text.clone() };
            }
        }
    }
    let mut reason = "no known input frame on screen".to_string();
    if !rejections.is_empty() {
        reason.push_str(" (");
        reason.push_str(&rejections.join("; "));
        reason.push(')');
    }
    Recognition::Unknown { reason }
}

fn is_blank(row: &RowText) -> bool {
    row.text.trim_matches(|c: char| c.is_whitespace()).is_empty()
}

/// Checks the rows below a frame: the first non-blank one (within two rows) must be a footer.
fn check_footer(rows: &[RowText], after: usize, variant: &VariantSpec) -> Result<(), String> {
    let next = (after + 1..rows.len().min(after + 4)).find(|&row| !is_blank(&rows[row]));
    match next {
        None if variant.footer_optional => Ok(()),
        None => Err("no footer below the box".to_string()),
        Some(row) if variant.footer.iter().any(|footer| footer.is_match(&rows[row].text)) => Ok(()),
        Some(row) => Err(format!("row {row} below the box is not a known footer: {:?}", rows[row].text.trim())),
    }
}

fn prompt_or_refusal(variant: &VariantSpec, text: &str) -> Option<(usize, Option<String>)> {
    if let Some(found) = variant.prompt.find(text) {
        return Some((found.end(), None));
    }
    variant
        .refuse
        .iter()
        .find_map(|refusal| refusal.prompt.find(text).map(|found| (found.end(), Some(refusal.reason.clone()))))
}

fn find_candidate<'a>(
    rows: &[RowText],
    spec: &'a AgentSpec,
    variant: &'a VariantSpec,
) -> Result<Option<Candidate<'a>>, String> {
    match variant.layout {
        Layout::Rules => find_rules(rows, spec, variant),
        Layout::Box => find_box(rows, spec, variant),
        Layout::Block => find_block(rows, spec, variant),
    }
}

/// Reads the input rows strictly between `top` and `bottom`, each narrowed by `inner`.
fn collect_inner_rows(
    rows: &[RowText],
    variant: &VariantSpec,
    top: usize,
    bottom: usize,
    inner: impl Fn(&RowText) -> Option<(usize, usize)>,
) -> Result<InnerRows, String> {
    let mut input_rows = Vec::new();
    let mut refusal = None;
    for (row, line) in rows.iter().enumerate().take(bottom).skip(top + 1) {
        let (start, end) = inner(line).ok_or_else(|| format!("row {row} is not inside the frame"))?;
        let content = line.slice_text(start, end);
        if row == top + 1 {
            let (prompt_end, refused) = prompt_or_refusal(variant, &content)
                .ok_or_else(|| format!("row {row} does not start with the prompt: {:?}", content.trim_end()))?;
            refusal = refused;
            input_rows.push((row, line.cell_at_byte_in(start, prompt_end), end));
        } else if content.trim_end_matches([' ', '\u{a0}']).is_empty() {
            input_rows.push((row, start, start));
        } else {
            let found = variant
                .continuation
                .find(&content)
                .ok_or_else(|| format!("row {row} is not a continuation row: {:?}", content.trim_end()))?;
            input_rows.push((row, line.cell_at_byte_in(start, found.end()), end));
        }
    }
    Ok((input_rows, refusal))
}

fn find_rules<'a>(
    rows: &[RowText],
    spec: &'a AgentSpec,
    variant: &'a VariantSpec,
) -> Result<Option<Candidate<'a>>, String> {
    let (Some(top_rule), Some(bottom_rule)) = (&variant.top, &variant.bottom) else {
        return Ok(None);
    };
    for bottom in (1..rows.len()).rev() {
        if !bottom_rule.is_match(&rows[bottom].text) {
            continue;
        }
        let lowest_top = bottom.saturating_sub(MAX_INPUT_ROWS + 1);
        let Some(top) = (lowest_top..bottom).rev().find(|&row| top_rule.is_match(&rows[row].text)) else {
            continue;
        };
        if top + 1 == bottom {
            // Two rules with nothing between: look further up for the real pair.
            continue;
        }
        let (input_rows, refusal) = collect_inner_rows(rows, variant, top, bottom, |row| Some((0, row.cells_len())))?;
        check_footer(rows, bottom, variant)?;
        return Ok(Some(Candidate { spec, variant, top, bottom, input_rows, refusal }));
    }
    Ok(None)
}

fn box_edges(row: &RowText, indent: usize, left: &str, right: &str) -> bool {
    let last = row.cells_len().saturating_sub(1);
    last > indent + 1
        && (0..indent).all(|col| row.cell_text(col) == " ")
        && row.cell_text(indent) == left
        && row.cell_text(last) == right
        && (indent + 1..last).all(|col| row.cell_text(col) == "─")
}

fn leading_spaces(row: &RowText) -> usize {
    row.text.chars().take_while(|c| *c == ' ').count()
}

fn find_box<'a>(
    rows: &[RowText],
    spec: &'a AgentSpec,
    variant: &'a VariantSpec,
) -> Result<Option<Candidate<'a>>, String> {
    let Some(bottom) = (1..rows.len()).rev().find(|&row| box_edges(&rows[row], leading_spaces(&rows[row]), "╰", "╯"))
    else {
        return Ok(None);
    };
    let indent = leading_spaces(&rows[bottom]);
    let width = rows[bottom].cells_len();
    let lowest_top = bottom.saturating_sub(MAX_INPUT_ROWS + 1);
    let Some(top) = (lowest_top..bottom).rev().find(|&row| box_edges(&rows[row], indent, "╭", "╮")) else {
        return Err(format!("box bottom at row {bottom} has no top border"));
    };
    if top + 1 == bottom {
        return Err(format!("box at rows {top}..{bottom} has no rows"));
    }
    let (input_rows, refusal) = collect_inner_rows(rows, variant, top, bottom, |row| {
        let bordered = row.cells_len() == width && row.cell_text(indent) == "│" && row.cell_text(width - 1) == "│";
        bordered.then_some((indent + 1, width - 1))
    })?;
    check_footer(rows, bottom, variant)?;
    Ok(Some(Candidate { spec, variant, top, bottom, input_rows, refusal }))
}

fn find_block<'a>(
    rows: &[RowText],
    spec: &'a AgentSpec,
    variant: &'a VariantSpec,
) -> Result<Option<Candidate<'a>>, String> {
    let Some((top, (prompt_end, refusal))) =
        (0..rows.len()).rev().find_map(|row| prompt_or_refusal(variant, &rows[row].text).map(|found| (row, found)))
    else {
        return Ok(None);
    };
    let mut input_rows = vec![(top, rows[top].cell_at_byte_in(0, prompt_end), rows[top].cells_len())];
    let mut bottom = top;
    for (row, line) in rows.iter().enumerate().skip(top + 1) {
        let text = &line.text;
        if is_blank(line) || variant.footer.iter().any(|footer| footer.is_match(text)) {
            break;
        }
        let Some(found) = variant.continuation.find(text) else {
            return Err(format!("row {row} below the prompt is neither input nor footer: {:?}", text.trim()));
        };
        input_rows.push((row, line.cell_at_byte_in(0, found.end()), line.cells_len()));
        bottom = row;
        if input_rows.len() > MAX_INPUT_ROWS {
            return Err("too many input rows".to_string());
        }
    }
    check_footer(rows, bottom, variant)?;
    Ok(Some(Candidate { spec, variant, top, bottom, input_rows, refusal }))
}

fn read_box(screen: &Screen, rows: &[RowText], candidate: &Candidate<'_>) -> InputBox {
    let variant = candidate.variant;
    let mut lines = Vec::new();
    let mut ghost = String::new();
    for &(row, start, end) in &candidate.input_rows {
        let split = input::split_ghost(screen.row(row), start, end, &variant.ghost_fg);
        lines.push(split.real);
        ghost.push_str(split.ghost.trim());
    }
    while lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    if let Some(first) = lines.first_mut() {
        *first = first.trim_start_matches([' ', '\u{a0}']).to_string();
    }
    let mut text = lines.join("\n");
    let mut placeholder = None;
    if variant.placeholders.iter().any(|pattern| pattern.is_match(text.trim())) {
        placeholder = Some(text.trim().to_string());
        text.clear();
    }
    let paste_tokens = variant
        .paste_tokens
        .iter()
        .flat_map(|pattern| pattern.find_iter(&text).map(|found| found.as_str().to_string()))
        .collect();
    let (first_input, last_input) = (
        candidate.input_rows.first().map_or(candidate.top, |row| row.0),
        candidate.input_rows.last().map_or(candidate.bottom, |row| row.0),
    );
    let marker_rows: Vec<&RowText> = (candidate.top.saturating_sub(MARKER_ROWS_ABOVE)..rows.len())
        .filter(|row| *row < first_input || *row > last_input)
        .map(|row| &rows[row])
        .collect();
    let any_marker = |patterns: &[regex::Regex], include_box: bool| {
        marker_rows.iter().any(|row| patterns.iter().any(|pattern| pattern.is_match(&row.text)))
            || (include_box
                && rows[first_input..=last_input].iter().any(|row| patterns.iter().any(|p| p.is_match(&row.text))))
    };
    InputBox {
        agent: candidate.spec.agent,
        variant: variant.name.clone(),
        table_version: candidate.spec.version,
        rows: (first_input, last_input),
        busy: any_marker(&variant.busy_markers, false),
        queue_marker: any_marker(&variant.queue_markers, placeholder.is_some() || text.is_empty()),
        text,
        ghost,
        placeholder,
        paste_tokens,
    }
}
