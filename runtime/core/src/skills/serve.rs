//! The extension's methods on a loaded tree: `skills/list`, `skills/get`,
//! `resources/directory/read`, and `resources/read` of a skill's files.

use base64::Engine as _;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::Skills;
use crate::protocol::{CacheScope, ErrorObject, ReadResourceResult, Resource, ResourceContents, ResultType};

/// What a result carries besides its items: nothing on a legacy session; `resultType` and the
/// cache hints at 2026-07-28.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hints {
    pub modern: bool,
    pub ttl_ms: u64,
    pub cache_scope: CacheScope,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<T: Serialize> {
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<ResultType>,
    #[serde(flatten)]
    body: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_scope: Option<CacheScope>,
}

impl Hints {
    fn wrap<T: Serialize>(self, body: T, next_cursor: Option<String>) -> Result<Box<RawValue>, ErrorObject> {
        let envelope = Envelope {
            result_type: self.modern.then_some(ResultType::Complete),
            body,
            next_cursor,
            ttl_ms: self.modern.then_some(self.ttl_ms),
            cache_scope: self.modern.then_some(self.cache_scope),
        };
        serde_json::value::to_raw_value(&envelope)
            .map_err(|e| ErrorObject::internal(format!("could not serialize the result: {e}")))
    }
}

/// The longest cursor accepted.
const MAX_CURSOR: usize = 64;

/// A page's cursor: the offset of its first item, opaque to clients.
fn cursor_for(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("o{offset}"))
}

/// The offset a request's `cursor` names (0 without one); `-32602` for one this server did not
/// make, or one past the end of `len` items.
fn offset_of(params: Option<&Value>, len: usize) -> Result<usize, ErrorObject> {
    let cursor = match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => return Ok(0),
        Some(Value::String(c)) => c,
        Some(_) => return Err(ErrorObject::invalid_params("params.cursor must be a string")),
    };
    let invalid = || ErrorObject::invalid_params("Invalid cursor").with_data(json!({ "cursor": cursor }));
    if cursor.len() > MAX_CURSOR {
        return Err(invalid());
    }
    let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let offset = std::str::from_utf8(&decoded)
        .ok()
        .and_then(|s| s.strip_prefix('o'))
        .and_then(|n| n.parse::<usize>().ok())
        .ok_or_else(invalid)?;
    if offset > len {
        return Err(invalid());
    }
    Ok(offset)
}

fn uri_param(params: Option<&Value>) -> Result<&str, ErrorObject> {
    params
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str)
        .ok_or_else(|| ErrorObject::invalid_params("params.uri must be a string"))
}

/// The path of a `skill://` URI, checked: no empty, `.` or `..` segment, no percent-encoding,
/// `\`, query or fragment. `Ok(None)` for a URI of another scheme.
pub(crate) fn skill_path(uri: &str) -> Result<Option<&str>, ErrorObject> {
    let Some(path) = uri.strip_prefix("skill://") else { return Ok(None) };
    let refuse = |why: &str| {
        Err(ErrorObject::invalid_params(format!("Invalid skill URI: {why}")).with_data(json!({ "uri": uri })))
    };
    if path.is_empty() {
        return refuse("it names no skill");
    }
    if path.bytes().any(|b| matches!(b, b'%' | b'\\' | b'?' | b'#') || b.is_ascii_control() || b == b' ') {
        return refuse("percent-encoding, `\\`, spaces, queries and fragments are not part of skill URIs");
    }
    if path.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return refuse("it has an empty, `.` or `..` segment");
    }
    Ok(Some(path))
}

impl Skills {
    /// `skills/list`: a page of entries.
    pub(crate) fn list(&self, params: Option<&Value>, hints: Hints) -> Result<Box<RawValue>, ErrorObject> {
        let index = &self.index;
        let offset = offset_of(params, index.skills.len())?;
        let end = (offset + index.list_page).min(index.skills.len());
        let skills: Vec<&RawValue> = index.skills[offset..end].iter().map(|s| &*s.entry_json).collect();
        let next = (end < index.skills.len()).then(|| cursor_for(end));
        #[derive(Serialize)]
        struct Body<'a> {
            skills: Vec<&'a RawValue>,
        }
        hints.wrap(Body { skills }, next)
    }

    /// `skills/get`: one entry by its `SKILL.md` URI; `-32602` for an unknown one.
    pub(crate) fn get(&self, params: Option<&Value>, hints: Hints) -> Result<Box<RawValue>, ErrorObject> {
        let uri = uri_param(params)?;
        let Some(&i) = self.index.by_uri.get(uri) else {
            return Err(ErrorObject::invalid_params(format!("Unknown skill: {uri}")).with_data(json!({ "uri": uri })));
        };
        #[derive(Serialize)]
        struct Body<'a> {
            skill: &'a RawValue,
        }
        hints.wrap(Body { skill: &self.index.skills[i].entry_json }, None)
    }

    /// `resources/directory/read`: a page of a directory's children; `-32602` for a URI that is
    /// not a directory of the tree (a file, or nothing).
    pub(crate) fn read_directory(&self, params: Option<&Value>, hints: Hints) -> Result<Box<RawValue>, ErrorObject> {
        let uri = uri_param(params)?;
        let trimmed = uri.strip_suffix('/').unwrap_or(uri);
        let not_a_directory =
            || ErrorObject::invalid_params(format!("Not a directory: {uri}")).with_data(json!({ "uri": uri }));
        if skill_path(trimmed)?.is_none() {
            return Err(not_a_directory());
        }
        let children = self.index.dirs.get(trimmed).ok_or_else(not_a_directory)?;
        let offset = offset_of(params, children.len())?;
        let end = (offset + self.index.directory_page).min(children.len());
        let next = (end < children.len()).then(|| cursor_for(end));
        #[derive(Serialize)]
        struct Body<'a> {
            resources: &'a [Resource],
        }
        hints.wrap(Body { resources: &children[offset..end] }, next)
    }

    /// `resources/read` of a skill's file: `None` when `uri` is not one of the tree's (another
    /// scheme, or a `skill://` URI this tree does not hold, which other resources may serve);
    /// `-32602` for a malformed `skill://` URI.
    pub(crate) fn read(&self, uri: &str) -> Option<Result<ReadResourceResult, ErrorObject>> {
        match skill_path(uri) {
            Err(e) => return Some(Err(e)),
            Ok(None) => return None,
            Ok(Some(_)) => {}
        }
        let file = self.index.files.get(uri)?;
        let text = file.mime_type.starts_with("text/")
            || matches!(
                file.mime_type,
                "application/json"
                    | "application/yaml"
                    | "application/toml"
                    | "application/xml"
                    | "application/x-sh"
                    | "application/sql"
                    | "image/svg+xml"
            );
        let contents = match std::str::from_utf8(&file.bytes) {
            Ok(s) if text => ResourceContents::text(uri, Some(file.mime_type), s),
            _ => ResourceContents::blob(
                uri,
                Some(file.mime_type),
                base64::engine::general_purpose::STANDARD.encode(&file.bytes),
            ),
        };
        Some(Ok(ReadResourceResult::new(vec![contents])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_strangers_are_refused() {
        let params = |c: &str| json!({ "cursor": c });
        assert_eq!(offset_of(None, 5).ok(), Some(0));
        assert_eq!(offset_of(Some(&params(&cursor_for(3))), 5).ok(), Some(3));
        for bad in [cursor_for(6), "x".into(), "o3".into(), "A".repeat(100)] {
            let e = offset_of(Some(&params(&bad)), 5).expect_err(&bad);
            assert_eq!(e.code, -32602);
        }
        assert!(offset_of(Some(&json!({ "cursor": 3 })), 5).is_err());
    }

    #[test]
    fn malformed_skill_uris_are_refused() {
        assert_eq!(skill_path("skill://a/SKILL.md").ok(), Some(Some("a/SKILL.md")));
        assert_eq!(skill_path("file:///etc/passwd").ok(), Some(None));
        for bad in [
            "skill://",
            "skill://a/../b/SKILL.md",
            "skill://a/./SKILL.md",
            "skill://a//SKILL.md",
            "skill://a/%2e%2e/x",
            "skill://a%2Fb/SKILL.md",
            "skill://a\\..\\b",
            "skill:///etc/passwd",
            "skill://a/SKILL.md?x=1",
        ] {
            assert!(skill_path(bad).is_err(), "{bad}");
        }
    }
}
