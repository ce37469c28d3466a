//! The operations behind the subcommands other than plain sending: `ls`, `mail`, `inbox`.

use tmux_habitat::Server;

use crate::deliver::{DeliverOptions, deliver, inspect_lane, live_lanes};
use crate::error::Error;
use crate::frame::Recognition;
use crate::mailbox::{Mail, Mailbox, wake_line};
use crate::message::SignedMessage;
use crate::outcome::Outcome;
use crate::registry::{LaneRow, Registry, join_lanes};

/// What `ls` prints above its table: the state can change the moment after it is read.
pub const SNAPSHOT_NOTE: &str = "snapshot, not proof: frames are read now and may change before you send";

/// Live lanes joined with the registry, each with the frame detected now.
pub async fn list_lanes(server: &Server, options: &DeliverOptions) -> Result<Vec<LaneRow>, Error> {
    let registry = Registry::load(&options.dirs.registry_file())?;
    let mut live = Vec::new();
    for name in live_lanes(server).await? {
        let (agent, screen) = match inspect_lane(server, &name).await {
            Ok(recognition @ Recognition::Input(_)) => {
                let input = recognition.input().map(|input| (input.agent, input.is_empty(), input.busy));
                let state = match input {
                    Some((_, true, false)) => "idle, box empty",
                    Some((_, true, true)) => "busy, box empty",
                    Some((_, false, _)) => "box holds text",
                    None => "",
                };
                (recognition.agent(), format!("{} ({state})", recognition.describe()))
            }
            Ok(recognition) => (recognition.agent(), recognition.describe()),
            Err(error) => (None, format!("cannot read: {error}")),
        };
        live.push((name, agent, screen));
    }
    Ok(join_lanes(live, &registry))
}

/// Renders `ls` rows as an aligned text table under the snapshot note.
pub(crate) fn render_lanes(rows: &[LaneRow]) -> String {
    let mut out = format!("# {SNAPSHOT_NOTE}\n");
    let name_width = rows.iter().map(|row| row.name.chars().count()).max().unwrap_or(4).max(4);
    out.push_str(&format!(
        "{:<name_width$}  {:<4}  {:<6}  {:<8}  {:<12}  {}\n",
        "LANE", "LIVE", "AGENT", "REG", "MODEL", "SCREEN / PURPOSE"
    ));
    for row in rows {
        let registered = row.registered.as_ref();
        let agent = row.detected_agent.or(registered.and_then(|entry| entry.agent)).map_or("-", crate::Agent::name);
        let reg = match registered {
            Some(_) if row.live => "yes",
            Some(_) => "no-sess",
            None => "-",
        };
        let model = registered.and_then(|entry| entry.model.as_deref()).unwrap_or("-");
        let purpose = registered
            .and_then(|entry| entry.purpose.as_deref())
            .map(|purpose| format!(" — {purpose}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:<name_width$}  {:<4}  {:<6}  {:<8}  {:<12}  {}{purpose}\n",
            row.name,
            if row.live { "yes" } else { "no" },
            agent,
            reg,
            model,
            row.screen
        ));
    }
    out
}

/// The result of `mail`: the stored message's id and the outcome of the wake line.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MailOutcome {
    /// The mailbox id (the message is stored whatever the wake line's outcome).
    pub mail_id: i64,
    /// Delivery of the wake line.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Stores `message` in the mailbox (committed first), then delivers a short wake line.
pub async fn send_mail(
    server: &Server,
    lane: &str,
    message: &str,
    options: &DeliverOptions,
) -> Result<MailOutcome, Error> {
    let message = SignedMessage::parse(message)?;
    let mail_id = Mailbox::open(&options.dirs.state)?.store(lane, &message)?;
    let outcome = deliver(server, lane, &wake_line(message.sender(), lane, mail_id), options).await?;
    Ok(MailOutcome { mail_id, outcome })
}

/// Unread mail for a lane, optionally marking it read.
pub fn read_inbox(options: &DeliverOptions, lane: &str, mark_read: bool) -> Result<Vec<Mail>, Error> {
    Mailbox::open(&options.dirs.state)?.unread(lane, mark_read)
}

/// Renders mail for an agent hook to inject as context.
pub(crate) fn render_inbox(lane: &str, mails: &[Mail]) -> String {
    if mails.is_empty() {
        return format!("no unread mail for {lane}\n");
    }
    let mut out = format!("{} unread message(s) for {lane}:\n", mails.len());
    for mail in mails {
        out.push_str(&format!("#{} {} {}\n", mail.id, mail.sent_at, mail.message));
    }
    out
}
