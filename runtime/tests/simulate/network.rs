//! The network between the client and the replicas, with a load balancer (nginx) in front:
//! each request is sent to a replica the seed picks, through [`Server::handle`] in memory.
//!
//! Faults, by seed: a request dropped before it left the client (the client knows it never
//! reached a server: `Unreached`), dropped between the load balancer and the replica, or its
//! response dropped after the replica ran it (both `502`, as nginx answers when the upstream
//! connection fails: the client cannot tell whether it ran); a request delivered twice (the
//! client takes the first answer back, the other is thrown away); a message delayed long.
//! A replica killed while it serves a request gives `502` too. The HTTP status of the reply
//! becomes what the client sees: `503` with `Retry-After` for a store that did not answer.

use std::sync::Arc;

use roundtrip::protocol::{ErrorObject, Request, RequestId, ResponseBody};
use roundtrip::server::{Inbound, NullPeer};
use serde_json::Value;

use super::replicas::Fleet;
use super::store::unless_killed;
use super::world::{Fault, Sim};

/// What a request can end in, as the client sees it (the client's `ClientError` cases that
/// its retry rule looks at).
#[derive(Debug, Clone)]
pub enum Failure {
    /// It provably never reached a server.
    Unreached,
    /// `502` or `503` (with `Retry-After`, in seconds).
    Unavailable { status: u16, retry_after: Option<u64> },
    /// A JSON-RPC error.
    Rpc(ErrorObject),
    /// The retry rule sent it as often as it may, and the last try failed so.
    Exhausted(Box<Failure>),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unreached => f.write_str("unreached"),
            Failure::Unavailable { status, .. } => write!(f, "{status}"),
            Failure::Rpc(e) => write!(f, "rpc {} {}", e.code, e.message),
            Failure::Exhausted(last) => write!(f, "no retry left, the last: {last}"),
        }
    }
}

pub struct Network {
    pub sim: Arc<Sim>,
    pub fleet: Arc<Fleet>,
}

impl Network {
    /// One latency: short, or long when the seed delays this message.
    async fn latency(&self, what: &str) {
        let wait = if self.sim.chance(self.sim.config.p_delay) {
            let wait = self.sim.millis(300..2500);
            self.sim.fault(Fault::Delay, format_args!("{what} {wait:?}"));
            wait
        } else {
            self.sim.millis(1..20)
        };
        tokio::time::sleep(wait).await;
    }

    /// Send `method` for `who` (a flow's label): the client's one try, whatever the network
    /// does to it.
    pub async fn send(self: &Arc<Self>, who: &str, method: &str, params: Value) -> Result<Value, Failure> {
        let sim = &self.sim;
        if sim.chance(sim.config.p_drop_unsent) {
            sim.fault(Fault::DropUnsent, format_args!("{who} {method}"));
            tokio::time::sleep(sim.millis(1..50)).await;
            return Err(Failure::Unreached);
        }
        let copies = if sim.chance(sim.config.p_duplicate) {
            sim.fault(Fault::Duplicate, format_args!("{who} {method}"));
            2
        } else {
            1
        };
        let (answers, mut first) = tokio::sync::mpsc::unbounded_channel();
        for copy in 0..copies {
            let (network, answers) = (self.clone(), answers.clone());
            let (who, method, params) =
                (format!("{who}{}", if copy > 0 { "'" } else { "" }), method.to_owned(), params.clone());
            tokio::spawn(async move {
                let _ = answers.send(network.deliver(&who, &method, params).await);
            });
        }
        drop(answers);
        first.recv().await.unwrap_or(Err(Failure::Unavailable { status: 502, retry_after: None }))
    }

    /// One copy of a request, through the load balancer to a replica and back.
    async fn deliver(&self, who: &str, method: &str, params: Value) -> Result<Value, Failure> {
        let sim = &self.sim;
        let bad_gateway = Err(Failure::Unavailable { status: 502, retry_after: None });
        self.latency(&format!("{who} {method} request")).await;
        let Some((_, server, life)) = self.fleet.route() else {
            sim.event(format_args!("{who} {method} -> no replica up: 502"));
            return bad_gateway;
        };
        if sim.chance(sim.config.p_drop_request) {
            sim.fault(Fault::DropRequest, format_args!("{who} {method} to {}", life.label));
            return bad_gateway;
        }
        sim.event(format_args!("{who} {method} -> {}", life.label));
        let request = Request::new(RequestId::Number(1), method, Some(params));
        let serving = life.clone();
        let handle = tokio::spawn(async move {
            unless_killed(&serving, server.handle(request, Inbound::new(Arc::new(NullPeer)))).await
        });
        self.fleet.track(&life, handle.abort_handle());
        let reply = match handle.await {
            Ok(Some(reply)) => reply,
            Err(e) if e.is_panic() => {
                sim.state().ledger.violations.push(format!("{} panicked serving {who} {method}", life.label));
                return bad_gateway;
            }
            _ => {
                sim.event(format_args!("{who} {method} <- {} killed: 502", life.label));
                return bad_gateway;
            }
        };
        if sim.chance(sim.config.p_drop_response) {
            sim.fault(Fault::DropResponse, format_args!("{who} {method} from {}", life.label));
            return bad_gateway;
        }
        self.latency(&format!("{who} {method} response")).await;
        let outcome = match (reply.settled, reply.response) {
            (_, None) => bad_gateway,
            (roundtrip::server::Settled::Unavailable, Some(_)) => Err(Failure::Unavailable {
                status: 503,
                retry_after: Some(u64::from(roundtrip::server::STORE_RETRY_AFTER_SECS)),
            }),
            (_, Some(message)) => match message.into_response().body {
                ResponseBody::Result(result) => Ok(result),
                ResponseBody::Error(e) => Err(Failure::Rpc(e)),
            },
        };
        let shown = match &outcome {
            Ok(result) => summary(sim, result),
            Err(e) => e.to_string(),
        };
        sim.event(format_args!("{who} {method} <- {}: {shown}", life.label));
        outcome
    }
}

/// A result in a few words for the trace (its kind, a task's label and status, a text).
fn summary(sim: &Sim, result: &Value) -> String {
    let kind = result.get("resultType").and_then(Value::as_str).unwrap_or("?");
    match (result.get("taskId").and_then(Value::as_str), result.get("status").and_then(Value::as_str)) {
        (Some(id), Some(status)) => format!("{kind} {} {status}", sim.known_label(id)),
        _ => match result.pointer("/content/0/text").and_then(Value::as_str) {
            Some(text) => format!("{kind} {text:?}"),
            None => kind.to_owned(),
        },
    }
}
