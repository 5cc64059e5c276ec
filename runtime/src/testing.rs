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

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::client::{Client, ClientError, Step};
use crate::protocol::{
    CallToolResult, ElicitParams, ErrorObject, GetPromptResult, InputRequest, InputRequests, JsonObject, LoggingLevel,
    Notification, ReadResourceResult, TaskStatus,
};
use crate::server::Server;
use crate::task::{Observed, TaskRecord};

/// A scripted answer to one question (named so that it does not clash with the prelude's
/// [`Answer`](crate::Answer)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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
    /// The answers of each key, in order; the last one answers every later ask.
    by_key: HashMap<String, Vec<Scripted>>,
    by_property: JsonObject,
    max_rounds: usize,
    log_level: LoggingLevel,
    /// The capabilities the kit's client declares (all unless told otherwise).
    declares: Declares,
}

/// What the kit's client declares it can answer.
#[derive(Debug, Clone, Copy)]
struct Declares {
    elicitation: bool,
    /// URL-mode elicitation (besides forms).
    url_elicitation: bool,
    sampling: bool,
    roots: bool,
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
    /// When the call became a task: its id, what happened to it, the questions it asked while
    /// running and the status messages it showed.
    pub task: Option<TaskRun>,
    /// How many times each question key was asked (a re-asked question counts each time).
    pub asked: BTreeMap<String, usize>,
}

/// What the kit saw of a call that ran as a task, from the server's own feed of changes (every
/// change, not samples of it).
#[derive(Debug, Clone, Default)]
pub struct TaskRun {
    /// The task's id.
    pub id: String,
    /// The questions asked while running, batch by batch.
    pub questions: Vec<InputRequests>,
    /// Each distinct status message, in order.
    pub status_messages: Vec<String>,
    /// Everything that happened to it, in order.
    pub events: Vec<TaskEvent>,
}

/// One thing that happened to a task.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskEvent {
    /// It moved to this status (with its status message then).
    Status(TaskStatus, Option<String>),
    /// Its body reported progress.
    Progress {
        /// How far.
        progress: f64,
        /// Out of how much, when known.
        total: Option<f64>,
        /// What it said.
        message: Option<String>,
    },
    /// It asked the question under this key.
    Asked(String, Box<InputRequest>),
    /// The kit answered the question under this key.
    Answered(String, Value),
}

impl TaskRun {
    /// The statuses it went through, in order.
    pub fn statuses(&self) -> Vec<TaskStatus> {
        self.events
            .iter()
            .filter_map(|e| match e {
                TaskEvent::Status(s, _) => Some(*s),
                _ => None,
            })
            .collect()
    }

    /// Every progress report, in order: how far, and out of how much.
    pub fn progress(&self) -> Vec<(f64, Option<f64>)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                TaskEvent::Progress { progress, total, .. } => Some((*progress, *total)),
                _ => None,
            })
            .collect()
    }
}

impl<T> Flow<T> {
    /// How many times the question under `key` was asked (0 when never): 2 for a question
    /// answered wrong once, then right.
    pub fn times_asked(&self, key: &str) -> usize {
        self.asked.get(key).copied().unwrap_or(0)
    }

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
        write!(f, "{} (after {} rounds)", self.error, self.rounds.len())?;
        // A question asked round after round: its scripted answer keeps being refused.
        let mut asked: BTreeMap<&str, usize> = BTreeMap::new();
        for key in self.rounds.iter().flat_map(|r| r.keys()) {
            *asked.entry(key).or_default() += 1;
        }
        if let Some((key, n)) = asked.iter().max_by_key(|(_, n)| **n).filter(|(_, n)| **n > 2) {
            let said = self.rounds.iter().rev().find_map(|r| match r.get(*key) {
                Some(InputRequest::Elicit(ElicitParams::Form(form))) => Some(form.message.clone()),
                _ => None,
            });
            write!(f, "; `{key}` was asked {n} times: its scripted answer was refused each time")?;
            if let Some(said) = said {
                write!(f, " (the last question said: {said})")?;
            }
        }
        Ok(())
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

impl Flow<GetPromptResult> {
    /// The text of the prompt's messages, joined by newlines.
    pub fn text(&self) -> String {
        self.result.messages.iter().filter_map(|m| m.content.as_text()).collect::<Vec<_>>().join("\n")
    }
}

impl Flow<ReadResourceResult> {
    /// The text of the resource's text contents, joined by newlines.
    pub fn text(&self) -> String {
        self.result
            .contents
            .iter()
            .filter_map(|c| match c {
                crate::protocol::ResourceContents::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
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
            declares: Declares { elicitation: true, url_elicitation: true, sampling: true, roots: true },
        }
    }

    /// Play a client that does not declare elicitation (as the MCP Inspector's CLI): a
    /// question it would need is refused, or takes its `or_argument`/`or_default` fallback.
    pub fn without_elicitation(mut self) -> Self {
        self.declares.elicitation = false;
        self
    }

    /// Play a client that answers form questions but declares no URL mode (as some hosts
    /// do): a URL question is refused, or takes its `or_form`/`or_default` fallback.
    pub fn without_url_elicitation(mut self) -> Self {
        self.declares.url_elicitation = false;
        self
    }

    /// Play a client that does not declare sampling.
    pub fn without_sampling(mut self) -> Self {
        self.declares.sampling = false;
        self
    }

    /// Play a client that does not declare roots.
    pub fn without_roots(mut self) -> Self {
        self.declares.roots = false;
        self
    }

    /// The log level each leg asks for (default `debug`: every log is recorded).
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = level;
        self
    }

    /// Accept the question under `key` with this form content (an object of the form's
    /// properties, e.g. `json!({"region": "eu"})`; `null` for a URL question).
    pub fn answer(self, key: &str, content: Value) -> Self {
        self.script(key, Scripted::Accept(content))
    }

    /// Accept the question under `key` with these contents in turn: the first the first time it
    /// is asked, the next when it is asked again (the server refused the one before), and the
    /// last every time after. "A wrong answer, then a right one":
    ///
    /// ```
    /// # use roundtrip::testing::TestKit; use serde_json::json;
    /// # fn kit(k: TestKit) -> TestKit {
    /// k.answers("slot", [json!({"slot": "25:00"}), json!({"slot": "10:00"})])
    /// # }
    /// ```
    pub fn answers(self, key: &str, contents: impl IntoIterator<Item = Value>) -> Self {
        self.scripts(key, contents.into_iter().map(Scripted::Accept))
    }

    /// Answer the question under `key` with these answers in turn (see [`answers`](Self::answers)).
    pub fn scripts(mut self, key: &str, answers: impl IntoIterator<Item = Scripted>) -> Self {
        self.by_key.insert(key.to_owned(), answers.into_iter().collect());
        self
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
        self.by_key.insert(key.to_owned(), vec![answer]);
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
        log.set_tasks(self.server.tasks().observe());
        let sink = log.clone();
        // Declare the capabilities: the kit answers from its script, not from callbacks.
        let mut client = Client::builder("roundtrip-testing", env!("CARGO_PKG_VERSION"));
        if self.declares.elicitation {
            client = client.on_elicit(|_| async { Err(ClientError::Callback("answered by the test kit".into())) });
            if !self.declares.url_elicitation {
                client = client.without_url_elicitation();
            }
        }
        if self.declares.sampling {
            client = client.on_sample(|_| async { Err(ClientError::Callback("answered by the test kit".into())) });
        }
        if self.declares.roots {
            client = client.on_roots(|| async { Err(ClientError::Callback("answered by the test kit".into())) });
        }
        let client = client
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
        let mut script = Script::new(&self.by_key);
        let mut rounds = Vec::new();
        let mut notifications = Vec::new();
        let (mut responses, mut state) = (None, None);
        let mut error = ClientError::TooManyRounds(self.max_rounds);
        for _ in 0..self.max_rounds {
            let step = leg(responses.take(), state.take()).await;
            notifications.push(log.take());
            let round = match step {
                Ok(Step::Complete(result)) => {
                    return Ok(Flow { result, rounds, notifications, task: None, asked: script.asked });
                }
                Ok(Step::Task(task)) => {
                    let mut events = log.tasks();
                    return match self.follow(client, task.task_id, &mut script, &mut events).await {
                        Ok((result, run)) => {
                            Ok(Flow { result, rounds, notifications, task: Some(run), asked: script.asked })
                        }
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
                match self.answer_for(&mut script, key, request) {
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

    /// Follow a task to its end through the server's feed of changes (every change, in order;
    /// nothing is sampled), answering its questions from the script.
    async fn follow<T: serde::de::DeserializeOwned>(
        &self,
        client: &Client,
        id: String,
        script: &mut Script,
        events: &mut Option<broadcast::Receiver<Observed>>,
    ) -> Result<(T, TaskRun), ClientError> {
        let mut run = TaskRun { id: id.clone(), ..TaskRun::default() };
        let mut answered = std::collections::HashSet::new();
        let mut status = None;
        let events = events.as_mut().ok_or_else(|| ClientError::Protocol("the kit's task feed is gone".into()))?;
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let event = match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Ok(event)) => event,
                Ok(Err(broadcast::error::RecvError::Lagged(n))) => {
                    return Err(ClientError::Protocol(format!("the kit missed {n} events of task {id}")));
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => {
                    return Err(ClientError::Protocol("the server's task feed closed".into()));
                }
                Err(_) => return Err(ClientError::Protocol(format!("task {id} did not end within 60 s"))),
            };
            let record = match event {
                Observed::Progress { task_id, progress, total, message } if task_id == id => {
                    run.events.push(TaskEvent::Progress { progress, total, message });
                    continue;
                }
                Observed::Record(record) if record.id == id => record,
                _ => continue,
            };
            if let Some(message) = &record.status_message
                && run.status_messages.last() != Some(message)
            {
                run.status_messages.push(message.clone());
            }
            if status != Some(record.status) {
                status = Some(record.status);
                run.events.push(TaskEvent::Status(record.status, record.status_message.clone()));
            }
            match record.status {
                TaskStatus::Completed => {
                    let result = record.result.clone().ok_or_else(|| ClientError::Protocol("no result".into()))?;
                    let result = serde_json::from_value(Value::Object(result))
                        .map_err(|e| ClientError::Protocol(format!("the task's result: {e}")))?;
                    return Ok((result, run));
                }
                TaskStatus::Failed => {
                    return Err(ClientError::Rpc(
                        record.error.clone().unwrap_or_else(|| ErrorObject::internal("failed")),
                    ));
                }
                TaskStatus::Cancelled => {
                    return Err(ClientError::TaskCancelled(record.status_message.clone().unwrap_or_default()));
                }
                TaskStatus::InputRequired => self.answer_task(client, &record, script, &mut answered, &mut run).await?,
                // Working, or a status newer than this harness: look again.
                _ => {}
            }
        }
    }

    /// Answer the questions of `record` not answered yet.
    async fn answer_task(
        &self,
        client: &Client,
        record: &TaskRecord,
        script: &mut Script,
        answered: &mut std::collections::HashSet<String>,
        run: &mut TaskRun,
    ) -> Result<(), ClientError> {
        let fresh: InputRequests = record
            .pending
            .iter()
            .filter(|(k, _)| !answered.contains(*k))
            .map(|(k, r)| (k.clone(), r.clone()))
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let mut answers = JsonObject::new();
        for (key, request) in &fresh {
            run.events.push(TaskEvent::Asked(key.clone(), Box::new(request.clone())));
            let answer = self.answer_for(script, key, request)?;
            run.events.push(TaskEvent::Answered(key.clone(), answer.clone()));
            answers.insert(key.clone(), answer);
            answered.insert(key.clone());
        }
        run.questions.push(fresh);
        client.update_task(&record.id, answers).await.map(drop)
    }

    fn answer_for(&self, script: &mut Script, key: &str, request: &InputRequest) -> Result<Value, ClientError> {
        let unscripted =
            || ClientError::Callback(format!("the test kit has no answer for question `{key}`: {request:?}"));
        *script.asked.entry(key.to_owned()).or_default() += 1;
        if let Some(answer) = script.next(key) {
            check_shape(key, request, &answer)?;
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

/// The answers left to give in one flow, and how often each key was asked.
#[derive(Debug)]
struct Script {
    queues: HashMap<String, VecDeque<Scripted>>,
    asked: BTreeMap<String, usize>,
}

impl Script {
    fn new(by_key: &HashMap<String, Vec<Scripted>>) -> Self {
        let queues = by_key.iter().map(|(k, v)| (k.clone(), v.iter().cloned().collect())).collect();
        Self { queues, asked: BTreeMap::new() }
    }

    /// The next answer for `key`: each in turn, the last one again and again.
    fn next(&mut self, key: &str) -> Option<Scripted> {
        let queue = self.queues.get_mut(key)?;
        if queue.len() > 1 { queue.pop_front() } else { queue.front().cloned() }
    }
}

/// A scripted answer must fit the kind of question asked, and a form's content must be an
/// object of the form's properties: anything else is a mistake in the test, reported at once
/// (the server would only ask again, round after round).
fn check_shape(key: &str, request: &InputRequest, answer: &Scripted) -> Result<(), ClientError> {
    let wrong = |what: String| Err(ClientError::Callback(format!("the scripted answer for `{key}` {what}")));
    match (request, answer) {
        (InputRequest::Elicit(ElicitParams::Form(form)), Scripted::Accept(content)) => {
            let properties = form.requested_schema.get("properties").and_then(Value::as_object);
            let names: Vec<&str> = properties.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
            let example = names.first().map_or_else(String::new, |p| format!(", e.g. json!({{\"{p}\": …}})"));
            match content {
                Value::Object(content) => {
                    if let Some(unknown) = content.keys().find(|k| !names.contains(&k.as_str())) {
                        return wrong(format!(
                            "has `{unknown}`, which the form does not ask for (it asks for {})",
                            names.join(", ")
                        ));
                    }
                    Ok(())
                }
                other => wrong(format!(
                    "is `{other}`, not a form's content: answer with an object of the form's properties ({}){example}",
                    names.join(", ")
                )),
            }
        }
        (InputRequest::Elicit(ElicitParams::Url(_)), Scripted::Accept(Value::Null | Value::Object(_))) => Ok(()),
        (InputRequest::Elicit(_), Scripted::Decline | Scripted::Cancel) => Ok(()),
        (InputRequest::Elicit(ElicitParams::Url(_)), Scripted::Accept(other)) => {
            wrong(format!("is `{other}`; a URL question is accepted with `null`"))
        }
        (InputRequest::CreateMessage(_), Scripted::Sample(_)) | (InputRequest::ListRoots(_), Scripted::Roots(_)) => {
            Ok(())
        }
        (request, answer) => {
            let asked = match request {
                InputRequest::Elicit(_) => "an elicitation (answer, decline or cancel)",
                InputRequest::CreateMessage(_) => "a model completion (Scripted::Sample)",
                InputRequest::ListRoots(_) => "the roots (Scripted::Roots)",
                _ => "of a kind this harness cannot answer",
            };
            wrong(format!("is {answer:?}, but the question is {asked}"))
        }
    }
}

/// The notifications received since the last take, and the server's feed of task changes
/// (subscribed before the first leg, so that nothing of a task it creates is missed).
#[derive(Debug, Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Notification>>>, Arc<Mutex<Option<broadcast::Receiver<Observed>>>>);

impl Recorder {
    fn set_tasks(&self, events: broadcast::Receiver<Observed>) {
        if let Ok(mut slot) = self.1.lock() {
            *slot = Some(events);
        }
    }

    fn tasks(&self) -> Option<broadcast::Receiver<Observed>> {
        self.1.lock().ok().and_then(|mut slot| slot.take())
    }

    fn push(&self, n: Notification) {
        if let Ok(mut list) = self.0.lock() {
            list.push(n);
        }
    }

    fn take(&self) -> Vec<Notification> {
        self.0.lock().map(|mut list| std::mem::take(&mut *list)).unwrap_or_default()
    }
}
