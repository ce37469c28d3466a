//! End to end through the real `clive`, a real tmux server and the scripted fake model (a small local model): a
//! task's first step that the shell can take itself (unpacking an archive, running a program the directory holds)
//! is taken with no call, and the script for the rest is written after it, seeing what it made
//! (`RouterOptions::shell_first_steps`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{FakeModel, World, text};

/// The classifier's choice of one script subtask.
const PROGRAM: &str = r#"{"kind":"program","text":""}"#;

#[test]
fn an_archive_is_unpacked_before_the_script_for_the_rest_is_written() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(packed.path().join("apiary")).unwrap();
    std::fs::write(packed.path().join("apiary/east.csv"), "hive,jars\nh1,4\nh2,6\n").unwrap();
    std::fs::write(packed.path().join("apiary/west.csv"), "hive,jars\nh3,5\n").unwrap();
    let tar = std::process::Command::new("tar")
        .args(["-czf"])
        .arg(work.path().join("hives.tar.gz"))
        .args(["-C", packed.path().to_str().unwrap(), "apiary"])
        .status()
        .unwrap();
    assert!(tar.success());
    let model = FakeModel::start();
    model.replies(&[
        PROGRAM,
        "```bash\ntail -q -n +2 apiary/*.csv | cut -d, -f2 | paste -sd+ | bc\n```",
        "```bash\nawk -F, 'FNR > 1 { s += $2 } END { print s }' apiary/*.csv\n```",
    ]);
    let task = "Unpack hives.tar.gz, then tell me how many jars the CSV files in it record altogether.";
    let out = world.run_with_model(&model, work.path(), &["--json", task]);
    let stderr = text(&out.stderr);
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", text(&out.stdout)));
    assert_eq!(report["answer"].as_str().map(str::trim), Some("15"), "{report}\n{stderr}");
    // Two subtasks: the shell's first step (its command given, no call) and the rest.
    let ids: Vec<&str> =
        report["plan"]["subtasks"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["first-step", "task"], "{report}");
    assert_eq!(report["plan"]["subtasks"][0]["command"], "tar -xvf hives.tar.gz", "{report}");
    assert_eq!(
        report["plan"]["subtasks"][1]["description"],
        "Tell me how many jars the CSV files in it record altogether."
    );
    // The script's writer saw what the archive held, from the first step's output.
    let requests: Vec<String> = model.server.requests().iter().map(|r| r.text()).collect();
    assert!(
        requests[1].contains("Goal: Tell me how many jars") && requests[1].contains("apiary/east.csv"),
        "{}",
        requests[1]
    );
    // The first step answers nothing: no summary call joins the two results.
    assert_eq!(requests.len(), 3, "{requests:#?}");
    // The archive stays; what it held is in the directory.
    assert!(work.path().join("hives.tar.gz").exists());
    assert_eq!(std::fs::read_to_string(work.path().join("apiary/west.csv")).unwrap(), "hive,jars\nh3,5\n");
    // The rest was checked (a second script agreed); the first step, a command exiting 0, was not: exit 6.
    assert_eq!(report["subtasks"][1]["verified"], true, "{report}");
    assert_eq!(out.status.code(), Some(6), "{stderr}");
}
