//! Smoke tests of the model tiers against the real local model (llama.cpp + Qwen2.5-Coder-0.5B-Instruct):
//! `export LOCAL_LLM_URL="$(scripts/local-llm/start.sh)"`, then `cargo test -p clive-router --test local_model --
//! --ignored`. The model is tiny, so the assertions are loose: the route's kind, a plan's validity.

// Test helpers: a panic is a test failure.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use clive_router::{Route, RouteContext, Router, Tier};
use llm::{ChatModel, ProviderKind};

fn local_model() -> Arc<dyn ChatModel> {
    llm::connect(llm::testing::local_model_config(ProviderKind::OpenAiCompatible)).unwrap()
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn a_question_is_answered_by_the_classifier() {
    let routed = Router::new(local_model()).route("what is the capital of France", &RouteContext::new()).await.unwrap();
    assert_eq!(routed.tier, Tier::Classifier, "{routed:#?}");
    let Route::Answer(answer) = &routed.route else { panic!("expected an answer: {routed:#?}") };
    assert!(answer.text.contains("Paris"), "{answer:?}");
    assert!(routed.usage().input_tokens + routed.usage().output_tokens < 600, "{:?}", routed.usage());
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn a_shell_command_never_reaches_the_model() {
    let routed = Router::new(local_model()).route("ls -la", &RouteContext::new()).await.unwrap();
    assert_eq!((routed.tier, routed.model_calls()), (Tier::Direct, 0));
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn a_two_part_task_gets_a_valid_plan() {
    let router = Router::new(local_model());
    let task = "count the lines of /etc/passwd, then write a one-sentence summary of the count to summary.txt";
    let (plan, step) = router.plan(task, &RouteContext::new()).await.unwrap();
    assert!(dag_sched::ValidatedPlan::new(plan.clone()).is_ok(), "{plan:#?}");
    assert!(!plan.subtasks.is_empty() && step.calls <= 3, "{plan:#?} {step}");
}
