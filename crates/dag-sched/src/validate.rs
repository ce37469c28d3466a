//! Validation: a parsed [`Plan`] becomes a [`ValidatedPlan`], a DAG the executor can run.

use std::collections::{HashMap, HashSet};

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::error::{DagError, PlanProblem};
use crate::plan::{Mode, Plan, Subtask};

/// A plan whose ids are unique and well formed, whose dependencies and panes exist and whose
/// dependencies form no cycle.
#[derive(Debug, Clone)]
pub struct ValidatedPlan {
    plan: Plan,
    /// Node `i` is subtask `i`; an edge `a -> b` means `b` depends on `a`.
    graph: DiGraph<usize, ()>,
    index_of: HashMap<String, usize>,
}

impl ValidatedPlan {
    /// Validates `plan`, reporting every problem at once ([`DagError::InvalidPlan`]).
    pub fn new(plan: Plan) -> Result<ValidatedPlan, DagError> {
        let mut problems = Vec::new();
        if plan.subtasks.is_empty() {
            problems.push(PlanProblem::NoSubtasks);
        }
        let mut index_of: HashMap<String, usize> = HashMap::new();
        for (index, subtask) in plan.subtasks.iter().enumerate() {
            check_subtask(index, subtask, &plan, &mut problems);
            if let Some(&first) = index_of.get(&subtask.id) {
                problems.push(PlanProblem::DuplicateId { id: subtask.id.clone(), first, second: index });
            } else {
                index_of.insert(subtask.id.clone(), index);
            }
        }
        if let Some(declared) = &plan.panes {
            for pane in declared.iter().filter(|p| !is_valid_name(p)) {
                problems.push(PlanProblem::MalformedPaneName { subtask: String::new(), pane: pane.clone() });
            }
        }

        let mut graph = DiGraph::with_capacity(plan.subtasks.len(), plan.subtasks.len());
        for index in 0..plan.subtasks.len() {
            graph.add_node(index);
        }
        for (index, subtask) in plan.subtasks.iter().enumerate() {
            let mut seen = HashSet::new();
            for dependency in &subtask.depends_on {
                if !seen.insert(dependency) {
                    problems.push(PlanProblem::RepeatedDependency {
                        subtask: subtask.id.clone(),
                        dependency: dependency.clone(),
                    });
                    continue;
                }
                match index_of.get(dependency) {
                    Some(&from) => {
                        graph.add_edge(NodeIndex::new(from), NodeIndex::new(index), ());
                    }
                    None => problems.push(PlanProblem::UnknownDependency {
                        subtask: subtask.id.clone(),
                        dependency: dependency.clone(),
                    }),
                }
            }
        }
        for cycle in find_cycles(&graph) {
            let ids = cycle.iter().map(|&i| plan.subtasks[i].id.clone()).collect();
            problems.push(PlanProblem::Cycle { ids });
        }

        if problems.is_empty() {
            Ok(ValidatedPlan { plan, graph, index_of })
        } else {
            Err(DagError::InvalidPlan { problems })
        }
    }

    /// Parses and validates a JSON plan.
    pub fn from_json(text: &str) -> Result<ValidatedPlan, DagError> {
        ValidatedPlan::new(Plan::from_json(text)?)
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The subtasks, in plan order.
    pub fn subtasks(&self) -> &[Subtask] {
        &self.plan.subtasks
    }

    /// The position of the subtask with `id`.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index_of.get(id).copied()
    }

    /// Positions of the subtasks that subtask `index` depends on.
    pub fn dependencies(&self, index: usize) -> Vec<usize> {
        self.neighbors(index, Direction::Incoming)
    }

    /// Positions of the subtasks that depend on subtask `index`.
    pub fn dependents(&self, index: usize) -> Vec<usize> {
        self.neighbors(index, Direction::Outgoing)
    }

    fn neighbors(&self, index: usize, direction: Direction) -> Vec<usize> {
        let mut found: Vec<usize> =
            self.graph.neighbors_directed(NodeIndex::new(index), direction).map(|n| n.index()).collect();
        found.sort_unstable();
        found
    }

    /// The pane names in the order they first appear (declared ones first).
    pub fn panes(&self) -> Vec<String> {
        let mut panes: Vec<String> = Vec::new();
        let declared = self.plan.panes.iter().flatten();
        for pane in declared.chain(self.plan.subtasks.iter().map(|s| &s.pane)) {
            if !panes.contains(pane) {
                panes.push(pane.clone());
            }
        }
        panes
    }

    /// The modes the plan uses, each with the subtasks using it.
    pub fn modes(&self) -> Vec<(Mode, Vec<String>)> {
        let mut modes: Vec<(Mode, Vec<String>)> = Vec::new();
        for subtask in &self.plan.subtasks {
            match modes.iter_mut().find(|(m, _)| *m == subtask.mode) {
                Some((_, ids)) => ids.push(subtask.id.clone()),
                None => modes.push((subtask.mode, vec![subtask.id.clone()])),
            }
        }
        modes
    }
}

fn check_subtask(index: usize, subtask: &Subtask, plan: &Plan, problems: &mut Vec<PlanProblem>) {
    if !is_valid_name(&subtask.id) {
        problems.push(PlanProblem::MalformedId { index, id: subtask.id.clone() });
    }
    if !is_valid_name(&subtask.pane) {
        problems.push(PlanProblem::MalformedPaneName { subtask: subtask.id.clone(), pane: subtask.pane.clone() });
    } else if let Some(declared) = &plan.panes
        && !declared.contains(&subtask.pane)
    {
        problems.push(PlanProblem::UnknownPane {
            subtask: subtask.id.clone(),
            pane: subtask.pane.clone(),
            declared: declared.clone(),
        });
    }
    if subtask.mode == Mode::Direct && subtask.command.as_deref().is_none_or(|c| c.trim().is_empty()) {
        problems.push(PlanProblem::MissingCommand { subtask: subtask.id.clone() });
    }
    match (&subtask.host, subtask.mode) {
        (Some(host), Mode::Remote) if is_host_name(host) => {}
        (host, Mode::Remote) => problems.push(PlanProblem::BadHost { subtask: subtask.id.clone(), host: host.clone() }),
        (Some(_), mode) => problems.push(PlanProblem::HostWithoutRemote { subtask: subtask.id.clone(), mode }),
        (None, _) => {}
    }
    if subtask.mode.needs_goal() && subtask.description.trim().is_empty() {
        problems.push(PlanProblem::MissingGoal { subtask: subtask.id.clone(), mode: subtask.mode });
    }
    if let Some(timeout) = subtask.timeout
        && subtask.timeout().is_none()
    {
        problems.push(PlanProblem::BadTimeout { subtask: subtask.id.clone(), timeout });
    }
}

/// An SSH host name or alias: letters, digits, `.`, `_`, `-`, starting and ending with a letter or digit, at most
/// 253 characters (never an option: it cannot start with `-`).
pub fn is_host_name(host: &str) -> bool {
    let bytes = host.as_bytes();
    host.len() <= 253
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(b))
}

/// Ids and pane names: 1-64 of `[A-Za-z0-9_-]`, starting with a letter or digit. They become
/// directory names in the run directory and tmux window names, so nothing else is allowed.
pub fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 64
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One simple cycle per strongly connected component that has one, as node positions in
/// dependency order, starting from the lowest position.
fn find_cycles(graph: &DiGraph<usize, ()>) -> Vec<Vec<usize>> {
    let mut cycles = Vec::new();
    for component in petgraph::algo::tarjan_scc(graph) {
        let is_cycle = component.len() > 1 || component.iter().any(|&n| graph.contains_edge(n, n));
        if !is_cycle {
            continue;
        }
        let members: HashSet<NodeIndex> = component.iter().copied().collect();
        let Some(&start) = component.iter().min_by_key(|n| n.index()) else { continue };
        if let Some(path) = path_back_to(graph, start, &members) {
            cycles.push(path.into_iter().map(|n| n.index()).collect());
        }
    }
    cycles.sort();
    cycles
}

/// A path `start -> … -> start` inside `members` (depth-first, lowest positions first).
fn path_back_to(graph: &DiGraph<usize, ()>, start: NodeIndex, members: &HashSet<NodeIndex>) -> Option<Vec<NodeIndex>> {
    let successors = |n: NodeIndex| {
        let mut next: Vec<NodeIndex> = graph.neighbors(n).filter(|m| members.contains(m)).collect();
        next.sort_by_key(|m| m.index());
        next
    };
    let mut path = vec![start];
    let mut stack = vec![successors(start).into_iter()];
    let mut visited: HashSet<NodeIndex> = HashSet::from([start]);
    while let Some(options) = stack.last_mut() {
        match options.next() {
            Some(next) if next == start => return Some(path),
            Some(next) if visited.insert(next) => {
                path.push(next);
                stack.push(successors(next).into_iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
                path.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(json: &str) -> Vec<PlanProblem> {
        match ValidatedPlan::from_json(json) {
            Err(DagError::InvalidPlan { problems }) => problems,
            other => panic!("expected problems, got {other:?}"),
        }
    }

    #[test]
    fn valid_plan_exposes_graph() {
        let plan = ValidatedPlan::from_json(
            r#"{"version":1,"subtasks":[
                {"id":"a","pane":"p","command":"true"},
                {"id":"b","pane":"q","command":"true","depends_on":["a"]},
                {"id":"c","pane":"p","command":"true","depends_on":["a","b"]}]}"#,
        )
        .unwrap();
        assert_eq!(plan.dependencies(2), [0, 1]);
        assert_eq!(plan.dependents(0), [1, 2]);
        assert_eq!(plan.panes(), ["p", "q"]);
        assert_eq!(plan.index_of("c"), Some(2));
    }

    #[test]
    fn cycles_name_their_ids_in_order() {
        let found = problems(
            r#"{"version":1,"subtasks":[
                {"id":"a","pane":"p","command":"x","depends_on":["c"]},
                {"id":"b","pane":"p","command":"x","depends_on":["a"]},
                {"id":"c","pane":"p","command":"x","depends_on":["b"]},
                {"id":"d","pane":"p","command":"x","depends_on":["d"]}]}"#,
        );
        assert_eq!(
            found,
            [
                PlanProblem::Cycle { ids: vec!["a".into(), "b".into(), "c".into()] },
                PlanProblem::Cycle { ids: vec!["d".into()] },
            ]
        );
        assert_eq!(
            found[0].to_string(),
            "the dependencies form a cycle: `a` -> `b` -> `c` -> `a` (each must run after the one before it); \
             remove one of these dependencies"
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let found = problems(
            r#"{"version":1,"panes":["main"],"subtasks":[
                {"id":"a b","pane":"main","command":"x"},
                {"id":"a","pane":"side","command":"x","depends_on":["nope","nope"]},
                {"id":"a","pane":"main"},
                {"id":"t","pane":"main","command":"x","timeout":0}]}"#,
        );
        assert_eq!(
            found,
            [
                PlanProblem::MalformedId { index: 0, id: "a b".into() },
                PlanProblem::UnknownPane { subtask: "a".into(), pane: "side".into(), declared: vec!["main".into()] },
                PlanProblem::MissingCommand { subtask: "a".into() },
                PlanProblem::DuplicateId { id: "a".into(), first: 1, second: 2 },
                PlanProblem::BadTimeout { subtask: "t".into(), timeout: 0.0 },
                PlanProblem::UnknownDependency { subtask: "a".into(), dependency: "nope".into() },
                PlanProblem::RepeatedDependency { subtask: "a".into(), dependency: "nope".into() },
            ]
        );
    }

    #[test]
    fn model_modes_need_a_goal() {
        let found = problems(
            r#"{"version":1,"subtasks":[
                {"id":"s","pane":"p","mode":"script"},
                {"id":"i","pane":"p","mode":"interactive","description":"  "},
                {"id":"a","pane":"p","mode":"answer","description":"what is 2+2"}]}"#,
        );
        assert_eq!(
            found,
            [
                PlanProblem::MissingGoal { subtask: "s".into(), mode: Mode::Script },
                PlanProblem::MissingGoal { subtask: "i".into(), mode: Mode::Interactive },
            ]
        );
        assert!(found[0].to_string().contains("no `description`"), "{}", found[0]);
    }

    #[test]
    fn remote_subtasks_need_a_host_name_and_only_they_have_one() {
        let found = problems(
            r#"{"subtasks":[
                {"id":"a","pane":"p","mode":"remote","description":"x"},
                {"id":"b","pane":"p","mode":"remote","description":"x","host":"-oProxyCommand=x"},
                {"id":"c","pane":"p","command":"ls","host":"gpu"},
                {"id":"d","pane":"q","mode":"remote","description":"x","host":"gpu.example.com"}]}"#,
        );
        assert_eq!(
            found,
            vec![
                PlanProblem::BadHost { subtask: "a".into(), host: None },
                PlanProblem::BadHost { subtask: "b".into(), host: Some("-oProxyCommand=x".into()) },
                PlanProblem::HostWithoutRemote { subtask: "c".into(), mode: Mode::Direct },
            ]
        );
        assert!(found[1].to_string().contains("not a host name"), "{}", found[1]);
    }

    #[test]
    fn empty_plan_is_a_problem() {
        assert_eq!(problems(r#"{"version":1,"subtasks":[]}"#), [PlanProblem::NoSubtasks]);
    }

    #[test]
    fn undeclared_panes_are_fine_without_a_declaration() {
        assert!(
            ValidatedPlan::from_json(r#"{"version":1,"subtasks":[{"id":"a","pane":"anything","command":"x"}]}"#)
                .is_ok()
        );
    }
}
