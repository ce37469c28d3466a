//! The sessions the server shows: catalogs asked every refresh, a feed started for every pane found, and
//! the list the page shows kept current from both.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, watch};

use crate::attention::{OnWaiting, Waiting};
use crate::catalog::{Catalog, PaneRow, SessionMeta, list_panes};
use crate::feed::{Feed, FeedSettings, Seen};
use crate::policy::{Access, InputPolicy};
use crate::protocol::{ArchivedSummary, Listing, PaneState, PaneStatus, PaneSummary};

/// Where archived sessions are found.
#[derive(Debug, Clone, Default)]
pub(crate) struct ArchiveDirs {
    pub(crate) recordings: Option<PathBuf>,
    pub(crate) logs: Option<PathBuf>,
}

/// A pane found in the last refresh, with what its catalog knows about its session.
#[derive(Debug, Clone)]
struct Found {
    key: String,
    catalog: usize,
    meta: SessionMeta,
    row: PaneRow,
    panes_in_session: usize,
}

/// Every pane the catalogs show, each with its feed.
pub(crate) struct Hub {
    catalogs: Vec<Arc<dyn Catalog>>,
    policy: InputPolicy,
    settings: FeedSettings,
    archive: ArchiveDirs,
    feeds: Mutex<HashMap<String, Arc<Feed>>>,
    found: Mutex<Vec<Found>>,
    archived: Mutex<(Option<std::time::SystemTime>, Vec<ArchivedSummary>)>,
    listing: watch::Sender<Arc<Listing>>,
    /// A feed saw something new, or ended: the listing is composed again (without asking tmux).
    feeds_changed: Arc<Notify>,
    /// Set once when the server stops: pumps and sockets end.
    shutdown: watch::Sender<bool>,
    /// Run once per new dialog.
    on_waiting: Option<OnWaiting>,
    /// `http://ADDR`, for the page's address in `--on-waiting`'s environment.
    base_url: String,
    /// The dialogs announced (`(pane key, dialog id)`), of those still on screen.
    announced: Mutex<std::collections::HashSet<(String, String)>>,
    /// Numbers the pages on pane sockets (fit requests are theirs).
    next_viewer: std::sync::atomic::AtomicU64,
}

/// How the hub calls for attention.
#[derive(Debug, Clone, Default)]
pub(crate) struct AttentionSettings {
    pub(crate) on_waiting: Option<OnWaiting>,
    pub(crate) base_url: String,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").field("catalogs", &self.catalogs.len()).finish_non_exhaustive()
    }
}

impl Hub {
    pub(crate) fn new(
        catalogs: Vec<Arc<dyn Catalog>>,
        policy: InputPolicy,
        settings: FeedSettings,
        archive: ArchiveDirs,
        attention: AttentionSettings,
    ) -> Arc<Hub> {
        let empty = Listing { now: unix_now(), panes: Vec::new(), archived: Vec::new() };
        Arc::new(Hub {
            catalogs,
            policy,
            settings,
            archive,
            feeds: Mutex::new(HashMap::new()),
            found: Mutex::new(Vec::new()),
            archived: Mutex::new((None, Vec::new())),
            listing: watch::channel(Arc::new(empty)).0,
            feeds_changed: Arc::new(Notify::new()),
            shutdown: watch::channel(false).0,
            on_waiting: attention.on_waiting,
            base_url: attention.base_url,
            announced: Mutex::new(std::collections::HashSet::new()),
            next_viewer: std::sync::atomic::AtomicU64::new(1),
        })
    }

    /// A new number for a page on a pane socket.
    pub(crate) fn next_viewer(&self) -> crate::fit::ViewerId {
        self.next_viewer.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Puts every fitted pane back to its size before the fit (the server is stopping; the pages' own
    /// release would race the tmux connections closing).
    pub(crate) async fn restore_sizes(&self) {
        let feeds: Vec<Arc<Feed>> = self.feeds().values().cloned().collect();
        for feed in feeds {
            if let Err(e) = feed.restore_size().await {
                tracing::warn!(pane = %feed.pane().id(), error = %e, "putting a fitted pane's size back failed");
            }
        }
    }

    fn feeds(&self) -> MutexGuard<'_, HashMap<String, Arc<Feed>>> {
        self.feeds.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn found(&self) -> MutexGuard<'_, Vec<Found>> {
        self.found.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends every pump and socket, and forgets every feed.
    pub(crate) fn shutdown(&self) {
        self.shutdown.send_replace(true);
        self.feeds().clear();
    }

    /// Detaches the catalogs' control clients, taking turns with processes that create sessions on the same
    /// tmux servers (tmux can crash when the two overlap).
    pub(crate) async fn close_servers(&self) {
        for catalog in &self.catalogs {
            catalog.server().close().await;
        }
    }

    /// Becomes true when the server stops.
    pub(crate) fn stopping(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// The listing, kept current.
    pub(crate) fn listing(&self) -> watch::Receiver<Arc<Listing>> {
        self.listing.subscribe()
    }

    /// The feed of the pane `key`, if it is live.
    pub(crate) fn feed(&self, key: &str) -> Option<Arc<Feed>> {
        self.feeds().get(key).filter(|f| !f.has_ended()).cloned()
    }

    /// What the page may do to the pane `key`.
    pub(crate) fn access(&self, key: &str) -> Access {
        self.found().iter().find(|f| f.key == key).map_or(Access::ReadOnly, |f| self.policy.access_for(&f.meta.name))
    }

    /// The status message of the pane `key`: what its catalog knows and what its feed sees.
    /// The size is the feed's (current at once after a fit); `fit` is left for the viewer to fill in.
    pub(crate) fn status(&self, key: &str, seen: &Seen) -> Option<PaneStatus> {
        let size = self.feeds().get(key).map(|feed| feed.size());
        let found = self.found();
        let f = found.iter().find(|f| f.key == key)?;
        let (cols, rows) = size.unwrap_or((f.row.width, f.row.height));
        Some(PaneStatus {
            cols,
            rows,
            fit: None,
            title: format!("{} {}", f.meta.name, f.row.index),
            agent: seen.agent.clone(),
            command: f.row.command.clone(),
            state: state_of(f, seen),
            access: self.policy.access_for(&f.meta.name),
            dialog: seen.dialog.clone().filter(|_| !seen.answered),
        })
    }

    /// Runs until the process ends: refreshes from the catalogs every `every`, and composes the listing
    /// again whenever a feed sees something new.
    pub(crate) async fn run(self: Arc<Hub>, every: Duration) {
        let mut next = tokio::time::Instant::now();
        let mut stopping = self.stopping();
        loop {
            tokio::select! {
                () = crate::hub::stopped(&mut stopping) => return,
                () = tokio::time::sleep_until(next) => {
                    self.refresh().await;
                    next = tokio::time::Instant::now() + every;
                }
                () = self.feeds_changed.notified() => self.compose(),
            }
        }
    }

    /// Asks every catalog for its sessions and tmux for their panes; starts feeds for new panes, asks
    /// resized ones to re-capture, and forgets panes that are gone.
    pub(crate) async fn refresh(&self) {
        let mut found = Vec::new();
        for (index, catalog) in self.catalogs.iter().enumerate() {
            match discover(index, catalog.as_ref()).await {
                Ok(panes) => found.extend(panes),
                Err(e) => tracing::warn!(catalog = catalog.name(), error = %e, "listing sessions failed"),
            }
        }
        for f in &found {
            let existing = self.feeds().get(&f.key).cloned();
            match existing {
                Some(feed) if !feed.has_ended() => {
                    if feed.size() != (f.row.width, f.row.height) {
                        feed.request_resync();
                    }
                }
                _ => {
                    let pane = match self.catalogs[f.catalog].server().pane(&f.row.pane).await {
                        Ok(pane) => pane,
                        Err(e) => {
                            tracing::debug!(pane = %f.row.pane, error = %e, "pane vanished before it was followed");
                            continue;
                        }
                    };
                    let (on_seen, stopping) = (Arc::clone(&self.feeds_changed), self.stopping());
                    match Feed::start(pane, self.settings, on_seen, stopping).await {
                        Ok(feed) => {
                            self.feeds().insert(f.key.clone(), feed);
                        }
                        Err(e) => tracing::warn!(pane = %f.row.pane, error = %e, "following a pane failed"),
                    }
                }
            }
        }
        {
            let keys: std::collections::HashSet<&str> = found.iter().map(|f| f.key.as_str()).collect();
            self.feeds().retain(|key, feed| keys.contains(key.as_str()) && !feed.has_ended());
        }
        *self.found() = found;
        self.refresh_archive();
        self.compose();
    }

    /// Lists archived recordings and logs again when their directories changed.
    fn refresh_archive(&self) {
        let stamp = [&self.archive.recordings, &self.archive.logs]
            .into_iter()
            .flatten()
            .filter_map(|dir| std::fs::metadata(dir).and_then(|m| m.modified()).ok())
            .max();
        let mut archived = self.archived.lock().unwrap_or_else(|p| p.into_inner());
        if stamp.is_some() && archived.0 == stamp {
            return;
        }
        *archived = (stamp, list_archive(&self.archive));
    }

    fn compose(&self) {
        let panes: Vec<PaneSummary> = {
            let found = self.found();
            let feeds = self.feeds();
            found
                .iter()
                .map(|f| {
                    let seen = feeds.get(&f.key).map(|feed| feed.seen().borrow().clone()).unwrap_or_default();
                    let waiting = seen.dialog.as_ref().filter(|_| !seen.answered);
                    PaneSummary {
                        key: f.key.clone(),
                        catalog: self.catalogs[f.catalog].name().to_owned(),
                        session: f.meta.name.clone(),
                        pane: f.row.index.clone(),
                        panes_in_session: f.panes_in_session,
                        agent: seen.agent.clone(),
                        command: f.row.command.clone(),
                        state: state_of(f, &seen),
                        task: f.meta.task.clone(),
                        started: f.meta.started,
                        exit_code: f.meta.finished.flatten(),
                        access: self.policy.access_for(&f.meta.name),
                        dialog: waiting.map(|d| d.id.clone()),
                        question: waiting.map(|d| d.prompt.clone()),
                        cols: f.row.width,
                        rows: f.row.height,
                        changes: f.meta.changes.clone(),
                    }
                })
                .collect()
        };
        self.announce(&panes);
        let live: std::collections::HashSet<&str> = panes.iter().map(|p| p.session.as_str()).collect();
        let archived: Vec<ArchivedSummary> = {
            let archived = self.archived.lock().unwrap_or_else(|p| p.into_inner());
            archived.1.iter().filter(|a| !live.contains(a.id.as_str())).cloned().collect()
        };
        let listing = Listing { now: unix_now(), panes, archived };
        self.listing.send_if_modified(|old| {
            // `now` alone does not make a new listing.
            let changed = old.panes != listing.panes || old.archived != listing.archived;
            if changed {
                *old = Arc::new(listing);
            }
            changed
        });
    }

    /// Runs `--on-waiting` for every dialog in `panes` not announced before, and forgets dialogs that are
    /// gone (their ids are never reused).
    fn announce(&self, panes: &[PaneSummary]) {
        let Some(hook) = &self.on_waiting else { return };
        let mut announced = self.announced.lock().unwrap_or_else(|p| p.into_inner());
        let now: std::collections::HashSet<(String, String)> =
            panes.iter().filter_map(|p| Some((p.key.clone(), p.dialog.clone()?))).collect();
        announced.retain(|pair| now.contains(pair));
        for pane in panes {
            let Some(dialog) = &pane.dialog else { continue };
            if !announced.insert((pane.key.clone(), dialog.clone())) {
                continue;
            }
            let choices = self
                .feeds()
                .get(&pane.key)
                .and_then(|feed| feed.seen().borrow().dialog.clone())
                .map(|d| d.choices.into_iter().map(|c| c.label).collect())
                .unwrap_or_default();
            hook.spawn(Waiting {
                session: pane.session.clone(),
                pane: pane.pane.clone(),
                key: pane.key.clone(),
                agent: pane.agent.clone().unwrap_or_default(),
                question: pane.question.clone().unwrap_or_default(),
                choices,
                dialog: dialog.clone(),
                url: format!("{}/#/pane/{}", self.base_url, pane.key),
            });
        }
    }

    /// The file of an archived recording (`.cast`) or log (`.log`), when there is one.
    pub(crate) fn archive_file(&self, id: &str, recording: bool) -> Option<PathBuf> {
        let (dir, extension) = if recording { (&self.archive.recordings, "cast") } else { (&self.archive.logs, "log") };
        let safe = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !safe || id.starts_with('.') {
            return None;
        }
        let path = dir.as_ref()?.join(format!("{id}.{extension}"));
        path.is_file().then_some(path)
    }
}

fn state_of(found: &Found, seen: &Seen) -> PaneState {
    if found.meta.finished.is_some() {
        PaneState::Finished
    } else if found.row.dead {
        PaneState::Dead
    } else if seen.dialog.is_some() {
        // Answered or not, the dialog is on screen until the agent redraws.
        PaneState::Waiting
    } else {
        PaneState::Running
    }
}

async fn discover(index: usize, catalog: &dyn Catalog) -> crate::Result<Vec<Found>> {
    let sessions = catalog.sessions().await?;
    if sessions.is_empty() {
        return Ok(Vec::new());
    }
    let by_name: BTreeMap<&str, &SessionMeta> = sessions.iter().map(|s| (s.name.as_str(), s)).collect();
    let rows: Vec<PaneRow> =
        list_panes(catalog.server()).await?.into_iter().filter(|r| by_name.contains_key(r.session.as_str())).collect();
    let mut per_session: HashMap<&str, usize> = HashMap::new();
    for row in &rows {
        *per_session.entry(row.session.as_str()).or_default() += 1;
    }
    let mut found: Vec<Found> = rows
        .iter()
        .filter_map(|row| {
            let meta = (*by_name.get(row.session.as_str())?).clone();
            Some(Found {
                key: format!("{index}.{}", row.pane.trim_start_matches('%')),
                catalog: index,
                panes_in_session: per_session.get(row.session.as_str()).copied().unwrap_or(1),
                meta,
                row: row.clone(),
            })
        })
        .collect();
    // Newest sessions first, panes in window order.
    found.sort_by(|a, b| b.meta.started.cmp(&a.meta.started).then(a.meta.name.cmp(&b.meta.name)));
    Ok(found)
}

fn list_archive(dirs: &ArchiveDirs) -> Vec<ArchivedSummary> {
    let mut by_id: BTreeMap<String, ArchivedSummary> = BTreeMap::new();
    for (dir, recording) in [(&dirs.recordings, true), (&dirs.logs, false)] {
        let Some(dir) = dir else { continue };
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let wanted = if recording { "cast" } else { "log" };
            if path.extension().and_then(|e| e.to_str()) != Some(wanted) {
                continue;
            }
            let Some(id) = path.file_stem().and_then(|s| s.to_str()).filter(|s| !s.starts_with('.')) else {
                continue;
            };
            let modified = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            let item = by_id.entry(id.to_owned()).or_insert_with(|| ArchivedSummary {
                id: id.to_owned(),
                title: None,
                recording: false,
                log: false,
                modified,
            });
            item.modified = item.modified.max(modified);
            if recording {
                item.recording = true;
                item.title = cast_title(&path);
            } else {
                item.log = true;
            }
        }
    }
    let mut archived: Vec<ArchivedSummary> = by_id.into_values().collect();
    archived.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
    archived
}

/// The title in a recording's header line.
fn cast_title(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(std::io::Read::take(file, 64 * 1024)).read_line(&mut first).ok()?;
    serde_json::from_str::<crate::cast::Header>(&first).ok()?.title
}

/// Returns once the server stops.
pub(crate) async fn stopped(stopping: &mut watch::Receiver<bool>) {
    // The guard `wait_for` returns is dropped at once: it must not live across an await.
    let _ = stopping.wait_for(|stop| *stop).await;
}

pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archive_pairs_recordings_and_logs_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let (casts, logs) = (dir.path().join("recordings"), dir.path().join("logs"));
        std::fs::create_dir_all(&casts).unwrap();
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(
            casts.join("clive-a.cast"),
            "{\"version\":2,\"width\":80,\"height\":24,\"title\":\"build it\"}\n",
        )
        .unwrap();
        std::fs::write(logs.join("clive-a.log"), "log").unwrap();
        std::fs::write(logs.join("clive-b.log"), "log").unwrap();
        std::fs::write(logs.join(".clive-c.log.partial"), "half").unwrap();
        let archived = list_archive(&ArchiveDirs { recordings: Some(casts), logs: Some(logs) });
        let mut ids: Vec<(&str, bool, bool, Option<&str>)> =
            archived.iter().map(|a| (a.id.as_str(), a.recording, a.log, a.title.as_deref())).collect();
        ids.sort();
        assert_eq!(ids, vec![("clive-a", true, true, Some("build it")), ("clive-b", false, true, None)]);
    }
}
