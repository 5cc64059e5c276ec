//! The newline-delimited connection of the client: a child's stdio, or the in-memory
//! transport to a server in this process.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::ClientError;
use crate::wire::{Headers, Incoming, Wire};
use roundtrip_transport::pending::Pending;
use roundtrip_wire::{Message, MessageError, Notification, RequestId};

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
        // Weak: the wire's own sender is the last strong one, so dropping the wire ends the
        // writer task and closes the server's stdin (`Client::close`).
        let replies = outbox.downgrade();
        tokio::spawn(async move {
            let mut lines = BufReader::new(reader).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match Message::from_slice(line.as_bytes()) {
                    Ok(Message::Response(r)) => {
                        reader_pending.resolve(r);
                    }
                    Ok(Message::Notification(n)) => incoming.on_notification(n),
                    Ok(Message::Request(r)) => {
                        let incoming = incoming.clone();
                        let replies = replies.clone();
                        tokio::spawn(async move {
                            let response = incoming.on_request(r).await;
                            if let (Ok(line), Some(replies)) = (serde_json::to_string(&response), replies.upgrade()) {
                                let _ = replies.send(line).await;
                            }
                        });
                    }
                    Err(MessageError::Parse(_)) => tracing::warn!("the server sent a line that is not JSON"),
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
