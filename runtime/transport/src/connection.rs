//! One long-lived connection carrying newline-delimited JSON-RPC in both directions: the loop
//! behind stdio and the in-memory transport.
//!
//! Requests run concurrently; `notifications/cancelled` cancels one; answers to the server's
//! own requests (legacy back-channel) are routed to their waiter; a legacy `initialize` pins
//! the connection's session.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::pending::Pending;
use roundtrip_core::server::{Inbound, ListChange, Peer, Server, Session, Transport};
use roundtrip_wire::{ErrorObject, Message, Notification, RequestId, Response, Taken};

/// The longest line (one JSON-RPC message) a connection accepts.
pub(crate) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// Messages queued for the writer before notifications start being dropped.
const OUTBOX: usize = 1024;

struct Connection {
    server: Server,
    transport: Transport,
    outbox: mpsc::Sender<String>,
    pending: Arc<Pending>,
    session: Mutex<Option<Arc<Session>>>,
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    closed: CancellationToken,
}

struct ConnectionPeer(Arc<Connection>);

impl Peer for ConnectionPeer {
    fn notify(&self, notification: Notification) {
        self.0.send_nowait(&notification);
    }

    fn request(&self, method: &str, params: Value) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>> {
        let (request, answer) = self.0.pending.request(method, params);
        self.0.send_nowait(&request);
        Some(answer)
    }
}

impl Connection {
    fn send_nowait<T: serde::Serialize>(&self, message: &T) {
        match serde_json::to_string(message) {
            Ok(line) => {
                if self.outbox.try_send(line).is_err() {
                    tracing::warn!("connection outbox full or closed: a message was dropped");
                }
            }
            Err(e) => tracing::error!("could not serialize an outgoing message: {e}"),
        }
    }

    async fn send(&self, response: &impl serde::Serialize) {
        match serde_json::to_string(response) {
            Ok(line) => {
                // The writer is gone only when the connection is closing.
                let _ = self.outbox.send(line).await;
            }
            Err(e) => tracing::error!("could not serialize a response: {e}"),
        }
    }

    fn session(&self) -> Option<Arc<Session>> {
        self.session.lock().ok().and_then(|s| s.clone())
    }

    fn set_session(self: &Arc<Self>, session: Arc<Session>) {
        if let Ok(mut s) = self.session.lock() {
            *s = Some(session);
        }
        // Forward list changes (and updates of subscribed resources) to the legacy client for
        // as long as the connection lives.
        let conn = self.clone();
        let mut changes = self.server.subscribe_changes();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = conn.closed.cancelled() => break,
                    change = changes.recv() => match change {
                        Ok(change) => {
                            let session = conn.session.lock().ok().and_then(|s| s.clone());
                            if let Some(n) = session.and_then(|s| change.for_session(&s)) {
                                conn.send_nowait(&n);
                            }
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                            conn.send_nowait(&Notification::new(ListChange::Tools.method(), None));
                        }
                        Err(_) => break,
                    },
                }
            }
        });
    }

    async fn on_line(self: &Arc<Self>, line: &[u8]) {
        let (message, taken) = match Message::read(line) {
            Ok(read) => (Ok(read.message), read.taken),
            Err(e) => (Err(e), Taken::default()),
        };
        match message {
            Err(e) => {
                let (id, error) = e.into_error();
                self.send(&Response::error(id, error)).await;
            }
            Ok(Message::Response(response)) => {
                if !self.pending.resolve(response) {
                    tracing::debug!("a response for no pending request was ignored");
                }
            }
            Ok(Message::Notification(n)) => self.on_notification(&n),
            Ok(Message::Request(request)) => {
                let id = request.id.clone();
                let cancel = self.closed.child_token();
                let mut inbound = Inbound::new(Arc::new(ConnectionPeer(self.clone())));
                inbound.session = self.session();
                inbound.cancel = cancel.clone();
                inbound.transport = self.transport;
                inbound.taken = taken;
                if request.method == "initialize" {
                    // Inline, so that the session is pinned before the next line is read.
                    let reply = self.server.handle_caught(request, inbound).await;
                    if let Some(session) = reply.session {
                        self.set_session(session);
                    }
                    if let Some(response) = reply.response {
                        self.send(&response).await;
                    }
                    return;
                }
                if let Ok(mut in_flight) = self.in_flight.lock() {
                    in_flight.insert(id.clone(), cancel);
                }
                let conn = self.clone();
                tokio::spawn(async move {
                    // A handler's panic is answered, not left for the client to wait on.
                    let reply = conn.server.handle_caught(request, inbound).await;
                    if let Ok(mut in_flight) = conn.in_flight.lock() {
                        in_flight.remove(&id);
                    }
                    if let Some(response) = reply.response {
                        conn.send(&response).await;
                    }
                });
            }
        }
    }

    fn on_notification(&self, n: &Notification) {
        if n.method == "notifications/cancelled" {
            let id = n.params.as_ref().and_then(|p| p.get("requestId")).cloned();
            if let Some(id) = id.and_then(|id| serde_json::from_value::<RequestId>(id).ok()) {
                let token = self.in_flight.lock().ok().and_then(|mut m| m.remove(&id));
                if let Some(token) = token {
                    token.cancel();
                }
            }
        }
    }
}

/// Serve one connection until the reader ends. Every line is one JSON-RPC message; so is
/// every line written. A line longer than 4 MiB is answered `-32600` and skipped.
pub async fn serve_connection<R, W>(server: Server, reader: R, writer: W) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_as(server, reader, writer, Transport::Stdio).await
}

/// [`serve_connection`], saying how the requests arrive.
async fn serve_as<R, W>(server: Server, reader: R, writer: W, transport: Transport) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    server.check_io()?;
    let (outbox, mut rx) = mpsc::channel::<String>(OUTBOX);
    let writer_task = tokio::spawn(async move {
        let mut writer = writer;
        while let Some(mut line) = rx.recv().await {
            line.push('\n');
            writer.write_all(line.as_bytes()).await?;
            // Flush when the queue is drained, so bursts go out together.
            if rx.is_empty() {
                writer.flush().await?;
            }
        }
        writer.flush().await
    });
    let conn = Arc::new(Connection {
        server,
        transport,
        outbox,
        pending: Arc::new(Pending::default()),
        session: Mutex::new(None),
        in_flight: Mutex::new(HashMap::new()),
        closed: CancellationToken::new(),
    });
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    let result = loop {
        match read_line(&mut reader, &mut line).await {
            Ok(Line::Eof) => break Ok(()),
            Ok(Line::TooLong) => {
                let error = ErrorObject::invalid_request(format!("message longer than {MAX_LINE_BYTES} bytes"));
                conn.send(&Response::error(None, error)).await;
            }
            Ok(Line::Complete) => {
                let trimmed = line.trim_ascii();
                if !trimmed.is_empty() {
                    conn.on_line(trimmed).await;
                }
            }
            Err(e) => break Err(e),
        }
    };
    conn.closed.cancel();
    conn.pending.close();
    drop(conn);
    match writer_task.await {
        Ok(r) => r.and(result),
        Err(e) => Err(io::Error::other(e)),
    }
}

enum Line {
    Complete,
    TooLong,
    Eof,
}

/// Read one line into `buf` without holding more than `MAX_LINE_BYTES`; a longer line is
/// skipped to its end.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, buf: &mut Vec<u8>) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Complete
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > MAX_LINE_BYTES + 1 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Complete });
        }
    }
}

/// Serving a [`Server`] over a byte stream of newline-delimited JSON-RPC: this process's stdin
/// and stdout, or an in-memory pipe. In the prelude; implemented by [`Server`] only (sealed).
/// A line (one message) longer than 4 MiB is answered `-32600` and skipped.
///
/// ```no_run
/// use roundtrip::prelude::*;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// Server::new("demo", "1.0.0").serve_stdio().await
/// # }
/// ```
pub trait ServeStream: super::sealed::Sealed + Sized {
    /// Serve MCP over this process's stdin and stdout until stdin closes.
    ///
    /// Stdout carries only protocol messages; send logs to stderr. Feature `stdio`.
    #[cfg(feature = "stdio")]
    fn serve_stdio(self) -> impl Future<Output = io::Result<()>> + Send;

    /// Serve one in-memory connection; the returned stream is the client's end
    /// (newline-delimited JSON-RPC, as on stdio). Needs a Tokio runtime.
    ///
    /// # Panics
    /// When a declaration takes a `State<T>` that is not registered (see [`Server::check`]).
    fn serve_in_memory(self) -> tokio::io::DuplexStream;
}

impl ServeStream for Server {
    #[cfg(feature = "stdio")]
    async fn serve_stdio(self) -> io::Result<()> {
        serve_connection(self, tokio::io::stdin(), tokio::io::stdout()).await
    }

    fn serve_in_memory(self) -> tokio::io::DuplexStream {
        if let Err(e) = self.check() {
            panic!("roundtrip: {e}");
        }
        let (client, server_end) = tokio::io::duplex(64 * 1024);
        let (reader, writer) = tokio::io::split(server_end);
        tokio::spawn(async move {
            if let Err(e) = serve_as(self, reader, writer, Transport::Memory).await {
                tracing::debug!("in-memory connection ended: {e}");
            }
        });
        client
    }
}
