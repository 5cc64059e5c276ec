//! Every MCP type of this crate is `#[non_exhaustive]`, so a field or a variant the next
//! protocol revision adds is not a breaking change. The exceptions are named here: the
//! JSON-RPC 2.0 envelope (a finished standard) and hidden plumbing.

use std::fs;
use std::path::Path;

/// The JSON-RPC 2.0 envelope: its shape is fixed by a standard that will not change.
const ENVELOPE: &[&str] = &[
    "Message",
    "Request",
    "Notification",
    "Response",
    "ResponseBody",
    "RequestId",
    "ErrorObject",
    "JsonRpcVersion",
    "MessageError",
];

/// The public structs and enums of `source` declared without `#[non_exhaustive]`, unless
/// hidden or part of the envelope.
fn closed_in(source: &str) -> Vec<String> {
    let mut closed = Vec::new();
    let mut attributes: Vec<&str> = Vec::new();
    for line in source.lines() {
        if line.starts_with("#[") {
            attributes.push(line);
            continue;
        }
        if line.starts_with("///") {
            continue;
        }
        if let Some(rest) = ["pub struct ", "pub enum "].iter().find_map(|k| line.strip_prefix(k)) {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let open = attributes.iter().any(|a| a.contains("non_exhaustive"));
            let hidden = attributes.iter().any(|a| a.contains("doc(hidden)"));
            if !open && !hidden && !ENVELOPE.contains(&name.as_str()) {
                closed.push(name);
            }
        }
        attributes.clear();
    }
    closed
}

#[test]
fn every_mcp_type_is_non_exhaustive() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut closed = Vec::new();
    let mut seen = 0;
    for entry in fs::read_dir(&dir).expect("src") {
        let path = entry.expect("an entry").path();
        let source = fs::read_to_string(&path).expect("a source file");
        seen += source.matches("\npub struct ").count() + source.matches("\npub enum ").count();
        closed.extend(closed_in(&source).into_iter().map(|name| format!("{}: {name}", path.display())));
    }
    assert!(seen > 80, "the scan found only {seen} types: has the layout changed?");
    assert!(closed.is_empty(), "mark these #[non_exhaustive] and give them a constructor: {closed:?}");
}

#[test]
fn the_scan_flags_a_closed_type_and_passes_the_exceptions() {
    let source = "/// A thing.\n#[derive(Debug)]\npub struct Closed {\n}\n\
                  #[derive(Debug)]\n#[non_exhaustive]\npub enum Open {}\n\
                  #[doc(hidden)]\npub struct Plumbing;\npub enum RequestId {}\n";
    assert_eq!(closed_in(source), ["Closed"]);
}
