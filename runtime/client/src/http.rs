//! The streamable HTTP transport of the client (feature `http`): requests as POSTs, replies
//! as JSON or SSE, the legacy session header, and the authorization seam or OAuth.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::ClientError;
use crate::oauth::{Authorizer, Challenge, Credentials, Denial, Recovery, parse_www_authenticate};
use crate::wire::{AuthProvider, Headers, Incoming, Wire, encode_header_value};
use roundtrip_wire::{Message, Notification, Request, RequestId, Response};

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
            // https trusts the system's roots (SSL_CERT_FILE, SSL_CERT_DIR, else the OS store).
            http: roundtrip_tls::http_client(|builder| builder),
            url: url.to_owned(),
            session: Arc::new(Mutex::new(None)),
            auth,
            oauth,
        };
        Self { endpoint, next_id: AtomicI64::new(1), incoming }
    }
}

impl Endpoint {
    /// The credentials of the next request: OAuth's token (with a fresh DPoP proof for a
    /// DPoP-bound one) when OAuth is on, else the provider's `Authorization` value.
    fn authorization(&self) -> Option<Credentials> {
        match &self.oauth {
            Some(oauth) => oauth.credentials(),
            None => self.auth.as_ref().and_then(|a| a()).map(|authorization| Credentials { authorization, dpop: None }),
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
        let mut nonce_retried = false;
        loop {
            let credentials = self.authorization();
            let sent = credentials.as_ref().map(|c| c.authorization.clone());
            let response = self.post(body, method, headers, credentials.as_ref()).send().await.map_err(sending)?;
            let challenge = auth_challenge(response.headers());
            // A DPoP nonce the server wants in the proof (RFC 9449 §9): send again with it, once.
            if response.status().as_u16() == 401
                && challenge.as_ref().is_some_and(|c| c.error() == Some("use_dpop_nonce"))
                && !nonce_retried
                && let Some(oauth) = &self.oauth
                && oauth.resource_nonce(response.headers())
            {
                nonce_retried = true;
                continue;
            }
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
        credentials: Option<&Credentials>,
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
        if let Some(credentials) = credentials {
            rb = rb.header("authorization", &credentials.authorization);
            if let Some(proof) = &credentials.dpop {
                rb = rb.header("dpop", proof);
            }
        }
        rb
    }
}

/// The challenge of a `401`/`403`: the `Bearer` one, else a `DPoP` one (RFC 9449 §7.1: a
/// server that takes DPoP-bound tokens challenges with that scheme, with the same parameters).
fn auth_challenge(headers: &reqwest::header::HeaderMap) -> Option<Challenge> {
    let all: Vec<Challenge> = headers
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(parse_www_authenticate)
        .collect();
    let pick = |scheme: &str| all.iter().find(|c| c.scheme.eq_ignore_ascii_case(scheme)).cloned();
    pick("bearer").or_else(|| pick("dpop"))
}

/// The error with its sources: reqwest's own message does not say why a connection failed (a
/// refused certificate, a refused connection); its sources do.
fn transport(e: reqwest::Error) -> ClientError {
    ClientError::Transport(roundtrip_tls::error_chain(&e))
}

/// A failure to send: unreached when the connection itself failed (nothing was sent, so the
/// retry rule sends again), except when the TLS handshake failed (a refused certificate): that
/// fails again the same way, so it is a transport error at once, saying where trusted roots
/// come from.
fn sending(e: reqwest::Error) -> ClientError {
    if roundtrip_tls::handshake_failure(&e).is_some() {
        ClientError::Transport(roundtrip_tls::explain(&e))
    } else if e.is_connect() {
        ClientError::Unreached(roundtrip_tls::error_chain(&e))
    } else {
        transport(e)
    }
}

impl Wire for HttpWire {
    fn network_transport(&self) -> &'static str {
        "tcp"
    }

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
                    endpoint.post(&r, "", &Headers::default(), endpoint.authorization().as_ref()).send()
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
                    roundtrip_wire::ResponseBody::Result(v) => Ok(v),
                    roundtrip_wire::ResponseBody::Error(e) => Err(ClientError::Rpc(e)),
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
            match Message::from_slice(data.as_bytes()) {
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
    fn sse_events_end_at_a_blank_line() {
        assert_eq!(find_event_end(b"data: x\n\ndata: y"), Some((7, 2)));
        assert_eq!(find_event_end(b"data: x\r\n\r\n"), Some((7, 4)));
        assert_eq!(find_event_end(b"data: x\n"), None);
    }
}
