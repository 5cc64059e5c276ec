//! How the client's messages travel: a newline-delimited connection (a child's stdio, or the
//! in-memory transport) or streamable HTTP. Both route the server's own requests (legacy
//! back-channel) to the callbacks and its notifications to the notification hook.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::ClientError;
use super::callbacks::Callbacks;
use super::oauth::{Authorizer, Denial, Recovery, bearer_challenge};
use crate::protocol::{ErrorObject, InputRequest, Message, Notification, Request, RequestId, Response};
use crate::transport::pending::Pending;

/// What the HTTP transport needs besides the body (2026 headers).
#[derive(Debug, Clone, Default)]
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
    fn on_notification(&self, n: Notification) {
        if let Some(hook) = &self.callbacks.notification {
            hook(n);
        }
    }

    async fn on_request(&self, request: Request) -> Response {
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

/// Streamable HTTP.
pub(crate) struct HttpWire {
    endpoint: Endpoint,
    next_id: AtomicI64,
    incoming: Incoming,
}

/// Where and as whom the client posts: the URL, the legacy session once one exists, the
/// authorization seam or OAuth. Cloned into the tasks that answer a server's requests.
#[derive(Clone)]
struct Endpoint {
    http: reqwest::Client,
    url: String,
    session: Arc<Mutex<Option<String>>>,
    auth: Option<AuthProvider>,
    oauth: Option<Arc<Authorizer>>,
}

impl HttpWire {
    pub fn new(url: &str, incoming: Incoming, auth: Option<AuthProvider>, oauth: Option<Arc<Authorizer>>) -> Self {
        let endpoint = Endpoint {
            http: reqwest::Client::new(),
            url: url.to_owned(),
            session: Arc::new(Mutex::new(None)),
            auth,
            oauth,
        };
        Self { endpoint, next_id: AtomicI64::new(1), incoming }
    }
}

impl Endpoint {
    /// The `Authorization` header value: OAuth's token when OAuth is on, else the provider's.
    fn authorization(&self) -> Option<String> {
        match &self.oauth {
            Some(oauth) => oauth.header(),
            None => self.auth.as_ref().and_then(|a| a()),
        }
    }

    /// Post and take the answer, signing in as the answer asks: with OAuth, a 401 runs the
    /// flow (or a refresh) and a 403 `insufficient_scope` re-authorizes with more scopes, each
    /// at most once per request, and the request goes again. Without OAuth a 401 is an error.
    async fn send(
        &self,
        body: &impl serde::Serialize,
        method: &str,
        headers: &Headers,
    ) -> Result<reqwest::Response, ClientError> {
        if let Some(oauth) = &self.oauth {
            oauth.before_request().await;
        }
        // Each denial is recovered from once (a refresh the server still refuses is followed
        // by one authorization), so a server that never accepts ends the request.
        let mut recovered: Vec<Denial> = Vec::new();
        let mut may_refresh = true;
        loop {
            let sent = self.authorization();
            let response = self.post(body, method, headers, sent.as_deref()).send().await.map_err(sending)?;
            let challenge = response
                .headers()
                .get_all("www-authenticate")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .find_map(bearer_challenge);
            let denial = match response.status().as_u16() {
                401 => Denial::Unauthorized,
                403 if challenge.as_ref().and_then(|c| c.error()) == Some("insufficient_scope") => {
                    Denial::InsufficientScope
                }
                _ => return Ok(response),
            };
            let status = response.status();
            let Some(oauth) = &self.oauth else {
                return Err(ClientError::Auth(format!(
                    "HTTP {status}: the server requires authorization{}",
                    if sent.is_some() { " and refused the credentials sent" } else { "" }
                )));
            };
            if recovered.contains(&denial) {
                return Err(ClientError::Auth(format!("HTTP {status} again after authorizing")));
            }
            match oauth.recover(denial, challenge.as_ref(), sent.as_deref(), may_refresh).await? {
                Recovery::Refreshed => may_refresh = false,
                Recovery::Authorized => recovered.push(denial),
            }
        }
    }

    fn post(
        &self,
        body: &impl serde::Serialize,
        method: &str,
        headers: &Headers,
        authorization: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let mut rb = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .json(body);
        if let Some(v) = headers.protocol_version {
            rb = rb.header("mcp-protocol-version", v).header("mcp-method", method);
            if let Some(name) = &headers.name {
                rb = rb.header("mcp-name", encode_header_value(name));
            }
            for (name, value) in &headers.params {
                rb = rb.header(name.as_str(), value.as_str());
            }
        }
        if let Some(session) = self.session.lock().ok().and_then(|s| s.clone()) {
            rb = rb.header("mcp-session-id", session);
        }
        if let Some(value) = authorization {
            rb = rb.header("authorization", value);
        }
        rb
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

fn transport(e: reqwest::Error) -> ClientError {
    ClientError::Transport(e.to_string())
}

/// A failure to send: unreached when the connection itself failed (nothing was sent).
fn sending(e: reqwest::Error) -> ClientError {
    if e.is_connect() { ClientError::Unreached(e.to_string()) } else { transport(e) }
}

impl Wire for HttpWire {
    fn call(&self, method: &str, params: Value, headers: Headers) -> BoxFuture<'static, Result<Value, ClientError>> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let request = Request::new(id.clone(), method, Some(params));
        let method = method.to_owned();
        let endpoint = self.endpoint.clone();
        let incoming = self.incoming.clone();
        Box::pin(async move {
            let response = endpoint.send(&request, &method, &headers).await?;
            if let Some(sid) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok())
                && let Ok(mut s) = endpoint.session.lock()
            {
                *s = Some(sid.to_owned());
            }
            let status = response.status();
            if status.as_u16() == 502 || status.as_u16() == 503 {
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok());
                return Err(ClientError::Unavailable { status: status.as_u16(), retry_after });
            }
            let is_sse = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|ct| ct.starts_with("text/event-stream"));
            let message = if is_sse {
                // Answers to the server's requests (legacy back-channel) carry no 2026 headers.
                let answer_back = move |r: Response| {
                    endpoint.post(&r, "", &Headers::default(), endpoint.authorization().as_deref()).send()
                };
                read_sse(response, &id, &incoming, answer_back).await?
            } else {
                let bytes = response.bytes().await.map_err(transport)?;
                if bytes.is_empty() {
                    return Err(ClientError::Transport(format!("HTTP {status} with an empty body")));
                }
                let value: Value = serde_json::from_slice(&bytes)
                    .map_err(|_| ClientError::Transport(format!("HTTP {status} with a body that is not JSON")))?;
                Message::from_value(value).map_err(|(_, e)| ClientError::Protocol(e.message))?
            };
            match message {
                Message::Response(r) => match r.body {
                    crate::protocol::ResponseBody::Result(v) => Ok(v),
                    crate::protocol::ResponseBody::Error(e) => Err(ClientError::Rpc(e)),
                },
                _ => Err(ClientError::Protocol("the server answered a request with something else".into())),
            }
        })
    }

    fn notify(&self, notification: Notification) -> BoxFuture<'static, Result<(), ClientError>> {
        let endpoint = self.endpoint.clone();
        Box::pin(async move {
            endpoint.send(&notification, &notification.method, &Headers::default()).await?;
            Ok(())
        })
    }
}

/// Read a request-scoped SSE stream until the response to `id`.
async fn read_sse<F, Fut>(
    response: reqwest::Response,
    id: &RequestId,
    incoming: &Incoming,
    answer_back: F,
) -> Result<Message, ClientError>
where
    F: Fn(Response) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Result<reqwest::Response, reqwest::Error>> + Send,
{
    let mut stream = response.bytes_stream();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = stream.next().await {
        buf.extend_from_slice(&chunk.map_err(transport)?);
        while let Some(end) = find_event_end(&buf) {
            let event: Vec<u8> = buf.drain(..end.0 + end.1).collect();
            let data: String = String::from_utf8_lossy(&event[..end.0])
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect::<Vec<_>>()
                .join("\n");
            if data.is_empty() {
                continue;
            }
            let Ok(value) = serde_json::from_str::<Value>(&data) else { continue };
            match Message::from_value(value) {
                Ok(Message::Response(r)) if r.id.as_ref() == Some(id) => return Ok(Message::Response(r)),
                Ok(Message::Notification(n)) => incoming.on_notification(n),
                Ok(Message::Request(r)) => {
                    let incoming = incoming.clone();
                    let answer_back = answer_back.clone();
                    tokio::spawn(async move {
                        let response = incoming.on_request(r).await;
                        if let Err(e) = answer_back(response).await {
                            tracing::warn!("could not answer the server's request: {e}");
                        }
                    });
                }
                _ => {}
            }
        }
    }
    Err(ClientError::Transport("the event stream ended before the response".into()))
}

/// The end of the first SSE event in `buf`: (index of the blank line, its length).
fn find_event_end(buf: &[u8]) -> Option<(usize, usize)> {
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2));
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| (i, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
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

    #[test]
    fn sse_events_end_at_a_blank_line() {
        assert_eq!(find_event_end(b"data: x\n\ndata: y"), Some((7, 2)));
        assert_eq!(find_event_end(b"data: x\r\n\r\n"), Some((7, 4)));
        assert_eq!(find_event_end(b"data: x\n"), None);
    }
}
