//! One connection: the discovery or `initialize` handshake, sending a request with the
//! client's `_meta` and headers, and resending what may be resent.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::ClientError;
use crate::callbacks::Callbacks;
use crate::params::HeaderParam;
use crate::wire::{Headers, Wire};
use roundtrip_wire::{
    DiscoverResult, Implementation, InitializeResult, JsonObject, LoggingLevel, META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, Notification, ProtocolVersion, ServerCapabilities,
};

pub(super) struct Inner {
    pub(super) wire: Box<dyn Wire>,
    pub(super) callbacks: Callbacks,
    pub(super) info: Implementation,
    pub(super) max_rounds: usize,
    /// The next progress token, when the client asks for progress.
    pub(super) progress: Option<std::sync::atomic::AtomicU64>,
    /// The log level every 2026-07-28 request asks for.
    pub(super) log_level: Option<LoggingLevel>,
    /// Whether requests declare the tasks extension.
    pub(super) tasks: bool,
    pub(super) version: ProtocolVersion,
    pub(super) server_info: Option<Implementation>,
    pub(super) server_capabilities: ServerCapabilities,
    pub(super) instructions: Option<String>,
    /// The `x-mcp-header` arguments of each tool, from the latest `tools/list`.
    pub(super) tool_headers: Mutex<HashMap<String, Vec<HeaderParam>>>,
    /// The tools marked idempotent (`annotations.idempotentHint`), from the latest `tools/list`.
    pub(super) idempotent: Mutex<std::collections::HashSet<String>>,
    /// How many requests (and idempotent calls whose task lost its runner) were sent again.
    pub(super) retries: std::sync::atomic::AtomicU64,
    /// The server process of a stdio connection (killed if dropped; [`Client::close`] lets it
    /// exit by itself first).
    pub(super) child: Option<tokio::process::Child>,
}

impl Inner {
    pub(super) async fn discover(&mut self) -> Result<(), ClientError> {
        self.version = ProtocolVersion::V2026_07_28;
        let result = match self.request("server/discover", JsonObject::new(), None, Vec::new()).await {
            // "Unsupported protocol version" naming ours among the supported ones (a server
            // may reject a first request whatever it carries): try once more.
            Err(ClientError::Rpc(e)) if e.code == roundtrip_wire::codes::UNSUPPORTED_PROTOCOL_VERSION => {
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
            .get(roundtrip_wire::META_SERVER_INFO)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .or(top_level_info);
        self.server_capabilities = discovered.capabilities;
        self.instructions = discovered.instructions;
        Ok(())
    }

    pub(super) async fn initialize(&mut self, version: ProtocolVersion) -> Result<(), ClientError> {
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
    pub(super) async fn request(
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
                // Capabilities and a log level the caller put in `_meta` (a request relayed
                // for another client) are sent as given.
                meta.entry(META_CLIENT_CAPABILITIES).or_insert_with(|| {
                    let mut capabilities = self.callbacks.capabilities();
                    if self.tasks {
                        let mut extensions = JsonObject::new();
                        extensions.insert(roundtrip_wire::TASKS_EXTENSION.into(), json!({}));
                        capabilities.extensions = Some(extensions);
                    }
                    json!(capabilities)
                });
                meta.insert(META_CLIENT_INFO.into(), json!(self.info));
                if let Some(level) = self.log_level {
                    meta.entry(META_LOG_LEVEL).or_insert_with(|| json!(level));
                }
            }
            Headers { protocol_version: Some(self.version.as_str()), name, params: param_headers }
        } else {
            Headers::default()
        };
        #[cfg(feature = "otel")]
        let traced = roundtrip_otel::ClientOp::start(
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
    pub(super) async fn send_retrying(
        &self,
        method: &str,
        params: Value,
        headers: Headers,
    ) -> Result<Value, ClientError> {
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
    pub(super) fn may_retry(&self, method: &str, params: &Value, error: &ClientError) -> bool {
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

pub(super) fn parse<T: DeserializeOwned>(value: Value) -> Result<T, ClientError> {
    serde_json::from_value(value).map_err(|e| ClientError::Protocol(format!("unexpected result shape: {e}")))
}
