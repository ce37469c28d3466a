//! [`Router`]: tier 0, then the classifier, then the planner — the cheapest tier that can decide does.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use dag_sched::Plan;
use llm::ChatModel;

use crate::classifier::{self, Verdict};
use crate::context::RouteContext;
use crate::cost::{Routed, Rule, TierStep};
use crate::drive::{planned_scripts_unless_driven, scripted_unless_driven};
use crate::error::RouterError;
use crate::model_call::Meter;
use crate::planner;
use crate::route::{Decline, PlanRoute, Route, Tier};
use crate::safety::{self, GatePolicy};
use crate::tier0;

/// Settings of a [`Router`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RouterOptions {
    /// What the safety gate lets through (model-written commands and tier-0 commands alike).
    pub gate: GatePolicy,
    /// The longest classifier reply, in tokens (an answer is part of it).
    pub classifier_max_tokens: u32,
    /// The longest planner reply, in tokens.
    pub planner_max_tokens: u32,
    /// Planner calls before an invalid plan is an error: the first and its corrections.
    pub max_plan_attempts: u32,
    /// Ask for JSON-schema-constrained replies (a provider that refuses them is asked again without, once
    /// per router).
    pub json_schema: bool,
    /// Plans kept for exactly the same task, context and model (0: no cache).
    pub plan_cache_entries: usize,
    /// When the classifier answers that a task needs a plan (or gives no usable reply) and the task names no steps
    /// of its own (one line, no "then", "after that", "finally"…), one script subtask does it, without a planner
    /// call (default off). For a small model, whose planner splits one step into several it cannot join up again
    /// (Qwen2.5-Coder-0.5B planned "set volume to 7 in an ini file and leave every other line as it is" with a
    /// subtask removing the other lines). A failed classifier call still goes to the planner.
    pub unplanned_single_steps: bool,
    /// When the classifier answers `drive` for a task that names nothing to drive (no program it runs, no
    /// interactive program, no web page, no prompt to answer: file work named by its files alone), one script
    /// subtask does it instead (default off). For a small model, whose classifier says `drive` for such work and
    /// whose step-by-step driving then looks once and declares it done (Qwen2.5-Coder-1.5B listed the directory
    /// and called files renamed that it never touched).
    pub drives_need_a_program: bool,
    /// When the context offers one pane and a task is file work named by its files (a file's name, a directory's
    /// with its slash, a listed entry called a file or folder), with nothing to drive, no steps of its own, no
    /// how-to question and no prose to write, one script subtask does it without a classifier call (default off;
    /// [`Rule::FileWork`] in the tier-1 step). For a small model, whose classifier's verdict on such a task mostly
    /// came to one script subtask (with [`RouterOptions::unplanned_single_steps`] and
    /// [`RouterOptions::drives_need_a_program`]) at about 500 prompt tokens: a third of Qwen2.5-Coder-1.5B's tokens
    /// on a batch of ordinary tasks.
    pub file_work_scripted: bool,
}

impl Default for RouterOptions {
    fn default() -> Self {
        RouterOptions {
            gate: GatePolicy::default(),
            classifier_max_tokens: 200,
            planner_max_tokens: 1500,
            max_plan_attempts: 3,
            json_schema: true,
            plan_cache_entries: 32,
            unplanned_single_steps: false,
            drives_need_a_program: false,
            file_work_scripted: false,
        }
    }
}

/// Routes tasks through the tiers: tier 0 (no model), tier 1 (the model's fast tier classifies), tier 2
/// (the model's default tier plans).
///
/// ```no_run
/// use std::sync::Arc;
/// use clive_router::{Route, RouteContext, Router};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let model = llm::connect(llm::ProviderConfig::detect_from_env()?)?;
/// let router = Router::new(model);
/// let routed = router.route("count the lines of /etc/passwd", &RouteContext::new()).await?;
/// for step in &routed.steps {
///     eprintln!("{step}"); // tier, model, tokens in/out, latency, why it passed the task on
/// }
/// match routed.route {
///     Route::Direct(direct) => println!("run: {}", direct.command),
///     Route::Answer(answer) => println!("{}", answer.text),
///     Route::Clarify(question) => println!("{}", question.question),
///     Route::Plan(plan) => println!("{}", plan.plan.to_json_pretty()),
///     _ => {}
/// }
/// # Ok(()) }
/// ```
pub struct Router {
    model: Arc<dyn ChatModel>,
    options: RouterOptions,
    /// Cleared when the provider refuses a JSON schema.
    schemas: AtomicBool,
    cache: Mutex<PlanCache>,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router").field("provider", &self.model.provider()).field("options", &self.options).finish()
    }
}

impl Router {
    /// A router asking `model` (its fast tier classifies, its default tier plans), with default options.
    pub fn new(model: Arc<dyn ChatModel>) -> Self {
        Router::with_options(model, RouterOptions::default())
    }

    /// A router with `options`.
    pub fn with_options(model: Arc<dyn ChatModel>, options: RouterOptions) -> Self {
        let schemas = AtomicBool::new(options.json_schema);
        let cache = Mutex::new(PlanCache::new(options.plan_cache_entries));
        Router { model, options, schemas, cache }
    }

    /// Sets the safety gate's policy.
    pub fn gate(mut self, gate: GatePolicy) -> Self {
        self.options.gate = gate;
        self
    }

    /// Sets [`RouterOptions::unplanned_single_steps`].
    pub fn unplanned_single_steps(mut self, on: bool) -> Self {
        self.options.unplanned_single_steps = on;
        self
    }

    /// Sets [`RouterOptions::drives_need_a_program`].
    pub fn drives_need_a_program(mut self, on: bool) -> Self {
        self.options.drives_need_a_program = on;
        self
    }

    /// Sets [`RouterOptions::file_work_scripted`].
    pub fn file_work_scripted(mut self, on: bool) -> Self {
        self.options.file_work_scripted = on;
        self
    }

    /// The options in use.
    pub fn options(&self) -> &RouterOptions {
        &self.options
    }

    /// Routes `task`: tier 0 takes shell commands without a model; the classifier answers, asks, picks one
    /// command or one subtask; anything else (including a classifier reply that cannot be used, or a failed
    /// classifier call) goes to the planner. Never returns [`Route::NeedsModel`]. Every command it returns
    /// has passed the safety gate.
    ///
    /// Errors: [`RouterError::EmptyTask`]; [`RouterError::Refused`] when the gate refuses a command (the
    /// task's own or a model's); [`RouterError::PlanRejected`] when the planner's plan stays invalid;
    /// [`RouterError::Model`] when the planner cannot be reached, or at once when the model server on this
    /// machine is not running (its classifier call is refused: [`llm::Error::LocalServerDown`]).
    pub async fn route(&self, task: &str, context: &RouteContext) -> Result<Routed, RouterError> {
        let started = Instant::now();
        let declined = match tier0::decide(task, &crate::Installed::from_env()) {
            Ok(route) => {
                if let Route::Direct(direct) = &route {
                    safety::check(&direct.command, self.options.gate)?;
                }
                let step = TierStep::new(Tier::Direct, started.elapsed());
                return Ok(Routed { route, tier: Tier::Direct, steps: vec![step] });
            }
            Err(Decline::Empty) => return Err(RouterError::EmptyTask),
            Err(declined) => declined,
        };
        let mut tier0 = TierStep::new(Tier::Direct, started.elapsed());
        tier0.declined = Some(declined.to_string());
        let mut steps = vec![tier0];
        // One pane only: where there are more, which one the work needs is the classifier's to say.
        if self.options.file_work_scripted
            && context.effective_panes().len() == 1
            && crate::drive::is_file_work(task, context)
            && let Verdict::Decided(route) = classifier::one_subtask(task, context, dag_sched::Mode::Script, None)
        {
            let mut step = TierStep::new(Tier::Classifier, started.elapsed());
            step.rule = Some(Rule::FileWork);
            steps.push(step);
            return Ok(Routed { route, tier: Tier::Classifier, steps });
        }

        let (verdict, step, answered) = match self.run_classifier(task, context).await {
            Ok(decided) => decided,
            Err(RouterError::Model { tier, source, steps: classifier }) => {
                steps.extend(classifier);
                return Err(RouterError::Model { tier, source, steps });
            }
            Err(error) => return Err(error),
        };
        steps.push(step);
        if let Verdict::Decided(route) = verdict {
            let route =
                if self.options.drives_need_a_program { scripted_unless_driven(route, task, context) } else { route };
            return Ok(Routed { route, tier: Tier::Classifier, steps });
        }
        if answered && self.options.unplanned_single_steps && !crate::steps::names_several_steps(task) {
            let Verdict::Decided(route) = classifier::one_subtask(task, context, dag_sched::Mode::Script, None) else {
                unreachable!("one subtask is always a decided route")
            };
            if let Some(step) = steps.last_mut() {
                tracing::debug!(passed_on = ?step.declined, "the task names no steps: one script subtask, no plan");
                step.declined = None;
            }
            return Ok(Routed { route, tier: Tier::Classifier, steps });
        }
        let mut plan = self.plan_into(task, context, &mut steps).await?;
        if self.options.drives_need_a_program {
            plan = planned_scripts_unless_driven(plan, context);
        }
        Ok(Routed { route: Route::Plan(PlanRoute { plan }), tier: Tier::Planner, steps })
    }

    /// Tier 1 alone: the classifier's route, or `None` with the step saying why it passed the task on.
    /// Fails when the gate refuses the command the classifier wrote, and with [`RouterError::Model`] when the
    /// model server on this machine is not running ([`llm::Error::LocalServerDown`]).
    pub async fn classify(&self, task: &str, context: &RouteContext) -> Result<(Option<Route>, TierStep), RouterError> {
        let (verdict, step, _) = self.run_classifier(task, context).await?;
        Ok((
            match verdict {
                Verdict::Decided(route) => Some(route),
                Verdict::Escalate(_) => None,
            },
            step,
        ))
    }

    /// Tier 2 alone: the planner's plan for `task` (corrected up to
    /// [`RouterOptions::max_plan_attempts`] times), with what it cost.
    pub async fn plan(&self, task: &str, context: &RouteContext) -> Result<(Plan, TierStep), RouterError> {
        let mut steps = Vec::new();
        let plan = self.plan_into(task, context, &mut steps).await?;
        let step = steps.pop().unwrap_or_else(|| TierStep::new(Tier::Planner, std::time::Duration::ZERO));
        Ok((plan, step))
    }

    /// The classifier's verdict, its step, and whether the model replied (a failed call did not).
    async fn run_classifier(
        &self,
        task: &str,
        context: &RouteContext,
    ) -> Result<(Verdict, TierStep, bool), RouterError> {
        let mut meter = Meter::start(Tier::Classifier);
        let request = classifier::request(task, context, self.options.classifier_max_tokens);
        let mut answered = true;
        let verdict = match meter.chat(self.model.as_ref(), &self.schemas, request).await {
            Ok(reply) => classifier::interpret(&reply.text, &reply.stop_reason, task, context, self.options.gate)?,
            // The model server on this machine is not running: the planner would fail the same way.
            Err(error @ llm::Error::LocalServerDown { .. }) => {
                let step = meter.finish(Some(error.to_string()));
                return Err(RouterError::Model { tier: Tier::Classifier, source: error, steps: vec![step] });
            }
            Err(error) => {
                // The planner takes the task either way, but a failing fast model (a name the provider does not
                // know, an Ollama model not pulled) would otherwise cost a planner call on every task, unseen.
                tracing::warn!(
                    "the classifier call failed, so the planner takes the task: {error}; check the provider's fast \
                     model (<PROVIDER>_FAST_MODEL, docs/llm.md)"
                );
                answered = false;
                Verdict::Escalate(format!("the classifier call failed: {error}"))
            }
        };
        let declined = match &verdict {
            Verdict::Escalate(reason) => Some(reason.clone()),
            Verdict::Decided(_) => None,
        };
        Ok((verdict, meter.finish(declined), answered))
    }

    /// Runs the planner, pushing its step onto `steps` (also when it fails, so errors carry the cost).
    async fn plan_into(
        &self,
        task: &str,
        context: &RouteContext,
        steps: &mut Vec<TierStep>,
    ) -> Result<Plan, RouterError> {
        let key = PlanCache::key(task, context, self.model.config().model_for(None, llm::ModelTier::Default));
        let cached = self.cache.lock().unwrap_or_else(PoisonError::into_inner).get(&key);
        if let Some(plan) = cached {
            let mut step = TierStep::new(Tier::Planner, std::time::Duration::ZERO);
            step.cached = true;
            steps.push(step);
            return Ok(plan);
        }
        let mut meter = Meter::start(Tier::Planner);
        let mut request = planner::request(task, context, self.options.planner_max_tokens);
        let attempts = self.options.max_plan_attempts.max(1);
        let mut problems = Vec::new();
        for attempt in 1..=attempts {
            let reply = match meter.chat(self.model.as_ref(), &self.schemas, request.clone()).await {
                Ok(reply) => reply,
                Err(source) => {
                    steps.push(meter.finish(None));
                    return Err(RouterError::Model { tier: Tier::Planner, source, steps: std::mem::take(steps) });
                }
            };
            match planner::parse(&reply.text, &reply.stop_reason, context) {
                Ok(plan) => {
                    steps.push(meter.finish(None));
                    for command in plan.subtasks.iter().filter_map(|s| s.command.as_deref()) {
                        safety::check(command, self.options.gate)?;
                    }
                    self.cache.lock().unwrap_or_else(PoisonError::into_inner).put(key, plan.clone());
                    return Ok(plan);
                }
                Err(found) => {
                    problems = found;
                    if attempt < attempts {
                        planner::add_correction(&mut request, &reply.text, &problems);
                    }
                }
            }
        }
        steps.push(meter.finish(None));
        Err(RouterError::PlanRejected { attempts, problems, steps: std::mem::take(steps) })
    }
}

/// Plans by exact key: the task text, the whole context and the model. A different task (even one path
/// apart) or a changed directory, history or pane set never reuses another plan.
struct PlanCache {
    capacity: usize,
    entries: VecDeque<(String, Plan)>,
}

impl PlanCache {
    fn new(capacity: usize) -> Self {
        PlanCache { capacity, entries: VecDeque::new() }
    }

    fn key(task: &str, context: &RouteContext, model: &str) -> String {
        let context = serde_json::to_string(context).unwrap_or_default();
        format!("{model}\n{}\n{context}", task.trim())
    }

    fn get(&self, key: &str) -> Option<Plan> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, plan)| plan.clone())
    }

    fn put(&mut self, key: String, plan: Plan) {
        if self.capacity == 0 {
            return;
        }
        self.entries.retain(|(k, _)| *k != key);
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back((key, plan));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::DEFAULT_PANE;

    fn plan(id: &str) -> Plan {
        crate::route::single_subtask_plan(dag_sched::Subtask {
            id: id.into(),
            description: String::new(),
            pane: DEFAULT_PANE.into(),
            mode: dag_sched::Mode::Script,
            command: None,
            depends_on: Vec::new(),
            timeout: None,
            host: None,
        })
    }

    #[test]
    fn the_cache_key_is_exact() {
        let context = RouteContext::new();
        let a = PlanCache::key("count the lines in /var/log/syslog", &context, "m");
        let b = PlanCache::key("count the lines in /etc/passwd", &context, "m");
        let mut cache = PlanCache::new(2);
        cache.put(a.clone(), plan("a"));
        assert_eq!(cache.get(&b), None);
        assert_eq!(cache.get(&a), Some(plan("a")));
        let moved = RouteContext::new().past_task("x", None);
        assert_eq!(cache.get(&PlanCache::key("count the lines in /var/log/syslog", &moved, "m")), None);
        assert_eq!(cache.get(&PlanCache::key("count the lines in /var/log/syslog", &context, "other")), None);
    }

    #[test]
    fn the_cache_is_bounded() {
        let mut cache = PlanCache::new(2);
        for id in ["a", "b", "c"] {
            cache.put(id.into(), plan(id));
        }
        assert_eq!((cache.get("a"), cache.get("c")), (None, Some(plan("c"))));
        let mut off = PlanCache::new(0);
        off.put("a".into(), plan("a"));
        assert_eq!(off.get("a"), None);
    }
}
