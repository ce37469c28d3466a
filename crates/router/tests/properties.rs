//! Property tests of tier 0 and the safety gate.

use clive_router::safety::{self, GatePolicy};
use clive_router::{direct_commands, route};
use proptest::prelude::*;

/// Arguments that are plainly command arguments: flags, paths, file names.
fn command_argument() -> impl Strategy<Value = String> {
    prop_oneof![
        "-[a-zA-Z]{1,3}",
        "--[a-z]{2,8}",
        "(\\./|/)[a-z]{1,8}(/[a-z]{1,8}){0,2}",
        "[a-z]{1,6}\\.(txt|rs|log|json)",
    ]
}

fn plain_program() -> impl Strategy<Value = &'static str> {
    prop::sample::select(
        direct_commands::DIRECT_COMMANDS
            .iter()
            .filter(|c| {
                matches!(c.rule, direct_commands::ArgumentRule::Plain | direct_commands::ArgumentRule::NeedsOperand)
            })
            .map(|c| c.name)
            // `env ./a` runs `./a`, which is not in the table.
            .filter(|name| *name != "env")
            .collect::<Vec<_>>(),
    )
}

fn protected_path() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "/",
        "/*",
        "//",
        "~",
        "~/",
        "~/*",
        "$HOME",
        "$HOME/",
        "${HOME}",
        "\"$HOME\"",
        "/home",
        "/home/",
        "/etc",
        "/usr/",
    ])
}

fn recursive_flags() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["-rf", "-fr", "-r -f", "-f -r", "-R", "-r", "--recursive --force", "-rfv", "-vrf --"])
}

fn prefix() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "sudo ",
        "sudo -u root ",
        "A=1 ",
        "env ",
        "nohup ",
        "true && ",
        "ls; ",
        "cd /tmp || ",
    ])
}

proptest! {
    #[test]
    fn routing_and_gate_never_panic(task in "\\PC{0,80}") {
        let _ = route(&task);
        let _ = safety::assess(&task);
    }

    #[test]
    fn listed_programs_with_command_arguments_are_direct(
        program in plain_program(),
        args in prop::collection::vec(command_argument(), 1..4),
    ) {
        let task = format!("{program} {}", args.join(" "));
        prop_assert!(route(&task).as_direct().is_some(), "{}", task);
    }

    #[test]
    fn english_openers_need_a_model(
        opener in prop::sample::select(vec!["what", "how", "why", "list", "show", "check", "please", "Find", "can", "tell"]),
        rest in "[a-z ]{0,30}",
    ) {
        let task = format!("{opener} {rest}");
        prop_assert!(route(&task).needs_model(), "{}", task);
    }

    #[test]
    fn listed_program_followed_by_filler_word_needs_a_model(
        program in plain_program(),
        filler in prop::sample::select(direct_commands::FILLER_WORDS.to_vec()),
        rest in "[a-z]{1,8}",
    ) {
        let task = format!("{program} {filler} {rest}");
        prop_assert!(route(&task).needs_model(), "{}", task);
    }

    #[test]
    fn recursive_removal_of_protected_paths_is_refused(
        prefix in prefix(),
        flags in recursive_flags(),
        path in protected_path(),
    ) {
        let line = format!("{prefix}rm {flags} {path}");
        prop_assert!(safety::check(&line, GatePolicy::default()).is_err(), "{}", line);
        prop_assert!(safety::check(&line, GatePolicy { allow_destructive: true }).is_ok(), "{}", line);
    }

    #[test]
    fn single_quoted_text_is_data(text in "[^']{0,60}") {
        let line = format!("echo '{text}'");
        prop_assert!(safety::assess(&line).is_empty(), "{}", line);
    }

    #[test]
    fn removal_inside_the_working_tree_passes(
        flags in recursive_flags(),
        path in "(\\./)?[a-z]{1,8}(/[a-z]{1,8}){0,2}/?",
    ) {
        let line = format!("rm {flags} {path}");
        prop_assert!(safety::assess(&line).is_empty(), "{}", line);
    }
}
