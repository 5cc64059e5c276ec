//! How the client's messages travel: a newline-delimited connection (a child's stdio, or the
//! in-memory transport) or streamable HTTP. Both route the server's own requests (legacy
//! back-channel) to the callbacks and its notifications to the notification hook.

use std::sync::Arc;

use base64::Engine as _;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::ClientError;
use crate::callbacks::Callbacks;
use roundtrip_wire::{ErrorObject, InputRequest, Notification, Request, Response};

/// What the HTTP transport needs besides the body (2026 headers).
#[derive(Debug, Clone, Default)]
#[cfg_attr(not(feature = "http"), allow(dead_code))] // only the HTTP wire reads them
pub(crate) struct Headers {
    pub protocol_version: Option<&'static str>,
    pub name: Option<String>,
    /// `Mcp-Param-{Name}` headers (name, encoded value) for `x-mcp-header` arguments.
    pub params: Vec<(String, String)>,
}

/// Supplies an `Authorization` header value per request (a seam for OAuth).
pub type AuthProvider = Arc<dyn Fn() -> Option<String> + Send + Sync>;

pub(crate) trait Wire: Send + Sync {
    /// Send a request and wait for its result (or JSON-RPC error).
    fn call(&self, method: &str, params: Value, headers: Headers) -> BoxFuture<'static, Result<Value, ClientError>>;
    /// Send a notification.
    fn notify(&self, notification: Notification) -> BoxFuture<'static, Result<(), ClientError>>;
    /// The transport as the telemetry conventions name it (`network.transport`): `pipe` for a
    /// newline-delimited connection, `tcp` under HTTP.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    fn network_transport(&self) -> &'static str {
        "pipe"
    }
}

/// The server's requests and notifications, answered from the callbacks.
#[derive(Debug, Clone)]
pub(crate) struct Incoming {
    pub callbacks: Callbacks,
}

impl Incoming {
    pub(crate) fn on_notification(&self, n: Notification) {
        if let Some(hook) = &self.callbacks.notification {
            hook(n);
        }
    }

    pub(crate) async fn on_request(&self, request: Request) -> Response {
        let as_input = json!({ "method": request.method, "params": request.params.clone().unwrap_or(json!({})) });
        let outcome = match serde_json::from_value::<InputRequest>(as_input) {
            Ok(input) => self.callbacks.answer(input).await.map_err(|e| match e {
                ClientError::ElicitationNotSupported
                | ClientError::SamplingNotSupported
                | ClientError::RootsNotSupported => ErrorObject::method_not_found(&e.to_string()),
                e => ErrorObject::internal(e.to_string()),
            }),
            Err(_) if request.method == "ping" => Ok(json!({})),
            Err(_) => Err(ErrorObject::method_not_found(&request.method)),
        };
        match outcome {
            Ok(v) => Response::result(request.id, v),
            Err(e) => Response::error(Some(request.id), e),
        }
    }
}

/// Encode a header value as the 2026 HTTP transport says: plain visible ASCII as-is,
/// anything else as `=?base64?…?=`.
pub fn encode_header_value(value: &str) -> String {
    let sentinel = value.starts_with("=?") && value.ends_with("?=");
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let plain = !value.is_empty() && value.bytes().all(|b| (0x20..0x7f).contains(&b)) && !padded && !sentinel;
    if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_are_encoded_only_when_needed() {
        assert_eq!(encode_header_value("test_simple_text"), "test_simple_text");
        assert_eq!(encode_header_value("notes://42"), "notes://42");
        assert_eq!(encode_header_value("héllo"), "=?base64?aMOpbGxv?=");
        assert_eq!(encode_header_value(" padded"), "=?base64?IHBhZGRlZA==?=");
    }
}
