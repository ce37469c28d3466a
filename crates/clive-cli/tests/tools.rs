//! `clive tools`: what the model is offered follows what is installed, the config file and the flags.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use serde_json::Value;
use support::{World, text};

fn tools_json(world: &World, path: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["tools", "--json"]);
    let out = world.command(&all).env("PATH", path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn tool<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["panes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["tools"].as_array().unwrap())
        .find(|t| t["tool"] == name)
        .unwrap()
}

fn pane<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["panes"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap()
}

#[test]
fn a_tool_removed_from_path_is_no_longer_offered() {
    if !test_support::require_or_skip("jq") {
        return;
    }
    let real_path = std::env::var_os("PATH").unwrap();
    let jq = toolbox::find_on_path("jq", &real_path).unwrap();
    let world = World::new();
    let bin = world.dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(&jq, bin.join("jq")).unwrap();

    let before = tools_json(&world, &bin, &["--tools", "standard"]);
    assert_eq!(before["toolset"], "shell,browser,data");
    assert_eq!(tool(&before, "jq")["available"], true);
    assert_eq!(tool(&before, "jq")["offered"], true);
    assert!(tool(&before, "jq")["version"].as_str().is_some_and(|v| v.starts_with('1')), "{before}");
    assert_eq!(pane(&before, "data")["offered"], true);
    assert!(before["offered"].as_array().unwrap().iter().any(|l| l.as_str().unwrap().contains("jq (")));
    assert_eq!(tool(&before, "lynx")["available"], false, "not on this PATH");

    std::fs::remove_file(bin.join("jq")).unwrap();
    let after = tools_json(&world, &bin, &["--tools", "standard"]);
    assert_eq!(tool(&after, "jq")["available"], false);
    assert_eq!(tool(&after, "jq")["offered"], false);
    assert_eq!(tool(&after, "jq")["path"], Value::Null);
    assert_eq!(pane(&after, "data")["offered"], false, "no data tool is left");
    assert!(!after["offered"].to_string().contains("jq"), "{after}");
}

#[test]
fn the_config_file_chooses_and_flags_override() {
    let world = World::new();
    std::fs::create_dir_all(&world.home).unwrap();
    let config = world.home.join("config.yaml");
    std::fs::write(&config, "tools: [data, lynx]\nsandbox:\n  network: false\n").unwrap();
    let path = std::env::var_os("PATH").unwrap();
    let path = Path::new(&path);

    let report = tools_json(&world, path, &[]);
    assert_eq!(report["toolset"], "shell,lynx,data");
    assert_eq!(report["config"], config.display().to_string());
    assert_eq!(report["source"], config.display().to_string());
    assert_eq!(report["sandbox"]["network"], "off");
    assert_eq!(report["sandbox"]["network_mode"], "off");
    assert_eq!(report["networks"]["lynx"], Value::Null, "networks are by pane");
    assert_eq!(report["networks"]["browser"], "off");
    // --network overrides the file; by default a pane reaches only the hosts a task names.
    let report = tools_json(&world, path, &["--network"]);
    assert_eq!((report["sandbox"]["network"].as_str(), report["networks"]["shell"].as_str()), (Some("on"), Some("on")));
    assert_eq!(report["sandbox"]["network_source"], "--network");
    assert!(report["tmux"]["version"].as_str().is_some_and(|v| v.starts_with('3')), "{}", report["tmux"]);
    assert_eq!(report["tmux"]["problem"], Value::Null);

    let report = tools_json(&world, path, &["--tools", "minimal", "--no-sandbox"]);
    assert_eq!((report["toolset"].as_str(), report["source"].as_str()), (Some("shell"), Some("--tools")));
    assert_eq!(report["sandbox"]["enabled"], false);
    assert!(report["sandbox"]["problem"].as_str().unwrap().contains("--no-sandbox"));

    std::fs::write(&config, "tools: standard\nsandbox:\n  enabld: false\n").unwrap();
    let out = world.command(&["tools"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("config.yaml") && stderr.contains("enabld"), "{stderr}");
}

#[test]
fn without_bwrap_the_sandbox_says_which_package_to_install() {
    let world = World::new();
    let empty = world.dir.path().join("empty-bin");
    std::fs::create_dir(&empty).unwrap();
    let report = tools_json(&world, &empty, &[]);
    assert_eq!(report["sandbox"]["enabled"], true, "never off silently");
    let problem = report["sandbox"]["problem"].as_str().unwrap();
    assert!(problem.contains("bubblewrap") && problem.contains("--no-sandbox"), "{problem}");
}

#[test]
fn the_model_and_its_profile_are_shown_with_where_it_came_from() {
    let world = World::new();
    std::fs::create_dir_all(&world.home).unwrap();
    let config = world.home.join("config.yaml");
    let tools = |config_text: Option<&str>, env: &[(&str, &str)], json: bool| {
        match config_text {
            Some(text) => std::fs::write(&config, text).unwrap(),
            None => {
                let _ = std::fs::remove_file(&config);
            }
        }
        let args: &[&str] = if json { &["tools", "--json"] } else { &["tools"] };
        let out = world.command(args).envs(env.iter().copied()).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let local = [("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")];
    let ollama = [("OLLAMA_HOST", "127.0.0.1:9"), ("OLLAMA_MODEL", "llama3.3:70b")];
    let hosted = [("ANTHROPIC_API_KEY", "test-key")];
    let file = "providers:\n  ollama:\n    profile: standard\n    models: {\"llama3.3:70b\": small}\n";
    // What each case is, its config file, and its environment.
    type Case<'a> = (&'a str, Option<&'a str>, &'a [(&'a str, &'a str)]);
    let cases: [Case; 5] = [
        ("no provider", None, &[]),
        ("llama.cpp's server", None, &local),
        ("a 70B model behind Ollama", None, &ollama),
        ("the same, configured small", Some(file), &ollama),
        ("a hosted provider", None, &hosted),
    ];
    let mut shown = String::new();
    for (what, config_text, env) in cases {
        let human = tools(config_text, env, false);
        let line = human.lines().find(|l| l.starts_with("model: ")).unwrap_or_else(|| panic!("{human}"));
        shown.push_str(&format!("{what}:\n  {line}\n"));
        let report: Value = serde_json::from_str(&tools(config_text, env, true)).unwrap();
        shown.push_str(&format!("  --json: {} {}\n", report["model"], report["model_problem"]));
    }
    insta::assert_snapshot!("tools_model_profiles", shown.replace(&world.home.display().to_string(), "[home]"));
}
