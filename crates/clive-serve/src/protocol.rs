//! What travels over the page's WebSockets.
//!
//! Pane socket (`/ws/pane/{key}?epoch=E&offset=N`), server to page:
//! - text `snapshot`: the pane drawn on a reset terminal (history, screen, cursor, modes) at stream
//!   position (`epoch`, `offset`); the page resets its terminal and writes `data`.
//! - binary: output; 8 bytes of big-endian stream offset, then the bytes the pane printed from there on.
//!   Chunks are contiguous within one epoch; a new epoch always starts with a snapshot.
//! - text `status`: title, agent, state, access and the approval dialog with its choices.
//!   The status also carries the pane's size in force and whether a page's fit request set it (this page's
//!   or another's), so every page shows the same size.
//! - text `answer`: whether an answered dialog's keys were sent.
//! - text `fit`: whether a fit request was applied, or why it was refused.
//! - text `error`: a request that was refused, and why.
//!
//! The socket closes with code 4404 when the pane is gone. Page to server: `input` (keys typed, only with
//! input access), `answer` (a dialog id and a choice index), `fit` (make the pane this page's terminal's
//! columns × rows, only with input access; the last request wins and the pane's size comes back when its
//! page leaves) and `unfit` (withdraw this page's request).
//!
//! Sessions socket (`/ws/sessions`): a `sessions` listing on connect and whenever it changes; a pane waiting
//! for approval names its dialog (`dialog`, `question`), so a page can call for attention once per dialog.

use serde::{Deserialize, Serialize};

use crate::policy::Access;

/// The close code of a pane socket whose pane is gone: the page stops reconnecting.
pub(crate) const CLOSE_GONE: u16 = 4404;

/// A message from the server on a pane socket.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum PaneMessage {
    Snapshot {
        /// A u64 as text: JavaScript numbers cannot hold every u64.
        epoch: String,
        offset: u64,
        cols: u16,
        rows: u16,
        data: String,
    },
    Status(PaneStatus),
    Answer {
        result: AnswerResult,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    Fit {
        result: FitResult,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    Error {
        message: String,
    },
}

/// A message from the page on a pane socket.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum PageMessage {
    /// Keys typed in the terminal, as the terminal encodes them (`\r` for Enter, `\x1b[A` for Up …).
    Input { data: String },
    /// Pick choice `choice` of the dialog `dialog`.
    Answer { dialog: String, choice: usize },
    /// Make the pane `cols` × `rows` (this page's terminal) while this page stays.
    Fit { cols: u16, rows: u16 },
    /// Withdraw this page's fit request.
    Unfit,
}

/// Whether a fit request took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FitResult {
    /// The pane now has the size asked for.
    Applied,
    /// The pane was not resized (no input access, a size out of range, a shared window, tmux failed).
    Refused,
}

/// Who set the size in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FitOwner {
    /// The page this status goes to.
    ThisPage,
    /// Another page.
    AnotherPage,
}

/// Whether an answer went to the pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerResult {
    /// The keys were sent, once.
    Sent,
    /// Nothing was sent: the dialog is gone, changed, or was answered already.
    Stale,
    /// Nothing was sent: this page may not answer dialogs here.
    Refused,
}

/// Where a pane stands, as the list and the pane view show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneState {
    /// Working.
    Running,
    /// A recognised approval dialog waits for a person.
    Waiting,
    /// The session's task ended; it is kept for a look until it expires.
    Finished,
    /// The pane's program exited.
    Dead,
}

/// A recognised approval dialog and its choices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DialogView {
    /// Names this appearance of the dialog; an answer must name it.
    pub id: String,
    /// The question.
    pub prompt: String,
    /// The choices' labels, top to bottom.
    pub choices: Vec<ChoiceView>,
}

/// One choice of a dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChoiceView {
    /// Its text.
    pub label: String,
}

/// A pane's status message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PaneStatus {
    pub(crate) title: String,
    pub(crate) agent: Option<String>,
    pub(crate) command: String,
    pub(crate) state: PaneState,
    pub(crate) access: Access,
    pub(crate) dialog: Option<DialogView>,
    /// The pane's size in force, in cells.
    pub(crate) cols: u16,
    pub(crate) rows: u16,
    /// Set when a page's fit request made that size.
    pub(crate) fit: Option<FitOwner>,
}

/// One pane in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PaneSummary {
    /// Names the pane in URLs (`/ws/pane/{key}`): catalog number and pane number, stable while both live.
    pub key: String,
    /// The catalog it came from.
    pub catalog: String,
    /// The tmux session.
    pub session: String,
    /// `window.pane` within the session.
    pub pane: String,
    /// How many panes its session has.
    pub panes_in_session: usize,
    /// The agent recognised in the pane (`claude`, `codex`, …).
    pub agent: Option<String>,
    /// The pane's foreground command.
    pub command: String,
    /// Where it stands.
    pub state: PaneState,
    /// The session's task, when known.
    pub task: Option<String>,
    /// Start time, seconds since the Unix epoch.
    pub started: Option<u64>,
    /// The task's exit code, once finished.
    pub exit_code: Option<i32>,
    /// What the page may do here.
    pub access: Access,
    /// The id of the approval dialog waiting for an answer (none once answered from a page).
    pub dialog: Option<String>,
    /// That dialog's question.
    pub question: Option<String>,
    /// Size in cells.
    pub cols: u16,
    /// Size in cells.
    pub rows: u16,
    /// What the session's task has changed in its working directory so far ([`crate::SessionMeta::changes`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
}

/// A session that ended and left a recording or a log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchivedSummary {
    /// The file stem (`clive-ab12cd`); `/api/recordings/{id}` and `/api/logs/{id}` serve the files.
    pub id: String,
    /// The recording's title.
    pub title: Option<String>,
    /// An asciicast recording exists.
    pub recording: bool,
    /// A text log exists.
    pub log: bool,
    /// Last modified, seconds since the Unix epoch.
    pub modified: u64,
}

/// The sessions list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "sessions")]
pub struct Listing {
    /// The server's clock, seconds since the Unix epoch (ages are computed against it).
    pub now: u64,
    /// Live panes, by catalog and session.
    pub panes: Vec<PaneSummary>,
    /// Archived sessions, newest first.
    pub archived: Vec<ArchivedSummary>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_messages_look_like_this() {
        let snapshot = PaneMessage::Snapshot {
            epoch: "18446744073709551615".into(),
            offset: 42,
            cols: 80,
            rows: 24,
            data: "\u{1b}[H$ ".into(),
        };
        let status = PaneMessage::Status(PaneStatus {
            title: "clive-ab12 0.0".into(),
            agent: Some("claude".into()),
            command: "node".into(),
            state: PaneState::Waiting,
            access: Access::Approvals,
            dialog: Some(DialogView {
                id: "7".into(),
                prompt: "Do you want to proceed?".into(),
                choices: vec![ChoiceView { label: "Yes".into() }, ChoiceView { label: "No (esc)".into() }],
            }),
            cols: 48,
            rows: 30,
            fit: Some(FitOwner::AnotherPage),
        });
        let answer = PaneMessage::Answer { result: AnswerResult::Stale, reason: Some("the dialog is gone".into()) };
        let fitted = PaneMessage::Fit { result: FitResult::Applied, reason: None };
        let refused = PaneMessage::Fit { result: FitResult::Refused, reason: Some(crate::http::FIT_READ_ONLY.into()) };
        let lines: Vec<String> =
            [snapshot, status, answer, fitted, refused].iter().map(|m| serde_json::to_string(m).unwrap()).collect();
        insta::assert_snapshot!(lines.join("\n"), @r#"
        {"type":"snapshot","epoch":"18446744073709551615","offset":42,"cols":80,"rows":24,"data":"\u001b[H$ "}
        {"type":"status","title":"clive-ab12 0.0","agent":"claude","command":"node","state":"waiting","access":"approvals","dialog":{"id":"7","prompt":"Do you want to proceed?","choices":[{"label":"Yes"},{"label":"No (esc)"}]},"cols":48,"rows":30,"fit":"another_page"}
        {"type":"answer","result":"stale","reason":"the dialog is gone"}
        {"type":"fit","result":"applied"}
        {"type":"fit","result":"refused","reason":"read-only: fitting the pane to this screen resizes it, which changes what the agent sees and redraws; start `clive serve` with --allow-input (or --allow-input-for SESSION)"}
        "#);
        let input: PageMessage = serde_json::from_str(r#"{"type":"input","data":"ls\r"}"#).unwrap();
        assert_eq!(input, PageMessage::Input { data: "ls\r".into() });
        let answer: PageMessage = serde_json::from_str(r#"{"type":"answer","dialog":"7","choice":1}"#).unwrap();
        assert_eq!(answer, PageMessage::Answer { dialog: "7".into(), choice: 1 });
        let fit: PageMessage = serde_json::from_str(r#"{"type":"fit","cols":48,"rows":30}"#).unwrap();
        assert_eq!(fit, PageMessage::Fit { cols: 48, rows: 30 });
        let unfit: PageMessage = serde_json::from_str(r#"{"type":"unfit"}"#).unwrap();
        assert_eq!(unfit, PageMessage::Unfit);
    }

    #[test]
    fn a_waiting_pane_in_the_listing_names_its_dialog() {
        let pane = PaneSummary {
            key: "0.3".into(),
            catalog: "clive".into(),
            session: "clive-ab12".into(),
            pane: "0.0".into(),
            panes_in_session: 1,
            agent: Some("claude".into()),
            command: "node".into(),
            state: PaneState::Waiting,
            task: Some("fix the build".into()),
            started: Some(1_700_000_000),
            exit_code: None,
            access: Access::ReadOnly,
            dialog: Some("7".into()),
            question: Some("Do you want to proceed?".into()),
            cols: 90,
            rows: 24,
            changes: vec!["created out.txt (12 bytes)".into()],
        };
        let listing = Listing { now: 1_700_000_060, panes: vec![pane], archived: Vec::new() };
        insta::assert_snapshot!(serde_json::to_string(&listing).unwrap(), @r#"{"type":"sessions","now":1700000060,"panes":[{"key":"0.3","catalog":"clive","session":"clive-ab12","pane":"0.0","panes_in_session":1,"agent":"claude","command":"node","state":"waiting","task":"fix the build","started":1700000000,"exit_code":null,"access":"read_only","dialog":"7","question":"Do you want to proceed?","cols":90,"rows":24,"changes":["created out.txt (12 bytes)"]}],"archived":[]}"#);
    }
}
