//! An upstream's task (the tasks extension), followed by a task of the gateway's own: the
//! caller sees the gateway's task (its id, its store, its limits), whose body polls the
//! upstream's, asks the caller the upstream's questions through the gateway's task (each
//! answer passed on as it comes, under the upstream's key), takes on its progress, and ends as
//! it ends. A caller's `tasks/cancel` cancels the upstream's task too.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use roundtrip_client::ClientError;
use roundtrip_core::error::Error;
use roundtrip_core::task::TaskContext;
use roundtrip_wire::{CallToolResult, ErrorObject, JsonObject, TaskStatus};
use serde_json::Value;

use crate::pool::Pool;
use crate::upstream::CALLER_AUTHORIZATION;

/// Poll the upstream at least this often and at most this rarely, whatever it says (ms).
const POLL_BOUNDS: (u64, u64) = (10, 2_000);

/// How many polls in a row may fail to reach the upstream before the task fails.
const UNREACHABLE_POLLS: u32 = 30;

/// The upstream's task a gateway task follows.
pub(crate) struct Follow {
    pub pool: Arc<Pool>,
    pub authorization: Option<String>,
    pub task_id: String,
    pub poll_ms: Option<u64>,
}

impl Follow {
    /// The body of the gateway's task.
    pub async fn run(self, task: TaskContext) -> Result<CallToolResult, Error> {
        let authorization = self.authorization.clone();
        CALLER_AUTHORIZATION.scope(authorization, self.follow(task)).await
    }

    async fn follow(self, task: TaskContext) -> Result<CallToolResult, Error> {
        let connection = self.pool.lease().await.map_err(|e| relayed(&e))?;
        let client = connection.client.clone();
        let mut failures = 0;
        let mut asked = HashSet::new();
        let mut pending = FuturesUnordered::new();
        let mut poll = self.poll_ms.unwrap_or(100).clamp(POLL_BOUNDS.0, POLL_BOUNDS.1);
        let mut first = true;
        loop {
            // Wait for the next poll, or pass on an answer (and look at once: the upstream
            // moves on).
            let wait = if std::mem::take(&mut first) { Duration::ZERO } else { Duration::from_millis(poll) };
            tokio::select! {
                biased;
                () = task.cancellation().cancelled() => {
                    if let Err(e) = client.cancel_task(&self.task_id).await {
                        tracing::debug!(target: "roundtrip::gateway", "tasks/cancel upstream: {e}");
                    }
                    return Err(Error::new("the task was cancelled"));
                }
                Some(answered) = pending.next(), if !pending.is_empty() => {
                    let (key, answer): (String, Value) = answered?;
                    let mut responses = JsonObject::new();
                    responses.insert(key, answer);
                    client.update_task(&self.task_id, responses).await.map_err(|e| relayed(&e))?;
                }
                () = tokio::time::sleep(wait) => {}
            }
            let detailed = match client.get_task(&self.task_id).await {
                Ok(got) => {
                    failures = 0;
                    got.task
                }
                Err(ClientError::Rpc(e)) => return Err(Error::jsonrpc(e)),
                Err(e) if failures < UNREACHABLE_POLLS => {
                    failures += 1;
                    tracing::debug!(target: "roundtrip::gateway", "tasks/get upstream: {e}");
                    continue;
                }
                Err(e) => return Err(relayed(&e)),
            };
            poll = detailed.task.poll_interval_ms.unwrap_or(poll).clamp(POLL_BOUNDS.0, POLL_BOUNDS.1);
            if let Some(message) = &detailed.task.status_message {
                task.progress(0.0, None, Some(message));
            }
            let ended = match detailed.task.status {
                TaskStatus::Completed => Some(
                    serde_json::from_value(Value::Object(detailed.result.unwrap_or_default()))
                        .map_err(|e| Error::jsonrpc(ErrorObject::internal(format!("the upstream's result: {e}")))),
                ),
                TaskStatus::Failed => Some(Err(Error::jsonrpc(
                    detailed.error.unwrap_or_else(|| ErrorObject::internal("the upstream task failed")),
                ))),
                TaskStatus::Cancelled => Some(Err(Error::new("the upstream cancelled the task"))),
                _ => None,
            };
            if let Some(ended) = ended {
                self.pool.give_back(connection);
                return ended;
            }
            for (key, request) in detailed.input_requests.unwrap_or_default() {
                if asked.insert(key.clone()) {
                    let task = &task;
                    pending.push(async move { task.ask_input(&key, request).await.map(|answer| (key, answer)) });
                }
            }
        }
    }
}

/// An upstream's failure as the task's error: its JSON-RPC error, or an internal one whose
/// cause is logged.
fn relayed(e: &ClientError) -> Error {
    match e {
        ClientError::Rpc(error) => Error::jsonrpc(error.clone()),
        other => {
            tracing::warn!(target: "roundtrip::gateway", "following the upstream's task failed: {other}");
            Error::jsonrpc(ErrorObject::internal("the upstream server failed to answer"))
        }
    }
}
