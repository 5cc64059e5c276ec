//! Server-to-client requests waiting for the client's answer (legacy sessions only).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::oneshot;

use roundtrip_wire::{ErrorObject, Request, RequestId, Response, ResponseBody};

type Waiter = oneshot::Sender<Result<Value, ErrorObject>>;

/// The table of server-to-client requests in flight on one connection or session.
#[derive(Debug, Default)]
pub struct Pending {
    next: AtomicI64,
    waiters: Mutex<HashMap<RequestId, Waiter>>,
}

impl Pending {
    /// Make a request with a fresh id; the future resolves with the client's answer, or an
    /// error when the connection goes away. Dropping the future forgets the request.
    pub fn request(
        self: &Arc<Self>,
        method: &str,
        params: Value,
    ) -> (Request, BoxFuture<'static, Result<Value, ErrorObject>>) {
        let id = RequestId::Number(self.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        if let Ok(mut waiters) = self.waiters.lock() {
            waiters.insert(id.clone(), tx);
        }
        let request = Request::new(id.clone(), method, Some(params));
        let guard = Forget { pending: self.clone(), id };
        let answer = async move {
            let _guard = guard;
            rx.await.unwrap_or_else(|_| Err(ErrorObject::internal("the connection closed before the client answered")))
        };
        (request, Box::pin(answer))
    }

    /// Deliver a client's response; `false` when no request waits for its id.
    pub fn resolve(&self, response: Response) -> bool {
        let Some(id) = response.id else { return false };
        let waiter = self.waiters.lock().ok().and_then(|mut w| w.remove(&id));
        match waiter {
            Some(tx) => {
                let outcome = match response.body {
                    ResponseBody::Result(v) => Ok(v),
                    ResponseBody::Error(e) => Err(e),
                };
                // The requester may have gone (cancelled); nothing to do then.
                let _ = tx.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Fail every waiting request (the connection closed).
    pub fn close(&self) {
        if let Ok(mut w) = self.waiters.lock() {
            w.clear();
        }
    }
}

struct Forget {
    pending: Arc<Pending>,
    id: RequestId,
}

impl Drop for Forget {
    fn drop(&mut self) {
        if let Ok(mut w) = self.pending.waiters.lock() {
            w.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_reach_their_request_and_dropped_requests_are_forgotten() {
        let pending = Arc::new(Pending::default());
        let (req, answer) = pending.request("roots/list", serde_json::json!({}));
        assert!(pending.resolve(Response::result(req.id.clone(), serde_json::json!({"roots": []}))));
        assert_eq!(answer.await.unwrap(), serde_json::json!({"roots": []}));
        let (req, answer) = pending.request("roots/list", serde_json::json!({}));
        drop(answer);
        assert!(!pending.resolve(Response::result(req.id, serde_json::json!({}))));
        let (_, answer) = pending.request("roots/list", serde_json::json!({}));
        pending.close();
        assert!(answer.await.is_err());
    }
}
