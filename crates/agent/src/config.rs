//! Limits and choices of the runners.

use std::time::Duration;

use llm::{ModelProfile, ModelTier, PriceTable};
use router::safety::GatePolicy;

/// How the model is asked for an interactive action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplyFormat {
    /// JSON constrained by the action schema, where the provider supports it (OpenAI-style servers including
    /// llama.cpp, Ollama, Anthropic); the lenient parser reads the reply either way.
    #[default]
    Schema,
    /// Plain text: the prompt asks for one JSON object and the lenient parser reads what comes.
    Text,
}

/// Limits and choices shared by the runners of an [`crate::Agent`].
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The most turns of an interactive subtask (default 8).
    pub max_turns: u32,
    /// The most scripts a script subtask writes (first one and repairs; default 3, 2 for a small model).
    pub script_attempts: u32,
    /// Whether a script subtask whose scripts all failed, one of them stopped at a prompt, tries once more as an
    /// interactive subtask (default yes). Other failures do not: measured with Qwen2.5-Coder-0.5B, such fallbacks
    /// cost 8,000-12,000 tokens each and never reached the goal (docs/evals.md).
    pub script_fallback: bool,
    /// How long a turn waits for a command before showing the model what it has so far (default 30 s).
    pub command_wait: Duration,
    /// How long one fixing command of the fix-and-rerun loop may run (default 60 s): one that runs longer is
    /// stopped, its changes dropped, and the loop goes on with another fix while the subtask has time.
    pub fix_wait: Duration,
    /// How long one model call may take (default 120 s; the provider's own deadlines apply too).
    pub model_timeout: Duration,
    /// What the safety gate lets through.
    pub gate: GatePolicy,
    /// How interactive actions are asked for.
    pub reply_format: ReplyFormat,
    /// Sampling temperature; `None` leaves the provider's default (some models accept no other).
    pub temperature: Option<f32>,
    /// Which of the provider's models the runners use.
    pub tier: ModelTier,
    /// An explicit model name instead of the tier's.
    pub model: Option<String>,
    /// The most characters of output or screen shown in one observation (default 2000, about 500 tokens).
    pub observation_chars: usize,
    /// The longest action reply, in tokens (default 300).
    pub action_tokens: u32,
    /// The longest script, in tokens (default 2000).
    pub script_tokens: u32,
    /// The longest text reply of the llm and answer runners, in tokens (default 1500).
    pub text_tokens: u32,
    /// Prices for the cost estimate.
    pub prices: PriceTable,
    /// Whether script attempts run staged on an overlay of the working directory (default yes; where it cannot
    /// be done they run unstaged, with the goal's inputs protected by copies: docs/agent.md).
    pub stage: bool,
    /// Whether a result that passed the shell's checks gets the final look before it counts as done: the model
    /// sees the goal, the change set and the first lines of the result and answers yes or no (default yes; a no
    /// is a failed attempt; without the look, a result the shell could not check stays unchecked).
    pub final_look: bool,
    /// Whether the final look's yes alone makes a result checked (default yes). Off for a model whose yes is no
    /// evidence (a small local model says yes to nearly anything: docs/evals.md): its look can still send a result
    /// back, but only a check of the content by the shell (a number, a stated shape) makes it checked.
    pub look_verifies: bool,
    /// Whether a script's result that only the shell's checks of its shape vouch for (a number, one item per line)
    /// counts as checked only once a second script, sampled independently for the same goal and run staged (never
    /// applied), gives the same result (default no; on for small models, whose right-shaped results are often
    /// wrong: docs/agent.md). Where they differ, or no second result could be had, the result stands unchecked.
    pub consensus: bool,
    /// Whether the script writer's first attempt is shown the worked examples that fit the goal (default yes): a
    /// small model copies their shape; a capable one needs no examples, which cost tokens and invite copying.
    pub worked_examples: bool,
    /// Whether the shell fixes a script without a call (default yes): what cannot be meant before it runs (a
    /// missing `import csv`, `wc -l file` where the goal wants the number alone), and after a failed result check
    /// the next attempt made from what it printed; and, in the fix-and-rerun loop, the fix a program's error states
    /// itself (a directory to make, a line to add, a word it asks "did you mean" about). A capable model's script
    /// runs as it wrote it, and it is asked for every fix.
    pub shell_fixes: bool,
    /// Whether the fix-and-rerun loop's success needs each fix's written words to come from somewhere (default
    /// no; on for small models): a program that exits 0 after a fix wrote a value that neither the goal, the
    /// program's text, its output, the file before nor a name in the directory gives has accepted a guess, and the
    /// result stays unchecked.
    pub trace_fixes: bool,
    /// Directories whose changes are never a subtask's (the caller's own state, such as clive's run records and
    /// recordings): left out of change sets when they lie inside the working directory.
    pub private_dirs: Vec<std::path::PathBuf>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            max_turns: 8,
            script_attempts: 3,
            script_fallback: true,
            command_wait: Duration::from_secs(30),
            fix_wait: Duration::from_secs(60),
            model_timeout: Duration::from_secs(120),
            gate: GatePolicy::default(),
            reply_format: ReplyFormat::default(),
            temperature: None,
            tier: ModelTier::Default,
            model: None,
            observation_chars: 2000,
            action_tokens: 300,
            script_tokens: 2000,
            text_tokens: 1500,
            prices: PriceTable::default(),
            stage: true,
            final_look: true,
            look_verifies: true,
            consensus: false,
            worked_examples: true,
            shell_fixes: true,
            trace_fixes: false,
            private_dirs: Vec::new(),
        }
    }
}

impl AgentConfig {
    /// The defaults for a model of `profile`: what helps a small model for a `small` one only.
    ///
    /// `small`: sampled greedily (its runs repeat), the worked examples and the shell's fixes, and no final look
    /// (a small model's look is noise: it said yes to 3 wrong results of 8 held-out ones and no to right ones, which
    /// cost repairs and the budget: docs/evals.md; only the shell's checks of the content count for it, and a
    /// result only its shape vouches for needs a second script's agreement: `consensus`).
    /// `standard` and `large`: the provider's temperature, no examples, the script as written, and the final look,
    /// whose yes is one more check.
    pub fn for_profile(profile: ModelProfile) -> AgentConfig {
        let small = profile.is_small();
        AgentConfig {
            temperature: small.then_some(0.0),
            final_look: !small,
            look_verifies: !small,
            worked_examples: small,
            shell_fixes: small,
            consensus: small,
            trace_fixes: small,
            // A small model's third script rarely passes where two failed, and costs a call (on the seventh held-out
            // batch, two runs per model: the same tasks passed, 10-12 % fewer tokens; docs/evals.md). One is too
            // few: the 1.5B's repair after a crash passed two twelfth-batch tasks that one script lost, though the
            // 0.5B's repairs passed nothing there (the thirty-second session).
            script_attempts: if small { 2 } else { AgentConfig::default().script_attempts },
            ..AgentConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_helps_a_small_model_is_for_a_small_one_only() {
        let small = AgentConfig::for_profile(ModelProfile::Small);
        assert_eq!(small.temperature, Some(0.0));
        assert!(small.worked_examples && small.shell_fixes && small.consensus);
        assert!(small.trace_fixes);
        assert!(!small.final_look && !small.look_verifies);
        assert_eq!(small.script_attempts, 2);
        for profile in [ModelProfile::Standard, ModelProfile::Large] {
            let config = AgentConfig::for_profile(profile);
            assert_eq!(config.temperature, None, "{profile}");
            assert!(!config.worked_examples && !config.shell_fixes && !config.consensus);
            assert!(!config.trace_fixes);
            assert!(config.final_look && config.look_verifies);
            assert_eq!(config.script_attempts, 3, "{profile}");
        }
    }
}
