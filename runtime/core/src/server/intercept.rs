//! Interceptors: the application's own code around every request, on every transport.
//!
//! An [`Interceptor`] registered with [`Server::intercept`](super::Server::intercept) sees each request twice: in
//! [`before`](Interceptor::before), once the request is matched to what it calls (for a
//! `tools/call`, `prompts/get` or `resources/read` leg: once its state is verified), where it
//! may refuse it or annotate it; and in [`after`](Interceptor::after), once it is answered,
//! however it ended. Interceptors run in the order they were registered; the first refusal
//! is the answer, and the interceptors after it do not see that `before`. Every interceptor
//! sees `after`, in the same order.
//!
//! A multi-round flow is seen as one flow: each leg of a 2026-07-28 flow is its own request,
//! and [`Call::flow`] is the same on every one of them (minted at the first leg and carried in
//! the sealed `requestState`, which the interceptor never sees opened), while [`Call::round`]
//! counts the legs from 0. A 2025-era session runs a flow in one request: round 0.
//!
//! The runtime's own checks (rate limits, scopes, the sealed state) run before the
//! interceptors; an interceptor adds rules of its own. Telemetry stays where it is (a span
//! that begins before the request is parsed, so that it also times what an interceptor
//! cannot see).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;

use super::dispatch::{Reply, ReplyMessage};
use crate::protocol::ErrorObject;
use crate::request::{AuthPrincipal, Transport};
use crate::seal::Flow;

/// Code an application runs around every request, on every transport ([`Server::intercept`](super::Server::intercept)).
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use roundtrip::prelude::*;
/// use roundtrip::protocol::ErrorObject;
/// use roundtrip::server::{Call, Interceptor};
///
/// /// Refuses `delete_*` tools to anonymous callers, and counts what it let through.
/// #[derive(Default)]
/// struct Policy {
///     allowed: AtomicU64,
/// }
///
/// impl Interceptor for Policy {
///     async fn before(&self, call: &mut Call) -> Result<(), ErrorObject> {
///         let deleting = call.target().is_some_and(|t| t.starts_with("delete_"));
///         if deleting && call.caller().is_none() {
///             return Err(ErrorObject::new(-32001, "sign in to delete"));
///         }
///         Ok(())
///     }
///
///     fn after(&self, call: &Call) {
///         if call.error().is_none() {
///             self.allowed.fetch_add(1, Ordering::Relaxed);
///         }
///     }
/// }
///
/// let server = Server::new("guarded", "1.0.0").intercept(Policy::default());
/// # let _ = server;
/// ```
pub trait Interceptor: Send + Sync + 'static {
    /// Before the request runs: `Err` refuses it (the error is the answer the client gets,
    /// as it is), and [`Call::annotate`] hands values to the interceptors after this one and
    /// to the handler ([`RequestContext::extension`](crate::server::RequestContext::extension)).
    fn before(&self, call: &mut Call) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = call;
        std::future::ready(Ok(()))
    }

    /// After the request is answered (or cancelled, or refused before it ran): how it
    /// ended ([`Call::error`], [`Call::asked`]) and how long it took ([`Call::elapsed`]).
    /// Called on the request's way out: work that waits belongs on a task of its own.
    fn after(&self, call: &Call) {
        let _ = call;
    }
}

/// One request, as an [`Interceptor`] sees it.
#[derive(Debug)]
pub struct Call {
    method: String,
    target: Option<String>,
    caller: Option<Arc<AuthPrincipal>>,
    client_addr: Option<std::net::IpAddr>,
    transport: Transport,
    flow: Option<Flow>,
    started: web_time::Instant,
    annotations: http::Extensions,
    ended: Ended,
}

/// How a request ended, as far as [`Call`] tells it.
#[derive(Debug, Default)]
enum Ended {
    /// Not yet (in `before`).
    #[default]
    Running,
    /// A result (a complete one, or a task).
    Answered,
    /// `input_required`: the client answers the questions and calls again.
    Asked,
    /// An error.
    Failed(ErrorObject),
    /// Cancelled by the client: nothing was sent.
    Cancelled,
}

impl Call {
    /// The JSON-RPC method, as the client sent it.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// What the request names: the tool or prompt (`params.name`), the resource
    /// (`params.uri`) or the task (`params.taskId`); `None` for a method that names nothing.
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    /// Who is calling, when the caller is authenticated (see
    /// [`RequestContext::auth`](crate::server::RequestContext::auth)).
    pub fn caller(&self) -> Option<&AuthPrincipal> {
        self.caller.as_deref()
    }

    /// The client's network address, when the transport knows it.
    pub fn client_addr(&self) -> Option<std::net::IpAddr> {
        self.client_addr
    }

    /// How the request arrived.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The multi-round flow this request is a leg of: the same number on every leg of one
    /// `tools/call`, `prompts/get` or `resources/read` flow, and different for every flow;
    /// `None` for a request of another method (or one refused before its leg began).
    pub fn flow(&self) -> Option<u128> {
        self.flow.map(|f| u128::from_be_bytes(f.id))
    }

    /// The leg's round in its flow: 0 for the first, 1 for the first retry with answers…
    pub fn round(&self) -> u16 {
        self.flow.map_or(0, |f| f.round)
    }

    /// Attach `value` to the request: later interceptors read it with
    /// [`annotation`](Self::annotation), and the handler with
    /// [`RequestContext::extension`](crate::server::RequestContext::extension). One value per
    /// type; a second replaces the first.
    pub fn annotate<T: Clone + Send + Sync + 'static>(&mut self, value: T) {
        self.annotations.insert(value);
    }

    /// A value an interceptor attached (see [`annotate`](Self::annotate)).
    pub fn annotation<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.annotations.get::<T>()
    }

    /// How long since the request reached the server.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The error the request was answered with (in `after`).
    pub fn error(&self) -> Option<&ErrorObject> {
        match &self.ended {
            Ended::Failed(error) => Some(error),
            _ => None,
        }
    }

    /// Whether the leg answered `input_required`: the flow goes on (in `after`).
    pub fn asked(&self) -> bool {
        matches!(self.ended, Ended::Asked)
    }

    /// Whether the client cancelled the request, so that nothing was sent (in `after`).
    pub fn cancelled(&self) -> bool {
        matches!(self.ended, Ended::Cancelled)
    }
}

/// An [`Interceptor`], behind a pointer (its `before`, boxed).
trait Dyn: Send + Sync + 'static {
    fn before<'a>(&'a self, call: &'a mut Call) -> BoxFuture<'a, Result<(), ErrorObject>>;
    fn after(&self, call: &Call);
}

impl<I: Interceptor> Dyn for I {
    fn before<'a>(&'a self, call: &'a mut Call) -> BoxFuture<'a, Result<(), ErrorObject>> {
        Box::pin(Interceptor::before(self, call))
    }

    fn after(&self, call: &Call) {
        Interceptor::after(self, call);
    }
}

/// The interceptors of one server, in order.
#[derive(Clone, Default)]
pub(crate) struct Interceptors(Arc<[Arc<dyn Dyn>]>);

impl Interceptors {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn push(&mut self, interceptor: impl Interceptor) {
        let mut all = self.0.to_vec();
        all.push(Arc::new(interceptor));
        self.0 = all.into();
    }
}

/// What the request needs to be seen by a [`Call`].
pub(crate) struct Arrival<'a> {
    pub method: &'a str,
    pub target: Option<&'a str>,
    pub caller: Option<Arc<AuthPrincipal>>,
    pub client_addr: Option<std::net::IpAddr>,
    pub transport: Transport,
}

/// One request passing the interceptors: its [`Call`], shared by the dispatch (which reads
/// the reply for `after`) and the leg (which knows the flow and runs `before`).
pub(crate) struct Gate {
    interceptors: Interceptors,
    /// `None` while the interceptors' `before` holds it.
    call: Mutex<Option<Call>>,
}

impl Gate {
    pub(crate) fn new(interceptors: Interceptors, arrival: Arrival<'_>) -> Arc<Self> {
        let call = Call {
            method: arrival.method.to_owned(),
            target: arrival.target.map(str::to_owned),
            caller: arrival.caller,
            client_addr: arrival.client_addr,
            transport: arrival.transport,
            flow: None,
            started: web_time::Instant::now(),
            annotations: http::Extensions::new(),
            ended: Ended::Running,
        };
        Arc::new(Self { interceptors, call: Mutex::new(Some(call)) })
    }

    /// Run every interceptor's `before`, in order, for the leg `flow` (when the request is a
    /// leg of one); the annotations they made, or the first refusal.
    pub(crate) async fn before(&self, flow: Option<Flow>) -> Result<Option<Arc<http::Extensions>>, ErrorObject> {
        let Some(mut call) = self.take() else { return Ok(None) };
        call.flow = flow;
        let mut refused = None;
        for interceptor in self.interceptors.0.iter() {
            if let Err(error) = interceptor.before(&mut call).await {
                refused = Some(error);
                break;
            }
        }
        let annotations = (!call.annotations.is_empty()).then(|| Arc::new(call.annotations.clone()));
        *self.lock() = Some(call);
        refused.map_or(Ok(annotations), Err)
    }

    /// Record that the leg answered `input_required`.
    pub(crate) fn asked(&self) {
        if let Some(call) = self.lock().as_mut() {
            call.ended = Ended::Asked;
        }
    }

    /// Run every interceptor's `after`, with how `reply` ends the request.
    pub(crate) fn after(&self, reply: &Reply) {
        let Some(mut call) = self.take() else { return };
        call.ended = match &reply.response {
            None => Ended::Cancelled,
            Some(ReplyMessage::Response(response)) => match response.as_error() {
                Some(error) => Ended::Failed(error.clone()),
                None => Ended::Answered,
            },
            Some(ReplyMessage::Result { .. }) if matches!(call.ended, Ended::Asked) => Ended::Asked,
            Some(ReplyMessage::Result { .. }) => Ended::Answered,
        };
        for interceptor in self.interceptors.0.iter() {
            interceptor.after(&call);
        }
    }

    fn take(&self) -> Option<Call> {
        self.lock().take()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Call>> {
        self.call.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").field("interceptors", &self.interceptors.0.len()).finish_non_exhaustive()
    }
}
