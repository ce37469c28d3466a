//! Tools and panes for agents: which panes an agent gets and what each offers (toolsets and profiles), a
//! short card per tool for the model's prompt, what this machine has installed, an environment in which no
//! pane stops in a pager or an editor, script mode's refusal of full-screen programs, and a bubblewrap
//! sandbox for the panes a model types into.
//!
//! # Brief overview
//!
//! - [`Toolset`]: panes by kind ([`PaneKind`]: shell, browser, data, docs), chosen by a profile (`minimal`,
//!   `standard`, `full`, or the user's own), kinds or tool names: `--tools standard`, `--tools shell,jq`.
//! - [`Catalog`] of [`ToolCard`]s: markdown files with a small header in `crates/toolbox/cards/` (adding a
//!   tool is adding a file), plus the user's in `~/.config/clive/cards/`.
//! - [`Toolbox`]: a toolset probed on this machine ([`Availability`]: `command -v`, versions cached).
//!   [`Toolbox::offered`] and [`Toolbox::offered_text`] are what routers and planners see (a missing tool
//!   is never offered); [`Toolbox::notes_for_pane`] and [`Toolbox::notes_for_tools`] are the cards a
//!   subtask's prompt carries.
//! - [`pane_environment`]: the caller's environment plus [`NEVER_HANG`] (`PAGER=cat`, `GIT_PAGER=cat`, …).
//! - [`find_full_screen`]: script mode refuses `vim`, `less`, `top` without `-b`, … with a reason.
//! - [`Sandbox`]: `bwrap` with a [`SandboxPolicy`]; [`Launcher`] opens a pane with the environment,
//!   sandboxed or not: the launch hook of a pane pool.
//! - [`Network`]: a sandboxed pane's network, off by default; [`hosts_in`] finds the hosts a task names,
//!   [`NetworkProxy`] lets a pane reach only those (over HTTP and HTTPS), [`bridge`] carries it inside.
//! - [`UserConfig`]: `~/.config/clive/config.yaml` (`tools:`, `profiles:`, `sandbox:`, `agents:`).
//!
//! # Example
//!
//! ```no_run
//! use clive_toolbox::{Catalog, Launcher, ProbeOptions, Sandbox, SandboxPolicy, Toolbox, Toolset, UserConfig};
//!
//! # async fn demo(session: tmux_habitat::Session) -> Result<(), clive_toolbox::Error> {
//! let config = UserConfig::load()?;
//! let catalog = Catalog::built_in();
//! let toolset = Toolset::parse("standard", &catalog, &config.profiles)?;
//! let toolbox = Toolbox::probe(catalog, toolset, &ProbeOptions::default()).await;
//! println!("{}", toolbox.offered_text()); // for the planner
//! let notes = toolbox.notes_for_pane("browser"); // for the browser subtask's prompt
//!
//! let sandbox = Sandbox::locate(SandboxPolicy::default()).await?; // an error naming the package without bwrap
//! let launcher = Launcher::new("/work/project").sandbox(Some(sandbox));
//! let pane = launcher.open(&session, "browser").await?;
//! let page = pane.run("lynx -dump -nolist https://example.org | head -n 20", std::time::Duration::from_secs(30)).await;
//! # let _ = (notes, page); Ok(()) }
//! ```

mod availability;
pub mod bridge;
mod card;
mod config;
mod environment;
mod error;
mod full_screen;
mod kind;
mod launch;
mod network;
mod proxy;
mod sandbox;
mod toolbox;
mod toolset;

pub use availability::{Availability, ProbeOptions, ToolStatus, VERSION_DEADLINE, find_on_path, parse_version};
pub use card::{Catalog, MAX_BODY_BYTES, ToolCard, render_cards};
pub use config::{AgentSettings, CONFIG_VARIABLE, ProviderSettings, SandboxSettings, UserConfig};
pub use environment::{ENVIRONMENT_BUDGET_BYTES, NEVER_HANG, NOT_INHERITED, pane_environment};
pub use error::{Error, Result};
pub use full_screen::{FullScreen, find_full_screen};
pub use kind::PaneKind;
pub use launch::{LaunchSpec, Launcher, NETWORK_LOG, READY_TIMEOUT};
pub use network::{Network, NetworkMode, hosts_in};
pub use proxy::{NetworkProxy, REFUSED_HEADER, RequestRecord, refusal_message, refused_in_log};
pub use sandbox::{
    Confinement, HIDDEN_IN_HOME, HIDDEN_SYSTEM, ProxyAccess, SANDBOX_TERM, Sandbox, SandboxError, SandboxPolicy,
    looks_secret,
};
pub use toolbox::{OfferedPane, OfferedTool, PaneReport, ToolReport, Toolbox, ToolsReport};
pub use toolset::{DEFAULT_PROFILE, PROFILES, Toolset, ToolsetPane};
