//! The calling side: a client that speaks both eras and runs the multi-round loop.
//!
//! The crate roundtrip-client, which applications name `roundtrip::client` (the feature `client`
//! of [roundtrip](https://docs.rs/roundtrip), with `stdio`, `http`, `server` for in-memory
//! connections, `skills`, `oauth-jwt` and `otel`).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use roundtrip::client::Client;
//! use roundtrip::protocol::{CallToolResult, ElicitResult, Tool, empty_input_schema};
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
//!         Ok(ElicitResult::accept(serde_json::json!({"name": "Ada"}).as_object().cloned().unwrap_or_default()))
//!     })
//!     .connect_in_memory(server)
//!     .await?;
//! let result = client.call_tool("greet", serde_json::json!({})).await?;
//! assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
//! # Ok(()) }
//! ```

// A client built with no transport (no `stdio`, `http` or `server`) compiles, but can connect
// to nothing: its connection code is unused.
#![cfg_attr(not(any(feature = "stdio", feature = "http", feature = "server")), allow(dead_code, unused_imports))]

mod builder;
mod callbacks;
mod connection;
mod error;
mod flow;
#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(any(feature = "stdio", feature = "server"))]
mod line;
#[cfg(feature = "http")]
pub mod oauth;
mod params;
#[cfg(feature = "skills")]
pub mod skills;
mod tasks;
mod wire;

/// What roundtrip's fuzz targets call: the client's header codec. Not a public API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::params::{HeaderParam, header_params, header_values};
    pub use crate::wire::encode_header_value;
}

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

pub use builder::ClientBuilder;
use connection::{Inner, parse};
pub use error::ClientError;
#[cfg(feature = "skills")]
use flow::uri_params;
use wire::AuthProvider;

use self::callbacks::Callbacks;
use self::params::header_params;
use roundtrip_wire::{
    Implementation, InputRequiredResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, ProtocolVersion, ServerCapabilities,
};

/// Which protocol era the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
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
    Task(roundtrip_wire::Task),
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
            info: Implementation::new(name, version),
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
    pub async fn list_all_tools(&self) -> Result<Vec<roundtrip_wire::Tool>, ClientError> {
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
    fn keep_valid_tools(&self, tools: &mut Vec<roundtrip_wire::Tool>) -> Result<(), ClientError> {
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
}
