//! JSON-RPC 2.0 envelopes and the error codes MCP uses.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

    /// The one frozen answer to every rejected `requestState`, whatever the cause.
    pub fn invalid_request_state() -> Self {
        Self::new(codes::INVALID_PARAMS, "Invalid or expired requestState")
    }
}

/// A protocol version as its date string, for error data.
pub type ProtocolVersionStr = &'static str;
