//! What a subtask spends is all counted, and its limits are the configured ones: the predecessor dropped a
//! failed script attempt's tokens from its budget, kept 15 turns for a "3 scripts" mode and called an
//! unchanged 8 turns its "increased" fallback budget (W15). Real tmux and the scripted fake model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_agent::AgentConfig;
use dag_sched::{Mode, SubtaskStatus};
use llm::TokenBudget;
use support::{World, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_scripts_and_their_fallback_are_all_counted_and_bounded_by_the_config() {
    let world = World::new().await;
    // Two failing scripts (script_attempts; the first stops at a password prompt, so the interactive runner may do
    // better), then a fallback that never finishes within max_turns.
    world.replies_with_usage(
        &[
            "```bash\nread -rsp 'Password: ' secret\n```",
            "```bash\nexit 4\n```",
            &run("echo one"),
            &run("echo two"),
            &run("echo three"),
        ],
        100,
        10,
    );
    let config = AgentConfig { script_attempts: 2, max_turns: 2, ..AgentConfig::default() };
    let budget = TokenBudget::new(100_000);
    let agent = world.agent_with(config, Some(budget.clone()));
    let plan = r#"{"version":1,"subtasks":[{"id":"s","pane":"shell","mode":"script","description":"make it"}]}"#;
    let summary = world.run(&agent, plan).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert!(result.reason.as_deref().unwrap().starts_with("used all 2 turns"), "{result:?}");
    // 2 scripts + 2 fallback turns; the third fallback reply was never asked for.
    assert_eq!(world.model.requests().len(), 4);
    let stats = agent.ledger().get("s").unwrap();
    assert!(stats.fell_back && stats.mode == Some(Mode::Interactive), "{stats:?}");
    assert_eq!((stats.model_calls, stats.tokens.input, stats.tokens.output), (4, 400, 40));
    assert_eq!(budget.state().spent, 440, "the failed subtask's calls were not all charged");
}
