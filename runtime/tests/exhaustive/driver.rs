//! Driving the real server: one graph's tool served by a real [`Server`], called through
//! [`Server::handle`] in memory, in both eras.
//!
//! - 2026-07-28: each leg is one `tools/call` carrying the sealed `requestState` the previous
//!   leg answered and `inputResponses`; the state is opened with the server's key to compare
//!   it with the model's.
//! - Legacy (2025-11-25): a session made by a real `initialize`, and one `tools/call` whose
//!   questions reach a scripted peer as server-to-client requests, round after round.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use roundtrip::fuzzing::StateSealer;
use roundtrip::protocol::{ErrorObject, JsonObject, Request, RequestId, ResponseBody};
use roundtrip::server::{Inbound, NullPeer, Peer, Session};
use roundtrip::{RequestStateSecurity, Server};
use serde_json::{Value, json};

use super::graphs::{Kind, Probe, Spec, build};
use super::model::{Reply, accepted};

const KEY: [u8; 32] = *b"exhaustive check key: no secret!";
const SERVER: &str = "exhaustive";
/// The legacy revision the back-channel runs at.
pub const LEGACY: &str = "2025-11-25";

/// A graph's tool on a real server.
pub struct Fixture {
    pub spec: Spec,
    pub probe: Arc<Probe>,
    /// The tool as first deployed, and redeployed ([`REDEPLOYED`](super::graphs::REDEPLOYED)).
    servers: [Server; 2],
    sealer: StateSealer,
    session: Option<Arc<Session>>,
}

/// What one leg of the server answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    /// `input_required`: the requests by parameter, and the sealed state.
    Ask(JsonObject, Value),
    /// `complete`: its text, and whether it is an error result.
    Complete(String, bool),
    /// A JSON-RPC error.
    Error(ErrorObject),
}

/// The wire answer a client gives to a question of `kind`.
pub fn wire(kind: Kind, reply: Reply, stamp: u64, shown: u64) -> Value {
    let accept = |content: Value| json!({"action": "accept", "content": content});
    match (reply, kind) {
        (Reply::Decline, _) => json!({"action": "decline"}),
        (Reply::Cancel, _) => json!({"action": "cancel"}),
        (Reply::Valid, Kind::Form | Kind::WithAsk) => accept(accepted(kind, stamp, shown)),
        (Reply::Valid, Kind::Confirm) => accept(json!({"ok": accepted(kind, stamp, shown)})),
        (Reply::Valid, Kind::Choice) => accept(json!({"pick": accepted(kind, stamp, shown)})),
        (Reply::Valid, Kind::Url) => json!({"action": "accept"}),
        (Reply::Valid, Kind::Sample) => json!({
            "role": "assistant", "content": {"type": "text", "text": accepted(kind, stamp, shown)}, "model": "m"
        }),
        (Reply::Valid, Kind::Roots) => json!({"roots": accepted(kind, stamp, shown)}),
        // Passes the form (an integer ≥ 0) and fails the type (u8).
        (Reply::Invalid, Kind::Form) => accept(json!({"n": 300})),
        (Reply::Invalid, Kind::Confirm) => accept(json!({"ok": "yes"})),
        (Reply::Invalid, Kind::Choice) => accept(json!({"pick": "none of them"})),
        (Reply::Invalid, Kind::WithAsk) => accept(json!({"w": -1})),
        (Reply::Invalid, Kind::Url) => json!({"action": "maybe"}),
        (Reply::Invalid, Kind::Sample) => json!({"role": "assistant", "content": {"type": "image"}}),
        (Reply::Invalid, Kind::Roots) => json!({"roots": "everything"}),
        (_, Kind::WithValue) => unreachable!("a with value is never asked"),
    }
}

fn arguments(gate: &str) -> JsonObject {
    let mut args = JsonObject::new();
    args.insert("a".into(), json!("x"));
    args.insert("gate".into(), json!(gate));
    args
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "exhaustive", "version": "0"},
    })
}

fn capabilities() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

fn got(result: Result<Value, ErrorObject>) -> Got {
    let result = match result {
        Ok(r) => r,
        Err(e) => return Got::Error(e),
    };
    match result["resultType"].as_str() {
        Some("input_required") | None if result.get("inputRequests").is_some() => Got::Ask(
            result["inputRequests"].as_object().cloned().unwrap_or_default(),
            result.get("requestState").cloned().unwrap_or(Value::Null),
        ),
        _ => Got::Complete(
            result["content"][0]["text"].as_str().unwrap_or("<no text>").to_owned(),
            result["isError"].as_bool().unwrap_or(false),
        ),
    }
}

impl Fixture {
    /// The tool of `spec` on a fresh server.
    pub fn new(spec: &Spec) -> Self {
        let probe = Arc::new(Probe::default());
        let policy = || RequestStateSecurity::new().keys([KEY]);
        let server = |redeployed| match Server::new(SERVER, "1.0.0").security(policy()) {
            Ok(s) => s.tool(build(spec, &probe, redeployed)),
            Err(e) => panic!("a policy: {e}"),
        };
        let servers = [server(false), server(true)];
        let sealer = StateSealer::new(policy(), SERVER).unwrap_or_else(|e| panic!("a policy: {e}"));
        Self { spec: spec.clone(), probe, servers, sealer, session: None }
    }

    async fn call(&self, version: usize, params: Value, inbound: Inbound) -> Result<Value, ErrorObject> {
        let request = Request::new(RequestId::Number(1), "tools/call", Some(params));
        let reply = self.servers[version].handle(request, inbound).await;
        let Some(response) = reply.response else { return Err(ErrorObject::internal("no response")) };
        match response.into_response().body {
            ResponseBody::Result(r) => Ok(r),
            ResponseBody::Error(e) => Err(e),
        }
    }

    /// One 2026-07-28 leg, on the tool as first deployed (`version` 0) or redeployed (1).
    pub async fn modern(&self, version: usize, gate: &str, token: Option<&Value>, responses: &JsonObject) -> Got {
        let mut params = json!({"name": "t", "arguments": arguments(gate), "_meta": meta()});
        if let Some(token) = token {
            params["requestState"] = token.clone();
        }
        if !responses.is_empty() {
            params["inputResponses"] = Value::Object(responses.clone());
        }
        got(self.call(version, params, Inbound::new(Arc::new(NullPeer))).await)
    }

    /// The plaintext of a state this server sealed.
    pub fn open(&self, token: &Value) -> Result<Vec<u8>, ErrorObject> {
        self.sealer.open("tools/call", "t", &arguments("open"), token)
    }

    /// A whole legacy call, the application's data at generation 0 when it starts: the peer
    /// answers round `r`'s `j`-th request with `rounds[r].answers[j]`. Returns what the call
    /// ended with and every request the peer received, by round.
    pub async fn legacy(&mut self, rounds: Vec<Round>) -> (Got, Vec<Vec<(String, Value)>>) {
        if self.session.is_none() {
            let init = json!({"protocolVersion": LEGACY, "capabilities": capabilities(),
                "clientInfo": {"name": "exhaustive", "version": "0"}});
            let request = Request::new(RequestId::Number(0), "initialize", Some(init));
            let reply = self.servers[0].handle(request, Inbound::new(Arc::new(NullPeer))).await;
            self.session = reply.session;
            assert!(self.session.is_some(), "initialize made no session");
        }
        self.probe.generation.store(0, Ordering::SeqCst);
        let peer = Arc::new(Scripted {
            script: Mutex::new(rounds.into_iter().map(|r| (r.answers.into(), r.then_change_data)).collect()),
            seen: Mutex::new(vec![Vec::new()]),
            probe: self.probe.clone(),
        });
        let mut inbound = Inbound::new(peer.clone());
        inbound.session = self.session.clone();
        let params = json!({"name": "t", "arguments": arguments("open")});
        let outcome = got(self.call(0, params, inbound).await);
        let seen = peer.seen.lock().map(|s| s.clone()).unwrap_or_default();
        (outcome, seen)
    }
}

/// One round of a legacy client's answers.
#[derive(Debug, Clone)]
pub struct Round {
    /// The answers, in the order the questions are asked.
    pub answers: Vec<Value>,
    /// The application's data changes once they are given, before the handler runs again.
    pub then_change_data: bool,
}

/// A client that answers server-to-client requests from a script, round by round.
struct Scripted {
    script: Mutex<VecDeque<(VecDeque<Value>, bool)>>,
    seen: Mutex<Vec<Vec<(String, Value)>>>,
    probe: Arc<Probe>,
}

impl Peer for Scripted {
    fn notify(&self, _: roundtrip::protocol::Notification) {}

    fn request(&self, method: &str, params: Value) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>> {
        let (mut script, mut seen) = (self.script.lock().ok()?, self.seen.lock().ok()?);
        let answer = match script.front_mut().and_then(|(answers, _)| answers.pop_front()) {
            Some(a) => Ok(a),
            None => Err(ErrorObject::internal("the script has no answer for this request")),
        };
        seen.last_mut()?.push((method.to_owned(), params));
        if let Some((_, change)) = script.front().filter(|(answers, _)| answers.is_empty()) {
            if *change {
                self.probe.generation.fetch_add(1, Ordering::SeqCst);
            }
            script.pop_front();
            seen.push(Vec::new());
        }
        Some(Box::pin(std::future::ready(answer)))
    }
}

/// The options a choice question offers, as asked.
pub fn offered(request: &Value) -> Option<[String; 2]> {
    let one_of = request["params"]["requestedSchema"]["properties"]["pick"]["oneOf"].as_array()?;
    let values: Vec<String> = one_of.iter().filter_map(|o| o["const"].as_str().map(str::to_owned)).collect();
    <[String; 2]>::try_from(values).ok()
}
