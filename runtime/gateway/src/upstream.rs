//! Where an upstream server is and how to speak to it: a child process over stdio, a
//! streamable HTTP endpoint or a server in this process; the era; the credentials it gets.
//! Connecting makes a [`Client`] whose questions (a 2025-era upstream's in-call
//! elicitation, sampling and roots) go to whichever call holds its [`Route`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use roundtrip_client::{Client, ClientError, Mode};
use roundtrip_core::server::Server;
use roundtrip_wire::{CreateMessageResult, ElicitResult, InputRequest, ListRootsParams, ListRootsResult};
use serde_json::Value;

use crate::route::Route;

/// An MCP server the gateway fronts, and how to reach it.
///
/// ```
/// use roundtrip_gateway::Upstream;
/// use roundtrip_client::Mode;
///
/// let local = Upstream::stdio("target/debug/provision", ["--stdio"]);
/// let remote = Upstream::http("https://mcp.example.com/mcp")
///     .authorization("Bearer s3cret")
///     .mode(Mode::Auto);
/// # let _ = (local, remote);
/// ```
#[derive(Clone)]
pub struct Upstream {
    reach: Reach,
    mode: Mode,
    authorization: Option<String>,
    forward_authorization: bool,
    pub(crate) limits: HoldLimits,
}

#[derive(Clone)]
enum Reach {
    Stdio { program: PathBuf, args: Vec<String>, env: BTreeMap<String, String> },
    Http(String),
    InMemory(Server),
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reach = match &self.reach {
            Reach::Stdio { program, .. } => format!("stdio {}", program.display()),
            Reach::Http(url) => format!("http {url}"),
            Reach::InMemory(server) => format!("in memory {}", server.name()),
        };
        // The credentials are not shown.
        f.debug_struct("Upstream").field("reach", &reach).field("mode", &self.mode).finish_non_exhaustive()
    }
}

/// What an upstream may make the gateway hold: a 2025-era upstream's call that asked a question
/// inside itself stays open until the caller's next leg brings the answer; and connections
/// kept for the next leg ([`Upstream::hold_limits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HoldLimits {
    /// Calls held open at once, for all callers (default 256).
    pub max_held: usize,
    /// Calls held open at once for one caller (default 8).
    pub max_held_per_caller: usize,
    /// How long a held call waits for the caller's next leg before it is dropped (default 10
    /// minutes: a person answering a form).
    pub idle: std::time::Duration,
    /// Idle connections kept for the next leg (default 16). Over HTTP or in memory each leg
    /// in flight, and each call held open, has a connection of its own; a stdio upstream's
    /// legs share its one.
    pub spare_connections: usize,
}

impl Default for HoldLimits {
    fn default() -> Self {
        Self { max_held: 256, max_held_per_caller: 8, idle: std::time::Duration::from_secs(600), spare_connections: 16 }
    }
}

impl Upstream {
    fn new(reach: Reach) -> Self {
        Self {
            reach,
            mode: Mode::Auto,
            authorization: None,
            forward_authorization: false,
            limits: HoldLimits::default(),
        }
    }

    /// A server the gateway starts as a child process and speaks to over its stdin and
    /// stdout: one process, whose one connection every leg shares.
    pub fn stdio(program: impl Into<PathBuf>, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self::new(Reach::Stdio {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
        })
    }

    /// Set an environment variable of a stdio server's process.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Reach::Stdio { env, .. } = &mut self.reach {
            env.insert(name.into(), value.into());
        }
        self
    }

    /// A streamable HTTP endpoint, such as `http://127.0.0.1:8080/mcp`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(Reach::Http(url.into()))
    }

    /// A server in this process (no sockets): for tests, and for a part written with
    /// roundtrip that should be relayed rather than mounted.
    pub fn in_memory(server: Server) -> Self {
        Self::new(Reach::InMemory(server))
    }

    /// The era to speak (default [`Mode::Auto`]: 2026-07-28 when the server answers
    /// `server/discover`, else the 2025 handshake).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The `Authorization` header every HTTP request to the upstream carries (the gateway's
    /// own credentials there).
    pub fn authorization(mut self, value: impl Into<String>) -> Self {
        self.authorization = Some(value.into());
        self
    }

    /// Send each caller's own `Authorization` header to the upstream with the requests made
    /// for them (in place of [`authorization`](Self::authorization) when they sent one).
    ///
    /// Only for an upstream that accepts the gateway's callers' tokens (the same issuer, and
    /// an audience that names the upstream too): MCP's authorization rules forbid a server to
    /// pass on a token issued for itself to another service.
    pub fn forward_authorization(mut self) -> Self {
        self.forward_authorization = true;
        self
    }

    /// The limits on calls a 2025-era upstream holds open ([`HoldLimits`]).
    pub fn hold_limits(mut self, limits: HoldLimits) -> Self {
        self.limits = limits;
        self
    }

    pub(crate) fn forwards_authorization(&self) -> bool {
        self.forward_authorization
    }

    /// The upstream is one process, which every connection to it would start anew: all legs
    /// share one connection, as its state must.
    pub(crate) fn is_one_process(&self) -> bool {
        matches!(self.reach, Reach::Stdio { .. })
    }

    /// Connect, with what the upstream sends going to `route`.
    pub(crate) async fn connect(&self, route: Route) -> Result<Client, ClientError> {
        let fixed = self.authorization.clone();
        let forward = self.forward_authorization;
        let mut builder = Client::builder("roundtrip-gateway", env!("CARGO_PKG_VERSION"))
            .mode(self.mode)
            // The gateway drives the rounds itself, one leg for each of its caller's.
            .max_rounds(1)
            // For the task methods; a relayed leg declares what its caller declared.
            .tasks(true)
            .authorization(move || {
                let caller = if forward { CALLER_AUTHORIZATION.try_with(Clone::clone).ok().flatten() } else { None };
                caller.or_else(|| fixed.clone())
            });
        let elicit = route.clone();
        builder = builder.on_elicit(move |params| {
            let asked = elicit.ask(InputRequest::Elicit(params));
            async move { answer::<ElicitResult>(asked.await) }
        });
        let sample = route.clone();
        builder = builder.on_sample(move |params| {
            let asked = sample.ask(InputRequest::CreateMessage(params));
            async move { answer::<CreateMessageResult>(asked.await) }
        });
        let roots = route.clone();
        builder = builder.on_roots(move || {
            let asked = roots.ask(InputRequest::ListRoots(ListRootsParams::default()));
            async move { answer::<ListRootsResult>(asked.await).map(|r| r.roots) }
        });
        builder = builder.on_notification(move |n| route.notify(n));
        match &self.reach {
            Reach::Stdio { program, args, env } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env);
                builder.connect_stdio(command).await
            }
            Reach::Http(url) => builder.connect_http(url).await,
            Reach::InMemory(server) => builder.connect_in_memory(server.clone()).await,
        }
    }
}

fn answer<T: serde::de::DeserializeOwned>(value: Result<Value, ClientError>) -> Result<T, ClientError> {
    serde_json::from_value(value?).map_err(|e| ClientError::Callback(format!("the caller's answer is not one: {e}")))
}

tokio::task_local! {
    /// The `Authorization` header of the caller a request to the upstream is made for.
    pub(crate) static CALLER_AUTHORIZATION: Option<String>;
}
