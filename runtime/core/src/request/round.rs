//! [`InputRequired`]: a round of questions a handler answers with, and the state the next leg
//! needs; what the manual API builds by hand and the resolver engine builds from a graph.

use serde::Serialize;

use crate::protocol::{CreateMessageParams, ElicitParams, InputRequest, InputRequests, JsonObject, ListRootsParams};

/// One round of questions, and the state the next leg needs.
///
/// The state is plaintext here: the server seals it before it leaves and verifies and unseals
/// it on the retry, so a handler never sees a token.
///
/// ```
/// use roundtrip::server::InputRequired;
/// use roundtrip::protocol::JsonObject;
///
/// let round = InputRequired::new()
///     .elicit("user_name", "What is your name?", serde_json::from_str::<JsonObject>(
///         r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
///     ).unwrap())
///     .state(&("step", 1));
/// assert_eq!(round.requests().len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputRequired {
    requests: InputRequests,
    state: Option<Vec<u8>>,
}

impl InputRequired {
    /// An empty round; add questions or state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask `request` under `key`; the retry answers under the same key.
    pub fn ask(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.requests.insert(key.into(), request);
        self
    }

    /// Ask the user to fill a form.
    pub fn elicit(self, key: impl Into<String>, message: impl Into<String>, requested_schema: JsonObject) -> Self {
        self.ask(key, InputRequest::Elicit(ElicitParams::form(message, requested_schema)))
    }

    /// Ask the user to open a URL.
    pub fn elicit_url(self, key: impl Into<String>, message: impl Into<String>, url: impl Into<String>) -> Self {
        self.ask(key, InputRequest::Elicit(ElicitParams::url(message, url)))
    }

    /// Ask the client's model.
    pub fn sample(self, key: impl Into<String>, params: CreateMessageParams) -> Self {
        self.ask(key, InputRequest::CreateMessage(params))
    }

    /// Ask for the client's roots.
    pub fn list_roots(self, key: impl Into<String>) -> Self {
        self.ask(key, InputRequest::ListRoots(ListRootsParams::default()))
    }

    /// Carry a typed value to the next leg; read it back with
    /// [`RequestContext::state`](super::RequestContext::state).
    pub fn state<S: Serialize + ?Sized>(mut self, state: &S) -> Self {
        // Serializing plain data into a Vec cannot fail for types with derived Serialize;
        // a type whose Serialize fails carries no state, and the retry sees none.
        self.state = serde_json::to_vec(state).ok();
        self
    }

    /// Carry raw bytes to the next leg.
    pub fn raw_state(mut self, bytes: Vec<u8>) -> Self {
        self.state = Some(bytes);
        self
    }

    /// The questions of this round.
    pub fn requests(&self) -> &InputRequests {
        &self.requests
    }

    /// The plaintext state of this round.
    pub fn state_bytes(&self) -> Option<&[u8]> {
        self.state.as_deref()
    }

    pub(crate) fn into_parts(self) -> (InputRequests, Option<Vec<u8>>) {
        (self.requests, self.state)
    }
}
