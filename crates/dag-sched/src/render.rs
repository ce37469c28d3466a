//! The plan as a picture: Graphviz DOT and Mermaid flowchart text.
//!
//! Subtasks are grouped by pane; an arrow goes from a dependency to the subtask that needs it.

use crate::validate::ValidatedPlan;

/// The longest description shown in a node label, in characters.
const LABEL_CHARS: usize = 48;

/// The plan as a Graphviz `digraph` (render with `dot -Tsvg`).
pub fn render_dot(plan: &ValidatedPlan) -> String {
    let mut out = String::from("digraph plan {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n");
    for (cluster, pane) in plan.panes().iter().enumerate() {
        out.push_str(&format!("  subgraph cluster_{cluster} {{\n    label={};\n", dot_quote(&format!("pane {pane}"))));
        for subtask in plan.subtasks().iter().filter(|s| &s.pane == pane) {
            let label = format!("{}\n{}", subtask.id, short(node_text(subtask)));
            out.push_str(&format!("    {} [label={}];\n", dot_quote(&subtask.id), dot_quote(&label)));
        }
        out.push_str("  }\n");
    }
    for (index, subtask) in plan.subtasks().iter().enumerate() {
        for dependency in plan.dependencies(index) {
            let from = &plan.subtasks()[dependency].id;
            out.push_str(&format!("  {} -> {};\n", dot_quote(from), dot_quote(&subtask.id)));
        }
    }
    out.push_str("}\n");
    out
}

/// The plan as a Mermaid `flowchart` (paste into Markdown inside a `mermaid` code block).
pub fn render_mermaid(plan: &ValidatedPlan) -> String {
    // Node ids are positions (`s0`, `s1`, …): plan ids may contain `-`, which Mermaid reads as
    // part of an arrow.
    let mut out = String::from("flowchart LR\n");
    for (cluster, pane) in plan.panes().iter().enumerate() {
        out.push_str(&format!("  subgraph pane{cluster}[\"pane {}\"]\n", mermaid_escape(pane)));
        for (index, subtask) in plan.subtasks().iter().enumerate().filter(|(_, s)| &s.pane == pane) {
            let label = format!("{}<br/>{}", subtask.id, short(node_text(subtask)));
            out.push_str(&format!("    s{index}[\"{}\"]\n", mermaid_escape(&label)));
        }
        out.push_str("  end\n");
    }
    for index in 0..plan.subtasks().len() {
        for dependency in plan.dependencies(index) {
            out.push_str(&format!("  s{dependency} --> s{index}\n"));
        }
    }
    out
}

/// The description, or the command when there is none.
fn node_text(subtask: &crate::Subtask) -> &str {
    if subtask.description.trim().is_empty() {
        subtask.command.as_deref().unwrap_or_default()
    } else {
        &subtask.description
    }
}

fn short(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= LABEL_CHARS {
        text.to_string()
    } else {
        let kept: String = text.chars().take(LABEL_CHARS - 1).collect();
        format!("{kept}…")
    }
}

fn dot_quote(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    format!("\"{escaped}\"")
}

/// Mermaid labels in `"…"` take HTML entities; quotes and angle brackets must be escaped
/// (except the `<br/>` line breaks we put in).
fn mermaid_escape(text: &str) -> String {
    text.replace('&', "#amp;")
        .replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
        .replace("#lt;br/#gt;", "<br/>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ValidatedPlan {
        ValidatedPlan::from_json(
            r#"{"version":1,"panes":["build","check"],"subtasks":[
              {"id":"fetch","pane":"build","command":"cargo fetch","description":"download \"crates\""},
              {"id":"build","pane":"build","command":"cargo build --release","depends_on":["fetch"]},
              {"id":"lint","pane":"check","command":"cargo clippy -- -D warnings","depends_on":["fetch"]},
              {"id":"test-all","pane":"check","command":"cargo test --workspace 2>&1 | tail -n 20 > a","depends_on":["build","lint"]}
            ]}"#,
        )
        .unwrap()
    }

    #[test]
    fn dot_snapshot() {
        insta::assert_snapshot!(render_dot(&sample()));
    }

    #[test]
    fn mermaid_snapshot() {
        insta::assert_snapshot!(render_mermaid(&sample()));
    }
}
