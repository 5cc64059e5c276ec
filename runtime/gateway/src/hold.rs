//! Calls held open for a 2025-era upstream: such a server asks its questions inside the call
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`), so to give a 2026-07-28
//! caller a round instead, the gateway keeps the call, and the connection it runs on, open
//! until the caller's next leg brings the answer. Over HTTP each held call has a connection
//! of its own (a question names no call); on a stdio upstream's one connection a question
//! goes to the one call that can have asked it ([`crate::route`]). At most
//! [`HoldLimits::max_held`] are held, at most
//! [`HoldLimits::max_held_per_caller`] for one caller, and each for at most
//! [`HoldLimits::idle`] between legs. A fleet must route a held call's next leg to the replica
//! that holds it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use roundtrip_client::{ClientError, Step};
use roundtrip_wire::{ErrorObject, InputRequest, JsonObject};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::pool::Pool;
use crate::route::{Asked, LegHandle, Notify};
use crate::upstream::{CALLER_AUTHORIZATION, HoldLimits};

/// What a held call does upstream.
#[derive(Debug, Clone)]
pub(crate) enum Call {
    Tool { name: String, arguments: Value },
    Prompt { name: String, arguments: Value },
    Resource { uri: String },
}

impl Call {
    /// The method and the params of its first leg (no answers, no state).
    pub fn params(self) -> (&'static str, JsonObject) {
        let mut params = JsonObject::new();
        let method = match self {
            Call::Tool { name, arguments } => {
                params.insert("name".into(), Value::String(name));
                params.insert("arguments".into(), arguments);
                "tools/call"
            }
            Call::Prompt { name, arguments } => {
                params.insert("name".into(), Value::String(name));
                params.insert("arguments".into(), arguments);
                "prompts/get"
            }
            Call::Resource { uri } => {
                params.insert("uri".into(), Value::String(uri));
                "resources/read"
            }
        };
        (method, params)
    }
}

/// Where a held call stands after a leg.
pub(crate) enum Progress {
    /// The call ended upstream: its result, or why it failed.
    Done(Result<Value, ClientError>),
    /// The upstream asked: the question, and the id the caller's next leg names.
    Asked { question: Box<InputRequest>, id: u128 },
}

/// A call held between legs.
struct Held {
    owner: String,
    question: InputRequest,
    open: Open,
}

/// A running call: where its questions come from and its end, its place on its connection's
/// route (its notifications go to the caller's leg in hand), and the task running it (aborted, with its
/// connection closed, when this is dropped).
struct Open {
    leg: LegHandle,
    questions: mpsc::Receiver<Asked>,
    reply: Option<oneshot::Sender<Result<Value, ClientError>>>,
    done: oneshot::Receiver<Result<Value, ClientError>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Open {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The held calls of one upstream.
pub(crate) struct Holds {
    pool: Arc<Pool>,
    held: Mutex<HashMap<u128, Held>>,
}

/// Why a call could not be held.
fn too_many() -> ErrorObject {
    ErrorObject::internal("the gateway holds as many calls waiting for answers as it may: try again later")
}

impl Holds {
    pub fn new(pool: Arc<Pool>) -> Arc<Self> {
        Arc::new(Self { pool, held: Mutex::new(HashMap::new()) })
    }

    fn limits(&self) -> HoldLimits {
        self.pool.upstream().limits
    }

    fn has_room_for(&self, owner: &str) -> bool {
        let Ok(held) = self.held.lock() else { return false };
        held.len() < self.limits().max_held
            && held.values().filter(|h| h.owner == owner).count() < self.limits().max_held_per_caller
    }

    /// Start a call (its method and first params) for `owner` (with their `Authorization`
    /// header, for an upstream that forwards it; its notifications to `notify`, with a progress
    /// token when `progress`) and run it to its end or its first question.
    pub async fn start(
        self: &Arc<Self>,
        owner: String,
        authorization: Option<String>,
        (notify, progress): (Notify, bool),
        (method, mut params): (&'static str, JsonObject),
    ) -> Result<Progress, ErrorObject> {
        if !self.has_room_for(&owner) {
            return Err(too_many());
        }
        let connection = self.pool.lease().await.map_err(unreachable)?;
        let (to_caller, questions) = mpsc::channel(1);
        let in_flight = connection.route.enter(Some(notify), Some(to_caller));
        if progress {
            // A 2025-era request carries only the progress token; its server keeps the
            // capabilities of the connection's handshake.
            params.insert("_meta".into(), serde_json::json!({ "progressToken": in_flight.progress_token() }));
        }
        let leg = in_flight.handle();
        let (end, done) = oneshot::channel();
        let pool = self.pool.clone();
        let task = tokio::spawn(CALLER_AUTHORIZATION.scope(authorization, async move {
            let forwarded = connection.client.forward(method, params).await;
            drop(in_flight);
            let result = match forwarded {
                Ok(Step::Complete(result)) => Ok(result),
                Ok(_) => Err(ClientError::Protocol("a 2025-era server answered with a round".into())),
                Err(e) => Err(e),
            };
            pool.settle(connection, &result);
            let _ = end.send(result);
        }));
        let open = Open { leg, questions, reply: None, done, task };
        self.next(owner, open).await
    }

    /// The caller's next leg of held call `id`: pass on its answer (none: ask again) and run
    /// the call to its end or its next question. `None` when no call of that id is held here
    /// for this caller (it ended, expired, or is held by another replica).
    pub async fn resume(
        self: &Arc<Self>,
        id: u128,
        owner: &str,
        answer: Option<Value>,
        notify: Notify,
    ) -> Option<Progress> {
        let mut held = {
            let mut all = self.held.lock().ok()?;
            match all.get(&id) {
                Some(h) if h.owner == owner => all.remove(&id)?,
                _ => return None,
            }
        };
        let Some(answer) = answer else {
            // No answer: the same question again, under the same id.
            let question = held.question.clone();
            self.held.lock().ok()?.insert(id, held);
            return Some(Progress::Asked { question: Box::new(question), id });
        };
        held.open.leg.notify_to(Some(notify));
        if let Some(reply) = held.open.reply.take() {
            let _ = reply.send(Ok(answer));
        }
        Some(self.next(held.owner, held.open).await.unwrap_or_else(|e| Progress::Done(Err(ClientError::Rpc(e)))))
    }

    /// Wait for the call's end or its next question; hold it over a question.
    async fn next(self: &Arc<Self>, owner: String, mut open: Open) -> Result<Progress, ErrorObject> {
        let asked = tokio::select! {
            biased;
            result = &mut open.done => {
                return Ok(Progress::Done(result.unwrap_or_else(|_| Err(ClientError::Transport("the upstream call stopped".into())))));
            }
            Some(asked) = open.questions.recv() => asked,
        };
        if !self.has_room_for(&owner) {
            return Err(too_many());
        }
        // Between legs, the upstream's notifications have no leg to go to.
        open.leg.notify_to(None);
        open.reply = Some(asked.reply);
        let id = rand::random::<u128>();
        let question = asked.request;
        let held = Held { owner, question: question.clone(), open };
        self.held.lock().map_err(|_| too_many())?.insert(id, held);
        expire(Arc::downgrade(self), id, self.limits().idle);
        Ok(Progress::Asked { question: Box::new(question), id })
    }
}

/// Drop held call `id` after `idle` unless a leg took it before.
fn expire(holds: Weak<Holds>, id: u128, idle: std::time::Duration) {
    tokio::spawn(async move {
        tokio::time::sleep(idle).await;
        if let Some(holds) = holds.upgrade()
            && let Ok(mut held) = holds.held.lock()
            && held.remove(&id).is_some()
        {
            tracing::debug!(target: "roundtrip::gateway", "a held call waited {idle:?} for its next leg: dropped");
        }
    });
}

fn unreachable(e: ClientError) -> ErrorObject {
    tracing::warn!(target: "roundtrip::gateway", "could not connect to the upstream: {e}");
    ErrorObject::internal("the upstream server is unreachable")
}
