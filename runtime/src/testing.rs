//! A testing kit: run a server in memory, script the answers, and assert the questions of each
//! round, in a few lines.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use roundtrip::Server;
//! use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
//! use roundtrip::server::{InputRequired, Outcome, ToolDef};
//! use roundtrip::testing::TestKit;
//! use serde_json::json;
//!
//! let schema: roundtrip::protocol::JsonObject =
//!     serde_json::from_value(json!({"type": "object", "properties": {"region": {"type": "string"}}})).unwrap();
//! let server = Server::new("demo", "1.0.0").tool(ToolDef::new(Tool::new("provision", empty_input_schema()), move |cx| {
//!     let schema = schema.clone();
//!     async move {
//!         Ok(match cx.elicit_result("region") {
//!             Some(a) => Outcome::Complete(CallToolResult::text(format!("in {}", a.content.unwrap()["region"]))),
//!             None => InputRequired::new().elicit("region", "Where?", schema).into(),
//!         })
//!     }
//! }));
//!
//! let flow = TestKit::new(server).answer("region", json!({"region": "eu"})).call_tool("provision", json!({})).await.unwrap();
//! assert_eq!(flow.questions(), vec![vec!["region"]]);
//! assert_eq!(flow.text(), "in \"eu\"");
//! # }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::Server;
use crate::client::{Client, ClientError, Step};
use crate::protocol::{
    CallToolResult, ElicitParams, ErrorObject, GetPromptResult, InputRequest, InputRequests, JsonObject, LoggingLevel,
    Notification, ReadResourceResult, TaskStatus,
};

/// A scripted answer to one question (named so that it does not clash with the prelude's
/// [`Answer`](crate::Answer)).
#[derive(Debug, Clone, PartialEq)]
pub enum Scripted {
    /// Accept, with this form content (an object) or, for URL mode, `null`.
    Accept(Value),
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
    /// A model reply with this text.
    Sample(String),
    /// These root URIs.
    Roots(Vec<String>),
}

/// A server under test and the answers to give it.
///
/// Every leg asks for progress and for logs at [`log_level`](Self::log_level) (default
/// `debug`), and the notifications of each leg are recorded in the [`Flow`].
#[derive(Debug, Clone)]
pub struct TestKit {
    server: Server,
    by_key: HashMap<String, Scripted>,
    by_property: JsonObject,
    max_rounds: usize,
    log_level: LoggingLevel,
}

/// A completed flow: the result, the questions of each round and the notifications of each
/// leg.
#[derive(Debug, Clone)]
pub struct Flow<T> {
    /// The final result.
    pub result: T,
    /// The questions asked, round by round (a state-only round has none).
    pub rounds: Vec<InputRequests>,
    /// The notifications (progress, logs) the server sent during each leg; one entry per leg,
    /// so one more than `rounds` (for a call that became a task, the legs before the task).
    pub notifications: Vec<Vec<Notification>>,
    /// When the call became a task: its id, and the questions it asked while running (each
    /// batch as the kit saw it on `tasks/get`) and the status messages it showed.
    pub task: Option<TaskRun>,
}

/// What the kit saw of a call that ran as a task.
#[derive(Debug, Clone, Default)]
pub struct TaskRun {
    /// The task's id.
    pub id: String,
    /// The questions asked while running, batch by batch.
    pub questions: Vec<InputRequests>,
    /// Each distinct status message, in order.
    pub status_messages: Vec<String>,
}

impl<T> Flow<T> {
    /// The question keys of each round, sorted.
    pub fn questions(&self) -> Vec<Vec<&str>> {
        self.rounds.iter().map(|r| r.keys().map(String::as_str).collect()).collect()
    }

    /// The `notifications/progress` params of every leg, in order.
    pub fn progress(&self) -> Vec<&Value> {
        of_method(&self.notifications, "notifications/progress")
    }

    /// The `notifications/message` (log) params of every leg, in order.
    pub fn logs(&self) -> Vec<&Value> {
        of_method(&self.notifications, "notifications/message")
    }
}

fn of_method<'a>(legs: &'a [Vec<Notification>], method: &str) -> Vec<&'a Value> {
    legs.iter().flatten().filter(|n| n.method == method).filter_map(|n| n.params.as_ref()).collect()
}

/// A flow that did not complete: why, and what was recorded until then.
#[derive(Debug, Clone)]
pub struct TestError {
    /// What went wrong (e.g. [`ClientError::TooManyRounds`]).
    pub error: ClientError,
    /// The questions asked before it, round by round.
    pub rounds: Vec<InputRequests>,
    /// The notifications of each leg before it.
    pub notifications: Vec<Vec<Notification>>,
}

impl fmt::Display for TestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (after {} rounds)", self.error, self.rounds.len())
    }
}

impl std::error::Error for TestError {}

impl PartialEq<ClientError> for TestError {
    fn eq(&self, other: &ClientError) -> bool {
        self.error == *other
    }
}

impl Flow<CallToolResult> {
    /// The text of the result's content blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.result.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("\n")
    }

    /// Whether the tool reported an execution error.
    pub fn is_error(&self) -> bool {
        self.result.is_error == Some(true)
    }
}

impl TestKit {
    /// Test this server.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            by_key: HashMap::new(),
            by_property: JsonObject::new(),
            max_rounds: 10,
            log_level: LoggingLevel::Debug,
        }
    }

    /// The log level each leg asks for (default `debug`: every log is recorded).
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = level;
        self
    }

    /// Accept the question under `key` with this form content.
    pub fn answer(self, key: &str, content: Value) -> Self {
        self.script(key, Scripted::Accept(content))
    }

    /// Decline the question under `key`.
    pub fn decline(self, key: &str) -> Self {
        self.script(key, Scripted::Decline)
    }

    /// Cancel the question under `key`.
    pub fn cancel(self, key: &str) -> Self {
        self.script(key, Scripted::Cancel)
    }

    /// Answer the question under `key` (a declared parameter's name, or the key a `with`
    /// fn's question is asked under: its parameter's name) with any scripted answer.
    pub fn script(mut self, key: &str, answer: Scripted) -> Self {
        self.by_key.insert(key.to_owned(), answer);
        self
    }

    /// Fill form property `name` with `value` in any form that asks for it (declared, or
    /// built by a `with` fn).
    pub fn property(mut self, name: &str, value: Value) -> Self {
        self.by_property.insert(name.to_owned(), value);
        self
    }

    /// The round budget (default 10).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Call a tool to completion.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Flow<CallToolResult>, TestError> {
        let (client, log) = self.client().await?;
        self.drive(&client, &log, |responses, state| {
            let client = client.clone();
            let arguments = arguments.clone();
            async move { client.call_tool_step(name, arguments, responses, state).await }
        })
        .await
    }

    /// Get a prompt to completion.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Flow<GetPromptResult>, TestError> {
        let (client, log) = self.client().await?;
        self.drive(&client, &log, |responses, state| {
            let client = client.clone();
            let arguments = arguments.clone();
            async move { client.get_prompt_step(name, arguments, responses, state).await }
        })
        .await
    }

    /// Read a resource to completion.
    pub async fn read_resource(&self, uri: &str) -> Result<Flow<ReadResourceResult>, TestError> {
        let (client, log) = self.client().await?;
        self.drive(&client, &log, |responses, state| {
            let client = client.clone();
            async move { client.read_resource_step(uri, responses, state).await }
        })
        .await
    }

    async fn client(&self) -> Result<(Client, Recorder), TestError> {
        let log = Recorder::default();
        let sink = log.clone();
        // Declare every capability: the kit answers from its script, not from callbacks.
        let client = Client::builder("roundtrip-testing", env!("CARGO_PKG_VERSION"))
            .on_elicit(|_| async { Err(ClientError::Callback("answered by the test kit".into())) })
            .on_sample(|_| async { Err(ClientError::Callback("answered by the test kit".into())) })
            .on_roots(|| async { Err(ClientError::Callback("answered by the test kit".into())) })
            .progress_tokens(true)
            .log_level(self.log_level)
            .on_notification(move |n| sink.push(n))
            .connect_in_memory(self.server.clone())
            .await
            .map_err(|error| TestError { error, rounds: Vec::new(), notifications: Vec::new() })?;
        // Notifications of the handshake are not part of any leg.
        log.take();
        Ok((client, log))
    }

    async fn drive<T, F, Fut>(&self, client: &Client, log: &Recorder, leg: F) -> Result<Flow<T>, TestError>
    where
        T: serde::de::DeserializeOwned,
        F: Fn(Option<JsonObject>, Option<String>) -> Fut,
        Fut: Future<Output = Result<Step<T>, ClientError>>,
    {
        let mut rounds = Vec::new();
        let mut notifications = Vec::new();
        let (mut responses, mut state) = (None, None);
        let mut error = ClientError::TooManyRounds(self.max_rounds);
        for _ in 0..self.max_rounds {
            let step = leg(responses.take(), state.take()).await;
            notifications.push(log.take());
            let round = match step {
                Ok(Step::Complete(result)) => return Ok(Flow { result, rounds, notifications, task: None }),
                Ok(Step::Task(task)) => {
                    return match self.follow(client, task.task_id).await {
                        Ok((result, run)) => Ok(Flow { result, rounds, notifications, task: Some(run) }),
                        Err(error) => Err(TestError { error, rounds, notifications }),
                    };
                }
                Ok(Step::InputRequired(round)) => round,
                Err(e) => {
                    error = e;
                    break;
                }
            };
            let questions = round.input_requests.unwrap_or_default();
            let mut answers = JsonObject::new();
            for (key, request) in &questions {
                match self.answer_for(key, request) {
                    Ok(answer) => answers.insert(key.clone(), answer),
                    Err(e) => {
                        rounds.push(questions);
                        return Err(TestError { error: e, rounds, notifications });
                    }
                };
            }
            responses = (!answers.is_empty()).then_some(answers);
            state = round.request_state;
            rounds.push(questions);
        }
        Err(TestError { error, rounds, notifications })
    }

    /// Poll a task to its end, answering its questions from the script.
    async fn follow<T: serde::de::DeserializeOwned>(
        &self,
        client: &Client,
        id: String,
    ) -> Result<(T, TaskRun), ClientError> {
        let mut run = TaskRun { id: id.clone(), ..TaskRun::default() };
        let mut answered = std::collections::HashSet::new();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let got = client.get_task(&id).await?.task;
            if let Some(message) = &got.task.status_message
                && run.status_messages.last() != Some(message)
            {
                run.status_messages.push(message.clone());
            }
            match got.task.status {
                TaskStatus::Completed => {
                    let result = got.result.ok_or_else(|| ClientError::Protocol("no result".into()))?;
                    let result = serde_json::from_value(Value::Object(result))
                        .map_err(|e| ClientError::Protocol(format!("the task's result: {e}")))?;
                    return Ok((result, run));
                }
                TaskStatus::Failed => {
                    return Err(ClientError::Rpc(got.error.unwrap_or_else(|| ErrorObject::internal("failed"))));
                }
                TaskStatus::Cancelled => {
                    return Err(ClientError::TaskCancelled(got.task.status_message.unwrap_or_default()));
                }
                TaskStatus::InputRequired => {
                    let fresh: InputRequests = got
                        .input_requests
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(k, _)| !answered.contains(k))
                        .collect();
                    if !fresh.is_empty() {
                        let mut answers = JsonObject::new();
                        for (key, request) in &fresh {
                            answers.insert(key.clone(), self.answer_for(key, request)?);
                            answered.insert(key.clone());
                        }
                        run.questions.push(fresh);
                        client.update_task(&id, answers).await?;
                    }
                }
                TaskStatus::Working => {}
            }
            if tokio::time::Instant::now() > deadline {
                return Err(ClientError::Protocol(format!("task {id} did not end within 60 s")));
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    fn answer_for(&self, key: &str, request: &InputRequest) -> Result<Value, ClientError> {
        let unscripted =
            || ClientError::Callback(format!("the test kit has no answer for question `{key}`: {request:?}"));
        if let Some(answer) = self.by_key.get(key) {
            return Ok(match answer {
                Scripted::Accept(Value::Null) => json!({"action": "accept"}),
                Scripted::Accept(content) => json!({"action": "accept", "content": content}),
                Scripted::Decline => json!({"action": "decline"}),
                Scripted::Cancel => json!({"action": "cancel"}),
                Scripted::Sample(text) => {
                    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "roundtrip-testing"})
                }
                Scripted::Roots(uris) => json!({"roots": uris.iter().map(|u| json!({"uri": u})).collect::<Vec<_>>()}),
            });
        }
        let InputRequest::Elicit(ElicitParams::Form(form)) = request else { return Err(unscripted()) };
        let properties = form.requested_schema.get("properties").and_then(Value::as_object).ok_or_else(unscripted)?;
        let content: JsonObject =
            properties.keys().filter_map(|p| self.by_property.get(p).map(|v| (p.clone(), v.clone()))).collect();
        let required = form.requested_schema.get("required").and_then(Value::as_array);
        let complete = required.is_none_or(|r| r.iter().filter_map(Value::as_str).all(|p| content.contains_key(p)));
        if content.is_empty() || !complete {
            return Err(unscripted());
        }
        Ok(json!({"action": "accept", "content": content}))
    }
}

/// The notifications received since the last take.
#[derive(Debug, Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Notification>>>);

impl Recorder {
    fn push(&self, n: Notification) {
        if let Ok(mut list) = self.0.lock() {
            list.push(n);
        }
    }

    fn take(&self) -> Vec<Notification> {
        self.0.lock().map(|mut list| std::mem::take(&mut *list)).unwrap_or_default()
    }
}
