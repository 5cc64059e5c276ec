//! The 2026-07-28 HTTP request headers: the `=?base64?…?=` decoder, and the check of
//! `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` against the body (`x-mcp-header` arguments).
//!
//! The input is a JSON document `{"name": …, "schema": {…}, "arguments": …, "headers":
//! {…}}` (every field optional); any input is also a header value for the decoder. Checked:
//! - decoding never panics; a value that is not `=?base64?…?=` passes unchanged; a decoded
//!   value encodes back to a value that decodes to it;
//! - the Rust client's encoding of any string is a valid header value that the server decodes
//!   (after trimming, as it does) to the same string;
//! - the headers the Rust client sends for a call (the tool's name, its `x-mcp-header`
//!   arguments) pass the server's check, for any schema the client accepts and any arguments
//!   it can send as headers;
//! - arbitrary headers get `Ok` or the `-32020` error, never a panic; when they pass, every
//!   `Mcp-Param-*` header agrees with its argument.
//!
//! `cd fuzz && cargo fuzz run -s none mcp_param corpus/mcp_param -- -max_total_time=60`

#![no_main]

use std::sync::OnceLock;

use base64::Engine as _;
use http::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;
use roundtrip::fuzzing::{
    check_modern_headers, client_encode_header_value, client_param_headers, decode_header_value, marked_headers,
};
use roundtrip::protocol::{CallToolResult, JsonObject, Request, RequestId, Tool};
use roundtrip::server::{Outcome, ToolDef};
use serde_json::{Value, json};

const VERSION: &str = "2026-07-28";

fn encode(value: &str) -> String {
    format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(value))
}

fn check_decoder(value: &str) {
    let decoded = decode_header_value(value);
    let sentinel = value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?="));
    match (&decoded, sentinel) {
        (_, None) => assert_eq!(decoded.as_deref(), Some(value), "a plain value passes unchanged"),
        (Some(d), Some(_)) => assert_eq!(decode_header_value(&encode(d)).as_ref(), Some(d), "re-encoded"),
        (None, Some(_)) => {}
    }
    let sent = client_encode_header_value(value);
    let header = HeaderValue::from_str(&sent);
    assert!(header.is_ok(), "the client's encoding of {value:?} is a header value: {sent:?}");
    assert_eq!(decode_header_value(sent.trim()).as_deref(), Some(value), "the server reads what the client sent");
}

fn tool(name: &str, schema: JsonObject) -> ToolDef {
    ToolDef::new(Tool::new(name, schema), |_cx| async { Ok(Outcome::Complete(CallToolResult::text("ok"))) })
}

fn insert(headers: &mut HeaderMap, name: &str, value: &str) -> bool {
    match (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
        (Ok(n), Ok(v)) => {
            headers.insert(n, v);
            true
        }
        _ => false,
    }
}

/// The value at `path` in the arguments, when present and not null.
fn at<'a>(arguments: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(arguments, |v, k| v.get(k)).filter(|v| !v.is_null())
}

fn default_schema() -> &'static JsonObject {
    static SCHEMA: OnceLock<JsonObject> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "replicas": {"type": "integer", "x-mcp-header": "Replicas"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
                "opts": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}}
            }
        });
        serde_json::from_value(schema).unwrap_or_default()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check_decoder(&text);
    for line in text.lines() {
        check_decoder(line);
    }

    let Ok(Value::Object(doc)) = serde_json::from_slice::<Value>(data) else { return };
    let name = doc.get("name").and_then(Value::as_str).unwrap_or("deploy");
    let schema = match doc.get("schema") {
        Some(Value::Object(s)) => s.clone(),
        _ => default_schema().clone(),
    };
    let arguments = doc.get("arguments").cloned().unwrap_or_else(|| json!({}));
    let tools = [tool(name, schema.clone())];
    let params = json!({
        "name": name,
        "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": VERSION},
    });
    let request = Request::new(RequestId::Number(1), "tools/call", Some(params));

    let mut base = HeaderMap::new();
    insert(&mut base, "mcp-protocol-version", VERSION);
    insert(&mut base, "mcp-method", "tools/call");
    assert!(insert(&mut base, "mcp-name", &client_encode_header_value(name)), "the client can send Mcp-Name {name:?}");

    let marked = marked_headers(&schema);

    // What the Rust client sends passes, when it could send every argument the schema marks
    // (it sends none for a value a header cannot carry: a fraction, an object, an array; the
    // server then reports the missing header, rightly, for arguments the schema refuses).
    if let Ok(sent) = client_param_headers(&schema, &arguments)
        && sent.len() == marked.iter().filter(|(_, path)| at(&arguments, path).is_some()).count()
    {
        let mut headers = base.clone();
        for (header, value) in &sent {
            assert!(insert(&mut headers, header, value), "the client sends a valid header {header}: {value:?}");
        }
        let checked = check_modern_headers(&headers, &request, &tools);
        assert!(checked.is_ok(), "the client's headers {sent:?} for {arguments} were refused: {checked:?}");
    }

    // Arbitrary headers: Ok, or -32020.
    let mut headers = base;
    if let Some(Value::Object(extra)) = doc.get("headers") {
        for (header, value) in extra {
            if let Some(value) = value.as_str() {
                insert(&mut headers, header, value);
            }
        }
    }
    match check_modern_headers(&headers, &request, &tools) {
        Err(e) => assert_eq!(e.code, -32020, "{e:?}"),
        Ok(()) => {
            // Every Mcp-Param-* header agrees with its argument.
            for (header, path) in marked {
                let got = headers
                    .get(format!("mcp-param-{}", header.to_ascii_lowercase()).as_str())
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| decode_header_value(v.trim()));
                match (at(&arguments, &path), got) {
                    (None, got) => assert_eq!(got, None, "Mcp-Param-{header} without its argument"),
                    (Some(Value::String(s)), Some(got)) => assert_eq!(&got, s, "Mcp-Param-{header}"),
                    (Some(Value::Bool(b)), Some(got)) => assert_eq!(got, b.to_string(), "Mcp-Param-{header}"),
                    (Some(Value::Number(n)), Some(got)) => {
                        assert_eq!(got.parse::<f64>().ok(), n.as_f64(), "Mcp-Param-{header}");
                    }
                    (Some(v), got) => panic!("Mcp-Param-{header} passed as {got:?} for the argument {v}"),
                }
            }
        }
    }
});
