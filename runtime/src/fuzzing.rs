//! Entry points for the fuzz targets in `fuzz/`, not a public API: they reach private parts of
//! the runtime (the sealer, the HTTP header checks) so that a target can feed them arbitrary
//! input directly. Nothing here is stable; it changes with the targets.
//!
//! ```text
//! scripts/fuzz.sh 60            # every target for 60 s each
//! cd fuzz && cargo fuzz run -s none flow_state corpus/flow_state -- -max_total_time=60
//! ```

use ::http::HeaderMap;
use serde_json::Value;

use crate::protocol::{ErrorObject, JsonObject, Message, Request, RequestMeta};
use crate::seal::{Binding, RequestStateSecurity, SealConfigError, Sealer};
use crate::server::ToolDef;

/// Seals and opens `requestState` exactly as a server named `server_name` with the same
/// policy does, so that a target can hand a server arbitrary *verified* plaintext state (and
/// read the plaintext of the state it answers with). No principal is bound: the requests it
/// seals for are served without one.
#[derive(Debug)]
pub struct StateSealer {
    sealer: Sealer,
}

impl StateSealer {
    /// A sealer for `policy` on a server named `server_name`.
    pub fn new(policy: RequestStateSecurity, server_name: &str) -> Result<Self, SealConfigError> {
        Ok(Self { sealer: Sealer::new(Some(policy), server_name)? })
    }

    /// `plaintext` sealed for `method` on `target` (a tool's name) with these `arguments`.
    pub fn seal(
        &self,
        method: &str,
        target: &str,
        arguments: &JsonObject,
        plaintext: &[u8],
    ) -> Result<String, ErrorObject> {
        self.sealer.seal(&Binding { method, target, arguments, principal: None }, plaintext)
    }

    /// The plaintext of a state sealed for `method` on `target` with these `arguments`.
    pub fn open(
        &self,
        method: &str,
        target: &str,
        arguments: &JsonObject,
        token: &Value,
    ) -> Result<Vec<u8>, ErrorObject> {
        self.sealer.unseal(&Binding { method, target, arguments, principal: None }, token)
    }
}

/// A header value with the `=?base64?…?=` encoding undone (`None`: not valid encoding).
pub fn decode_header_value(value: &str) -> Option<String> {
    crate::transport::headers::decode(value).map(std::borrow::Cow::into_owned)
}

/// The check of a 2026-07-28 request's headers (`MCP-Protocol-Version`, `Mcp-Method`,
/// `Mcp-Name`, `Mcp-Param-*`) against its body, as the HTTP transport runs it.
pub fn check_modern_headers(headers: &HeaderMap, request: &Request, tools: &[ToolDef]) -> Result<(), ErrorObject> {
    crate::transport::headers::check_modern(headers, request, &Default::default(), |name| {
        tools.iter().find(|d| d.tool.name == name)
    })
}

/// How the Rust client encodes a header value: plain visible ASCII as-is, anything else as
/// `=?base64?…?=`.
pub fn client_encode_header_value(value: &str) -> String {
    crate::client::fuzzing::encode_header_value(value)
}

/// The `Mcp-Param-*` headers (name, value) the Rust client sends for a call of a tool with
/// this input schema and these arguments; `Err` when the client refuses the tool's
/// `x-mcp-header` declarations (it drops such tools from `tools/list`).
pub fn client_param_headers(schema: &JsonObject, arguments: &Value) -> Result<Vec<(String, String)>, String> {
    let params = crate::client::fuzzing::header_params(schema)?;
    Ok(crate::client::fuzzing::header_values(&params, arguments))
}

/// The `x-mcp-header` marks the server checks a call's headers against: (header name, path of
/// the argument), through `properties` only.
pub fn marked_headers(schema: &JsonObject) -> Vec<(String, Vec<String>)> {
    let mut marked = Vec::new();
    crate::server::marks::collect_marked(schema, &mut Vec::new(), &mut marked);
    marked
}

/// Whether the server's reading of a message (`Message::read`, which reads a carrier request's
/// `_meta` straight into its typed form) agrees with [`Message::from_slice`]: the same message
/// or the same refusal, and a typed `_meta` is what `RequestMeta::parse_modern` reads from the
/// `_meta` the other left in `params`. `Err` says how they differ.
pub fn check_typed_meta(bytes: &[u8]) -> Result<(), String> {
    let refusal = |e: crate::protocol::MessageError| {
        let (id, error) = e.into_error();
        (id, error.code, error.message)
    };
    let read = match (Message::from_slice(bytes), Message::read(bytes)) {
        (Err(a), Err(b)) => {
            let (a, b) = (refusal(a), refusal(b));
            return if a == b { Ok(()) } else { Err(format!("refused differently: {a:?} and {b:?}")) };
        }
        (Ok(message), Ok(read)) => (message, read),
        (a, b) => return Err(format!("one read it, the other did not: {:?} and {:?}", a.is_ok(), b.is_ok())),
    };
    let (mut message, read) = read;
    let taken = read.taken;
    let Some(typed) = taken.meta else {
        return if message == read.message { Ok(()) } else { Err("the messages differ".to_owned()) };
    };
    let Message::Request(request) = &mut message else {
        return Err("a typed _meta on what is not a request".to_owned());
    };
    let parsed =
        RequestMeta::parse_modern(request.params.as_ref()).map_err(|e| format!("parse_modern refused: {e}"))?;
    if format!("{parsed:?}") != format!("{typed:?}") {
        return Err(format!("the typed _meta {typed:?} is not {parsed:?}"));
    }
    if let Some(Value::Object(params)) = &mut request.params {
        params.remove("_meta");
    }
    // Answers kept as text read as the map the `Value` path holds, and the state taken is the
    // one it holds.
    let mut typed_message = read.message;
    if let Message::Request(typed_request) = &mut typed_message {
        let Some(Value::Object(params)) = &mut typed_request.params else {
            return Err("a typed _meta from params that are not an object".to_owned());
        };
        let answers = taken.answers.map(|a| Value::Object(a.map().clone()));
        let taken_apart = [
            ("inputResponses", answers),
            ("requestState", taken.state),
            ("name", taken.name),
            ("arguments", taken.arguments),
        ];
        for (key, value) in taken_apart {
            if let Some(value) = value
                && params.insert(key.to_owned(), value).is_some()
            {
                return Err(format!("{key} taken out of params is in them too"));
            }
        }
    }
    if message == typed_message { Ok(()) } else { Err("the messages differ beside what was taken apart".to_owned()) }
}
