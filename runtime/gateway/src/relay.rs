//! One leg of a caller's call, relayed: to a 2026-07-28 upstream as one leg of its own (its
//! questions asked of the caller under the same keys, its `requestState` carried inside the
//! gateway's sealed state, a task it makes followed by one of the gateway's), to a 2025-era
//! one through a held call ([`crate::hold`]). The upstream's progress and log notifications
//! during the leg are the caller's.
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
use tokio::sync::mpsc;

use crate::follow::Follow;
use crate::hold::{Call, Holds, Progress};
use crate::pool::Pool;
use crate::route::Notify;
use crate::upstream::CALLER_AUTHORIZATION;

/// The key a held call's question is asked under.
const HELD_KEY: &str = "upstream";

/// How many of the upstream's notifications may wait to be passed on during one leg; more are
/// dropped (an upstream cannot make the gateway hold more).
const NOTIFICATIONS_IN_WAITING: usize = 256;

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
        let call = Call::Tool { name, arguments: Value::Object(cx.arguments().clone()) };
        if !self.modern {
            return self.held(&cx, call).await;
        }
        match self.forwarded(&cx, call).await? {
            // The upstream made the call a task (the caller declared the extension, which the
            // gateway passed on): a task of the gateway's follows it.
            Step::Task(upstream) if cx.accepts_tasks() => {
                let follow = Follow {
                    pool: self.pool.clone(),
                    authorization: self.authorization(&cx),
                    task_id: upstream.task_id,
                    poll_ms: upstream.poll_interval_ms,
                };
                Ok(Outcome::Task(cx.run_as_task(move |task| follow.run(task)).await?))
            }
            step => outcome(step),
        }
    }

    pub async fn prompt(self: Arc<Self>, name: String, cx: RequestContext) -> HandlerResult<GetPromptResult> {
        let call = Call::Prompt { name, arguments: Value::Object(cx.arguments().clone()) };
        if !self.modern {
            return self.held(&cx, call).await;
        }
        outcome(self.forwarded(&cx, call).await?)
    }

    pub async fn resource(self: Arc<Self>, cx: RequestContext) -> HandlerResult<ReadResourceResult> {
        let call = Call::Resource { uri: cx.target().to_owned() };
        if !self.modern {
            return self.held(&cx, call).await;
        }
        outcome(self.forwarded(&cx, call).await?)
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
        self.pool.settle(connection, &answer);
        let mut answer = answer.map_err(relayed_error)?;
        serde_json::from_value(answer.get_mut("completion").map(Value::take).unwrap_or_default())
            .map_err(|e| relayed_error(ClientError::Protocol(format!("completion/complete: {e}"))))
    }

    /// The caller's `Authorization` header, when this upstream is given it.
    fn authorization(&self, cx: &RequestContext) -> Option<String> {
        self.forward_authorization.then(|| cx.header("authorization").map(str::to_owned)).flatten()
    }

    /// A leg to a 2026-07-28 upstream: one leg of its own, carrying the caller's answers, the
    /// upstream's state, and the caller's capabilities and log level.
    async fn forwarded(&self, cx: &RequestContext, call: Call) -> Result<Step<Value>, Error> {
        let (responses, state) = upstream_leg(cx)?;
        let (method, mut params) = call.params();
        if let Some(responses) = responses {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = state {
            params.insert("requestState".into(), Value::String(state));
        }
        let connection = self.pool.lease().await.map_err(upstream_error)?;
        let step = relaying_notifications(cx, |notify| async {
            let in_flight = connection.route.enter(Some(notify), None);
            let mut meta = caller_meta(cx, method);
            if cx.progress_token().is_some() {
                // The gateway's own token: another caller's leg on this connection may use the
                // caller's.
                meta.insert("progressToken".into(), Value::String(in_flight.progress_token()));
            }
            params.insert("_meta".into(), Value::Object(meta));
            CALLER_AUTHORIZATION.scope(self.authorization(cx), connection.client.forward(method, params)).await
        })
        .await;
        self.pool.settle(connection, &step);
        step.map_err(upstream_error)
    }

    /// A leg of a call to a 2025-era upstream: start it, or pass on the answer to the call
    /// held since the last leg.
    async fn held<T: DeserializeOwned>(&self, cx: &RequestContext, call: Call) -> HandlerResult<T> {
        let owner = cx.caller();
        let progress = relaying_notifications(cx, |notify| async {
            match cx.state::<Leg>() {
                None => {
                    let progress = cx.progress_token().is_some();
                    let started = self.holds.start(owner, self.authorization(cx), (notify, progress), call.params());
                    started.await.map_err(Error::jsonrpc)
                }
                Some(Leg::Held(id)) => {
                    let id = u128::from_str_radix(&id, 16).map_err(|_| refused())?;
                    let answer = cx.input_response(HELD_KEY).cloned();
                    self.holds.resume(id, &owner, answer, notify).await.ok_or_else(refused)
                }
                Some(Leg::Upstream(_)) => Err(refused()),
            }
        })
        .await?;
        match progress {
            Progress::Done(Ok(result)) => Ok(Outcome::Complete(complete(result)?)),
            Progress::Done(Err(e)) => Err(upstream_error(e)),
            Progress::Asked { question, id } => {
                Ok(InputRequired::new().ask(HELD_KEY, *question).state(&Leg::Held(format!("{id:x}"))).into())
            }
        }
    }
}

/// Run `leg` with a [`Notify`] whose notifications (the upstream's progress and logs) reach
/// the caller of `cx` as they come, all of them before the leg's answer.
async fn relaying_notifications<F, Fut, T>(cx: &RequestContext, leg: F) -> T
where
    F: FnOnce(Notify) -> Fut,
    Fut: Future<Output = T>,
{
    let (to_caller, mut notifications) = mpsc::channel(NOTIFICATIONS_IN_WAITING);
    let notify: Notify = Arc::new(move |n: Notification| {
        let _ = to_caller.try_send(n);
    });
    let leg = leg(notify);
    tokio::pin!(leg);
    loop {
        tokio::select! {
            biased;
            Some(n) = notifications.recv() => pass_on(cx, n),
            out = &mut leg => {
                while let Ok(n) = notifications.try_recv() {
                    pass_on(cx, n);
                }
                return out;
            }
        }
    }
}

/// An upstream's progress or log notification, as the caller's.
fn pass_on(cx: &RequestContext, n: Notification) {
    let params = n.params.unwrap_or_default();
    match n.method.as_str() {
        "notifications/progress" => {
            let Some(progress) = params.get("progress").and_then(Value::as_f64) else { return };
            let total = params.get("total").and_then(Value::as_f64);
            cx.progress(progress, total, params.get("message").and_then(Value::as_str));
        }
        "notifications/message" => {
            let Ok(level) = serde_json::from_value::<LoggingLevel>(params.get("level").cloned().unwrap_or_default())
            else {
                return;
            };
            let logger = params.get("logger").and_then(Value::as_str);
            cx.log(level, logger, params.get("data").cloned().unwrap_or_default());
        }
        _ => {}
    }
}

/// What the caller's request carried that the upstream should see as its own: its
/// capabilities (the tasks extension only on a `tools/call`, the one request a task may
/// answer) and its log level.
fn caller_meta(cx: &RequestContext, method: &str) -> JsonObject {
    let mut capabilities = cx.client_capabilities().clone();
    if method != "tools/call"
        && let Some(extensions) = &mut capabilities.extensions
    {
        extensions.remove(roundtrip_wire::TASKS_EXTENSION);
    }
    let mut meta = JsonObject::new();
    meta.insert(META_CLIENT_CAPABILITIES.into(), serde_json::to_value(capabilities).unwrap_or_default());
    if let Some(level) = cx.log_level() {
        meta.insert(META_LOG_LEVEL.into(), serde_json::to_value(level).unwrap_or_default());
    }
    meta
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
fn outcome<T: DeserializeOwned>(step: Step<Value>) -> HandlerResult<T> {
    match step {
        Step::Complete(result) => Ok(Outcome::Complete(complete(result)?)),
        Step::InputRequired(round) => {
            let asked = round.input_requests.unwrap_or_default().into_iter();
            let relayed = asked.fold(InputRequired::new(), |relayed, (key, request)| relayed.ask(key, request));
            Ok(relayed.state(&Leg::Upstream(round.request_state)).into())
        }
        // Only a `tools/call` whose caller declared the extension is passed on with it.
        Step::Task(_) => Err(upstream_error(ClientError::Protocol("the upstream made a call a task unasked".into()))),
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
