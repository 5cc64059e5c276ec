//! One leg of a caller's call, relayed: to a 2026-07-28 upstream as one leg of its own (its
//! questions asked of the caller under the same keys, its `requestState` carried inside the
//! gateway's sealed state), to a 2025-era one through a held call ([`crate::hold`]).
//!
//! The gateway's state is sealed by its server as any handler's is: encrypted, bound to the
//! caller, the method, the mounted name and the arguments, so the upstream's state never
//! reaches the caller, and a leg replayed by another caller or tampered with is refused
//! before it gets here.

use std::sync::Arc;

use roundtrip_client::{Client, ClientError, Step};
use roundtrip_core::error::Error;
use roundtrip_core::server::{HandlerResult, InputRequired, Outcome, RequestContext};
use roundtrip_wire::{CallToolResult, ErrorObject, GetPromptResult, JsonObject, ReadResourceResult};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::hold::{Call, Holds, Progress};
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
    pub client: Client,
    pub modern: bool,
    pub forward_authorization: bool,
    pub holds: Arc<Holds>,
}

impl Relay {
    pub async fn tool(self: Arc<Self>, name: String, cx: RequestContext) -> HandlerResult<CallToolResult> {
        let arguments = Value::Object(cx.arguments().clone());
        if !self.modern {
            return self.held(&cx, Call::Tool { name, arguments }).await;
        }
        let (responses, state) = upstream_leg(&cx)?;
        outcome(self.scoped(&cx, self.client.call_tool_step(&name, arguments, responses, state)).await)
    }

    pub async fn prompt(self: Arc<Self>, name: String, cx: RequestContext) -> HandlerResult<GetPromptResult> {
        let arguments = Value::Object(cx.arguments().clone());
        if !self.modern {
            return self.held(&cx, Call::Prompt { name, arguments }).await;
        }
        let (responses, state) = upstream_leg(&cx)?;
        outcome(self.scoped(&cx, self.client.get_prompt_step(&name, arguments, responses, state)).await)
    }

    pub async fn resource(self: Arc<Self>, cx: RequestContext) -> HandlerResult<ReadResourceResult> {
        let uri = cx.target().to_owned();
        if !self.modern {
            return self.held(&cx, Call::Resource { uri }).await;
        }
        let (responses, state) = upstream_leg(&cx)?;
        outcome(self.scoped(&cx, self.client.read_resource_step(&uri, responses, state)).await)
    }

    /// The caller's `Authorization` header, when this upstream is given it.
    fn authorization(&self, cx: &RequestContext) -> Option<String> {
        self.forward_authorization.then(|| cx.header("authorization").map(str::to_owned)).flatten()
    }

    /// Run `request` as made for the caller of `cx`.
    async fn scoped<T>(&self, cx: &RequestContext, request: impl Future<Output = T>) -> T {
        CALLER_AUTHORIZATION.scope(self.authorization(cx), request).await
    }

    /// A leg of a call to a 2025-era upstream: start it, or pass on the answer to the call
    /// held since the last leg.
    async fn held<T: DeserializeOwned>(&self, cx: &RequestContext, call: Call) -> HandlerResult<T> {
        let owner = cx.caller();
        let progress = match cx.state::<Leg>() {
            None => self.holds.start(owner, self.authorization(cx), call).await.map_err(Error::jsonrpc)?,
            Some(Leg::Held(id)) => {
                let id = u128::from_str_radix(&id, 16).map_err(|_| refused())?;
                self.holds.resume(id, &owner, cx.input_response(HELD_KEY).cloned()).await.ok_or_else(refused)?
            }
            Some(Leg::Upstream(_)) => return Err(refused()),
        };
        match progress {
            Progress::Done(Ok(result)) => Ok(Outcome::Complete(
                serde_json::from_value(result).map_err(|e| upstream_error(ClientError::Protocol(e.to_string())))?,
            )),
            Progress::Done(Err(e)) => Err(upstream_error(e)),
            Progress::Asked { question, id } => {
                Ok(InputRequired::new().ask(HELD_KEY, *question).state(&Leg::Held(format!("{id:x}"))).into())
            }
        }
    }
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
fn outcome<T>(step: Result<Step<T>, ClientError>) -> HandlerResult<T> {
    match step.map_err(upstream_error)? {
        Step::Complete(result) => Ok(Outcome::Complete(result)),
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
    match e {
        ClientError::Rpc(error) => Error::jsonrpc(error),
        other => {
            tracing::warn!(target: "roundtrip::gateway", "the upstream call failed: {other}");
            Error::jsonrpc(ErrorObject::internal("the upstream server failed to answer"))
        }
    }
}

/// The answer to a leg whose state names nothing this gateway holds.
fn refused() -> Error {
    Error::jsonrpc(ErrorObject::invalid_request_state())
}
