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

use serde_json::{Value, json};

use crate::Server;
use crate::client::{Client, ClientError, Step};
use crate::protocol::{
    CallToolResult, ElicitParams, GetPromptResult, InputRequest, InputRequests, JsonObject, ReadResourceResult,
};

/// A scripted answer to one question.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
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
#[derive(Debug, Clone)]
pub struct TestKit {
    server: Server,
    by_key: HashMap<String, Answer>,
    by_property: JsonObject,
    max_rounds: usize,
}

/// A completed flow: the result and the questions of each round.
#[derive(Debug, Clone)]
pub struct Flow<T> {
    /// The final result.
    pub result: T,
    /// The questions asked, round by round (a state-only round has none).
    pub rounds: Vec<InputRequests>,
}

impl<T> Flow<T> {
    /// The question keys of each round, sorted.
    pub fn questions(&self) -> Vec<Vec<&str>> {
        self.rounds.iter().map(|r| r.keys().map(String::as_str).collect()).collect()
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
        Self { server, by_key: HashMap::new(), by_property: JsonObject::new(), max_rounds: 10 }
    }

    /// Accept the question under `key` with this form content.
    pub fn answer(self, key: &str, content: Value) -> Self {
        self.script(key, Answer::Accept(content))
    }

    /// Decline the question under `key`.
    pub fn decline(self, key: &str) -> Self {
        self.script(key, Answer::Decline)
    }

    /// Cancel the question under `key`.
    pub fn cancel(self, key: &str) -> Self {
        self.script(key, Answer::Cancel)
    }

    /// Answer the question under `key` with any scripted answer.
    pub fn script(mut self, key: &str, answer: Answer) -> Self {
        self.by_key.insert(key.to_owned(), answer);
        self
    }

    /// Fill form property `name` with `value` in any form that asks for it.
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
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Flow<CallToolResult>, ClientError> {
        let client = self.client().await?;
        self.drive(|responses, state| {
            let client = client.clone();
            let arguments = arguments.clone();
            async move { client.call_tool_step(name, arguments, responses, state).await }
        })
        .await
    }

    /// Get a prompt to completion.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Flow<GetPromptResult>, ClientError> {
        let client = self.client().await?;
        self.drive(|responses, state| {
            let client = client.clone();
            let arguments = arguments.clone();
            async move { client.get_prompt_step(name, arguments, responses, state).await }
        })
        .await
    }

    /// Read a resource to completion.
    pub async fn read_resource(&self, uri: &str) -> Result<Flow<ReadResourceResult>, ClientError> {
        let client = self.client().await?;
        self.drive(|responses, state| {
            let client = client.clone();
            async move { client.read_resource_step(uri, responses, state).await }
        })
        .await
    }

    async fn client(&self) -> Result<Client, ClientError> {
        // Declare every capability: the kit answers from its script, not from callbacks.
        Client::builder("roundtrip-testing", env!("CARGO_PKG_VERSION"))
            .on_elicit(|_| async { Err(ClientError::Callback("answered by the test kit".into())) })
            .on_sample(|_| async { Err(ClientError::Callback("answered by the test kit".into())) })
            .on_roots(|| async { Err(ClientError::Callback("answered by the test kit".into())) })
            .connect_in_memory(self.server.clone())
            .await
    }

    async fn drive<T, F, Fut>(&self, leg: F) -> Result<Flow<T>, ClientError>
    where
        F: Fn(Option<JsonObject>, Option<String>) -> Fut,
        Fut: Future<Output = Result<Step<T>, ClientError>>,
    {
        let mut rounds = Vec::new();
        let (mut responses, mut state) = (None, None);
        for _ in 0..self.max_rounds {
            match leg(responses.take(), state.take()).await? {
                Step::Complete(result) => return Ok(Flow { result, rounds }),
                Step::InputRequired(round) => {
                    let questions = round.input_requests.unwrap_or_default();
                    let mut answers = JsonObject::new();
                    for (key, request) in &questions {
                        answers.insert(key.clone(), self.answer_for(key, request)?);
                    }
                    responses = (!answers.is_empty()).then_some(answers);
                    state = round.request_state;
                    rounds.push(questions);
                }
            }
        }
        Err(ClientError::TooManyRounds(self.max_rounds))
    }

    fn answer_for(&self, key: &str, request: &InputRequest) -> Result<Value, ClientError> {
        let unscripted =
            || ClientError::Callback(format!("the test kit has no answer for question `{key}`: {request:?}"));
        if let Some(answer) = self.by_key.get(key) {
            return Ok(match answer {
                Answer::Accept(Value::Null) => json!({"action": "accept"}),
                Answer::Accept(content) => json!({"action": "accept", "content": content}),
                Answer::Decline => json!({"action": "decline"}),
                Answer::Cancel => json!({"action": "cancel"}),
                Answer::Sample(text) => {
                    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "roundtrip-testing"})
                }
                Answer::Roots(uris) => json!({"roots": uris.iter().map(|u| json!({"uri": u})).collect::<Vec<_>>()}),
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
