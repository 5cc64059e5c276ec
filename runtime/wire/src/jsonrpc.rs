//! JSON-RPC 2.0 envelopes and the error codes MCP uses.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Answers, JsonObject, RequestMeta, Text, fill_once};

/// A request id: a string or an integer, never `null`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => f.write_str(s),
        }
    }
}

/// A JSON-RPC request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The parameters (an object when present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl Request {
    /// A request with the given id, method and params.
    pub fn new(id: RequestId, method: impl Into<String>, params: Option<Value>) -> Self {
        Self { jsonrpc: JsonRpcVersion, id, method: method.into(), params }
    }
}

/// A JSON-RPC notification (no id, never answered).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name.
    pub method: String,
    /// The parameters (an object when present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl Notification {
    /// A notification with the given method and params.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        Self { jsonrpc: JsonRpcVersion, method: method.into(), params }
    }
}

/// A JSON-RPC response: a result or an error.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Response {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request answered; absent only when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The outcome.
    #[serde(flatten)]
    pub body: ResponseBody,
}

/// The outcome half of a [`Response`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ResponseBody {
    /// Success.
    #[serde(rename = "result")]
    Result(Value),
    /// Failure.
    #[serde(rename = "error")]
    Error(ErrorObject),
}

// Written out rather than derived: `#[serde(flatten)]` serializes through a buffering map
// serializer, and every response of the server goes through here.
impl Serialize for Response {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Response", if self.id.is_some() { 3 } else { 2 })?;
        st.serialize_field("jsonrpc", &self.jsonrpc)?;
        if let Some(id) = &self.id {
            st.serialize_field("id", id)?;
        }
        match &self.body {
            ResponseBody::Result(v) => st.serialize_field("result", v)?,
            ResponseBody::Error(e) => st.serialize_field("error", e)?,
        }
        st.end()
    }
}

impl Response {
    /// A success response.
    pub fn result(id: RequestId, result: Value) -> Self {
        Self { jsonrpc: JsonRpcVersion, id: Some(id), body: ResponseBody::Result(result) }
    }

    /// An error response; `id` is `None` only when the request id could not be read.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self { jsonrpc: JsonRpcVersion, id, body: ResponseBody::Error(error) }
    }

    /// The error, if this is an error response.
    pub fn as_error(&self) -> Option<&ErrorObject> {
        match &self.body {
            ResponseBody::Error(e) => Some(e),
            ResponseBody::Result(_) => None,
        }
    }
}

/// Any JSON-RPC message, classified by shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Has `method` and `id`.
    Request(Request),
    /// Has `method`, no `id`.
    Notification(Notification),
    /// Has `result` or `error`.
    Response(Response),
}

impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Request(r) => r.serialize(s),
            Self::Notification(n) => n.serialize(s),
            Self::Response(r) => r.serialize(s),
        }
    }
}

impl Message {
    /// Classify one parsed JSON value as a JSON-RPC message.
    ///
    /// On failure the error is `-32600` (or `-32700` for what is not an object) and carries
    /// the request id when one could be read.
    pub fn from_value(value: Value) -> Result<Self, (Option<RequestId>, ErrorObject)> {
        let Value::Object(mut obj) = value else {
            return Err((None, ErrorObject::invalid_request("a JSON-RPC message must be an object")));
        };
        let id = match obj.get("id") {
            None => None,
            Some(v) => match RequestId::deserialize(v) {
                Ok(id) => Some(id),
                Err(_) => {
                    return Err((None, ErrorObject::invalid_request("the id must be a string or an integer")));
                }
            },
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err((id, ErrorObject::invalid_request("jsonrpc must be \"2.0\"")));
        }
        let params = obj.remove("params");
        if let Some(p) = &params
            && !p.is_object()
        {
            return Err((id, ErrorObject::invalid_request("params must be an object")));
        }
        match obj.remove("method") {
            Some(Value::String(method)) => Ok(match id {
                Some(id) => Self::Request(Request { jsonrpc: JsonRpcVersion, id, method, params }),
                None => Self::Notification(Notification { jsonrpc: JsonRpcVersion, method, params }),
            }),
            Some(_) => Err((id, ErrorObject::invalid_request("method must be a string"))),
            None => {
                let body = if let Some(result) = obj.remove("result") {
                    ResponseBody::Result(result)
                } else if let Some(err) = obj.remove("error") {
                    match serde_json::from_value::<ErrorObject>(err) {
                        Ok(e) => ResponseBody::Error(e),
                        Err(_) => {
                            return Err((id, ErrorObject::invalid_request("malformed error object")));
                        }
                    }
                } else {
                    return Err((id, ErrorObject::invalid_request("a message needs a method, a result or an error")));
                };
                Ok(Self::Response(Response { jsonrpc: JsonRpcVersion, id, body }))
            }
        }
    }
}

/// Why bytes are not one JSON-RPC message.
#[derive(Debug)]
pub enum MessageError {
    /// Not JSON (`-32700`).
    Parse(serde_json::Error),
    /// A JSON array: batches are not supported (`-32600`).
    Batch,
    /// JSON, but not a JSON-RPC message (`-32600`, with the request id when one could be
    /// read).
    Invalid(Option<RequestId>, ErrorObject),
}

impl MessageError {
    /// The id to answer with and the error to answer.
    pub fn into_error(self) -> (Option<RequestId>, ErrorObject) {
        match self {
            Self::Parse(e) => (None, ErrorObject::parse_error(format!("Parse error: {e}"))),
            Self::Batch => (None, ErrorObject::invalid_request("JSON-RPC batches are not supported")),
            Self::Invalid(id, error) => (id, error),
        }
    }
}

impl Message {
    /// Parse and classify one JSON-RPC message.
    ///
    /// A well-formed message is read straight into its typed envelope (only `params`,
    /// `result` and `data` become `Value` trees). Anything else is parsed again as a `Value`
    /// and classified by [`Message::from_value`], so every malformed message gets exactly the
    /// answer that describes it.
    ///
    /// ```
    /// use roundtrip_wire::{Message, MessageError};
    ///
    /// let m = Message::from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).unwrap();
    /// assert!(matches!(m, Message::Request(r) if r.method == "tools/list"));
    /// assert!(matches!(Message::from_slice(b"[]"), Err(MessageError::Batch)));
    /// assert!(matches!(Message::from_slice(b"{"), Err(MessageError::Parse(_))));
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<Self, MessageError> {
        Self::parse(bytes, false).map(|read| read.message)
    }

    /// [`from_slice`](Self::from_slice) as the server reads a request: the `_meta` of a
    /// `tools/call`, `prompts/get` or `resources/read` is read straight into its typed form
    /// when [`RequestMeta::from_wire`] takes it (a well-formed 2026-07-28 `_meta` with only the
    /// keys the server reads), and is then not in `params`; any other `_meta` stays there.
    /// With it, the request's `inputResponses` are kept as their text
    /// ([`Answers::from_text`]) when they are an object of objects, each key once, and its
    /// `requestState`, `name` and `arguments` are taken out as they are (see [`Taken`]).
    ///
    /// For speed: a carrier request's `_meta` and answers are most of its small objects, and
    /// a `Value` tree of them (an allocation per key, string and object) was built only to be
    /// read once and dropped.
    #[doc(hidden)]
    pub fn read(bytes: &[u8]) -> Result<Read, MessageError> {
        Self::parse(bytes, true)
    }

    fn parse(bytes: &[u8], typed_meta: bool) -> Result<Read, MessageError> {
        // For speed: the body is checked as UTF-8 once, in one pass, and read as text;
        // `from_slice` checks every string and kept member again on its own. Bytes that are not
        // UTF-8 go the slow way, whose error says where.
        if let Ok(text) = std::str::from_utf8(bytes)
            && let Ok(envelope) = serde_json::from_str::<Envelope<'_>>(text)
            && let Some(read) = envelope.into_read(typed_meta)
        {
            return Ok(read);
        }
        // serde_json's recursion limit (128) turns deep nesting into a parse error.
        let value: Value = serde_json::from_slice(bytes).map_err(MessageError::Parse)?;
        if value.is_array() {
            return Err(MessageError::Batch);
        }
        let message = Self::from_value(value).map_err(|(id, error)| MessageError::Invalid(id, error))?;
        Ok(Read { message, taken: Taken::default() })
    }
}

/// A message as [`Message::read`] read it.
#[doc(hidden)]
#[derive(Debug)]
pub struct Read {
    pub message: Message,
    /// What was taken out of a carrier request's `params` (only a server reads it).
    pub taken: Taken,
}

/// What [`Message::read`] takes out of a 2026-07-28 carrier request's `params`: its `_meta`
/// read into its type and, with it, the previous round's answers and state, and the call's
/// `name` and `arguments`. What is taken is not in `params` (read a member with
/// [`Taken::param`]); anything else stays there.
#[derive(Debug, Clone, Default)]
#[doc(hidden)]
pub struct Taken {
    /// `_meta`, when [`RequestMeta::from_wire`] takes it (then the request claims 2026-07-28).
    pub meta: Option<std::sync::Arc<RequestMeta>>,
    /// `inputResponses` as they arrived, when [`Answers::from_text`] takes them.
    pub answers: Option<Answers>,
    /// `requestState` as it is (a string, or anything else for the unsealing to refuse).
    pub state: Option<Value>,
    /// `name`, a string (what a `tools/call` or `prompts/get` calls).
    pub name: Option<Value>,
    /// `arguments` as they are.
    pub arguments: Option<Value>,
}

impl Taken {
    /// The member `key` of a request's `params` wherever it is: taken, or still in `params`.
    pub fn param<'a>(&'a self, params: Option<&'a Value>, key: &str) -> Option<&'a Value> {
        let taken = match key {
            "name" => self.name.as_ref(),
            "arguments" => self.arguments.as_ref(),
            _ => None,
        };
        taken.or_else(|| params?.get(key))
    }
}

/// The methods that may answer `input_required`, whose `_meta` [`Message::read`] types.
const CARRIERS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// A JSON-RPC message as it arrives, each member read once into its type. A member that is
/// present (even `null`) is `Some`; a malformed one fails the whole envelope, and the message
/// is classified the slow way.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a str>,
    #[serde(default, deserialize_with = "present")]
    id: Option<RequestId>,
    #[serde(default, deserialize_with = "present")]
    method: Option<String>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<Params<'a>>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<ErrorObject>,
}

/// A member that is present, even `null`, is `Some` (serde's own `Option` reads `null` as `None`).
pub(super) fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `params` as it arrives: an object whose members are `Value`s, but for `_meta`,
/// `inputResponses` and `requestState`, kept as their text until the method is known, and
/// `name` (a string, or the envelope fails) and `arguments`, kept apart. Anything but an
/// object fails the envelope.
///
/// For speed: a carrier request's `params` are mostly these, and a map of them (a node, and a
/// key for each) was built only for each to be taken out of it.
struct Params<'a> {
    rest: JsonObject,
    meta: Option<&'a RawValue>,
    input_responses: Option<&'a RawValue>,
    request_state: Option<&'a RawValue>,
    name: Option<Text<'a>>,
    arguments: Option<Value>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Params<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Members<'a> {
            type Value = Params<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Params<'a>, A::Error> {
                let mut params = Params {
                    rest: JsonObject::new(),
                    meta: None,
                    input_responses: None,
                    request_state: None,
                    name: None,
                    arguments: None,
                };
                // A repeated member kept apart goes the slow way, where the last one counts.
                while let Some(Text(key)) = map.next_key()? {
                    match (params.kept(&key), &*key) {
                        (Some((name, slot)), _) => fill_once(&mut map, slot, name)?,
                        (None, "name") => fill_once(&mut map, &mut params.name, "name")?,
                        (None, "arguments") => fill_once(&mut map, &mut params.arguments, "arguments")?,
                        (None, _) => {
                            params.rest.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                Ok(params)
            }
        }
        d.deserialize_map(Members(std::marker::PhantomData))
    }
}

/// The members of `params` kept as their text.
const KEPT: [&str; 3] = ["_meta", "inputResponses", "requestState"];

impl<'a> Params<'a> {
    /// The member `key` is kept in, if it is one of [`KEPT`].
    fn kept(&mut self, key: &str) -> Option<(&'static str, &mut Option<&'a RawValue>)> {
        match key {
            "_meta" => Some(("_meta", &mut self.meta)),
            "inputResponses" => Some(("inputResponses", &mut self.input_responses)),
            "requestState" => Some(("requestState", &mut self.request_state)),
            _ => None,
        }
    }

    /// The member `key`, if kept as text, read into `rest` as a `Value` (`None` only past
    /// serde_json's recursion limit, which the slow path reports).
    fn put_back(&mut self, key: &str) -> Option<()> {
        if let Some(raw) = self.kept(key).and_then(|(_, slot)| slot.take()) {
            self.rest.insert(key.to_owned(), serde_json::from_str(raw.get()).ok()?);
        }
        Some(())
    }

    /// `name`, as a `Value`.
    fn take_name(&mut self) -> Option<Value> {
        self.name.take().map(|Text(name)| Value::String(name.into_owned()))
    }

    /// `name` and `arguments` back into `rest`.
    fn put_back_call(&mut self) {
        if let Some(name) = self.take_name() {
            self.rest.insert("name".to_owned(), name);
        }
        if let Some(arguments) = self.arguments.take() {
            self.rest.insert("arguments".to_owned(), arguments);
        }
    }

    /// The whole `params` object, every member kept apart read back into it.
    fn into_value(mut self) -> Option<Value> {
        for key in KEPT {
            self.put_back(key)?;
        }
        self.put_back_call();
        Some(Value::Object(self.rest))
    }
}

impl Envelope<'_> {
    /// The message, when it is one exactly as [`Message::from_value`] would classify it.
    fn into_read(self, typed_meta: bool) -> Option<Read> {
        if self.jsonrpc != Some("2.0") {
            return None;
        }
        let mut taken = Taken::default();
        let params = match self.params {
            None => None,
            Some(mut params) => {
                let carrier =
                    typed_meta && self.id.is_some() && self.method.as_deref().is_some_and(|m| CARRIERS.contains(&m));
                taken.meta = params.meta.filter(|_| carrier).and_then(|raw| RequestMeta::from_wire(raw.get()));
                if taken.meta.is_some() {
                    // A 2026-07-28 carrier request: its answers stay text too, when they can,
                    // and its state is taken as it is.
                    taken.answers = params.input_responses.and_then(Answers::from_text);
                    if taken.answers.is_none() {
                        params.put_back("inputResponses")?;
                    }
                    if let Some(state) = params.request_state {
                        taken.state = Some(serde_json::from_str(state.get()).ok()?);
                    }
                    taken.name = params.take_name();
                    taken.arguments = params.arguments.take();
                    Some(Value::Object(params.rest))
                } else {
                    Some(params.into_value()?)
                }
            }
        };
        let message = match (self.method, self.id) {
            (Some(method), Some(id)) => Message::Request(Request { jsonrpc: JsonRpcVersion, id, method, params }),
            (Some(method), None) => Message::Notification(Notification { jsonrpc: JsonRpcVersion, method, params }),
            (None, id) => {
                let body = match (self.result, self.error) {
                    (Some(result), _) => ResponseBody::Result(result),
                    (None, Some(error)) => ResponseBody::Error(error),
                    (None, None) => return None,
                };
                Message::Response(Response { jsonrpc: JsonRpcVersion, id, body })
            }
        };
        Some(Read { message, taken })
    }
}

/// The literal `"2.0"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if s == "2.0" { Ok(Self) } else { Err(serde::de::Error::custom("jsonrpc must be \"2.0\"")) }
    }
}

/// The JSON-RPC error codes MCP uses.
pub mod codes {
    /// Invalid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown or removed method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid params, unknown tool or prompt, resource not found (2026), missing `_meta` keys.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Unexpected server failure.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// HTTP headers missing or disagreeing with the body (2026).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability it did not declare (2026).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The requested protocol version is not supported (2026).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// Resource not found on legacy revisions.
    pub const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;
    /// A limit of the server was reached (too many tasks, streams, sessions or requests in
    /// flight, or calls too fast: then `data.retryAfterMs` says when to retry); `data.limit`
    /// names the setting and `data.max` its value. A JSON-RPC implementation-defined server
    /// error.
    pub const LIMIT_REACHED: i64 = -32000;
    /// A store the request needs did not answer (`data.unavailable` names it: `"task_store"`,
    /// `"replay_cache"`): the request was not carried out, and may be sent again later. The
    /// same code as [`LIMIT_REACHED`]: both say "not now, retry", told apart by their `data`.
    pub const UNAVAILABLE: i64 = -32000;
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
pub struct ErrorObject {
    /// The error code.
    pub code: i64,
    /// A short sentence.
    pub message: String,
    /// Optional details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(codes::PARSE_ERROR, message)
    }

    /// `-32600`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, message)
    }

    /// `-32601` naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(codes::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32602`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    /// `-32603`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }

    /// `-32020`.
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(codes::HEADER_MISMATCH, message)
    }

    /// `-32021` with `data.requiredCapabilities`.
    pub fn missing_capability(capability: &str, required: Value) -> Self {
        Self::new(
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!("Server requires the {capability} capability for this request"),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// `-32022` with `data.supported` and `data.requested`.
    pub fn unsupported_version(requested: &str, supported: &[ProtocolVersionStr]) -> Self {
        Self::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(serde_json::json!({ "supported": supported, "requested": requested }))
    }

    /// `-32000`: a limit of the server was reached. `limit` names the setting (e.g.
    /// `"max_tasks_per_caller"`), `max` is its value, and `message` says what to do.
    pub fn limit_reached(limit: &str, max: usize, message: impl Into<String>) -> Self {
        Self::new(codes::LIMIT_REACHED, message).with_data(serde_json::json!({ "limit": limit, "max": max }))
    }

    /// `-32000`: the caller is over a rate limit (`limit` names the setting, e.g.
    /// `"tool_rate"`): at most `max` calls per `per`. `data.retryAfterMs` says when a call will
    /// be taken again (beside `data.limit`, `data.max` and `data.perMs`). No code for it is in
    /// the specification yet; a client that knows none treats it as any `-32000`.
    pub fn rate_limited(limit: &str, max: usize, per: std::time::Duration, retry_after: std::time::Duration) -> Self {
        let (per_ms, retry_after_ms) = (per.as_millis() as u64, retry_after.as_millis() as u64);
        let message = format!("Rate limit reached: at most {max} calls per {per_ms} ms; retry in {retry_after_ms} ms");
        Self::new(codes::LIMIT_REACHED, message).with_data(serde_json::json!({
            "limit": limit, "max": max, "perMs": per_ms, "retryAfterMs": retry_after_ms,
        }))
    }

    /// `-32000` with `data.unavailable = what`: a store the request needs (`"task_store"`,
    /// `"replay_cache"`) did not answer, so the request was not carried out; sending it again
    /// later is safe. Over HTTP it is answered `503 Service Unavailable` with `Retry-After`,
    /// which the Rust client's retry rule acts on.
    pub fn unavailable(what: &str, message: impl Into<String>) -> Self {
        Self::new(codes::UNAVAILABLE, message).with_data(serde_json::json!({ "unavailable": what }))
    }

    /// Whether this is an [`unavailable`](Self::unavailable) error.
    pub fn is_unavailable(&self) -> bool {
        self.code == codes::UNAVAILABLE && self.data.as_ref().is_some_and(|d| d.get("unavailable").is_some())
    }

    /// The one frozen answer to every rejected `requestState`, whatever the cause.
    pub fn invalid_request_state() -> Self {
        Self::new(codes::INVALID_PARAMS, "Invalid or expired requestState")
    }
}

/// A protocol version as its date string, for error data.
pub type ProtocolVersionStr = &'static str;

#[cfg(test)]
mod tests {
    use super::*;

    /// The slow path, as it stood before the typed envelope: parse a `Value`, then classify.
    fn by_value(bytes: &[u8]) -> Result<Message, MessageError> {
        let value: Value = serde_json::from_slice(bytes).map_err(MessageError::Parse)?;
        if value.is_array() {
            return Err(MessageError::Batch);
        }
        Message::from_value(value).map_err(|(id, error)| MessageError::Invalid(id, error))
    }

    fn outcome(r: Result<Message, MessageError>) -> Result<Message, (Option<RequestId>, i64, String)> {
        r.map_err(|e| {
            let (id, error) = e.into_error();
            // A parse error's message names serde_json's position, the same on both paths.
            (id, error.code, error.message)
        })
    }

    #[test]
    fn the_typed_envelope_classifies_every_message_as_the_value_path_does() {
        let cases: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,null]}}}"#,
            r#"{"jsonrpc":"2.0","id":"s","method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"ok":true},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no","data":[1]}}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":2.0,"id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2\u002e0","id":1,"method":"m"}"#,
            r#"{"id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1,"params":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":{"deep":[{}]}}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
            r#""just a string""#,
            r#"null"#,
            r#"{"jsonrpc":"2.0","#,
            "",
        ];
        for case in cases {
            assert_eq!(outcome(Message::from_slice(case.as_bytes())), outcome(by_value(case.as_bytes())), "{case}");
        }
    }

    #[test]
    fn the_server_reads_a_carrier_requests_meta_typed_and_leaves_every_other_meta_in_params() {
        const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let body = |method: &str, id: &str| {
            format!(r#"{{"jsonrpc":"2.0",{id}"method":"{method}","params":{{"name":"t","_meta":{META}}}}}"#)
        };
        let has_meta = |m: &Message| match m {
            Message::Request(r) => r.params.as_ref().is_some_and(|p| p.get("_meta").is_some()),
            Message::Notification(n) => n.params.as_ref().is_some_and(|p| p.get("_meta").is_some()),
            Message::Response(_) => false,
        };
        for method in CARRIERS {
            let read = Message::read(body(method, r#""id":1,"#).as_bytes()).expect("a request");
            assert!(read.taken.meta.is_some() && !has_meta(&read.message), "{method}");
            let whole = Message::from_slice(body(method, r#""id":1,"#).as_bytes()).expect("a request");
            assert!(has_meta(&whole), "from_slice keeps _meta in params");
            assert!(Message::read(body(method, "").as_bytes()).expect("a notification").taken.meta.is_none());
        }
        let read = Message::read(body("tools/list", r#""id":1,"#).as_bytes()).expect("a request");
        assert!(read.taken.meta.is_none() && has_meta(&read.message));
        let legacy =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}"#;
        let read = Message::read(legacy.as_bytes()).expect("a request");
        assert!(read.taken.meta.is_none() && has_meta(&read.message));
    }
}
