//! How the client's messages travel: a newline-delimited connection (a child's stdio, or the
//! in-memory transport) or streamable HTTP. Both route the server's own requests (legacy
//! back-channel) to the callbacks and its notifications to the notification hook.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use base64::Engine as _;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::ClientError;
use super::callbacks::Callbacks;
use crate::protocol::{ErrorObject, InputRequest, Message, Notification, Request, RequestId, Response};
use crate::transport::pending::Pending;

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

/// A newline-delimited connection.
pub(crate) struct LineWire {
    outbox: mpsc::Sender<String>,
    pending: Arc<Pending>,
}

impl LineWire {
    pub fn new<R, W>(reader: R, writer: W, incoming: Incoming) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outbox, mut rx) = mpsc::channel::<String>(256);
        tokio::spawn(async move {
            let mut writer = writer;
            while let Some(mut line) = rx.recv().await {
                line.push('\n');
                if writer.write_all(line.as_bytes()).await.is_err() || writer.flush().await.is_err() {
                    break;
                }
            }
        });
        let pending = Arc::new(Pending::default());
        let reader_pending = pending.clone();
        let replies = outbox.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(reader).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(value) = serde_json::from_str::<Value>(&line) else {
                    tracing::warn!("the server sent a line that is not JSON");
                    continue;
                };
                match Message::from_value(value) {
                    Ok(Message::Response(r)) => {
                        reader_pending.resolve(r);
                    }
                    Ok(Message::Notification(n)) => incoming.on_notification(n),
                    Ok(Message::Request(r)) => {
                        let incoming = incoming.clone();
                        let replies = replies.clone();
                        tokio::spawn(async move {
                            let response = incoming.on_request(r).await;
                            if let Ok(line) = serde_json::to_string(&response) {
                                let _ = replies.send(line).await;
                            }
                        });
                    }
                    Err(_) => tracing::warn!("the server sent an invalid JSON-RPC message"),
                }
            }
            reader_pending.close();
        });
        Self { outbox, pending }
    }
}

/// Sends `notifications/cancelled` if the request is dropped before its answer.
struct CancelOnDrop {
    outbox: mpsc::Sender<String>,
    id: RequestId,
    done: AtomicBool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.done.load(Ordering::Relaxed) {
            let n = Notification::new("notifications/cancelled", Some(json!({ "requestId": self.id })));
            if let Ok(line) = serde_json::to_string(&n) {
                let _ = self.outbox.try_send(line);
            }
        }
    }
}

impl Wire for LineWire {
    fn call(&self, method: &str, params: Value, _: Headers) -> BoxFuture<'static, Result<Value, ClientError>> {
        let (request, answer) = self.pending.request(method, params);
        let outbox = self.outbox.clone();
        Box::pin(async move {
            let line = serde_json::to_string(&request).map_err(|e| ClientError::Protocol(e.to_string()))?;
            outbox.send(line).await.map_err(|_| ClientError::Transport("the connection is closed".into()))?;
            let guard = CancelOnDrop { outbox, id: request.id, done: AtomicBool::new(false) };
            let outcome = answer.await;
            guard.done.store(true, Ordering::Relaxed);
            outcome.map_err(ClientError::Rpc)
        })
    }

    fn notify(&self, notification: Notification) -> BoxFuture<'static, Result<(), ClientError>> {
        let outbox = self.outbox.clone();
        Box::pin(async move {
            let line = serde_json::to_string(&notification).map_err(|e| ClientError::Protocol(e.to_string()))?;
            outbox.send(line).await.map_err(|_| ClientError::Transport("the connection is closed".into()))
        })
    }
}

/// Encode a header value as the 2026 HTTP transport says: plain visible ASCII as-is,
/// anything else as `=?base64?…?=`.
pub(crate) fn encode_header_value(value: &str) -> String {
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
