//! The client's answers to a server's questions: elicitation, sampling and roots.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use super::ClientError;
use roundtrip_wire::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ElicitationCapability,
    InputRequest, JsonObject, ListRootsResult, Notification, Root,
};

type Callback<P, R> = Arc<dyn Fn(P) -> BoxFuture<'static, Result<R, ClientError>> + Send + Sync>;

/// The registered callbacks; registering one declares the matching capability.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub elicit: Option<Callback<ElicitParams, ElicitResult>>,
    /// The elicitation callback takes forms only: URL mode is not declared.
    pub forms_only: bool,
    pub sample: Option<Callback<CreateMessageParams, CreateMessageResult>>,
    pub roots: Option<Callback<(), Vec<Root>>>,
    pub notification: Option<Arc<dyn Fn(Notification) + Send + Sync>>,
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callbacks")
            .field("elicit", &self.elicit.is_some())
            .field("forms_only", &self.forms_only)
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

pub(crate) fn boxed<P, R, F, Fut>(f: F) -> Callback<P, R>
where
    F: Fn(P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ClientError>> + Send + 'static,
{
    Arc::new(move |p| Box::pin(f(p)))
}

impl Callbacks {
    /// The capabilities these callbacks declare.
    pub fn capabilities(&self) -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = self.elicit.as_ref().map(|_| {
            let forms = ElicitationCapability::default().with_form(JsonObject::new());
            if self.forms_only { forms } else { forms.with_url(JsonObject::new()) }
        });
        capabilities.sampling = self.sample.as_ref().map(|_| Default::default());
        capabilities.roots = self.roots.as_ref().map(|_| JsonObject::new());
        capabilities
    }

    /// Answer one input request (or server-to-client request) with its callback.
    pub fn answer(&self, request: InputRequest) -> BoxFuture<'static, Result<Value, ClientError>> {
        fn json<T: serde::Serialize>(r: Result<T, ClientError>) -> Result<Value, ClientError> {
            r.and_then(|v| serde_json::to_value(v).map_err(|e| ClientError::Callback(e.to_string())))
        }
        match request {
            InputRequest::Elicit(params) => match &self.elicit {
                Some(_) if self.forms_only && matches!(params, ElicitParams::Url(_)) => {
                    Box::pin(async { Err(ClientError::ElicitationNotSupported) })
                }
                Some(cb) => {
                    let fut = cb(params);
                    Box::pin(async move { json(fut.await) })
                }
                None => Box::pin(async { Err(ClientError::ElicitationNotSupported) }),
            },
            InputRequest::CreateMessage(params) => match &self.sample {
                Some(cb) => {
                    let fut = cb(params);
                    Box::pin(async move { json(fut.await) })
                }
                None => Box::pin(async { Err(ClientError::SamplingNotSupported) }),
            },
            InputRequest::ListRoots(_) => match &self.roots {
                Some(cb) => {
                    let fut = cb(());
                    Box::pin(async move { json(fut.await.map(ListRootsResult::new)) })
                }
                None => Box::pin(async { Err(ClientError::RootsNotSupported) }),
            },
            other => {
                let method = other.method();
                Box::pin(async move { Err(ClientError::Callback(format!("this client cannot answer `{method}`"))) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roundtrip_wire::ListRootsParams;

    #[tokio::test]
    async fn a_question_without_its_callback_fails_with_a_plain_message() {
        let none = Callbacks::default();
        let elicit = InputRequest::Elicit(ElicitParams::url("m", "https://example.com"));
        assert_eq!(none.answer(elicit).await, Err(ClientError::ElicitationNotSupported));
        let sample = InputRequest::CreateMessage(CreateMessageParams::prompt("p", 1));
        assert_eq!(none.answer(sample).await, Err(ClientError::SamplingNotSupported));
        let roots = InputRequest::ListRoots(ListRootsParams::default());
        assert_eq!(none.answer(roots).await, Err(ClientError::RootsNotSupported));
        assert_eq!(none.capabilities(), ClientCapabilities::default());
    }
}
