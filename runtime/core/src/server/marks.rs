//! The `x-mcp-header` marks of a tool's input schema (SEP-2243): which arguments must also
//! travel as `Mcp-Param-{Name}` headers. Computed here, beside the schema, once per tool; the
//! HTTP transport checks a request's headers against them.

use http::HeaderName;
use serde_json::Value;

use crate::protocol::JsonObject;

/// The prefix of a marked argument's header.
const PARAM_PREFIX: &str = "mcp-param-";

/// One `x-mcp-header` mark of a tool's input schema: the argument at `path` travels in the
/// header `mcp-param-{name}` (lowercased once, here).
#[derive(Debug, Clone)]
pub struct HeaderMark {
    pub name: String,
    /// `None` when the name makes no valid header name: no such header can arrive.
    pub header: Option<HeaderName>,
    pub path: Vec<String>,
}

/// The marks of an input schema, through `properties` only.
pub fn header_marks(schema: &JsonObject) -> Vec<HeaderMark> {
    let mut marked = Vec::new();
    collect_marked(schema, &mut Vec::new(), &mut marked);
    marked
        .into_iter()
        .map(|(name, path)| {
            let header = HeaderName::from_bytes(format!("{PARAM_PREFIX}{}", name.to_ascii_lowercase()).as_bytes()).ok();
            HeaderMark { header, name, path }
        })
        .collect()
}

pub fn collect_marked(schema: &JsonObject, path: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
    for (key, sub) in props {
        let Some(sub) = sub.as_object() else { continue };
        path.push(key.clone());
        if let Some(name) = sub.get("x-mcp-header").and_then(Value::as_str) {
            out.push((name.to_owned(), path.clone()));
        }
        collect_marked(sub, path, out);
        path.pop();
    }
}
