//! Without bubblewrap a model's command is refused, never run unconfined: the predecessor's sandbox was opt-in
//! and fell back to ulimit alone (W20). Real `clive`, real tmux, the scripted fake model.

mod support;

use support::{FakeModel, World, text};

#[test]
fn without_bwrap_a_models_command_never_runs_unconfined() {
    let world = World::new();
    // A PATH with what clive and a pane's shell need, and no bwrap.
    let bin = world.dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for tool in ["tmux", "bash", "sh", "env", "touch", "cat", "ls"] {
        let found = toolbox::find_on_path(tool, &path).unwrap_or_else(|| panic!("{tool} is not installed"));
        std::os::unix::fs::symlink(found, bin.join(tool)).unwrap();
    }
    let work = world.dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let model = FakeModel::start();
    model.replies(&[r#"{"kind":"command","text":"touch made-by-model"}"#]);
    let out = world
        .command(&["--json", "make a file here"])
        .current_dir(&work)
        .env("PATH", &bin)
        .env("OPENAI_BASE_URL", format!("{}/v1", model.server.url()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = report["error"].as_str().unwrap_or_default();
    assert!(error.contains("bubblewrap") && error.contains("--no-sandbox"), "{report}");
    assert!(!work.join("made-by-model").exists(), "the model's command ran");
    // The command the model wrote was asked for; nothing else was.
    assert_eq!(model.server.requests().len(), 1);
}
