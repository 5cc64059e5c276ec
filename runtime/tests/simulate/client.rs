//! The client: the retry loop of `roundtrip::client` (`Client::call_tool` and its task
//! following), rule for rule, over the simulated network. The real `Client` speaks through a
//! transport trait of its own (HTTP through reqwest, a line protocol), which the simulator
//! cannot interpose on to drop, duplicate or delay one message; so the rule is restated here,
//! with each rule's source named, and kept in step with it:
//!
//! - `send_retrying` / `may_retry` (`client/mod.rs`): a request that never reached a server is
//!   sent again, whatever it is; a `502`/`503` only for the task methods and for `tools/call`
//!   of a tool marked idempotent in `tools/list`; at most [`RETRIES`] times, after 50 ms
//!   doubling, or the server's `Retry-After` (at most 2 s);
//! - `run_legs`: at most [`MAX_ROUNDS`] legs; an idempotent flow whose state is refused is
//!   started again from its first leg (at most [`MAX_RESTARTS`] times), and one whose task lost
//!   its runner is started again;
//! - `follow_task` (`client/tasks.rs`): poll `tasks/get` at the task's interval (within 10 ms
//!   and 5 s), keep polling while no server answers for up to 30 s, answer fresh questions with
//!   `tasks/update`, end with the task's result, error or cancellation.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use roundtrip::protocol::ErrorObject;
use serde_json::{Value, json};

use super::ledger::Outcome;
use super::network::{Failure, Network};
use super::world::Sim;

const RETRIES: u32 = 6;
const MAX_ROUNDS: usize = 10;
const MAX_RESTARTS: u32 = 2;
const POLL_BOUNDS: (u64, u64) = (10, 5_000);
const UNREACHABLE_FOR: Duration = Duration::from_secs(30);

/// Why a flow ended without its result.
enum Ended {
    /// An error the client reports as it is.
    Error(String),
    /// The retry rule's budget ran out: retries of a request, restarts of a flow whose state
    /// was refused, rounds, or the time a task's polls may find no server.
    GaveUp(String),
}

pub struct Client {
    pub sim: Arc<Sim>,
    pub network: Arc<Network>,
    /// The tools marked idempotent in `tools/list`.
    pub idempotent: BTreeSet<String>,
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
        "io.modelcontextprotocol/clientInfo": {"name": "simulated-client", "version": "1"},
    })
}

/// An answer to an elicitation `request`: accept, with `value` for the form's first property.
fn answer(request: &Value, value: &str) -> Value {
    let schema = request.pointer("/params/requestedSchema/properties").and_then(Value::as_object);
    let property = schema.and_then(|p| p.keys().next().cloned()).unwrap_or_else(|| "answer".to_owned());
    json!({"action": "accept", "content": {property: value}})
}

fn refused_state(e: &ErrorObject) -> bool {
    *e == ErrorObject::invalid_request_state()
}

fn runner_lost(e: &ErrorObject) -> bool {
    e.data.as_ref().and_then(|d| d.get(roundtrip::task::RUNNER_LOST)) == Some(&Value::Bool(true))
}

impl Client {
    /// The tools marked idempotent, from `tools/list` on a replica (before the faults start).
    pub async fn list_idempotent(network: &Arc<Network>) -> BTreeSet<String> {
        let server = network.fleet.any();
        let request = roundtrip::protocol::Request::new(
            roundtrip::protocol::RequestId::Number(0),
            "tools/list",
            Some(json!({"_meta": meta()})),
        );
        let reply =
            server.handle(request, roundtrip::server::Inbound::new(Arc::new(roundtrip::server::NullPeer))).await;
        let response = reply.response.expect("tools/list answers").into_response();
        let roundtrip::protocol::ResponseBody::Result(list) = response.body else { panic!("tools/list failed") };
        let tools = list["tools"].as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .filter(|t| t.pointer("/annotations/idempotentHint") == Some(&Value::Bool(true)))
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect()
    }

    fn is_idempotent(&self, tool: &str) -> bool {
        self.sim.bugs.every_tool_idempotent || self.idempotent.contains(tool)
    }

    fn may_retry(&self, method: &str, params: &Value, error: &Failure) -> bool {
        match error {
            Failure::Unreached => true,
            Failure::Unavailable { .. } => match method {
                "tools/call" => params.get("name").and_then(Value::as_str).is_some_and(|n| self.is_idempotent(n)),
                "tasks/get" | "tasks/update" | "tasks/cancel" => true,
                _ => false,
            },
            Failure::Rpc(_) | Failure::Exhausted(_) => false,
        }
    }

    /// One request, and again under the retry rule.
    async fn request(&self, who: &str, method: &str, mut params: Value) -> Result<Value, Failure> {
        params["_meta"] = meta();
        let mut attempt = 0;
        loop {
            let outcome = self.network.send(who, method, params.clone()).await;
            let wait = match outcome {
                Err(e) if self.may_retry(method, &params, &e) && attempt >= RETRIES => {
                    return Err(Failure::Exhausted(Box::new(e)));
                }
                Err(ref e) if self.may_retry(method, &params, e) => match e {
                    Failure::Unavailable { retry_after: Some(s), .. } => Duration::from_secs((*s).min(2)),
                    _ => Duration::from_millis(50 << attempt.min(5)),
                },
                _ => return outcome,
            };
            self.sim.event(format_args!("{who} retries {method} in {wait:?}"));
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// Run flow `flow` of `tool` to its end: the result's text, or the error the caller sees.
    pub async fn run(self: &Arc<Self>, flow: &str, tool: &str) -> Outcome {
        match self.run_legs(flow, tool).await {
            Ok(result) => match result.pointer("/content/0/text").and_then(Value::as_str) {
                Some(text) if result.get("isError") != Some(&Value::Bool(true)) => Outcome::Result(text.to_owned()),
                _ => Outcome::Error(format!("an error result: {result}")),
            },
            Err(Ended::Error(e)) => Outcome::Error(e),
            Err(Ended::GaveUp(e)) => Outcome::GaveUp(e),
        }
    }

    async fn run_legs(self: &Arc<Self>, flow: &str, tool: &str) -> Result<Value, Ended> {
        let mut responses: Option<Value> = None;
        let mut state: Option<Value> = None;
        let mut backoff = Duration::from_millis(50);
        let mut restarts = 0;
        for leg in 0..MAX_ROUNDS {
            let sent_state = state.is_some();
            let mut params = json!({"name": tool, "arguments": {"flow": flow}});
            if let Some(s) = state.take() {
                params["requestState"] = s;
            }
            if let Some(r) = responses.take() {
                params["inputResponses"] = r;
            }
            let who = format!("{flow}.{leg}");
            let result = match self.request(&who, "tools/call", params).await {
                Err(Failure::Rpc(e))
                    if sent_state && refused_state(&e) && restarts < MAX_RESTARTS && self.is_idempotent(tool) =>
                {
                    restarts += 1;
                    self.sim.event(format_args!("{flow} restarts: its state was refused"));
                    continue;
                }
                Err(Failure::Rpc(e)) if sent_state && refused_state(&e) && self.is_idempotent(tool) => {
                    return Err(Ended::GaveUp(format!("leg {leg}: its state refused after {restarts} restarts")));
                }
                Err(e @ Failure::Exhausted(_)) => return Err(Ended::GaveUp(format!("leg {leg}: {e}"))),
                Err(e) => return Err(Ended::Error(format!("leg {leg}: {e}"))),
                Ok(result) => result,
            };
            match result.get("resultType").and_then(Value::as_str) {
                Some("input_required") => {}
                Some("task") => match self.follow(flow, &result).await {
                    Err(Failure::Rpc(e)) if runner_lost(&e) && self.is_idempotent(tool) => {
                        self.sim.event(format_args!("{flow} restarts: its task's runner was lost"));
                        continue;
                    }
                    Err(e @ (Failure::Exhausted(_) | Failure::Unreached | Failure::Unavailable { .. })) => {
                        return Err(Ended::GaveUp(format!("task: {e}")));
                    }
                    Err(e) => return Err(Ended::Error(format!("task: {e}"))),
                    Ok(result) => return Ok(result),
                },
                _ => return Ok(result),
            }
            state = result.get("requestState").cloned();
            match result.get("inputRequests").and_then(Value::as_object) {
                Some(requests) if !requests.is_empty() => {
                    let answers: serde_json::Map<String, Value> =
                        requests.iter().map(|(key, r)| (key.clone(), answer(r, &format!("a-{flow}")))).collect();
                    responses = Some(Value::Object(answers));
                    backoff = Duration::from_millis(50);
                }
                _ => {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_millis(250));
                }
            }
        }
        Err(Ended::GaveUp(format!("too many rounds ({MAX_ROUNDS})")))
    }

    /// Follow the task `created` to its end. Dropped before it ends (its caller went away), it
    /// sends `tasks/cancel` (`CancelOnDrop` in `client/tasks.rs`).
    async fn follow(self: &Arc<Self>, flow: &str, created: &Value) -> Result<Value, Failure> {
        let id = created["taskId"].as_str().unwrap_or_default().to_owned();
        let who = format!("{flow}/{}", self.sim.known_label(&id));
        let mut guard = CancelOnDrop { client: Some(self.clone()), who: who.clone(), id: id.clone() };
        let mut answered: BTreeSet<String> = BTreeSet::new();
        let mut interval = created.get("pollIntervalMs").and_then(Value::as_u64);
        let mut unreachable_since: Option<tokio::time::Instant> = None;
        // Answers no server took yet, sent again at the next poll (`unsent` in client/tasks.rs).
        let mut unsent: Option<Value> = None;
        loop {
            let wait = interval.unwrap_or(500).clamp(POLL_BOUNDS.0, POLL_BOUNDS.1);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            if let Some(params) = unsent.take() {
                if let Err(e) = self.request(&who, "tasks/update", params.clone()).await {
                    unsent = Some(params);
                    keep_trying(e, &mut unreachable_since)?;
                    continue;
                }
                unreachable_since = None;
            }
            let got = match self.request(&who, "tasks/get", json!({"taskId": id})).await {
                Ok(got) => {
                    unreachable_since = None;
                    got
                }
                Err(e) => {
                    keep_trying(e, &mut unreachable_since)?;
                    continue;
                }
            };
            interval = got.get("pollIntervalMs").and_then(Value::as_u64).or(interval);
            match got.get("status").and_then(Value::as_str) {
                Some("input_required") => {
                    let fresh: Vec<(String, Value)> = got
                        .get("inputRequests")
                        .and_then(Value::as_object)
                        .map(|r| {
                            r.iter()
                                .filter(|(k, _)| !answered.contains(*k))
                                .map(|(k, v)| (k.clone(), v.clone()))
                                .collect()
                        })
                        .unwrap_or_default();
                    if fresh.is_empty() {
                        continue;
                    }
                    let answers: serde_json::Map<String, Value> =
                        fresh.iter().map(|(key, r)| (key.clone(), answer(r, &format!("t-{flow}")))).collect();
                    answered.extend(answers.keys().cloned());
                    let params = json!({"taskId": id, "inputResponses": answers});
                    if let Err(e) = self.request(&who, "tasks/update", params.clone()).await {
                        keep_trying(e, &mut unreachable_since)?;
                        unsent = Some(params);
                    }
                    interval = Some(POLL_BOUNDS.0.max(wait / 4));
                }
                Some("completed") => {
                    guard.client = None;
                    return got.get("result").cloned().ok_or_else(|| Failure::Rpc(ErrorObject::internal("no result")));
                }
                Some("failed") => {
                    guard.client = None;
                    let error = got.get("error").cloned().and_then(|e| serde_json::from_value(e).ok());
                    return Err(Failure::Rpc(error.unwrap_or_else(|| ErrorObject::internal("the task failed"))));
                }
                Some("cancelled") => {
                    guard.client = None;
                    return Err(Failure::Rpc(ErrorObject::internal("the task was cancelled")));
                }
                _ => {}
            }
        }
    }
}

/// Whether following a task goes on after `error` (`keep_trying` in client/tasks.rs): a
/// request that found no server, even after the retry rule's tries (the real client then
/// answers with the last failure, `Exhausted` here), is tried again at the next poll, for up
/// to [`UNREACHABLE_FOR`]; any other error ends the call.
fn keep_trying(error: Failure, unreachable_since: &mut Option<tokio::time::Instant>) -> Result<(), Failure> {
    match error {
        Failure::Unreached | Failure::Unavailable { .. } | Failure::Exhausted(_) => {
            let since = *unreachable_since.get_or_insert_with(tokio::time::Instant::now);
            if since.elapsed() > UNREACHABLE_FOR { Err(error) } else { Ok(()) }
        }
        error => Err(error),
    }
}

/// Sends `tasks/cancel` (under the retry rule) when the call that follows a task is dropped
/// before the task ends.
struct CancelOnDrop {
    client: Option<Arc<Client>>,
    who: String,
    id: String,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else { return };
        let (who, id) = (std::mem::take(&mut self.who), std::mem::take(&mut self.id));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = client.request(&who, "tasks/cancel", json!({"taskId": id})).await;
            });
        }
    }
}
