//! End to end through the real `clive`, a real tmux server, the real sandbox and the scripted fake model: an input
//! is never damaged, the change set is in `--json`, `clive undo` takes it back (and refuses a file changed since),
//! and a result that could not be checked exits 6.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{FakeModel, World, look_yes, text};

fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)))
}

/// The classifier's choice of a script subtask.
const PROGRAM: &str = r#"{"kind":"program","text":""}"#;

#[test]
fn comparing_two_files_changes_neither() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(work.path().join("b.txt"), "one\nthree\n").unwrap();
    let model = FakeModel::start();
    // `diff` exits 1 when the files differ; the repair prints the difference.
    model.replies(&[PROGRAM, "```bash\ndiff a.txt b.txt\n```", "```bash\ndiff a.txt b.txt || true\n```", &look_yes()]);
    let out = world.run_hosted(&model, work.path(), &["--json", "Compare a.txt to b.txt and show the differences"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert!(report["answer"].as_str().unwrap().contains("> three"), "{report}");
    assert_eq!(std::fs::read_to_string(work.path().join("b.txt")).unwrap(), "one\nthree\n");
    assert_eq!(report["changes"], serde_json::json!([]));
    assert_eq!((report["verified"].as_bool(), report["subtasks"][0]["staged"].as_bool()), (Some(true), Some(true)));
}

#[test]
fn the_change_set_is_reported_and_undone_and_a_file_changed_since_is_refused() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), "b\na\n").unwrap();
    let model = FakeModel::start();
    model.replies(&[PROGRAM, "```bash\nsort -o notes.txt notes.txt\nwc -l < notes.txt > count.txt\n```", &look_yes()]);
    let goal = "Sort notes.txt in place and write its line count to count.txt.";
    let out = world.run_hosted(&model, work.path(), &["--json", goal]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!(
        report["changes"],
        serde_json::json!([
            {"path": "count.txt", "kind": "created", "bytes_before": null, "bytes_after": 2},
            {"path": "notes.txt", "kind": "modified", "bytes_before": 4, "bytes_after": 4}
        ])
    );
    // Progress names each change on stderr.
    assert!(text(&out.stderr).contains("created count.txt (2 bytes)"), "{}", text(&out.stderr));
    let session = report["session"].as_str().unwrap().to_owned();
    let id = session.trim_start_matches("clive-");

    // A file changed since: refused, named, nothing restored.
    std::fs::write(work.path().join("count.txt"), "edited\n").unwrap();
    let out = world.run(&["undo", id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("count.txt has changed since clive created it"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(work.path().join("notes.txt")).unwrap(), "a\nb\n");

    std::fs::write(work.path().join("count.txt"), "2\n").unwrap();
    let out = world.run(&["--json", "undo", id]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let undone = json_of(&out);
    assert_eq!(undone["session"], session.as_str());
    assert_eq!(undone["undone"].as_array().unwrap().len(), 2);
    assert_eq!(std::fs::read_to_string(work.path().join("notes.txt")).unwrap(), "b\na\n");
    assert!(!work.path().join("count.txt").exists());
    // Undone once: nothing left to undo.
    let out = world.run(&["undo", id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no changes of"), "{}", text(&out.stderr));
}

#[test]
fn a_local_model_gets_no_final_look_but_a_number_is_a_check() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), "a\nb\nc\n").unwrap();
    let model = FakeModel::start();
    // A local model (no key) gets no final look (a small model's look is noise): nothing checks this result.
    model.replies(&[PROGRAM, "```bash\necho hello there\n```"]);
    let out = world.run_with_model(&model, work.path(), &["--json", "say hello there"]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    assert_eq!(json_of(&out)["verified"], false);
    // The shell checks that the answer is one number, and a second script, sampled apart, gives the same: checked.
    // (File work named by its files: a small model's classifier is not asked, `RouterOptions::file_work_scripted`.)
    let question = "How many lines does notes.txt have? Just the number.";
    model.replies(&["```bash\nwc -l < notes.txt\n```", "```bash\ngrep -c '' notes.txt\n```"]);
    let out = world.run_with_model(&model, work.path(), &["--json", question]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!((report["verified"].as_bool(), report["answer"].as_str()), (Some(true), Some("3\n")), "{report}");
    let checks = report["subtasks"][0]["checks"].to_string();
    assert!(checks.contains("a second script, sampled independently, gave the same result"), "{checks}");
    // Sampled, not greedy as the first: a greedy second script shares the first one's mistakes.
    let requests = model.server.requests();
    let temperature = |back: usize| requests[requests.len() - back].body["temperature"].as_f64().unwrap();
    assert!(temperature(2) == 0.0 && (temperature(1) - 0.9).abs() < 1e-6, "{} then {}", temperature(2), temperature(1));
}

#[test]
fn a_second_script_that_does_it_the_same_way_checks_nothing() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    // No newline at the end: `wc -l` says 2 for 3 lines, however the file is fed to it.
    std::fs::write(work.path().join("names.txt"), "Ann\nBo\nCy").unwrap();
    let model = FakeModel::start();
    let question = "How many names are in names.txt, one per line? Just the number.";
    model.replies(&[PROGRAM, "```bash\nwc -l < names.txt\n```", "```bash\ncat names.txt | wc -l\n```"]);
    let out = world.run_with_model(&model, work.path(), &["--json", question]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!(report["verified"], false, "{report}");
    let checks = report["subtasks"][0]["checks"].to_string();
    assert!(checks.contains("did it the same way, so it would share any mistake"), "{checks}");
}

#[test]
fn a_zero_from_a_local_model_is_sent_back_once_then_kept_unchecked() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("app.log"), "INFO start\nWARN slow\n").unwrap();
    let model = FakeModel::start();
    // A filter that matches nothing gives 0, right or wrong: the model is told so once and writes another script.
    // When that one finds nothing too, the zero is applied but unchecked (exit 6): a second script's agreement on a
    // zero is no evidence, so none is asked for.
    let question = "How many ERROR lines does app.log have? Just the number.";
    model.replies(&[
        PROGRAM,
        "```bash\ngrep -c ERROR app.log || true\n```",
        "```bash\nawk '/ERROR/' app.log | wc -l\n```",
    ]);
    let out = world.run_with_model(&model, work.path(), &["--json", question]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!((report["verified"].as_bool(), report["answer"].as_str()), (Some(false), Some("0\n")), "{report}");
    let checks = report["subtasks"][0]["checks"].to_string();
    assert!(checks.contains("the result is 0, which scripts whose filters match nothing give too"), "{checks}");
    let requests = model.server.requests();
    assert_eq!(requests.len(), 3, "the route, the script and the one written after it: no second script");
    assert!(requests[2].body.to_string().contains("it found nothing (the result is 0"), "{}", requests[2].body);
}

#[test]
fn a_changed_file_from_a_local_model_is_unchecked_when_only_its_shape_was_checked() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("guests.txt"), "Mira\nAbe\nZed\n").unwrap();
    let model = FakeModel::start();
    // The count is one number, as asked, and the shell checks that; but with a file that existed changed, no second
    // result can be compared, and a local model's right-shaped result is often wrong: applied, unchecked (exit 6).
    model.replies(&[PROGRAM, "```bash\nsort -o guests.txt guests.txt\nwc -l < guests.txt > count.txt\n```"]);
    let goal = "Sort the lines of guests.txt alphabetically, in place, and write how many lines it has to count.txt.";
    let out = world.run_with_model(&model, work.path(), &["--json", goal]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!(report["verified"], false, "{report}");
    let checks = report["subtasks"][0]["checks"].to_string();
    assert!(checks.contains("count.txt holds one number"), "{checks}");
    assert!(checks.contains("the shell checked only its shape, and no second result could be compared"), "{checks}");
    assert_eq!(std::fs::read_to_string(work.path().join("guests.txt")).unwrap(), "Abe\nMira\nZed\n");
    assert_eq!(std::fs::read_to_string(work.path().join("count.txt")).unwrap().trim(), "3");
    assert_eq!(model.server.requests().len(), 2, "no second script: it could not be compared");
}

#[test]
fn a_directory_made_is_no_check_of_what_it_holds() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("a.txt"), "a\n").unwrap();
    std::fs::write(work.path().join("b.txt"), "b\n").unwrap();
    let model = FakeModel::start();
    // Made, but with one file of the two: that the directory is there says nothing of that (exit 6).
    model.replies(&[PROGRAM, "```bash\nmkdir -p backup && cp a.txt backup/\n```"]);
    let out = world.run_with_model(&model, work.path(), &["--json", "Copy the .txt files into backup/."]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!(report["verified"], false, "{report}");
    assert!(report["subtasks"][0]["checks"].to_string().contains("backup/ was made"), "{report}");
    assert!(work.path().join("backup/a.txt").exists(), "the result is applied, unchecked");
    // A directory asked for with nothing in it is all of its result: made, it is checked.
    model.replies(&[PROGRAM, "```bash\nmkdir -p build\n```"]);
    let out = world.run_with_model(&model, work.path(), &["--json", "Create a directory named build."]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!(report["verified"], true, "{report}");
    assert!(report["subtasks"][0]["checks"].to_string().contains("build was made"), "{report}");
}

#[test]
fn a_small_model_s_number_that_a_second_script_contradicts_stays_unchecked() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("visits.csv"), "day,count\nmon,3\ntue,4\n").unwrap();
    let model = FakeModel::start();
    // The first script counts the header too; a second, sampled apart, does not: they differ, so the right-shaped
    // number written by the first is not claimed as checked (exit 6), and the second's file is never applied.
    let first = "```bash\nwc -l < visits.csv > rows.txt\n```";
    let second = "```bash\ntail -n +2 visits.csv | wc -l > rows.txt\necho 2 > stray.txt\n```";
    model.replies(&[PROGRAM, first, second]);
    let goal = "Write the number of data rows in visits.csv to rows.txt.";
    let out = world.run_with_model(&model, work.path(), &["--json", goal]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!(report["verified"], false, "{report}");
    let checks = report["subtasks"][0]["checks"].to_string();
    assert!(checks.contains("gave another result") && checks.contains('2'), "{checks}");
    assert_eq!(std::fs::read_to_string(work.path().join("rows.txt")).unwrap().trim(), "3");
    assert!(!work.path().join("stray.txt").exists(), "the second script's changes are never applied");
    assert_eq!(report["changes"].as_array().unwrap().len(), 1, "{report}");
}

#[test]
fn a_result_nothing_could_check_exits_6_and_says_so() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    // The final look answers neither yes nor no.
    model.replies(&[PROGRAM, "```bash\necho hello there\n```", r#"{"answer":"maybe","reason":"?"}"#]);
    let out = world.run_hosted(&model, work.path(), &["say hello there"]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "hello there\n");
    assert!(
        text(&out.stderr).contains("clive: unchecked: the result of task could not be checked"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_small_model_s_text_is_unchecked_and_a_hosted_model_s_stands() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let write = r#"{"kind":"write","text":""}"#;
    let goal = "Write a one-line motto for a bakery.";
    let model = FakeModel::start();
    model.replies(&[write, "Fresh every morning."]);
    let out = world.run_with_model(&model, work.path(), &[goal]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Fresh every morning.\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("clive: unchecked: task is a small model's command or text, which nothing checked"),
        "{stderr}"
    );

    let model = FakeModel::start();
    model.replies(&[write, "Fresh every morning."]);
    let out = world.run_hosted(&model, work.path(), &["--json", goal]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = json_of(&out);
    assert_eq!(
        (report["verified"].as_bool(), &report["subtasks"][0]["verified"]),
        (Some(true), &serde_json::Value::Null)
    );
}

#[test]
fn a_goal_that_may_mean_to_overwrite_an_existing_file_is_asked_not_guessed() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("app.log"), "ERROR disk\nINFO ok\n").unwrap();
    std::fs::write(work.path().join("errors.txt"), "kept\n").unwrap();
    let model = FakeModel::start();
    model.replies(&[PROGRAM]);
    let goal = "The ERROR lines of app.log to errors.txt.";
    let out = world.run_hosted(&model, work.path(), &["--json", goal]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let report = json_of(&out);
    let question = report["question"].as_str().unwrap_or_default();
    assert!(question.contains("errors.txt exists") && question.contains("overwrite"), "{report}");
    assert_eq!(std::fs::read_to_string(work.path().join("errors.txt")).unwrap(), "kept\n");
    // Said plainly, it is done.
    model.replies(&[PROGRAM, "```bash\ngrep ERROR app.log > errors.txt\n```", &look_yes()]);
    let out = world.run_hosted(&model, work.path(), &["--json", "Write the ERROR lines of app.log to errors.txt."]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(work.path().join("errors.txt")).unwrap(), "ERROR disk\n");
}
