//! The 2026-07-28 request headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-*`) and their cross-check against the body.

use std::borrow::Cow;

use ::http::{HeaderMap, HeaderName, HeaderValue};
use base64::Engine as _;
use serde_json::Value;

use roundtrip_core::server::{HeaderMark, ToolDef};
use roundtrip_wire::{ErrorObject, JsonObject, META_PROTOCOL_VERSION, ProtocolVersion, Request, RequestMeta, Taken};

// Header names parsed once, here: looking a `&str` name up parses and validates it each time.
pub(crate) static PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
#[cfg(feature = "http")]
pub(crate) static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
static METHOD: HeaderName = HeaderName::from_static("mcp-method");
static NAME: HeaderName = HeaderName::from_static("mcp-name");

/// A header's value, trimmed; `Err` when it is not visible ASCII or appears more than once (a
/// proxy that routes on one copy and a server that reads another would disagree on what the
/// request is).
pub(crate) fn raw<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<Option<&'h str>, ErrorObject> {
    Found::lookup(headers, name).value(name)
}

/// How many times a header appears, and its value when once.
#[derive(Clone, Copy, Default)]
enum Found<'h> {
    #[default]
    None,
    One(&'h HeaderValue),
    Many,
}

impl<'h> Found<'h> {
    /// Header `name` in `headers`.
    fn lookup(headers: &'h HeaderMap, name: &HeaderName) -> Self {
        let mut values = headers.get_all(name).iter();
        match (values.next(), values.next()) {
            (None, _) => Self::None,
            (Some(value), None) => Self::One(value),
            (Some(_), Some(_)) => Self::Many,
        }
    }

    /// A header found once, or not at all; add one more copy of it.
    fn add(&mut self, value: &'h HeaderValue) {
        *self = match self {
            Self::None => Self::One(value),
            _ => Self::Many,
        };
    }

    /// The value, trimmed, as [`raw`] gives it.
    fn value(self, name: &HeaderName) -> Result<Option<&'h str>, ErrorObject> {
        match self {
            Self::None => Ok(None),
            Self::Many => Err(ErrorObject::header_mismatch(format!("The {name} header appears more than once"))),
            Self::One(v) => v
                .to_str()
                // `trim_ascii`: the value is ASCII by now, and `trim` would look for Unicode spaces.
                .map(|s| Some(s.trim_ascii()))
                .map_err(|_| ErrorObject::header_mismatch(format!("The {name} header has invalid characters"))),
        }
    }

    /// The value as [`decoded`] gives it.
    fn decoded(self, name: &HeaderName) -> Result<Option<Cow<'h, str>>, ErrorObject> {
        let Some(value) = self.value(name)? else { return Ok(None) };
        decode(value).map(Some).ok_or_else(|| {
            ErrorObject::header_mismatch(format!("The {name} header is not valid =?base64?…?= encoding"))
        })
    }
}

/// The 2026-07-28 headers of a request, found in one pass over its headers.
///
/// For speed: a lookup by a name of our own hashes the name, and a request needs three.
#[derive(Default)]
struct Modern<'h> {
    version: Found<'h>,
    method: Found<'h>,
    name: Found<'h>,
}

impl<'h> Modern<'h> {
    fn of(headers: &'h HeaderMap) -> Self {
        let mut found = Self::default();
        for (name, value) in headers {
            let slot = if name == PROTOCOL_VERSION {
                &mut found.version
            } else if name == METHOD {
                &mut found.method
            } else if name == NAME {
                &mut found.name
            } else {
                continue;
            };
            slot.add(value);
        }
        found
    }
}

/// A trimmed header value with the `=?base64?…?=` encoding undone.
fn decoded<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<Option<Cow<'h, str>>, ErrorObject> {
    Found::lookup(headers, name).decoded(name)
}

/// Undo the `=?base64?{base64(utf8)}?=` encoding; plain values pass unchanged (borrowed).
pub fn decode(value: &str) -> Option<Cow<'_, str>> {
    match value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) {
        Some(b64) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
        None => Some(Cow::Borrowed(value)),
    }
}

/// Whether the body is declared `application/json`: the media type before any parameters,
/// compared whole (not a substring: `text/plain; charset=application/json` is text, which a
/// browser may send to another site without asking first).
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(::http::header::CONTENT_TYPE).iter();
    let (Some(value), None) = (values.next(), values.next()) else { return false };
    // What nearly every client sends, compared first.
    if value.as_bytes() == b"application/json" {
        return true;
    }
    let media_type = value.to_str().ok().and_then(|v| v.split(';').next()).map(str::trim_ascii);
    media_type.is_some_and(|m| m.eq_ignore_ascii_case("application/json"))
}

/// Whether the client takes an SSE stream (`Accept: text/event-stream`, `text/*` or `*/*`).
pub(crate) fn accepts_event_stream(headers: &HeaderMap) -> bool {
    headers.get_all(::http::header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(
        |range| {
            let media = range.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            media == "text/event-stream" || media == "text/*" || media == "*/*"
        },
    )
}

/// Whether `MCP-Protocol-Version` names the 2026-07-28 revision (or a later one).
pub(crate) fn is_modern_header(headers: &HeaderMap) -> bool {
    headers
        .get(&PROTOCOL_VERSION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| ProtocolVersion::parse(v.trim_ascii()))
        .is_some_and(ProtocolVersion::is_modern)
}

/// Check the `MCP-Protocol-Version` of a request on the legacy path: absent, or a revision
/// the server knows.
pub(crate) fn check_legacy(headers: &HeaderMap) -> Result<(), ErrorObject> {
    match raw(headers, &PROTOCOL_VERSION) {
        Err(e) => Err(ErrorObject::invalid_request(e.message)),
        Ok(Some(v)) if ProtocolVersion::parse(v).is_none() => {
            let supported: Vec<&str> = ProtocolVersion::LEGACY.iter().map(|v| v.as_str()).collect();
            Err(ErrorObject::invalid_request(format!("Unsupported MCP-Protocol-Version header: {v}"))
                .with_data(serde_json::json!({ "supported": supported, "requested": v })))
        }
        Ok(_) => Ok(()),
    }
}

/// Check the headers of a 2026-07-28 request against its body (`-32020` on any mismatch).
/// `tool` finds a registered tool by name (its `x-mcp-header` marks are checked).
///
/// Body problems (no `_meta`, no version key, no `name`) are left to the server, which
/// answers them with its own codes.
pub fn check_modern<'t>(
    headers: &HeaderMap,
    request: &Request,
    taken: &Taken,
    tool: impl FnOnce(&str) -> Option<&'t ToolDef>,
) -> Result<(), ErrorObject> {
    let params = request.params.as_ref();
    // Claimed in `_meta`: `Some(None)` when the claim is not a string.
    let claimed = match taken.meta.as_deref() {
        Some(meta) => meta.protocol_version.map(|v| Some(v.as_str())),
        None => RequestMeta::raw(params).and_then(|m| m.get(META_PROTOCOL_VERSION)).map(Value::as_str),
    };
    let found = Modern::of(headers);
    match (claimed, found.version.value(&PROTOCOL_VERSION)?) {
        (Some(_), None) => {
            return Err(ErrorObject::header_mismatch("Missing required MCP-Protocol-Version header"));
        }
        (Some(Some(body)), Some(header)) if body != header => {
            return Err(ErrorObject::header_mismatch(format!(
                "MCP-Protocol-Version header `{header}` does not match _meta[\"{META_PROTOCOL_VERSION}\"] `{body}`"
            )));
        }
        _ => {}
    }
    match found.method.value(&METHOD)? {
        None => return Err(ErrorObject::header_mismatch("Missing required Mcp-Method header")),
        Some(m) if m != request.method => {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Method header `{m}` does not match the body's method `{}`",
                request.method
            )));
        }
        Some(_) => {}
    }
    let name_field = match request.method.as_str() {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(field) = name_field
        && let Some(body) = taken.param(params, field).and_then(Value::as_str)
    {
        match found.name.decoded(&NAME)? {
            None => {
                return Err(ErrorObject::header_mismatch(format!(
                    "Missing required Mcp-Name header (params.{field} is `{body}`)"
                )));
            }
            Some(h) if h != body => {
                return Err(ErrorObject::header_mismatch(format!(
                    "Mcp-Name header `{h}` does not match params.{field} `{body}`"
                )));
            }
            Some(_) => {}
        }
    }
    if request.method == "tools/call"
        && let Some(name) = taken.param(params, "name").and_then(Value::as_str)
        && let Some(tool) = tool(name)
    {
        let arguments = taken.param(params, "arguments").and_then(Value::as_object);
        check_params(headers, tool.header_marks(), arguments)?;
    }
    Ok(())
}

/// `Mcp-Param-{Name}` headers for the tool properties marked `"x-mcp-header": "{Name}"`.
fn check_params(headers: &HeaderMap, marks: &[HeaderMark], arguments: Option<&JsonObject>) -> Result<(), ErrorObject> {
    for mark in marks {
        let Some((first, rest)) = mark.path.split_first() else { continue };
        let mut value = arguments.and_then(|a| a.get(first));
        for key in rest {
            value = value.and_then(|v| v.get(key));
        }
        let value = value.filter(|v| !v.is_null());
        let got = match &mark.header {
            Some(header) => decoded(headers, header)?,
            None => None,
        };
        let ok = match (value, &got) {
            (None, None) => true,
            (Some(_), None) => {
                return Err(ErrorObject::header_mismatch(format!(
                    "Missing required Mcp-Param-{} header (the argument `{}` is present)",
                    mark.name,
                    mark.path.join(".")
                )));
            }
            (None, Some(_)) => false,
            (Some(v), Some(h)) => param_matches(v, h),
        };
        if !ok {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Param-{} header does not match the argument `{}`",
                mark.name,
                mark.path.join(".")
            )));
        }
    }
    Ok(())
}

fn param_matches(body: &Value, header: &str) -> bool {
    match body {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => match (n.as_f64(), header.parse::<f64>()) {
            (Some(a), Ok(b)) => a == b,
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::http::HeaderValue;
    use serde_json::json;

    use roundtrip_core::server::{Outcome, ToolDef};
    use roundtrip_wire::{RequestId, Tool};

    fn request(method: &str, params: Value) -> Request {
        Request::new(RequestId::Number(1), method, Some(params))
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).expect("valid"));
        }
        h
    }

    fn meta() -> Value {
        json!({ META_PROTOCOL_VERSION: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} })
    }

    #[test]
    fn base64_values_are_decoded() {
        assert_eq!(decode("=?base64?aMOpbGxv?=").as_deref(), Some("héllo"));
        assert_eq!(decode("plain").as_deref(), Some("plain"));
        assert_eq!(decode("=?base64?***?="), None);
    }

    #[test]
    fn names_are_trimmed_decoded_and_compared() {
        let req = request("tools/call", json!({ "_meta": meta(), "name": "héllo" }));
        let ok = headers(&[
            ("MCP-Protocol-Version", " 2026-07-28 "),
            ("mcp-method", "tools/call"),
            ("Mcp-Name", "=?base64?aMOpbGxv?="),
        ]);
        assert!(check_modern(&ok, &req, &Taken::default(), |_| None).is_ok());
        let wrong = headers(&[("MCP-Protocol-Version", "2026-07-28"), ("mcp-method", "tools/call"), ("Mcp-Name", "x")]);
        assert_eq!(check_modern(&wrong, &req, &Taken::default(), |_| None).expect_err("rejected").code, -32020);
        let missing = headers(&[("MCP-Protocol-Version", "2026-07-28"), ("mcp-method", "tools/call")]);
        assert!(
            check_modern(&missing, &req, &Taken::default(), |_| None)
                .expect_err("rejected")
                .message
                .contains("Mcp-Name")
        );
    }

    #[test]
    fn a_repeated_header_is_refused() {
        let req = request("tools/call", json!({ "_meta": meta(), "name": "t" }));
        for repeated in ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"] {
            let mut h =
                headers(&[("MCP-Protocol-Version", "2026-07-28"), ("mcp-method", "tools/call"), ("Mcp-Name", "t")]);
            let value = h.get(repeated).expect("set").clone();
            h.append(HeaderName::from_bytes(repeated.as_bytes()).expect("a name"), value);
            let error = check_modern(&h, &req, &Taken::default(), |_| None).expect_err("rejected");
            assert_eq!(error.code, -32020);
            assert!(error.message.contains("more than once"), "{repeated}: {error:?}");
        }
    }

    #[test]
    fn version_is_compared_only_when_the_body_claims_one() {
        let req = request("tools/list", json!({}));
        let h = headers(&[("MCP-Protocol-Version", "2026-07-28"), ("mcp-method", "tools/list")]);
        assert!(check_modern(&h, &req, &Taken::default(), |_| None).is_ok());
        let req = request("tools/list", json!({ "_meta": meta() }));
        let h = headers(&[("mcp-method", "tools/list")]);
        assert!(
            check_modern(&h, &req, &Taken::default(), |_| None)
                .expect_err("rejected")
                .message
                .contains("MCP-Protocol-Version")
        );
        let h = headers(&[("MCP-Protocol-Version", "2025-11-25"), ("mcp-method", "tools/list")]);
        assert_eq!(check_modern(&h, &req, &Taken::default(), |_| None).expect_err("rejected").code, -32020);
    }

    #[test]
    fn a_meta_read_typed_is_compared_as_the_one_in_params() {
        let typed = RequestMeta::parse_modern(Some(&json!({ "_meta": meta() }))).expect("a modern _meta");
        let typed = Taken { meta: Some(std::sync::Arc::new(typed)), ..Taken::default() };
        let req = request("tools/call", json!({ "name": "t" }));
        let ok = headers(&[("MCP-Protocol-Version", "2026-07-28"), ("mcp-method", "tools/call"), ("Mcp-Name", "t")]);
        assert!(check_modern(&ok, &req, &typed, |_| None).is_ok());
        let missing = headers(&[("mcp-method", "tools/call"), ("Mcp-Name", "t")]);
        let error = check_modern(&missing, &req, &typed, |_| None).expect_err("rejected");
        assert!(error.message.contains("MCP-Protocol-Version"), "{error:?}");
        let wrong = headers(&[("MCP-Protocol-Version", "2025-11-25"), ("mcp-method", "tools/call"), ("Mcp-Name", "t")]);
        assert_eq!(check_modern(&wrong, &req, &typed, |_| None).expect_err("rejected").code, -32020);
    }

    #[test]
    fn marked_arguments_need_their_param_header() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "opts": { "type": "object", "properties": { "n": { "type": "integer", "x-mcp-header": "N" } } }
            }
        });
        let tool = ToolDef::new(Tool::new("sql", serde_json::from_value(schema).expect("object")), |_cx| async {
            Ok(Outcome::Complete(roundtrip_wire::CallToolResult::text("ok")))
        });
        let tools = [tool];
        let find = |n: &str| tools.iter().find(|d| d.tool.name == n);
        let req = request(
            "tools/call",
            json!({ "_meta": meta(), "name": "sql", "arguments": { "region": "us", "opts": { "n": 42 } } }),
        );
        let base = [("MCP-Protocol-Version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "sql")];
        let mut ok = headers(&base);
        ok.insert("mcp-param-region", HeaderValue::from_static("us"));
        ok.insert("mcp-param-n", HeaderValue::from_static("42.0"));
        assert!(check_modern(&ok, &req, &Taken::default(), find).is_ok());
        let mut wrong = headers(&base);
        wrong.insert("mcp-param-region", HeaderValue::from_static("eu"));
        wrong.insert("mcp-param-n", HeaderValue::from_static("42"));
        assert_eq!(check_modern(&wrong, &req, &Taken::default(), find).expect_err("rejected").code, -32020);
        let mut missing = headers(&base);
        missing.insert("mcp-param-region", HeaderValue::from_static("us"));
        assert!(
            check_modern(&missing, &req, &Taken::default(), find)
                .expect_err("rejected")
                .message
                .contains("Mcp-Param-N")
        );
    }
}
