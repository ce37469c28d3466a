//! Exactly what the model sees: every prompt rendered from typical inputs, as insta snapshots.

#![allow(clippy::unwrap_used)]

use clive_agent::observe::Observation;
use clive_agent::prompt::{
    Exchange, FailedScript, FirstTurn, FixPrompt, INTERACTIVE_SYSTEM, Next, Prompt, ScriptPrompt, Step, Workplace,
    answer_request, confirm_request, fix_request, interactive_conversation, interactive_first, judge_request,
    line_fix_request, llm_request, question_request, script_request, summary_request,
};
use clive_agent::{Input, PaneProfile};
use tmux_habitat::InterventionKind;

const GOAL: &str = "Put the word count of essay.md into words.out, just the number.";

fn first() -> String {
    let profile = PaneProfile::shell();
    let observation = Observation::Start { screen: "$\n".into() }.render(2000);
    let workplace = Workplace { goal: GOAL, pane: "shell", profile: &profile, cwd: "/home/ana/work", inputs: &[] };
    interactive_first(&FirstTurn { workplace, observation: &observation, max_turns: 8 })
}

fn exchange(command: &str, exit_code: i32, output: &str) -> Exchange {
    let observation =
        Observation::Finished { command: command.into(), exit_code, output: output.into(), continued: false };
    Exchange {
        reply: serde_json::json!({"action": "run", "command": command}).to_string(),
        observation: observation.render(2000),
        step: Step { action: format!("run `{command}`"), outcome: format!("exit {exit_code}: \"{}\"", output.trim()) },
        next: if exit_code != 0 { Next::Fix } else { Next::Done },
    }
}

fn conversation(exchanges: &[Exchange]) -> String {
    Prompt { system: INTERACTIVE_SYSTEM.into(), messages: interactive_conversation(&first(), exchanges, 8) }
        .transcript()
}

#[test]
fn interactive_system() {
    insta::assert_snapshot!(INTERACTIVE_SYSTEM);
}

#[test]
fn interactive_first_turn() {
    insta::assert_snapshot!(conversation(&[]));
}

#[test]
fn interactive_after_four_commands() {
    // The older observations have shrunk to their steps; the latest two are shown in full. After a failure the
    // model is asked to fix it, after a success whether the goal is reached.
    insta::assert_snapshot!(conversation(&[
        exchange("ls", 0, "essay.md\n"),
        exchange("wc -w < essay.md > words.out", 1, "bash: words.out: Permission denied\n"),
        exchange("wc -w < essay.md", 0, "412\n"),
        exchange("echo 412 > words.out", 0, ""),
    ]));
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
    let inputs = [Input { from: "fetch".into(), text: "Summary: saved parcels.csv (120 rows)\n".into() }];
    let observation = Observation::Start { screen: "$\n".into() }.render(2000);
    let workplace = Workplace {
        goal: "Sum the weight column of parcels.csv.",
        pane: "data",
        profile: &profile,
        cwd: "/home/ana/work",
        inputs: &inputs,
    };
    insta::assert_snapshot!(interactive_first(&FirstTurn { workplace, observation: &observation, max_turns: 8 }));
}

#[test]
fn script_first_and_repair() {
    let profile = PaneProfile::shell();
    let workplace = Workplace {
        goal: "Convert data.csv to data.json (an array of objects).",
        pane: "shell",
        profile: &profile,
        cwd: "/home/ana/work",
        inputs: &[],
    };
    let first = script_request(&ScriptPrompt { workplace, failed: None, examples: true });
    // A second script, written to compare results with: the same task without the worked examples.
    let second = script_request(&ScriptPrompt { workplace, failed: None, examples: false });
    assert_eq!(second.messages.len(), 1, "no examples: {}", second.transcript());
    assert_eq!(second.last_user(), first.last_user());
    let repair = script_request(&ScriptPrompt {
        workplace,
        failed: Some(FailedScript {
            script: "#!/bin/bash\nset -euo pipefail\njq -R . data.csv > data.json\n",
            failure: "exit code 127",
            output: "script-1.sh: line 3: jq: command not found\n",
        }),
        examples: true,
    });
    insta::assert_snapshot!(format!("{}\n[repair]\n{}", first.transcript(), repair.last_user()));
}

#[test]
fn confirm_prompt() {
    let screen = "Checking cache/...\n3 stale entries\nRemove 3 stale entries from cache/? [y/N] ";
    insta::assert_snapshot!(confirm_request("Start ./clear-cache.sh and say yes when it asks.", screen).transcript());
}

#[test]
fn fix_prompts() {
    let output = "reading targets...\nbuild.sh: cannot open targets.list: No such file or directory\n";
    let task = "Start ./build.sh and keep repairing whatever it reports until it works.";
    let first = fix_request(&FixPrompt {
        task,
        program: "./build.sh",
        fixes: &[],
        how: "exit code 1",
        output,
        refused: None,
        found: Some("`lists/targets.list` does not exist; a file of that name is at `targets.list`"),
    });
    let fixes = [("touch targets.list".to_owned(), "exit 0".to_owned())];
    let later = fix_request(&FixPrompt {
        task,
        program: "./build.sh",
        fixes: &fixes,
        how: "exit code 3",
        output: "build.sh: targets.list is empty\n",
        refused: Some("`./build.sh` runs the program, which the shell runs again after your fix"),
        found: None,
    });
    insta::assert_snapshot!(format!("{}\n=====\n{}", first.transcript(), later.transcript()));
}

#[test]
fn line_fix_prompt() {
    let output = "Traceback (most recent call last):\n  File \"stock.py\", line 7, in total\n    sum_ += qty\nNameError: name \
                  'qty' is not defined\n";
    let lines = "1: import json\n2: \n3: def total(items):\n4:     sum_ = 0\n5:     for item in items:\n6:         count = \
                 int(item[\"count\"])\n7:         sum_ += qty\n8:     return sum_";
    let prompt = line_fix_request(
        &FixPrompt {
            task: "`python3 stock.py` crashes. Fix stock.py so that it prints the stock count.",
            program: "python3 stock.py",
            fixes: &[],
            how: "exit code 1",
            output,
            refused: Some("stock.py has no line 80: use the numbers shown"),
            found: Some("a value read from a file is text (str): it is added as a number only once converted"),
        },
        "stock.py",
        7,
        lines,
    );
    insta::assert_snapshot!(prompt.transcript());
}

#[test]
fn question_prompts() {
    let task = "Run ./enrol.sh for Ines Duarte, who uses helix.";
    let first = question_request(task, &[], "Enrolling a new member\nFull name: ");
    let answered = [("Full name:".to_owned(), "Ines Duarte".to_owned())];
    let second = question_request(task, &answered, "Enrolling a new member\nFull name: Ines Duarte\nEditor: ");
    insta::assert_snapshot!(format!("{}\n=====\n{}", first.transcript(), second.transcript()));
}

#[test]
fn text_prompts() {
    let inputs = [Input { from: "count".into(), text: "Summary: 3 errors in mailer.log\n".into() }];
    let llm = llm_request("Write a one-paragraph report of the findings.", &inputs);
    let answer = answer_request("What does SIGHUP usually ask a daemon to do?", &[]);
    let summary = summary_request("Count errors and write a report", &inputs);
    let judge = judge_request("Is port 8080 in use?", "nothing listens on 8080");
    insta::assert_snapshot!(
        [llm, answer, summary, judge].iter().map(Prompt::transcript).collect::<Vec<_>>().join("\n=====\n")
    );
}

#[test]
fn action_schema() {
    insta::assert_json_snapshot!(clive_agent::action_schema());
}
