//! Serving multi-round handlers to 2025-era sessions: the questions of each round travel as
//! server-to-client requests inside the one call, and the handler runs again with the answers.
//! A round with state and no questions (a 2026-07-28 client would retry it at once) is run
//! again here, after the pause a 2026-07-28 client takes (50 ms, doubling to 250 ms).

use std::sync::Arc;
use std::time::Duration;

use futures::future::try_join_all;

use super::Server;
use super::carrier::{Carrier, CompleteResult, check_capabilities};
use super::dispatch::Failure;
use super::handler::{Handler, Outcome};
use super::peer::Inbound;
use crate::protocol::{Answers, ErrorObject, JsonObject, RequestMeta};
use crate::request::Answerable;
use crate::request::LogFilter;
use crate::request::Session;

impl Server {
    /// Run `handler` on a legacy session until it completes; `None` if the call was cancelled.
    pub(crate) async fn run_legacy<T: CompleteResult>(
        &self,
        handler: &Handler<T>,
        mut carrier: Carrier,
        session: &Arc<Session>,
        inbound: &Inbound,
    ) -> Result<Option<T>, Failure> {
        let mut input_responses = std::mem::take(&mut carrier.input_responses);
        let mut state: Option<Vec<u8>> = None;
        let max_rounds = self.inner.legacy_max_rounds;
        let mut meta = RequestMeta::default();
        meta.client_capabilities = session.client_capabilities.clone();
        meta.client_info = Some(session.client_info.clone());
        meta.progress_token = carrier.progress_token.clone();
        let meta = Arc::new(meta);
        let owner = self.owner(inbound);
        // The interceptors see the call once: a session runs its rounds inside it.
        let annotations = match &inbound.gate {
            Some(gate) => gate.before(None).await?,
            None => None,
        };
        // The pause before a state-only round is run again, as the client's retry loop takes it.
        let mut pause = Duration::from_millis(50);
        for _ in 0..max_rounds {
            let answers = (std::mem::take(&mut input_responses), state.take());
            let log = LogFilter::Session(session.log_level());
            let mut cx = carrier.context(self, inbound, answers, (meta.clone(), owner.clone()), session.version, log);
            cx.annotations.clone_from(&annotations);
            let outcome = tokio::select! {
                result = handler.call(cx) => carrier.settle(result, session.version)?,
                () = inbound.cancel.cancelled() => return Ok(None),
            };
            let round = match outcome {
                Outcome::Complete(result) => return Ok(Some(result)),
                Outcome::InputRequired(round) => round,
                Outcome::Task(_) => {
                    return Err(ErrorObject::internal(format!(
                        "{} `{}` answered with a task, which a {} session cannot carry",
                        carrier.method, carrier.target, session.version
                    ))
                    .into());
                }
            };
            let (requests, next_state) = round.into_parts();
            if requests.is_empty() {
                // A round with state only: the server is the client's retry loop here.
                let Some(next_state) = next_state else {
                    return Err(ErrorObject::internal(format!(
                        "{} `{}` answered input_required with neither input requests nor state",
                        carrier.method, carrier.target
                    ))
                    .into());
                };
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = inbound.cancel.cancelled() => return Ok(None),
                }
                pause = (pause * 2).min(Duration::from_millis(250));
                state = Some(next_state);
                continue;
            }
            // The same `-32021` as on 2026-07-28, naming the capability the session lacks.
            check_capabilities(&requests, Answerable::of(&session.client_capabilities)).map_err(|mut e| {
                carrier.log_refusal(session.version, &e.message);
                e.message = format!("{}; the client declared no such capability at initialize", e.message);
                e
            })?;
            let mut pending = Vec::with_capacity(requests.len());
            for (key, request) in requests {
                let params = request.legacy_params(session.version)?;
                let Some(answer) = inbound.peer.request(request.method(), params) else {
                    return Err(ErrorObject::internal(format!(
                        "{} `{}` needs to ask the client ({}), but this connection has no channel for \
                         server-to-client requests; use a session (stdio, or HTTP with Mcp-Session-Id) \
                         or a 2026-07-28 client",
                        carrier.method,
                        carrier.target,
                        request.method()
                    ))
                    .into());
                };
                let method = request.method();
                pending.push(async move {
                    answer.await.map(|v| (key, v)).map_err(|e| {
                        ErrorObject::internal(format!("the client answered {method} with an error: {}", e.message))
                    })
                });
            }
            let answers = tokio::select! {
                answers = try_join_all(pending) => answers?,
                () = inbound.cancel.cancelled() => return Ok(None),
            };
            input_responses = Answers::from_map(answers.into_iter().collect::<JsonObject>());
            state = next_state;
        }
        Err(ErrorObject::internal(format!(
            "{} `{}` did not complete within {max_rounds} rounds",
            carrier.method, carrier.target
        ))
        .into())
    }
}
