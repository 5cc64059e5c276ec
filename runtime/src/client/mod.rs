//! The calling side: a client that speaks both eras and runs the multi-round loop.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use roundtrip::client::Client;
//! use roundtrip::protocol::{CallToolResult, ElicitAction, ElicitResult, Tool, empty_input_schema};
//! use roundtrip::server::{InputRequired, Outcome, ToolDef};
//! use roundtrip::Server;
//!
//! let schema: roundtrip::protocol::JsonObject = serde_json::from_value(serde_json::json!(
//!     {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
//! ))?;
//! let server = Server::new("greeter", "1.0.0").tool(ToolDef::new(
//!     Tool::new("greet", empty_input_schema()),
//!     move |cx| {
//!         let schema = schema.clone();
//!         async move {
//!             Ok(match cx.elicit_result("who") {
//!                 Some(answer) => Outcome::Complete(CallToolResult::text(format!(
//!                     "Hello, {}!",
//!                     answer.content.as_ref().and_then(|c| c.get("name")).and_then(|n| n.as_str()).unwrap_or("?")
//!                 ))),
//!                 None => InputRequired::new().elicit("who", "Your name?", schema).into(),
//!             })
//!         }
//!     },
//! ));
//!
//! let client = Client::builder("docs", "1.0.0")
//!     .on_elicit(|_params| async {
//!         Ok(ElicitResult {
//!             action: ElicitAction::Accept,
//!             content: serde_json::from_value(serde_json::json!({"name": "Ada"})).ok(),
//!         })
//!     })
//!     .connect_in_memory(server)
//!     .await?;
//! let result = client.call_tool("greet", serde_json::json!({})).await?;
//! assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
//! # Ok(()) }
//! ```

mod callbacks;
mod error;
#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(any(feature = "stdio", feature = "server"))]
mod line;
#[cfg(feature = "http")]
pub mod oauth;
pub(crate) mod params;
#[cfg(feature = "skills")]
pub mod skills;
mod tasks;
pub(crate) mod wire;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::try_join_all;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
#[cfg(feature = "stdio")]
use tokio::process::Command;

pub use error::ClientError;
pub use wire::AuthProvider;

use self::callbacks::{Callbacks, boxed};
#[cfg(feature = "http")]
use self::http::HttpWire;
#[cfg(any(feature = "stdio", feature = "server"))]
use self::line::LineWire;
use self::params::{HeaderParam, header_params, header_values};
use self::wire::{Headers, Incoming, Wire};
use crate::protocol::{
    CallToolResult, CreateMessageParams, CreateMessageResult, DiscoverResult, ElicitParams, ElicitResult,
    GetPromptResult, Implementation, InitializeResult, InputRequiredResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel, META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, Notification, ProtocolVersion, ReadResourceResult, Root,
    ServerCapabilities,
};
#[cfg(feature = "server")]
use crate::server::Server;

/// Which protocol era the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Probe `server/discover`; fall back to the `initialize` handshake at 2025-11-25.
    #[default]
    Auto,
    /// Speak exactly this revision (a legacy one uses the handshake).
    Pinned(ProtocolVersion),
    /// The `initialize` handshake at 2025-11-25.
    Legacy,
}

/// A request's outcome when the caller drives the rounds itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<T> {
    /// The final result.
    Complete(T),
    /// The server asks; answer and call again with the answers and the state.
    InputRequired(InputRequiredResult),
    /// The call became a task (tasks extension): follow it with
    /// [`Client::get_task`], [`Client::update_task`] and [`Client::cancel_task`].
    Task(crate::protocol::Task),
}

/// Builds a [`Client`]: identity, mode, callbacks, round budget.
#[derive(Clone)]
pub struct ClientBuilder {
    info: Implementation,
    mode: Mode,
    callbacks: Callbacks,
    max_rounds: usize,
    auth: Option<AuthProvider>,
    #[cfg(feature = "http")]
    oauth: Option<oauth::OAuth>,
    progress: bool,
    log_level: Option<LoggingLevel>,
    tasks: bool,
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

struct Inner {
    wire: Box<dyn Wire>,
    callbacks: Callbacks,
    info: Implementation,
    max_rounds: usize,
    /// The next progress token, when the client asks for progress.
    progress: Option<std::sync::atomic::AtomicU64>,
    /// The log level every 2026-07-28 request asks for.
    log_level: Option<LoggingLevel>,
    /// Whether requests declare the tasks extension.
    tasks: bool,
    version: ProtocolVersion,
    server_info: Option<Implementation>,
    server_capabilities: ServerCapabilities,
    instructions: Option<String>,
    /// The `x-mcp-header` arguments of each tool, from the latest `tools/list`.
    tool_headers: Mutex<HashMap<String, Vec<HeaderParam>>>,
    /// The tools marked idempotent (`annotations.idempotentHint`), from the latest `tools/list`.
    idempotent: Mutex<std::collections::HashSet<String>>,
    /// How many requests (and idempotent calls whose task lost its runner) were sent again.
    retries: std::sync::atomic::AtomicU64,
    /// The server process of a stdio connection (killed if dropped; [`Client::close`] lets it
    /// exit by itself first).
    child: Option<tokio::process::Child>,
}

impl Inner {
    async fn discover(&mut self) -> Result<(), ClientError> {
        self.version = ProtocolVersion::V2026_07_28;
        let result = match self.request("server/discover", JsonObject::new(), None, Vec::new()).await {
            // "Unsupported protocol version" naming ours among the supported ones (a server
            // may reject a first request whatever it carries): try once more.
            Err(ClientError::Rpc(e)) if e.code == crate::protocol::codes::UNSUPPORTED_PROTOCOL_VERSION => {
                let supported = e.data.as_ref().and_then(|d| d.get("supported")).and_then(Value::as_array);
                if !supported.is_some_and(|s| s.iter().any(|v| v.as_str() == Some(self.version.as_str()))) {
                    return Err(ClientError::Rpc(e));
                }
                self.request("server/discover", JsonObject::new(), None, Vec::new()).await?
            }
            other => other?,
        };
        // Some servers put `serverInfo` beside the result's fields rather than in `_meta`.
        let top_level_info = result.get("serverInfo").and_then(|v| serde_json::from_value(v.clone()).ok());
        let discovered: DiscoverResult = parse(result)?;
        if !discovered.supported_versions.iter().any(|v| v == self.version.as_str()) {
            return Err(ClientError::Protocol(format!("the server does not support {}", self.version)));
        }
        self.server_info = discovered
            .meta
            .get(crate::protocol::META_SERVER_INFO)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .or(top_level_info);
        self.server_capabilities = discovered.capabilities;
        self.instructions = discovered.instructions;
        Ok(())
    }

    async fn initialize(&mut self, version: ProtocolVersion) -> Result<(), ClientError> {
        self.version = version;
        let mut caps = serde_json::to_value(self.callbacks.capabilities()).unwrap_or(json!({}));
        if version < ProtocolVersion::V2025_11_25
            && let Some(e) = caps.get_mut("elicitation")
        {
            *e = json!({});
        }
        let params = json!({ "protocolVersion": version.as_str(), "capabilities": caps, "clientInfo": self.info });
        let result = self.wire.call("initialize", params, Headers::default()).await?;
        let init: InitializeResult = parse(result)?;
        self.version = ProtocolVersion::parse(&init.protocol_version).filter(|v| !v.is_modern()).ok_or_else(|| {
            ClientError::Protocol(format!(
                "the server chose {}, which this client does not speak",
                init.protocol_version
            ))
        })?;
        self.server_info = Some(init.server_info);
        self.server_capabilities = init.capabilities;
        self.instructions = init.instructions;
        self.wire.notify(Notification::new("notifications/initialized", None)).await
    }

    /// One request with the envelope of the connection's era.
    async fn request(
        &self,
        method: &str,
        mut params: JsonObject,
        name: Option<String>,
        param_headers: Vec<(String, String)>,
    ) -> Result<Value, ClientError> {
        #[cfg(feature = "otel")]
        let target = name.clone();
        let headers = if self.version.is_modern() {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(META_PROTOCOL_VERSION.into(), json!(self.version.as_str()));
                let mut capabilities = self.callbacks.capabilities();
                if self.tasks {
                    let mut extensions = JsonObject::new();
                    extensions.insert(crate::protocol::TASKS_EXTENSION.into(), json!({}));
                    capabilities.extensions = Some(extensions);
                }
                meta.insert(META_CLIENT_CAPABILITIES.into(), json!(capabilities));
                meta.insert(META_CLIENT_INFO.into(), json!(self.info));
                if let Some(level) = self.log_level {
                    meta.insert(META_LOG_LEVEL.into(), json!(level));
                }
            }
            Headers { protocol_version: Some(self.version.as_str()), name, params: param_headers }
        } else {
            Headers::default()
        };
        #[cfg(feature = "otel")]
        let traced = crate::otel::ClientOp::start(
            method,
            target.as_deref(),
            self.version.as_str(),
            self.wire.network_transport(),
            &mut params,
        );
        let params = Value::Object(params);
        let outcome = self.send_retrying(method, params, headers);
        #[cfg(feature = "otel")]
        if let Some(op) = traced {
            use opentelemetry::context::FutureExt as _;
            let outcome = outcome.with_context(op.context()).await;
            op.finish(match &outcome {
                Ok(result) => Ok(result),
                Err(ClientError::Rpc(e)) => Err((Some(e.code), e.message.clone())),
                Err(e) => Err((None, e.to_string())),
            });
            return outcome;
        }
        outcome.await
    }

    /// Send `params`, and again under the retry rule.
    async fn send_retrying(&self, method: &str, params: Value, headers: Headers) -> Result<Value, ClientError> {
        let mut attempt = 0;
        loop {
            let outcome = self.wire.call(method, params.clone(), headers.clone()).await;
            let wait = match &outcome {
                Err(e) if attempt < RETRIES && self.may_retry(method, &params, e) => retry_wait(attempt, e),
                _ => return outcome,
            };
            tracing::debug!(target: "roundtrip::client", method, attempt, "retrying after {:?}: {:?}", wait, outcome);
            self.retries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// The retry rule. A request that provably never reached a server (the connection was
    /// refused or failed before anything was sent) is sent again, whatever it is. A 502 or 503
    /// (the server or a proxy in front of it may have run the request) is sent again only
    /// when running it twice does no harm: the task methods (`tasks/get` reads; `tasks/update`
    /// ignores answered keys; `tasks/cancel` is idempotent), reads and lists, and `tools/call`
    /// of a tool marked idempotent in the latest `tools/list`.
    fn may_retry(&self, method: &str, params: &Value, error: &ClientError) -> bool {
        match error {
            ClientError::Unreached(_) => true,
            ClientError::Unavailable { .. } => match method {
                "tools/call" => params
                    .get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| self.idempotent.lock().is_ok_and(|set| set.contains(n))),
                "tasks/get" | "tasks/update" | "tasks/cancel" | "resources/read" | "prompts/get"
                | "server/discover" | "ping" => true,
                m => m.ends_with("/list"),
            },
            _ => false,
        }
    }
}

/// How often a request is sent again under the retry rule (about 3 s of backoff in all: a
/// replica that stops gracefully, or a load balancer that has not yet noticed one is gone).
const RETRIES: u32 = 6;

/// 50 ms doubling per attempt, or the server's `Retry-After` (at most 2 s).
fn retry_wait(attempt: u32, error: &ClientError) -> Duration {
    match error {
        ClientError::Unavailable { retry_after: Some(s), .. } => Duration::from_secs((*s).min(2)),
        _ => Duration::from_millis(50 << attempt.min(5)),
    }
}

fn parse<T: DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    serde_json::from_value(value).map_err(|e| ClientError::Protocol(format!("unexpected result shape: {e}")))
}

/// A connected MCP client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("version", &self.inner.version).field("server", &self.inner.server_info).finish()
    }
}

impl Client {
    /// Start building a client with this identity.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            info: Implementation { name: name.into(), version: version.into(), title: None },
            mode: Mode::Auto,
            callbacks: Callbacks::default(),
            max_rounds: 10,
            auth: None,
            #[cfg(feature = "http")]
            oauth: None,
            progress: false,
            log_level: None,
            tasks: true,
        }
    }

    /// The revision this connection speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// Who the server said it is.
    pub fn server_info(&self) -> Option<&Implementation> {
        self.inner.server_info.as_ref()
    }

    /// End the connection. Over stdio, as the MCP lifecycle says: close the server's stdin and
    /// wait (up to 5 s) for it to exit by itself, so that it can finish what it is doing (drain
    /// its tasks, export its telemetry), and kill it only then. Dropping the last `Client`
    /// instead kills the server at once. With other clones of this client still alive, nothing
    /// is closed: the connection ends when the last one is dropped.
    pub async fn close(self) {
        const GRACE: Duration = Duration::from_secs(5);
        let Ok(inner) = Arc::try_unwrap(self.inner) else { return };
        let Inner { wire, child, .. } = inner;
        // The wire holds the only strong sender to the task that writes to stdin: dropped, that
        // task ends and stdin closes.
        drop(wire);
        if let Some(mut child) = child
            && tokio::time::timeout(GRACE, child.wait()).await.is_err()
        {
            tracing::warn!(target: "roundtrip::client", "the server did not exit within {GRACE:?} of its stdin closing: killed");
            let _ = child.kill().await;
        }
    }

    /// What the server offers.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.inner.server_capabilities
    }

    /// The server's instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// How many requests this client sent again under its retry rule (and idempotent calls it
    /// started again because the replica running their task stopped).
    pub fn retries(&self) -> u64 {
        self.inner.retries.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn is_idempotent(&self, tool: &str) -> bool {
        self.inner.idempotent.lock().is_ok_and(|set| set.contains(tool))
    }

    /// Send any request and return its raw result.
    pub async fn request(&self, method: &str, params: JsonObject) -> Result<Value, ClientError> {
        self.inner.request(method, params, None, Vec::new()).await
    }

    /// `tools/list`, one page.
    ///
    /// Tools with an invalid `x-mcp-header` declaration are left out (the 2026-07-28
    /// transport says clients must not use them); for the others, later calls mirror the
    /// declared arguments into `Mcp-Param-{Name}` headers over HTTP.
    pub async fn list_tools(&self) -> Result<ListToolsResult, ClientError> {
        let mut list: ListToolsResult = parse(self.request("tools/list", JsonObject::new()).await?)?;
        self.keep_valid_tools(&mut list.tools)?;
        Ok(list)
    }

    /// `tools/list` across every page (following `nextCursor`), invalid tools left out.
    pub async fn list_all_tools(&self) -> Result<Vec<crate::protocol::Tool>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = JsonObject::new();
            if let Some(c) = cursor.take() {
                params.insert("cursor".into(), json!(c));
            }
            let mut page: ListToolsResult = parse(self.request("tools/list", params).await?)?;
            self.keep_valid_tools(&mut page.tools)?;
            tools.append(&mut page.tools);
            match page.next_cursor {
                Some(c) if !c.is_empty() => cursor = Some(c),
                _ => return Ok(tools),
            }
        }
    }

    /// Drop the tools whose `x-mcp-header` declarations are invalid; remember the others'.
    fn keep_valid_tools(&self, tools: &mut Vec<crate::protocol::Tool>) -> Result<(), ClientError> {
        if let Ok(mut idempotent) = self.inner.idempotent.lock() {
            for tool in tools.iter() {
                if tool.annotations.as_ref().and_then(|a| a.idempotent_hint) == Some(true) {
                    idempotent.insert(tool.name.clone());
                } else {
                    idempotent.remove(&tool.name);
                }
            }
        }
        let mut known = self.inner.tool_headers.lock().map_err(|_| ClientError::Protocol("poisoned lock".into()))?;
        tools.retain(|tool| match header_params(&tool.input_schema) {
            Ok(params) => {
                known.insert(tool.name.clone(), params);
                true
            }
            Err(why) => {
                tracing::warn!("leaving out tool `{}`: {why}", tool.name);
                known.remove(&tool.name);
                false
            }
        });
        Ok(())
    }

    /// `prompts/list`.
    pub async fn list_prompts(&self) -> Result<ListPromptsResult, ClientError> {
        parse(self.request("prompts/list", JsonObject::new()).await?)
    }

    /// `resources/list`.
    pub async fn list_resources(&self) -> Result<ListResourcesResult, ClientError> {
        parse(self.request("resources/list", JsonObject::new()).await?)
    }

    /// `resources/templates/list`.
    pub async fn list_resource_templates(&self) -> Result<ListResourceTemplatesResult, ClientError> {
        parse(self.request("resources/templates/list", JsonObject::new()).await?)
    }

    /// Call a tool, answering every round of questions with the callbacks.
    ///
    /// Over HTTP at 2026-07-28, arguments the tool marks `x-mcp-header` are mirrored into
    /// `Mcp-Param-*` headers; the declarations come from the latest [`list_tools`](Self::list_tools),
    /// so list first when a server may declare them.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        parse(self.run("tools/call", tool_params(name, arguments), name).await?)
    }

    /// Get a prompt, answering every round of questions with the callbacks.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult, ClientError> {
        parse(self.run("prompts/get", tool_params(name, arguments), name).await?)
    }

    /// Read a resource, answering every round of questions with the callbacks.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        parse(self.run("resources/read", uri_params(uri), uri).await?)
    }

    /// One leg of `tools/call`: the caller answers the questions and calls again with the
    /// answers and the state (which it may persist in between, even in another process).
    pub async fn call_tool_step(
        &self,
        name: &str,
        arguments: Value,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<CallToolResult>, ClientError> {
        self.step("tools/call", tool_params(name, arguments), name, input_responses, request_state).await
    }

    /// One leg of `prompts/get`.
    pub async fn get_prompt_step(
        &self,
        name: &str,
        arguments: Value,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<GetPromptResult>, ClientError> {
        self.step("prompts/get", tool_params(name, arguments), name, input_responses, request_state).await
    }

    /// One leg of `resources/read`.
    pub async fn read_resource_step(
        &self,
        uri: &str,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<ReadResourceResult>, ClientError> {
        self.step("resources/read", uri_params(uri), uri, input_responses, request_state).await
    }

    async fn step<T: DeserializeOwned>(
        &self,
        method: &str,
        base: JsonObject,
        name: &str,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<T>, ClientError> {
        let result = self.leg(method, base, name, input_responses, request_state).await?;
        match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") => Ok(Step::InputRequired(parse(result)?)),
            Some("task") => Ok(Step::Task(parse(result)?)),
            _ => Ok(Step::Complete(parse(result)?)),
        }
    }

    async fn leg(
        &self,
        method: &str,
        mut params: JsonObject,
        name: &str,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Value, ClientError> {
        if let Some(responses) = input_responses {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = request_state {
            params.insert("requestState".into(), Value::String(state));
        }
        if let Some(next) = &self.inner.progress {
            let token = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            params.insert("_meta".into(), json!({ "progressToken": token }));
        }
        let param_headers = if method == "tools/call" && self.inner.version.is_modern() {
            let known = self.inner.tool_headers.lock().map_err(|_| ClientError::Protocol("poisoned lock".into()))?;
            match (known.get(name), params.get("arguments")) {
                (Some(declared), Some(arguments)) => header_values(declared, arguments),
                _ => Vec::new(),
            }
        } else {
            Vec::new()
        };
        self.inner.request(method, params, Some(name.to_owned()), param_headers).await
    }

    /// The loop of [`run_legs`](Self::run_legs), in one span over its legs when telemetry is
    /// on.
    async fn run(&self, method: &str, base: JsonObject, name: &str) -> Result<Value, ClientError> {
        #[cfg(feature = "otel")]
        if let Some(flow) = crate::otel::Flow::start(method, name) {
            use opentelemetry::context::FutureExt as _;
            let outcome = self.run_legs(method, base, name).with_context(flow.context()).await;
            flow.finish(match &outcome {
                Ok(_) => "completed",
                Err(ClientError::TooManyRounds(_)) => "abandoned",
                Err(_) => "failed",
            });
            return outcome;
        }
        self.run_legs(method, base, name).await
    }

    /// The loop: answer each round's questions concurrently and retry with the answers and
    /// the echoed state until a complete result or the round budget.
    async fn run_legs(&self, method: &str, base: JsonObject, name: &str) -> Result<Value, ClientError> {
        const FIRST_BACKOFF: Duration = Duration::from_millis(50);
        const MAX_BACKOFF: Duration = Duration::from_millis(250);
        let mut responses = None;
        let mut state = None;
        let mut backoff = FIRST_BACKOFF;
        let mut restarts = 0;
        for _ in 0..self.inner.max_rounds {
            let sent_state = state.is_some();
            let result = match self.leg(method, base.clone(), name, responses.take(), state.take()).await {
                // A state refused on an idempotent call (a single-use state whose first use
                // reached a replica that died before answering, or one that expired while the
                // user thought): running the flow again from its first leg does no harm.
                Err(ClientError::Rpc(e))
                    if sent_state && refused_state(&e) && restarts < MAX_RESTARTS && self.is_idempotent(name) =>
                {
                    restarts += 1;
                    self.inner.retries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    continue;
                }
                other => other?,
            };
            match result.get("resultType").and_then(Value::as_str) {
                Some("input_required") => {}
                Some("task") => match self.follow_task(parse(result)?).await {
                    // The replica running it stopped: an idempotent call is started again.
                    Err(ClientError::Rpc(e)) if runner_lost(&e) && self.is_idempotent(name) => {
                        self.inner.retries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        continue;
                    }
                    other => return other,
                },
                _ => return Ok(result),
            }
            let round: InputRequiredResult = parse(result)?;
            state = round.request_state;
            match round.input_requests {
                Some(requests) if !requests.is_empty() => {
                    let answers = try_join_all(requests.into_iter().map(|(key, request)| {
                        let answer = self.inner.callbacks.answer(request);
                        async move { answer.await.map(|v| (key, v)) }
                    }))
                    .await?;
                    responses = Some(answers.into_iter().collect::<JsonObject>());
                    backoff = FIRST_BACKOFF;
                }
                _ => {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
        Err(ClientError::TooManyRounds(self.inner.max_rounds))
    }
}

/// How often an idempotent flow is started again after its state was refused.
const MAX_RESTARTS: u32 = 2;

/// The server's one answer to a `requestState` it does not accept.
fn refused_state(error: &crate::protocol::ErrorObject) -> bool {
    *error == crate::protocol::ErrorObject::invalid_request_state()
}

/// A task failed because the replica running it stopped.
fn runner_lost(error: &crate::protocol::ErrorObject) -> bool {
    error.data.as_ref().and_then(|d| d.get(crate::protocol::RUNNER_LOST)) == Some(&Value::Bool(true))
}

fn tool_params(name: &str, arguments: Value) -> JsonObject {
    let mut params = JsonObject::new();
    params.insert("name".into(), json!(name));
    if !arguments.is_null() {
        params.insert("arguments".into(), arguments);
    }
    params
}

fn uri_params(uri: &str) -> JsonObject {
    let mut params = JsonObject::new();
    params.insert("uri".into(), json!(uri));
    params
}
