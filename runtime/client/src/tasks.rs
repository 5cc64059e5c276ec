//! Following a task (tasks extension): poll `tasks/get` as often as the server asks, answer
//! its questions with the callbacks through `tasks/update`, cancel it when the caller goes
//! away, and return its result as a plain call does.

use std::collections::HashSet;
use std::time::Duration;

use futures::future::try_join_all;
use serde_json::{Value, json};

use super::{Client, ClientError, parse};
use roundtrip_wire::{ErrorObject, GetTaskResult, JsonObject, Task, TaskStatus};

/// Poll at least this often and at most this rarely, whatever the server says.
const POLL_BOUNDS: (u64, u64) = (10, 5_000);

/// How long polls may keep finding no server before the call gives up on its task.
const UNREACHABLE_FOR: Duration = Duration::from_secs(30);

/// Sends `tasks/cancel` when the call that follows a task is dropped before the task ends.
struct CancelOnDrop {
    client: Option<Client>,
    task_id: String,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else { return };
        let task_id = std::mem::take(&mut self.task_id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = client.cancel_task(&task_id).await {
                    tracing::debug!(target: "roundtrip::client", task = %task_id, "tasks/cancel failed: {e}");
                }
            });
        }
    }
}

impl Client {
    /// `tasks/get`: the task's state, with its questions, result or error.
    pub async fn get_task(&self, task_id: &str) -> Result<GetTaskResult, ClientError> {
        parse(self.task_request("tasks/get", task_id, JsonObject::new()).await?)
    }

    /// `tasks/update`: answers to the task's questions, by key.
    pub async fn update_task(&self, task_id: &str, input_responses: JsonObject) -> Result<(), ClientError> {
        let mut params = JsonObject::new();
        params.insert("inputResponses".into(), Value::Object(input_responses));
        self.task_request("tasks/update", task_id, params).await.map(drop)
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.task_request("tasks/cancel", task_id, JsonObject::new()).await.map(drop)
    }

    async fn task_request(&self, method: &str, task_id: &str, mut params: JsonObject) -> Result<Value, ClientError> {
        params.insert("taskId".into(), json!(task_id));
        self.inner.request(method, params, Some(task_id.to_owned()), Vec::new()).await
    }

    /// Follow the task `created` to its end; its result (a completed task's result, or the
    /// error of a failed one).
    pub(super) async fn follow_task(&self, created: Task) -> Result<Value, ClientError> {
        let mut guard = CancelOnDrop { client: Some(self.clone()), task_id: created.task_id.clone() };
        let mut answered: HashSet<String> = HashSet::new();
        let mut interval = created.poll_interval_ms;
        let mut unreachable_since: Option<tokio::time::Instant> = None;
        // Answers given by the callbacks that no server has taken yet: sent again at the next
        // poll rather than asked again (the server ignores keys it already has, so sending
        // twice is harmless).
        let mut unsent: Option<JsonObject> = None;
        loop {
            let wait = interval.unwrap_or(500).clamp(POLL_BOUNDS.0, POLL_BOUNDS.1);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            // The task lives on in the store: a poll or an update that found no server is tried
            // again at the next interval, for as long as `UNREACHABLE_FOR`.
            if let Some(answers) = unsent.take() {
                if let Err(e) = self.update_task(&created.task_id, answers.clone()).await {
                    unsent = Some(answers);
                    keep_trying(e, &mut unreachable_since)?;
                    continue;
                }
                unreachable_since = None;
            }
            let got = match self.get_task(&created.task_id).await {
                Ok(got) => {
                    unreachable_since = None;
                    got.task
                }
                Err(e) => {
                    keep_trying(e, &mut unreachable_since)?;
                    continue;
                }
            };
            interval = got.task.poll_interval_ms.or(interval);
            match got.task.status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    let fresh: Vec<_> = got
                        .input_requests
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if fresh.is_empty() {
                        continue;
                    }
                    let answers = try_join_all(fresh.into_iter().map(|(key, request)| {
                        let answer = self.inner.callbacks.answer(request);
                        async move { answer.await.map(|v| (key, v)) }
                    }))
                    .await?;
                    answered.extend(answers.iter().map(|(k, _)| k.clone()));
                    let answers: JsonObject = answers.into_iter().collect();
                    if let Err(e) = self.update_task(&created.task_id, answers.clone()).await {
                        keep_trying(e, &mut unreachable_since)?;
                        unsent = Some(answers);
                    }
                    // Answers move the task on at once: look again soon.
                    interval = Some(POLL_BOUNDS.0.max(wait / 4));
                }
                TaskStatus::Completed => {
                    guard.client = None;
                    return got
                        .result
                        .map(Value::Object)
                        .ok_or_else(|| ClientError::Protocol("a completed task carried no result".into()));
                }
                TaskStatus::Failed => {
                    guard.client = None;
                    let error = got.error.unwrap_or_else(|| ErrorObject::internal("the task failed"));
                    return Err(ClientError::Rpc(error));
                }
                TaskStatus::Cancelled => {
                    guard.client = None;
                    return Err(ClientError::TaskCancelled(got.task.status_message.unwrap_or_default()));
                }
                // A status newer than this client: the task is not known to be over, so look again.
                _ => {}
            }
        }
    }
}

/// Whether following a task goes on after `error`: a request that found no server (after the
/// client's own retries) is tried again at the next poll, until polls have found none for
/// [`UNREACHABLE_FOR`]; any other error ends the call.
fn keep_trying(error: ClientError, unreachable_since: &mut Option<tokio::time::Instant>) -> Result<(), ClientError> {
    match error {
        ClientError::Unreached(_) | ClientError::Unavailable { .. } | ClientError::Transport(_) => {
            let since = *unreachable_since.get_or_insert_with(tokio::time::Instant::now);
            if since.elapsed() > UNREACHABLE_FOR { Err(error) } else { Ok(()) }
        }
        error => Err(error),
    }
}
