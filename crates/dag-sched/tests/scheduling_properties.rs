//! Property test of the scheduler on random DAGs, with the recording runner (no tmux).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use dag_sched::{Executor, Mode, Plan, RecordingRunner, RunOptions, Subtask, SubtaskStatus, ValidatedPlan};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Node {
    pane: usize,
    deps: Vec<usize>,
    fails: bool,
    delay_ms: u64,
}

fn dag() -> impl Strategy<Value = (Vec<Node>, Vec<usize>)> {
    (1usize..18).prop_flat_map(|n| {
        let nodes = (0..n)
            .map(|i| {
                (0usize..4, prop::collection::vec(0..i.max(1), 0..=i.min(3)), prop::bool::weighted(0.15), 0u64..3)
                    .prop_map(move |(pane, deps, fails, delay_ms)| {
                        let mut deps: Vec<usize> = deps.into_iter().filter(|&d| d < i).collect();
                        deps.sort_unstable();
                        deps.dedup();
                        Node { pane, deps, fails, delay_ms }
                    })
            })
            .collect::<Vec<_>>();
        let order = Just((0..n).collect::<Vec<usize>>()).prop_shuffle();
        (nodes, order)
    })
}

#[allow(clippy::unwrap_used)] // a test helper: a panic is a test failure
fn run_case(nodes: &[Node], order: &[usize]) -> Result<(), TestCaseError> {
    let id = |i: usize| format!("t{i}");
    let subtasks = order
        .iter()
        .map(|&i| Subtask {
            id: id(i),
            description: String::new(),
            pane: format!("p{}", nodes[i].pane),
            mode: Mode::Direct,
            command: Some("true".into()),
            depends_on: nodes[i].deps.iter().map(|&d| id(d)).collect(),
            timeout: None,
            host: None,
        })
        .collect();
    let plan = ValidatedPlan::new(Plan { version: 1, panes: None, subtasks }).unwrap();
    let mut runner = RecordingRunner::new();
    for (i, node) in nodes.iter().enumerate() {
        runner = runner.with_delay(id(i), Duration::from_millis(node.delay_ms));
        if node.fails {
            runner = runner.failing(id(i));
        }
    }
    let runner = Arc::new(runner);
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let summary = runtime
        .block_on(Executor::new().with_runner(Mode::Direct, runner.clone()).run(&plan, RunOptions::new(dir.path())))
        .unwrap();

    // Expected terminal states, in index order (dependencies come first).
    let mut expected: Vec<SubtaskStatus> = Vec::new();
    for node in nodes {
        let status = if node.deps.iter().any(|&d| expected[d] != SubtaskStatus::Succeeded) {
            SubtaskStatus::Skipped
        } else if node.fails {
            SubtaskStatus::Failed
        } else {
            SubtaskStatus::Succeeded
        };
        expected.push(status);
    }
    // Every subtask ends in exactly one terminal state, the expected one.
    prop_assert_eq!(summary.results.len(), nodes.len());
    let ids: HashSet<&str> = summary.results.iter().map(|r| r.id.as_str()).collect();
    prop_assert_eq!(ids.len(), nodes.len());
    for (i, status) in expected.iter().enumerate() {
        prop_assert_eq!(summary.result(&id(i)).unwrap().status, *status, "subtask {}", id(i));
    }

    let records = runner.records();
    let by_id: HashMap<&str, _> = records.iter().map(|r| (r.id.as_str(), r)).collect();
    prop_assert_eq!(by_id.len(), records.len(), "a subtask ran twice");
    for (i, node) in nodes.iter().enumerate() {
        let ran = by_id.get(id(i).as_str());
        prop_assert_eq!(ran.is_some(), expected[i] != SubtaskStatus::Skipped, "subtask {}", id(i));
        if let Some(record) = ran {
            // No subtask starts before all its dependencies finish.
            for &d in &node.deps {
                let dep = by_id[id(d).as_str()];
                prop_assert!(dep.finished < record.started, "{} started before {} finished", record.id, dep.id);
            }
            let mut given = record.dependencies.clone();
            given.sort();
            let mut wanted: Vec<String> = node.deps.iter().map(|&d| id(d)).collect();
            wanted.sort();
            prop_assert_eq!(given, wanted);
        }
    }
    // No two subtasks overlap on one pane.
    for a in &records {
        for b in &records {
            if a.id != b.id && a.pane == b.pane {
                prop_assert!(
                    a.finished < b.started || b.finished < a.started,
                    "{} and {} overlap on {}",
                    a.id,
                    b.id,
                    a.pane
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_dags_respect_dependencies_and_panes((nodes, order) in dag()) {
        run_case(&nodes, &order)?;
    }
}
