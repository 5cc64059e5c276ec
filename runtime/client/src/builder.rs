//! Building a client: its callbacks and options, then a connection over stdio, HTTP or in
//! memory, and the handshake that finds the server's era.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::json;
#[cfg(feature = "stdio")]
use tokio::process::Command;

use super::{AuthProvider, Client, ClientError, Inner, Mode};
use crate::callbacks::{Callbacks, boxed};
#[cfg(feature = "http")]
use crate::http::HttpWire;
#[cfg(any(feature = "stdio", feature = "server"))]
use crate::line::LineWire;
#[cfg(feature = "http")]
use crate::oauth;
use crate::wire::{Incoming, Wire};
#[cfg(feature = "server")]
use roundtrip_core::server::Server;
#[cfg(feature = "server")]
use roundtrip_transport::ServeStream as _;
use roundtrip_wire::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, Implementation, JsonObject, LoggingLevel,
    Notification, ProtocolVersion, Root, ServerCapabilities,
};

/// Builds a [`Client`]: identity, mode, callbacks, round budget.
#[derive(Clone)]
pub struct ClientBuilder {
    pub(super) info: Implementation,
    pub(super) mode: Mode,
    pub(super) callbacks: Callbacks,
    pub(super) max_rounds: usize,
    pub(super) auth: Option<AuthProvider>,
    #[cfg(feature = "http")]
    pub(super) oauth: Option<oauth::OAuth>,
    pub(super) progress: bool,
    pub(super) log_level: Option<LoggingLevel>,
    pub(super) tasks: bool,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder").field("info", &self.info).field("mode", &self.mode).finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The mode (default [`Mode::Auto`]).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The most rounds one call may take (default 10).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Answer elicitations (form and URL mode); declares the `elicitation` capability.
    pub fn on_elicit<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ClientError>> + Send + 'static,
    {
        self.callbacks.elicit = Some(boxed(f));
        self
    }

    /// Declare form elicitation only, not URL mode (as some hosts do): the `on_elicit`
    /// callback is never given a URL question.
    pub fn without_url_elicitation(mut self) -> Self {
        self.callbacks.forms_only = true;
        self
    }

    /// Answer sampling requests; declares the `sampling` capability.
    pub fn on_sample<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ClientError>> + Send + 'static,
    {
        self.callbacks.sample = Some(boxed(f));
        self
    }

    /// Answer roots requests; declares the `roots` capability.
    pub fn on_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Root>, ClientError>> + Send + 'static,
    {
        self.callbacks.roots = Some(boxed(move |()| f()));
        self
    }

    /// Ask for progress: every leg of `tools/call`, `prompts/get` and `resources/read` carries
    /// a fresh `_meta.progressToken`, so the server may send `notifications/progress` (seen
    /// with [`on_notification`](Self::on_notification)). Off by default.
    pub fn progress_tokens(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }

    /// Ask for log notifications at `level` and above: on 2026-07-28 every request carries
    /// `_meta["io.modelcontextprotocol/logLevel"]`; on a legacy session the client sends
    /// `logging/setLevel` after the handshake. Without it a 2026-07-28 server sends no logs.
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Declare the tasks extension (`io.modelcontextprotocol/tasks`; on by default at
    /// 2026-07-28): a server may then answer a `tools/call` with a task, which `call_tool`
    /// follows to its end (polling `tasks/get` as the server asks, answering its questions
    /// through the same callbacks with `tasks/update`, cancelling it when the call is
    /// dropped) and returns as a plain call does.
    pub fn tasks(mut self, on: bool) -> Self {
        self.tasks = on;
        self
    }

    /// See every notification the server sends (progress, logs, list changes).
    pub fn on_notification(mut self, f: impl Fn(Notification) + Send + Sync + 'static) -> Self {
        self.callbacks.notification = Some(Arc::new(f));
        self
    }

    /// Supply an `Authorization` header value for every HTTP request.
    pub fn authorization(mut self, provider: impl Fn() -> Option<String> + Send + Sync + 'static) -> Self {
        self.auth = Some(Arc::new(provider));
        self
    }

    #[cfg(feature = "http")]
    /// Sign in with OAuth when an HTTP server asks (a 401): see [`oauth`]. Its token takes
    /// the place of an [`authorization`](Self::authorization) provider's header.
    pub fn oauth(mut self, oauth: oauth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Connect to a server in this process (no sockets; feature `server`).
    #[cfg(feature = "server")]
    pub async fn connect_in_memory(self, server: Server) -> Result<Client, ClientError> {
        let (reader, writer) = tokio::io::split(server.serve_in_memory());
        let wire = LineWire::new(reader, writer, Incoming { callbacks: self.callbacks.clone() });
        self.finish(Box::new(wire), None).await
    }

    /// Spawn a server process and talk to it over its stdin and stdout (feature `stdio`).
    #[cfg(feature = "stdio")]
    pub async fn connect_stdio(self, mut command: Command) -> Result<Client, ClientError> {
        command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).kill_on_drop(true);
        let mut child =
            command.spawn().map_err(|e| ClientError::Transport(format!("could not start the server: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Transport("the server process has no stdio pipes".into()));
        };
        let wire = LineWire::new(stdout, stdin, Incoming { callbacks: self.callbacks.clone() });
        self.finish(Box::new(wire), Some(child)).await
    }

    /// Connect to a streamable HTTP endpoint such as `http://127.0.0.1:8080/mcp` (feature
    /// `http`).
    #[cfg(feature = "http")]
    pub async fn connect_http(self, url: &str) -> Result<Client, ClientError> {
        let oauth = match &self.oauth {
            Some(config) => Some(Arc::new(oauth::Authorizer::new(config.clone(), url, &self.info.name)?)),
            None => None,
        };
        let wire = HttpWire::new(url, Incoming { callbacks: self.callbacks.clone() }, self.auth.clone(), oauth);
        self.finish(Box::new(wire), None).await
    }

    async fn finish(self, wire: Box<dyn Wire>, child: Option<tokio::process::Child>) -> Result<Client, ClientError> {
        let mut inner = Inner {
            wire,
            callbacks: self.callbacks,
            info: self.info,
            max_rounds: self.max_rounds,
            progress: self.progress.then(|| std::sync::atomic::AtomicU64::new(1)),
            log_level: self.log_level,
            tasks: self.tasks,
            version: ProtocolVersion::LATEST,
            server_info: None,
            server_capabilities: ServerCapabilities::default(),
            instructions: None,
            tool_headers: Mutex::new(HashMap::new()),
            idempotent: Mutex::new(Default::default()),
            retries: std::sync::atomic::AtomicU64::new(0),
            child,
        };
        match self.mode {
            Mode::Auto => match inner.discover().await {
                // Not a question of era: the server wants credentials this client cannot get.
                Err(e @ ClientError::Auth(_)) => return Err(e),
                Err(_) => inner.initialize(ProtocolVersion::LATEST_LEGACY).await?,
                Ok(()) => {}
            },
            Mode::Pinned(v) if v.is_modern() => inner.discover().await?,
            Mode::Pinned(v) => inner.initialize(v).await?,
            Mode::Legacy => inner.initialize(ProtocolVersion::LATEST_LEGACY).await?,
        }
        if let (Some(level), false) = (inner.log_level, inner.version.is_modern()) {
            let mut params = JsonObject::new();
            params.insert("level".into(), json!(level));
            // A server without logging answers -32601; the client then simply gets no logs.
            if let Err(e) = inner.request("logging/setLevel", params, None, Vec::new()).await {
                tracing::debug!(target: "roundtrip::client", "logging/setLevel refused: {e}");
            }
        }
        Ok(Client { inner: Arc::new(inner) })
    }
}
