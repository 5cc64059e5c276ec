//! One leg of a caller's call, relayed: to a 2026-07-28 upstream as one leg of its own (its
//! questions asked of the caller under the same keys, its `requestState` carried inside the
//! gateway's sealed state), to a 2025-era one through a held call ([`crate::hold`]).
//!
//! The gateway's state is sealed by its server as any handler's is: encrypted, bound to the
//! caller, the method, the mounted name and the arguments, so the upstream's state never
//! reaches the caller, and a leg replayed by another caller or tampered with is refused
//! before it gets here.

use std::sync::Arc;

use roundtrip_client::{ClientError, Step};
use roundtrip_core::error::Error;
use roundtrip_core::server::{HandlerResult, InputRequired, Outcome, RequestContext};
use roundtrip_wire::{
    CallToolResult, CompleteParams, Completion, ErrorObject, GetPromptResult, JsonObject, LoggingLevel,
    META_CLIENT_CAPABILITIES, META_LOG_LEVEL, Notification, ReadResourceResult,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::hold::{Call, Holds, Progress};
use crate::pool::Pool;
use crate::route::Notify;
use crate::upstream::CALLER_AUTHORIZATION;

/// The key a held call's question is asked under.
const HELD_KEY: &str = "upstream";

/// What the gateway carries from one leg to the next, sealed.
#[derive(Debug, Serialize, Deserialize)]
enum Leg {
    /// The upstream's own `requestState`, if it gave one.
    #[serde(rename = "u")]
    Upstream(Option<String>),
    /// The id of the call held open here (hex).
    #[serde(rename = "h")]
    Held(String),
}

/// Relays the legs of the calls to one upstream.
pub(crate) struct Relay {
    pub pool: Arc<Pool>,
    pub modern: bool,
    pub forward_authorization: bool,
    pub holds: Arc<Holds>,
}

impl Relay {
    pub async fn tool(self: Arc<Self>, name: String, cx: RequestContext) -> HandlerResult<CallToolResult> {
        let arguments = Value::Object(cx.arguments().clone());
        self.leg(Arc::new(cx), Call::Tool { name, arguments }).await
    }

    pub async fn prompt(self: Arc<Self>, name: String, cx: RequestContext) -> HandlerResult<GetPromptResult> {
        let arguments = Value::Object(cx.arguments().clone());
        self.leg(Arc::new(cx), Call::Prompt { name, arguments }).await
    }

    pub async fn resource(self: Arc<Self>, cx: RequestContext) -> HandlerResult<ReadResourceResult> {
        let uri = cx.target().to_owned();
        self.leg(Arc::new(cx), Call::Resource { uri }).await
    }

    /// `completion/complete` of a prompt's argument (`prompt`: its name upstream) or a
    /// template's variable, asked of the upstream.
    pub async fn complete(
        self: Arc<Self>,
        prompt: Option<String>,
        params: CompleteParams,
    ) -> Result<Completion, ErrorObject> {
        let mut params = serde_json::to_value(params).map_err(|e| ErrorObject::internal(e.to_string()))?;
        if let Some(name) = prompt {
            params["ref"]["name"] = Value::String(name);
        }
        let Value::Object(params) = params else { return Err(ErrorObject::internal("completion params")) };
        let connection = self.pool.lease().await.map_err(relayed_error)?;
        let answer = connection.client.request("completion/complete", params).await;
        if matches!(answer, Ok(_) | Err(ClientError::Rpc(_))) {
            self.pool.give_back(connection);
        }
        let mut answer = answer.map_err(relayed_error)?;
        serde_json::from_value(answer.get_mut("completion").map(Value::take).unwrap_or_default())
            .map_err(|e| relayed_error(ClientError::Protocol(format!("completion/complete: {e}"))))
    }

    async fn leg<T: DeserializeOwned>(&self, cx: Arc<RequestContext>, call: Call) -> HandlerResult<T> {
        if self.modern { self.forwarded(cx, call).await } else { self.held(cx, call).await }
    }

    /// The caller's `Authorization` header, when this upstream is given it.
    fn authorization(&self, cx: &RequestContext) -> Option<String> {
        self.forward_authorization.then(|| cx.header("authorization").map(str::to_owned)).flatten()
    }

    /// A leg to a 2026-07-28 upstream: one leg of its own, on a connection of its own while
    /// it runs (whose progress and log notifications are the caller's), carrying the caller's
    /// capabilities, log level and progress token.
    async fn forwarded<T: DeserializeOwned>(&self, cx: Arc<RequestContext>, call: Call) -> HandlerResult<T> {
        let (responses, state) = upstream_leg(&cx)?;
        let (method, mut params) = call.params();
        if let Some(responses) = responses {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = state {
            params.insert("requestState".into(), Value::String(state));
        }
        let connection = self.pool.lease().await.map_err(upstream_error)?;
        let in_flight = connection.route.enter(Some(to_caller(&cx)), None);
        let mut meta = caller_meta(&cx);
        if cx.progress_token().is_some() {
            // The gateway's own token: another caller's leg on this connection may use the same.
            meta.insert("progressToken".into(), Value::String(in_flight.progress_token()));
        }
        params.insert("_meta".into(), Value::Object(meta));
        let step = CALLER_AUTHORIZATION.scope(self.authorization(&cx), connection.client.forward(method, params)).await;
        drop(in_flight);
        // A connection that answered, even with an error, serves the next leg.
        if matches!(step, Ok(_) | Err(ClientError::Rpc(_))) {
            self.pool.give_back(connection);
        }
        outcome(step)
    }

    /// A leg of a call to a 2025-era upstream: start it, or pass on the answer to the call
    /// held since the last leg.
    async fn held<T: DeserializeOwned>(&self, cx: Arc<RequestContext>, call: Call) -> HandlerResult<T> {
        let owner = cx.caller();
        let notify = to_caller(&cx);
        let progress = match cx.state::<Leg>() {
            None => {
                let progress = cx.progress_token().is_some();
                let started = self.holds.start(owner, self.authorization(&cx), (notify, progress), call.params()).await;
                started.map_err(Error::jsonrpc)?
            }
            Some(Leg::Held(id)) => {
                let id = u128::from_str_radix(&id, 16).map_err(|_| refused())?;
                let answer = cx.input_response(HELD_KEY).cloned();
                self.holds.resume(id, &owner, answer, notify).await.ok_or_else(refused)?
            }
            Some(Leg::Upstream(_)) => return Err(refused()),
        };
        match progress {
            Progress::Done(Ok(result)) => Ok(Outcome::Complete(complete(result)?)),
            Progress::Done(Err(e)) => Err(upstream_error(e)),
            Progress::Asked { question, id } => {
                Ok(InputRequired::new().ask(HELD_KEY, *question).state(&Leg::Held(format!("{id:x}"))).into())
            }
        }
    }
}

/// What the caller's request carried that the upstream should see as its own: its
/// capabilities (less the tasks extension, which the gateway does not relay yet) and its log
/// level.
fn caller_meta(cx: &RequestContext) -> JsonObject {
    let mut capabilities = cx.client_capabilities().clone();
    if let Some(extensions) = &mut capabilities.extensions {
        extensions.remove(roundtrip_wire::TASKS_EXTENSION);
    }
    let mut meta = JsonObject::new();
    meta.insert(META_CLIENT_CAPABILITIES.into(), serde_json::to_value(capabilities).unwrap_or_default());
    if let Some(level) = cx.log_level() {
        meta.insert(META_LOG_LEVEL.into(), serde_json::to_value(level).unwrap_or_default());
    }
    meta
}

/// Pass the upstream's progress and log notifications on to the caller of `cx`.
fn to_caller(cx: &Arc<RequestContext>) -> Notify {
    let cx = cx.clone();
    Arc::new(move |n: Notification| {
        let params = n.params.unwrap_or_default();
        match n.method.as_str() {
            "notifications/progress" => {
                let Some(progress) = params.get("progress").and_then(Value::as_f64) else { return };
                let total = params.get("total").and_then(Value::as_f64);
                cx.progress(progress, total, params.get("message").and_then(Value::as_str));
            }
            "notifications/message" => {
                let Ok(level) =
                    serde_json::from_value::<LoggingLevel>(params.get("level").cloned().unwrap_or_default())
                else {
                    return;
                };
                let logger = params.get("logger").and_then(Value::as_str);
                cx.log(level, logger, params.get("data").cloned().unwrap_or_default());
            }
            _ => {}
        }
    })
}

/// A completed result, as the caller gets it.
fn complete<T: DeserializeOwned>(result: Value) -> Result<T, Error> {
    serde_json::from_value(result).map_err(|e| upstream_error(ClientError::Protocol(e.to_string())))
}

/// The answers and the upstream's state a leg carries to a 2026-07-28 upstream.
fn upstream_leg(cx: &RequestContext) -> Result<(Option<JsonObject>, Option<String>), Error> {
    let state = match cx.state::<Leg>() {
        None => None,
        Some(Leg::Upstream(state)) => state,
        Some(Leg::Held(_)) => return Err(refused()),
    };
    let responses = (!cx.input_responses().is_empty()).then(|| cx.input_responses().clone());
    Ok((responses, state))
}

/// The caller's outcome of an upstream's step: its questions asked under the same keys, its
/// state sealed inside the gateway's.
fn outcome<T: DeserializeOwned>(step: Result<Step<Value>, ClientError>) -> HandlerResult<T> {
    match step.map_err(upstream_error)? {
        Step::Complete(result) => Ok(Outcome::Complete(complete(result)?)),
        Step::InputRequired(round) => {
            let asked = round.input_requests.unwrap_or_default().into_iter();
            let relayed = asked.fold(InputRequired::new(), |relayed, (key, request)| relayed.ask(key, request));
            Ok(relayed.state(&Leg::Upstream(round.request_state)).into())
        }
        // Not asked for: the gateway's connections do not declare the tasks extension.
        Step::Task(_) => Err(upstream_error(ClientError::Protocol("the upstream made the call a task".into()))),
    }
}

/// The caller's error for an upstream's failure: a JSON-RPC error as the upstream said it
/// (its refusal of its own state too, so that a client starts an idempotent flow again), any
/// other failure as an internal error whose cause is logged, not sent.
fn upstream_error(e: ClientError) -> Error {
    Error::jsonrpc(relayed_error(e))
}

fn relayed_error(e: ClientError) -> ErrorObject {
    match e {
        ClientError::Rpc(error) => error,
        other => {
            tracing::warn!(target: "roundtrip::gateway", "the upstream call failed: {other}");
            ErrorObject::internal("the upstream server failed to answer")
        }
    }
}

/// The answer to a leg whose state names nothing this gateway holds.
fn refused() -> Error {
    Error::jsonrpc(ErrorObject::invalid_request_state())
}
