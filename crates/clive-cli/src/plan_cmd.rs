//! `clive plan show`'s graph formats; `clive plan run|check` load and run plan files with the engine
//! ([`clive_core::plan_run`]).

use dag_sched::ValidatedPlan;

/// The plan rendered as Graphviz `dot` or Mermaid.
pub fn render(plan: &ValidatedPlan, format: PlanFormat) -> String {
    match format {
        PlanFormat::Dot => dag_sched::render_dot(plan),
        PlanFormat::Mermaid => dag_sched::render_mermaid(plan),
    }
}

/// Output formats of `clive plan show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// Graphviz dot.
    Dot,
    /// Mermaid flowchart.
    Mermaid,
}
