//! Exactly what the model sees: every prompt rendered from typical inputs, as insta snapshots.

#![allow(clippy::unwrap_used)]

use agent::observe::Observation;
use agent::prompt::{
    FailedScript, INTERACTIVE_SYSTEM, ScriptPrompt, Step, TurnPrompt, answer_request, interactive_turn, judge_request,
    llm_request, script_request, summary_request,
};
use agent::{Input, PaneProfile};
use tmux_habitat::InterventionKind;

fn render(observation: &Observation, steps: &[Step], turn: u32) -> String {
    let profile = PaneProfile::shell();
    let observation = observation.render(2000);
    interactive_turn(&TurnPrompt {
        goal: "Count the lines in notes.txt and write just the number to lines.txt.",
        pane: "shell",
        profile: &profile,
        cwd: "/home/ana/work",
        inputs: &[],
        steps,
        observation: &observation,
        turn,
        max_turns: 8,
    })
}

fn steps() -> Vec<Step> {
    vec![
        Step { action: "run `ls`".into(), outcome: "exit 0: \"notes.txt\"".into() },
        Step { action: "run `wc -l < notes.txt`".into(), outcome: "exit 0: \"12\"".into() },
    ]
}

#[test]
fn interactive_system() {
    insta::assert_snapshot!(INTERACTIVE_SYSTEM);
}

#[test]
fn interactive_first_turn() {
    insta::assert_snapshot!(render(&Observation::Start { screen: "$\n".into() }, &[], 1));
}

#[test]
fn interactive_after_a_command() {
    let seen = Observation::Finished {
        command: "wc -l < notes.txt".into(),
        exit_code: 0,
        output: "12\n".into(),
        continued: false,
    };
    insta::assert_snapshot!(render(&seen, &steps(), 3));
}

#[test]
fn interactive_observations() {
    let observations = [
        Observation::NeedsInput {
            command: "./install.sh".into(),
            kind: InterventionKind::Confirm,
            output: "Installing 3 packages.\nProceed? [y/N]".into(),
        },
        Observation::StillRunning {
            command: "make".into(),
            seconds: 30,
            output: "cc -c main.c\n".into(),
            appeared: None,
        },
        Observation::Screen { after: "You pressed q.".into(), screen: "$\n".into(), changed: true },
        Observation::Refused { text: "rm -rf ~".into(), reasons: "recursive removal of `~`".into() },
        Observation::Unreadable { problem: String::new() },
        Observation::Unreadable { problem: "the run action needs a command".into() },
        Observation::Busy { command: "make".into() },
        Observation::NotDone {
            reason: "your last command failed (exit code 1). Fix it, or run a command that shows the goal is reached, then say done.".into(),
        },
    ];
    let rendered: Vec<String> = observations.iter().map(|o| o.render(2000)).collect();
    insta::assert_snapshot!(rendered.join("\n\n---\n\n"));
}

#[test]
fn interactive_with_tool_notes_and_inputs() {
    let profile = PaneProfile::new("data", "Tools: jq (JSON), mlr (CSV). `mlr --icsv --ojson cat f.csv` converts.");
    let inputs = [Input { from: "fetch".into(), text: "Summary: saved orders.csv (120 rows)\n".into() }];
    let observation = Observation::Start { screen: "$\n".into() }.render(2000);
    insta::assert_snapshot!(interactive_turn(&TurnPrompt {
        goal: "Sum the amount column of orders.csv.",
        pane: "data",
        profile: &profile,
        cwd: "/home/ana/work",
        inputs: &inputs,
        steps: &[],
        observation: &observation,
        turn: 1,
        max_turns: 8,
    }));
}

#[test]
fn script_first_and_repair() {
    let profile = PaneProfile::shell();
    let first = script_request(&ScriptPrompt {
        goal: "Convert data.csv to data.json (an array of objects).",
        pane: "shell",
        profile: &profile,
        cwd: "/home/ana/work",
        platform: "linux x86_64",
        inputs: &[],
        failed: None,
    });
    let repair = script_request(&ScriptPrompt {
        failed: Some(FailedScript {
            script: "#!/bin/bash\nset -euo pipefail\njq -R . data.csv > data.json\n",
            failure: "exit code 127",
            output: "script-1.sh: line 3: jq: command not found\n",
        }),
        ..ScriptPrompt {
            goal: "Convert data.csv to data.json (an array of objects).",
            pane: "shell",
            profile: &profile,
            cwd: "/home/ana/work",
            platform: "linux x86_64",
            inputs: &[],
            failed: None,
        }
    });
    insta::assert_snapshot!(format!("[system]\n{}\n[user]\n{}\n[repair]\n{}", first.system, first.user, repair.user));
}

#[test]
fn text_prompts() {
    let inputs = [Input { from: "count".into(), text: "Summary: 3 errors in app.log\n".into() }];
    let llm = llm_request("Write a one-paragraph report of the findings.", &inputs);
    let answer = answer_request("What does SIGHUP usually ask a daemon to do?", &[]);
    let summary = summary_request("Count errors and write a report", &inputs);
    let judge = judge_request("Is port 8080 in use?", "nothing listens on 8080");
    insta::assert_snapshot!(
        [llm, answer, summary, judge]
            .iter()
            .map(|p| format!("[system]\n{}\n[user]\n{}", p.system, p.user))
            .collect::<Vec<_>>()
            .join("\n=====\n")
    );
}

#[test]
fn action_schema() {
    insta::assert_json_snapshot!(agent::action_schema());
}
