//! `clive serve` (clive's sessions, and lanes on other tmux sockets, in a browser) and `clive replay` (a
//! session's recording played in this terminal). The server itself is the clive-serve crate; this module
//! tells it where clive keeps things.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use clive_serve::{
    Access, AccessToken, Catalog, InputPolicy, OnWaiting, ReplayOptions, ServeConfig, SessionMeta, TmuxCatalog,
};
use serde::Serialize;
use tmux_habitat::{Server, SocketSpec};

use clive_core::Error;
use clive_core::Settings;
use clive_core::session_record::{self, SessionState};

/// How often a running `clive serve` archives expired sessions (as every `clive` start does).
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// What `clive serve` was asked for.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on.
    pub bind: IpAddr,
    /// Port (0: any free one).
    pub port: u16,
    /// Who may type where.
    pub policy: InputPolicy,
    /// Other tmux sockets whose sessions are shown too.
    pub sockets: Vec<String>,
    /// Only sessions named with this prefix, on the other sockets.
    pub prefix: String,
    /// Make a new access token instead of reusing the saved one.
    pub new_token: bool,
    /// A shell command run once per new approval dialog.
    pub on_waiting: Option<String>,
}

/// The input policy the flags ask for.
pub fn input_policy(allow_input: bool, allow_approvals: bool, input_for: &[String]) -> InputPolicy {
    let base = if allow_input {
        InputPolicy::everywhere(Access::Input)
    } else if allow_approvals {
        InputPolicy::everywhere(Access::Approvals)
    } else {
        InputPolicy::read_only()
    };
    input_for.iter().fold(base, |policy, session| policy.allow_session(session.clone(), Access::Input))
}

/// Where `clive serve` listens, as printed at start (`--json`).
#[derive(Debug, Clone, Serialize)]
pub struct Serving {
    /// The URL to open (it carries the access token).
    pub url: String,
    /// The address bound.
    pub addr: SocketAddr,
}

/// clive's own sessions, with what its session records say (task, start, exit code) and what their tasks have
/// changed (the journals in their run directories).
struct CliveCatalog {
    server: Server,
    settings: Settings,
}

#[async_trait]
impl Catalog for CliveCatalog {
    fn name(&self) -> &str {
        "clive"
    }

    fn server(&self) -> &Server {
        &self.server
    }

    async fn sessions(&self) -> clive_serve::Result<Vec<SessionMeta>> {
        let records = session_record::list_sessions(&self.server)
            .await
            .map_err(|e| clive_serve::Error::Catalog { source_name: "clive".into(), reason: e.to_string() })?;
        Ok(records
            .into_iter()
            .map(|r| {
                let changes = clive_core::undo::applied_changes(&self.settings, &r.session);
                SessionMeta {
                    name: r.session,
                    task: Some(r.task),
                    started: Some(r.started),
                    finished: (r.state == SessionState::Finished).then_some(r.exit_code),
                    changes: changes.iter().map(ToString::to_string).collect(),
                }
            })
            .collect())
    }
}

/// Starts the server, prints where it listens (the URL on stdout, notes on stderr) through `announce`, and
/// runs until Ctrl-C. Expired sessions are archived every minute, as any `clive` start would.
pub async fn serve(settings: &Settings, options: &ServeOptions, announce: impl FnOnce(&Serving)) -> Result<i32, Error> {
    let on_waiting = match &options.on_waiting {
        Some(command) => Some(OnWaiting::new(command.clone()).map_err(|e| Error::Invalid {
            what: "--on-waiting",
            value: command.clone(),
            reason: e.to_string(),
        })?),
        None => None,
    };
    let token_file = settings.serve_token_file();
    if options.new_token {
        match std::fs::remove_file(&token_file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("removing the old access token", token_file, e)),
        }
    }
    let token = AccessToken::load_or_create(&token_file).map_err(|e| serve_error(&token_file, e))?;
    let mut catalogs: Vec<Arc<dyn Catalog>> =
        vec![Arc::new(CliveCatalog { server: settings.watch_server().await?, settings: settings.clone() })];
    for socket in &options.sockets {
        let spec = socket_spec(socket);
        let catalog = TmuxCatalog::socket(spec, options.prefix.clone())
            .await
            .map_err(|e| serve_error(&PathBuf::from(socket), e))?;
        catalogs.push(Arc::new(catalog));
    }
    let mut config = ServeConfig::new(token);
    config.addr = SocketAddr::new(options.bind, options.port);
    config.policy = options.policy.clone();
    config.recordings = Some(settings.recordings_dir());
    config.logs = Some(settings.log_dir());
    config.on_waiting = on_waiting;
    let handle = clive_serve::serve(config, catalogs).await.map_err(|e| serve_error(&token_file, e))?;
    if !options.bind.is_loopback() {
        eprintln!(
            "clive serve: listening on {} (not loopback): anyone who can reach this port and has the URL can watch{}; \
             prefer --bind 127.0.0.1 with `ssh -L` (docs/serve.md)",
            handle.addr(),
            if options.policy == InputPolicy::read_only() { "" } else { " and type" }
        );
    }
    announce(&Serving { url: handle.url(), addr: handle.addr() });

    let sweeper = settings.server().await?;
    let mut next_sweep = tokio::time::Instant::now() + SWEEP_EVERY;
    let stop = tokio::signal::ctrl_c();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            () = tokio::time::sleep_until(next_sweep) => {
                next_sweep = tokio::time::Instant::now() + SWEEP_EVERY;
                if settings.server_may_run()
                    && let Err(e) = clive_core::archive::sweep(&sweeper, settings, session_record::unix_now(), false).await
                {
                    tracing::warn!(error = %e, "archiving expired sessions failed");
                }
            }
        }
    }
    handle.stop().await;
    Ok(crate::exit_code::SUCCESS)
}

/// `--socket` takes a path (with a `/`) or a name as for `tmux -L`.
fn socket_spec(socket: &str) -> SocketSpec {
    if socket.contains('/') { SocketSpec::Path(socket.into()) } else { SocketSpec::Name(socket.to_owned()) }
}

fn serve_error(path: &std::path::Path, error: clive_serve::Error) -> Error {
    match error {
        clive_serve::Error::Tmux(e) => Error::Tmux(e),
        clive_serve::Error::Bind { addr, source } => Error::Invalid {
            what: "address",
            value: addr.to_string(),
            reason: format!("cannot listen there ({source}); is another `clive serve` running? choose another --port"),
        },
        clive_serve::Error::Io { what, source } => Error::Io {
            context: "clive serve",
            path: path.to_owned(),
            source: std::io::Error::new(source.kind(), format!("{what}: {source}")),
        },
        other => {
            Error::Invalid { what: "clive serve setting", value: path.display().to_string(), reason: other.to_string() }
        }
    }
}

/// A recording as `clive replay --json` describes it.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    /// The recording's id (file stem).
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// Terminal size.
    pub width: u16,
    /// Terminal size.
    pub height: u16,
    /// Its title.
    pub title: Option<String>,
    /// Seconds from the first to the last output.
    pub duration: f64,
    /// Everything it printed.
    pub output: String,
}

/// Finds the recording `id` names: a session name (`clive-ab12cd`), an id (`ab12cd`) or a unique prefix.
pub fn find_recording(settings: &Settings, id: &str) -> Result<PathBuf, Error> {
    let dir = settings.recordings_dir();
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            (path.extension()? == "cast").then(|| path.file_stem()?.to_str().map(str::to_owned)).flatten()
        })
        .collect();
    stems.sort();
    match session_record::match_id(&stems, id)? {
        Some(stem) => Ok(dir.join(format!("{stem}.cast"))),
        None => Err(Error::NoRecording { id: id.to_owned(), dir }),
    }
}

/// Reads the recording `id` names.
pub fn load_recording(settings: &Settings, id: &str) -> Result<(PathBuf, clive_serve::Cast), Error> {
    let path = find_recording(settings, id)?;
    let cast = clive_serve::read_cast(&path).map_err(|e| match e {
        clive_serve::Error::Io { source, .. } => Error::io("reading a recording", &path, source),
        other => Error::Invalid { what: "recording", value: path.display().to_string(), reason: other.to_string() },
    })?;
    Ok((path, cast))
}

/// Plays the recording `id` on stdout with its timing (`options`).
pub async fn replay(settings: &Settings, id: &str, options: ReplayOptions) -> Result<i32, Error> {
    let (path, cast) = load_recording(settings, id)?;
    let mut stdout = tokio::io::stdout();
    match clive_serve::replay(&cast, &mut stdout, options).await {
        Ok(()) => Ok(crate::exit_code::SUCCESS),
        // The reader went away (`clive replay x | head`): nothing left to show, and no one to tell.
        Err(clive_serve::Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(crate::exit_code::SUCCESS)
        }
        Err(clive_serve::Error::Io { source, .. }) => Err(Error::io("writing the replay", path, source)),
        Err(other) => {
            Err(Error::Invalid { what: "recording", value: path.display().to_string(), reason: other.to_string() })
        }
    }
}

/// The `--json` description of the recording `id`.
pub fn replay_report(settings: &Settings, id: &str) -> Result<ReplayReport, Error> {
    let (path, cast) = load_recording(settings, id)?;
    let first = cast.events.first().map_or(0.0, |e| e.time);
    let last = cast.events.last().map_or(0.0, |e| e.time);
    Ok(ReplayReport {
        id: path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned(),
        width: cast.header.width,
        height: cast.header.height,
        title: cast.header.title.clone(),
        duration: last - first,
        output: cast.output(),
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_make_the_policy() {
        assert_eq!(input_policy(false, false, &[]), InputPolicy::read_only());
        let policy = input_policy(false, true, &["clive-ab".into()]);
        assert_eq!(policy.access_for("clive-ab"), Access::Input);
        assert_eq!(policy.access_for("clive-cd"), Access::Approvals);
        assert_eq!(input_policy(true, false, &[]).access_for("any"), Access::Input);
    }

    #[test]
    fn recordings_are_found_by_id_or_prefix() {
        let home = tempfile::tempdir().unwrap();
        let settings = Settings { socket: SocketSpec::Name("t".into()), state_dir: home.path().to_owned(), tmux: None };
        let dir = settings.recordings_dir();
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["clive-ab12cd34", "clive-ab99", "lane-x"] {
            std::fs::write(dir.join(format!("{name}.cast")), "{\"version\":2,\"width\":1,\"height\":1}\n").unwrap();
        }
        assert_eq!(find_recording(&settings, "ab12").unwrap(), dir.join("clive-ab12cd34.cast"));
        assert_eq!(find_recording(&settings, "clive-ab99").unwrap(), dir.join("clive-ab99.cast"));
        assert_eq!(find_recording(&settings, "lane-x").unwrap(), dir.join("lane-x.cast"));
        assert!(matches!(find_recording(&settings, "ab"), Err(Error::AmbiguousSession { .. })));
        let missing = find_recording(&settings, "zz").unwrap_err();
        assert!(missing.to_string().contains("recordings"), "{missing}");
        assert_eq!(crate::CliError::from(missing).exit_code(), crate::exit_code::NOT_FOUND);
    }
}
