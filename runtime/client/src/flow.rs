//! The multi-round loop: a call's legs until it completes (answering each round's questions
//! with the callbacks, backing off on state-only rounds, restarting an idempotent flow whose
//! state was refused), and the one-leg API for callers that keep the state themselves.

use std::time::Duration;

use futures::future::try_join_all;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{Client, ClientError, Step, parse};
use crate::params::header_values;
use roundtrip_wire::{CallToolResult, GetPromptResult, InputRequiredResult, JsonObject, ReadResourceResult};

impl Client {
    /// Call a tool, answering every round of questions with the callbacks.
    ///
    /// Over HTTP at 2026-07-28, arguments the tool marks `x-mcp-header` are mirrored into
    /// `Mcp-Param-*` headers; the declarations come from the latest [`list_tools`](Self::list_tools),
    /// so list first when a server may declare them.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        parse(self.run("tools/call", tool_params(name, arguments), name).await?)
    }

    /// Get a prompt, answering every round of questions with the callbacks.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult, ClientError> {
        parse(self.run("prompts/get", tool_params(name, arguments), name).await?)
    }

    /// Read a resource, answering every round of questions with the callbacks.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        parse(self.run("resources/read", uri_params(uri), uri).await?)
    }

    /// One leg of `tools/call`: the caller answers the questions and calls again with the
    /// answers and the state (which it may persist in between, even in another process).
    pub async fn call_tool_step(
        &self,
        name: &str,
        arguments: Value,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<CallToolResult>, ClientError> {
        self.step("tools/call", tool_params(name, arguments), name, input_responses, request_state).await
    }

    /// One leg of `prompts/get`.
    pub async fn get_prompt_step(
        &self,
        name: &str,
        arguments: Value,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<GetPromptResult>, ClientError> {
        self.step("prompts/get", tool_params(name, arguments), name, input_responses, request_state).await
    }

    /// One leg of `resources/read`.
    pub async fn read_resource_step(
        &self,
        uri: &str,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<ReadResourceResult>, ClientError> {
        self.step("resources/read", uri_params(uri), uri, input_responses, request_state).await
    }

    /// One leg of `tools/call`, `prompts/get` or `resources/read` relayed for another client,
    /// as a gateway sends it: `params` whole (`name` or `uri`, `arguments`, `inputResponses`,
    /// `requestState`), with in `_meta` what that client's request carried that the server
    /// should see as its own: its capabilities, log level and progress token are sent in place
    /// of this client's. The result is left as JSON, to be passed on.
    pub async fn forward(&self, method: &str, mut params: JsonObject) -> Result<Step<Value>, ClientError> {
        let name =
            params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str).unwrap_or_default().to_owned();
        let responses = params.remove("inputResponses").and_then(|v| match v {
            Value::Object(responses) => Some(responses),
            _ => None,
        });
        let state = params.remove("requestState").and_then(|v| v.as_str().map(str::to_owned));
        self.step(method, params, &name, responses, state).await
    }

    async fn step<T: DeserializeOwned>(
        &self,
        method: &str,
        base: JsonObject,
        name: &str,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Step<T>, ClientError> {
        let result = self.leg(method, base, name, input_responses, request_state).await?;
        match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") => Ok(Step::InputRequired(parse(result)?)),
            Some("task") => Ok(Step::Task(parse(result)?)),
            _ => Ok(Step::Complete(parse(result)?)),
        }
    }

    async fn leg(
        &self,
        method: &str,
        mut params: JsonObject,
        name: &str,
        input_responses: Option<JsonObject>,
        request_state: Option<String>,
    ) -> Result<Value, ClientError> {
        if let Some(responses) = input_responses {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = request_state {
            params.insert("requestState".into(), Value::String(state));
        }
        if let Some(next) = &self.inner.progress {
            let token = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.entry("progressToken").or_insert_with(|| json!(token));
            }
        }
        let param_headers = if method == "tools/call" && self.inner.version.is_modern() {
            let known = self.inner.tool_headers.lock().map_err(|_| ClientError::Protocol("poisoned lock".into()))?;
            match (known.get(name), params.get("arguments")) {
                (Some(declared), Some(arguments)) => header_values(declared, arguments),
                _ => Vec::new(),
            }
        } else {
            Vec::new()
        };
        self.inner.request(method, params, Some(name.to_owned()), param_headers).await
    }

    /// The loop of [`run_legs`](Self::run_legs), in one span over its legs when telemetry is
    /// on.
    async fn run(&self, method: &str, base: JsonObject, name: &str) -> Result<Value, ClientError> {
        #[cfg(feature = "otel")]
        if let Some(flow) = roundtrip_otel::Flow::start(method, name) {
            use opentelemetry::context::FutureExt as _;
            let outcome = self.run_legs(method, base, name).with_context(flow.context()).await;
            flow.finish(match &outcome {
                Ok(_) => "completed",
                Err(ClientError::TooManyRounds(_)) => "abandoned",
                Err(_) => "failed",
            });
            return outcome;
        }
        self.run_legs(method, base, name).await
    }

    /// The loop: answer each round's questions concurrently and retry with the answers and
    /// the echoed state until a complete result or the round budget.
    async fn run_legs(&self, method: &str, base: JsonObject, name: &str) -> Result<Value, ClientError> {
        const FIRST_BACKOFF: Duration = Duration::from_millis(50);
        const MAX_BACKOFF: Duration = Duration::from_millis(250);
        let mut responses = None;
        let mut state = None;
        let mut backoff = FIRST_BACKOFF;
        let mut restarts = 0;
        for _ in 0..self.inner.max_rounds {
            let sent_state = state.is_some();
            let result = match self.leg(method, base.clone(), name, responses.take(), state.take()).await {
                // A state refused on an idempotent call (a single-use state whose first use
                // reached a replica that died before answering, or one that expired while the
                // user thought): running the flow again from its first leg does no harm.
                Err(ClientError::Rpc(e))
                    if sent_state && refused_state(&e) && restarts < MAX_RESTARTS && self.is_idempotent(name) =>
                {
                    restarts += 1;
                    self.inner.retries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    continue;
                }
                other => other?,
            };
            match result.get("resultType").and_then(Value::as_str) {
                Some("input_required") => {}
                Some("task") => match self.follow_task(parse(result)?).await {
                    // The replica running it stopped: an idempotent call is started again.
                    Err(ClientError::Rpc(e)) if runner_lost(&e) && self.is_idempotent(name) => {
                        self.inner.retries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        continue;
                    }
                    other => return other,
                },
                _ => return Ok(result),
            }
            let round: InputRequiredResult = parse(result)?;
            state = round.request_state;
            match round.input_requests {
                Some(requests) if !requests.is_empty() => {
                    let answers = try_join_all(requests.into_iter().map(|(key, request)| {
                        let answer = self.inner.callbacks.answer(request);
                        async move { answer.await.map(|v| (key, v)) }
                    }))
                    .await?;
                    responses = Some(answers.into_iter().collect::<JsonObject>());
                    backoff = FIRST_BACKOFF;
                }
                _ => {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
        Err(ClientError::TooManyRounds(self.inner.max_rounds))
    }
}

/// How often an idempotent flow is started again after its state was refused.
const MAX_RESTARTS: u32 = 2;

/// The server's one answer to a `requestState` it does not accept.
fn refused_state(error: &roundtrip_wire::ErrorObject) -> bool {
    *error == roundtrip_wire::ErrorObject::invalid_request_state()
}

/// A task failed because the replica running it stopped.
fn runner_lost(error: &roundtrip_wire::ErrorObject) -> bool {
    error.data.as_ref().and_then(|d| d.get(roundtrip_wire::RUNNER_LOST)) == Some(&Value::Bool(true))
}

fn tool_params(name: &str, arguments: Value) -> JsonObject {
    let mut params = JsonObject::new();
    params.insert("name".into(), json!(name));
    if !arguments.is_null() {
        params.insert("arguments".into(), arguments);
    }
    params
}

pub(super) fn uri_params(uri: &str) -> JsonObject {
    let mut params = JsonObject::new();
    params.insert("uri".into(), json!(uri));
    params
}
