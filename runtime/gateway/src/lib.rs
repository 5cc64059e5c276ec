//! A gateway: MCP servers of any SDK and either era, reached over stdio, HTTP or in this
//! process, mounted into one roundtrip [`Server`](roundtrip_core::server::Server) under
//! namespaces.
//!
//! - **Lists merged**: each upstream's tools and prompts are served as `{namespace}_{name}`,
//!   its resources and templates at their URIs; its list changes are followed while the
//!   gateway serves (a 2026-07-28 upstream's through a `subscriptions/listen` the gateway
//!   keeps open).
//! - **Multi-round trips relayed**: a 2026-07-28 upstream's `input_required` reaches the
//!   caller as the gateway's own round, under the same keys. The upstream's `requestState`
//!   travels inside the gateway's sealed state (encrypted, bound to the caller, the mounted
//!   name and the arguments): the caller never sees it, and another caller cannot replay it.
//! - **The eras bridged**: a 2025-era caller gets a 2026 upstream's questions as
//!   `elicitation/create` inside its call (the gateway serves 2025-era callers as every
//!   roundtrip server does). A 2026 caller gets a 2025-era upstream's in-call questions as
//!   rounds: the gateway holds the upstream call open between the caller's legs, within
//!   [`HoldLimits`]. In a fleet, such a call's next leg must reach the replica that holds it
//!   (route by the caller, or keep such upstreams on one replica); the relays of 2026
//!   upstreams hold nothing and need no routing.
//! - **Identity**: each upstream gets the gateway's own credentials
//!   ([`Upstream::authorization`]) or, where configured, the caller's
//!   ([`Upstream::forward_authorization`]).
//! - **Tasks**: a caller that declares the tasks extension has it passed on; when a 2026-07-28
//!   upstream makes the call a task, a task of the gateway's follows it (questions, progress,
//!   cancellation, the end).
//! - **Progress, logs, completions**: the upstream's progress and log notifications during a
//!   leg are the caller's; `completion/complete` of a relayed prompt or template is asked of
//!   the upstream.
//! - **Skills**: an upstream's skills are copied when the gateway connects (checked against
//!   their listing) and served with the gateway's.
//! - **A stdio upstream is one process**: its legs share its one connection, as its state
//!   must; over HTTP or in memory each leg has a connection of its own.
//!
//! A resource URI is never rewritten: it also names the resource inside results (links,
//! embedded resources, a tool's view). Two upstreams serving one URI is a start-up error.
//!
//! The `roundtrip-gateway` program serves a gateway described by a configuration file
//! ([`config`]) without any Rust.

mod error;
mod follow;
mod hold;
mod pool;
mod proxy;
mod relay;
mod route;
mod skills;
mod upstream;

pub mod config;

pub use error::GatewayError;
pub use proxy::Proxy;
pub use upstream::{HoldLimits, Upstream};
