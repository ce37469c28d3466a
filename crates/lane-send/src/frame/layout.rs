//! Finding an input box by its structure (rules, border or block), and reading what is in it.

use super::input::{self, RowText};
use super::spec::{AgentSpec, Layout, VariantSpec};
use super::{InputBox, NOTICE_ROWS, ROWS_ABOVE};
use tmux_habitat::Screen;

/// The most input rows a box may hold before the match is refused as implausible.
const MAX_INPUT_ROWS: usize = 40;

/// One input row: screen row, first column, end column (exclusive).
type InputRow = (usize, usize, usize);

/// Input rows plus, when the prompt is a refused form, why typing is refused.
type InnerRows = (Vec<InputRow>, Option<String>);

/// Where a variant matched, before its content is read.
pub(super) struct Candidate<'a> {
    pub(super) spec: &'a AgentSpec,
    pub(super) variant: &'a VariantSpec,
    /// Top-most row of the frame (rule, border or prompt row).
    pub(super) top: usize,
    /// Last row of the frame (bottom rule, border or last input row).
    pub(super) bottom: usize,
    /// Input rows: (row, first column, end column exclusive), first one is the prompt row.
    input_rows: Vec<InputRow>,
    pub(super) refusal: Option<String>,
    /// A row the variant names as its footer is right below the frame.
    pub(super) footer_known: bool,
    /// Non-blank rows right below the frame that the variant does not name.
    notices: Vec<String>,
    /// The box is taller than the screen: its top border and first rows are above it.
    clipped: bool,
}

/// Looks for `variant`'s box: `Ok(None)` when its structure is nowhere, `Err` with the element that failed
/// when the structure is there but wrong.
pub(super) fn find<'a>(
    rows: &[RowText],
    cursor: (usize, usize),
    spec: &'a AgentSpec,
    variant: &'a VariantSpec,
) -> Result<Option<Candidate<'a>>, String> {
    let found = match variant.layout {
        Layout::Rules => find_rules(rows, variant)?,
        Layout::Box => find_box(rows, variant)?,
        Layout::Block => find_block(rows, variant)?,
    };
    let Some(Frame { top, mut bottom, mut input_rows, refusal, clipped }) = found else { return Ok(None) };
    // A block's input ends at a blank row, but a blank row with the cursor on it is an empty input line (a
    // newline just typed): it belongs to the box.
    if variant.layout == Layout::Block && cursor.0 == bottom + 1 && rows.get(bottom + 1).is_some_and(is_blank) {
        bottom += 1;
        input_rows.push((bottom, 0, 0));
    }
    let (footer_known, notices) = below(rows, bottom, variant);
    if clipped && !footer_known {
        return Err(format!(
            "a box reaches above the screen to its bottom border at row {bottom}, with no known footer"
        ));
    }
    if variant.layout == Layout::Block && !footer_known {
        // Without glyphs a prompt row alone could be history; the footer or the cursor proves it is live.
        let (cursor_row, _) = cursor;
        if !(top..=bottom).contains(&cursor_row) {
            return Err(format!(
                "prompt row {top} has neither a known footer below it nor the cursor on it{}",
                notices.first().map(|row| format!(" (below it: {row:?})")).unwrap_or_default()
            ));
        }
    }
    Ok(Some(Candidate { spec, variant, top, bottom, input_rows, refusal, footer_known, notices, clipped }))
}

fn is_blank(row: &RowText) -> bool {
    row.text.trim_matches(|c: char| c.is_whitespace()).is_empty()
}

/// The rows right below a frame: whether one is a known footer, and the others that are not blank.
fn below(rows: &[RowText], bottom: usize, variant: &VariantSpec) -> (bool, Vec<String>) {
    let mut known = false;
    let mut notices = Vec::new();
    for row in rows.iter().skip(bottom + 1).take(NOTICE_ROWS).filter(|row| !is_blank(row)) {
        if variant.footer.iter().any(|footer| footer.is_match(&row.text)) {
            known = true;
        } else {
            notices.push(row.text.trim().to_string());
        }
    }
    (known, notices)
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

/// A frame's rows, before its content is read.
struct Frame {
    top: usize,
    bottom: usize,
    input_rows: Vec<InputRow>,
    refusal: Option<String>,
    clipped: bool,
}

type Found = Option<Frame>;

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

fn find_rules(rows: &[RowText], variant: &VariantSpec) -> Result<Found, String> {
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
        return Ok(Some(Frame { top, bottom, input_rows, refusal, clipped: false }));
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

fn find_box(rows: &[RowText], variant: &VariantSpec) -> Result<Found, String> {
    let Some(bottom) = (1..rows.len()).rev().find(|&row| box_edges(&rows[row], leading_spaces(&rows[row]), "╰", "╯"))
    else {
        return Ok(None);
    };
    let indent = leading_spaces(&rows[bottom]);
    // The right border is wherever the row ends, if anywhere: an agent that misjudges the width of a TAB or
    // a wide character (Grok's Ink box) pushes it right on that row, or off the screen. The borders above
    // and below and the prompt are proof enough.
    let inner = |row: &RowText| {
        let last = row.cells_len().checked_sub(1)?;
        if row.cell_text(indent) != "│" || (0..indent).any(|col| row.cell_text(col) != " ") {
            return None;
        }
        let end = if last > indent && row.cell_text(last) == "│" { last } else { last + 1 };
        Some((indent + 1, end))
    };
    let lowest_top = bottom.saturating_sub(MAX_INPUT_ROWS + 1);
    let Some(top) = (lowest_top..bottom).rev().find(|&row| box_edges(&rows[row], indent, "╭", "╮")) else {
        // A box taller than the screen (Grok's Ink box grows with a long multi-line paste): bordered rows
        // up to the top of the screen. Its prompt is out of sight; a known footer must prove it, and only an
        // agent known to draw such boxes is considered.
        if variant.opaque_multiline && bottom > 0 && (0..bottom).all(|row| inner(&rows[row]).is_some()) {
            let input_rows =
                (0..bottom).filter_map(|row| inner(&rows[row]).map(|(start, end)| (row, start, end))).collect();
            return Ok(Some(Frame { top: 0, bottom, input_rows, refusal: None, clipped: true }));
        }
        return Err(format!("box bottom at row {bottom} has no top border"));
    };
    if top + 1 == bottom {
        return Err(format!("box at rows {top}..{bottom} has no rows"));
    }
    let (input_rows, refusal) = collect_inner_rows(rows, variant, top, bottom, inner)?;
    Ok(Some(Frame { top, bottom, input_rows, refusal, clipped: false }))
}

fn find_block(rows: &[RowText], variant: &VariantSpec) -> Result<Found, String> {
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
        // Anything else ends the input too; the footer or the cursor has to prove the box, and overlays and
        // dialogs below it are looked for afterwards.
        let Some(found) = variant.continuation.find(text) else { break };
        input_rows.push((row, line.cell_at_byte_in(0, found.end()), line.cells_len()));
        bottom = row;
        if input_rows.len() > MAX_INPUT_ROWS {
            return Err(format!("prompt row {top} is followed by more than {MAX_INPUT_ROWS} input rows"));
        }
    }
    Ok(Some(Frame { top, bottom, input_rows, refusal, clipped: false }))
}

/// Reads the box's content: real input, ghost text, placeholder, paste tokens, markers around it.
pub(super) fn read_box(
    screen: &Screen,
    rows: &[RowText],
    cursor: (usize, usize),
    candidate: &Candidate<'_>,
) -> InputBox {
    let variant = candidate.variant;
    let mut lines = Vec::new();
    let mut ghost = String::new();
    for &(row, start, end) in &candidate.input_rows {
        let split = input::split_ghost(screen.row(row), start, end, &variant.ghost_fg);
        match &variant.inline_separator {
            Some(separator) => lines.extend(separator.split(&split.real).map(str::to_string)),
            None => lines.push(split.real),
        }
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
    let marker_rows: Vec<&RowText> = (candidate.top.saturating_sub(ROWS_ABOVE)..rows.len())
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
        submit_pending: any_marker(&variant.pending_markers, false),
        queue_marker: any_marker(&variant.queue_markers, placeholder.is_some() || text.is_empty()),
        text,
        ghost,
        placeholder,
        paste_tokens,
        notices: candidate.notices.clone(),
        clipped: candidate.clipped,
        cursor: (first_input..=last_input).contains(&cursor.0).then_some(cursor),
    }
}
