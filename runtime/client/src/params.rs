//! `x-mcp-header` on the calling side: which tool arguments travel as `Mcp-Param-{Name}`
//! headers over HTTP, and which tool declarations are invalid (the client drops those from
//! `tools/list`).
//!
//! The rules (2026-07-28 transport, SEP-2243): the name is a non-empty RFC 9110 token,
//! unique case-insensitively within the input schema, on a property of type `string`,
//! `integer` or `boolean` that is reachable from the root through `properties` keys only
//! (never through `items`, `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$ref`, …).

use serde_json::Value;

use crate::wire::encode_header_value;
use roundtrip_wire::JsonObject;

const ANNOTATION: &str = "x-mcp-header";

/// One argument mirrored into a header: `Mcp-Param-{header}` carries the value at `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    pub header: String,
    pub path: Vec<String>,
}

/// The header parameters a tool's input schema declares, or why the declaration is invalid.
pub fn header_params(schema: &JsonObject) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk(schema, true, &mut Vec::new(), &mut found)?;
    let mut seen: Vec<String> = Vec::new();
    for p in &found {
        let lower = p.header.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!("x-mcp-header `{}` is declared twice (names are case-insensitive)", p.header));
        }
        seen.push(lower);
    }
    Ok(found)
}

/// Keywords whose values are data, not schemas: an `x-mcp-header` key inside them is not a
/// declaration.
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "examples"];

fn walk(
    schema: &JsonObject,
    reachable: bool,
    path: &mut Vec<String>,
    out: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    if let Some(name) = schema.get(ANNOTATION) {
        if !reachable {
            return Err(format!(
                "x-mcp-header {name} sits where headers cannot reach (only chains of `properties` are allowed)"
            ));
        }
        let Some(name) = name.as_str() else {
            return Err(format!("x-mcp-header must be a string, not {name}"));
        };
        if name.is_empty() {
            return Err("x-mcp-header must not be empty".into());
        }
        if !name.bytes().all(is_tchar) {
            return Err(format!("x-mcp-header `{name}` is not an HTTP token (RFC 9110)"));
        }
        if path.is_empty() {
            return Err("x-mcp-header on the root schema".into());
        }
        if !primitive(schema.get("type")) {
            return Err(format!(
                "x-mcp-header `{name}` is on a property that is not a string, integer or boolean (type {})",
                schema.get("type").map_or("missing".to_owned(), Value::to_string)
            ));
        }
        out.push(HeaderParam { header: name.to_owned(), path: path.clone() });
    }
    for (key, value) in schema {
        if key == ANNOTATION || DATA_KEYWORDS.contains(&key.as_str()) {
            continue;
        }
        if key == "properties"
            && let Some(props) = value.as_object()
        {
            for (prop, sub) in props {
                if let Some(sub) = sub.as_object() {
                    path.push(prop.clone());
                    walk(sub, reachable, path, out)?;
                    path.pop();
                }
            }
            continue;
        }
        walk_value(value, path, out)?;
    }
    Ok(())
}

/// Any other keyword's value: schemas inside it are unreachable for headers.
fn walk_value(value: &Value, path: &mut Vec<String>, out: &mut Vec<HeaderParam>) -> Result<(), String> {
    match value {
        Value::Object(o) => walk(o, false, path, out),
        Value::Array(items) => items.iter().try_for_each(|v| walk_value(v, path, out)),
        _ => Ok(()),
    }
}

/// `string`, `integer` or `boolean` (also as a type list with `null`): never `number`.
fn primitive(ty: Option<&Value>) -> bool {
    let ok = |t: &str| matches!(t, "string" | "integer" | "boolean");
    match ty {
        Some(Value::String(t)) => ok(t),
        Some(Value::Array(ts)) => {
            let named: Vec<&str> = ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            named.len() == 1 && ts.iter().all(Value::is_string) && ok(named[0])
        }
        _ => false,
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The `Mcp-Param-*` headers for one call: present, non-null values only, encoded as the
/// transport says (integers in decimal, booleans `true`/`false`, strings as-is or base64).
pub fn header_values(params: &[HeaderParam], arguments: &Value) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|p| {
            let value = p.path.iter().try_fold(arguments, |v, key| v.get(key))?;
            let text = match value {
                Value::String(s) => encode_header_value(s),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                    (Some(i), _, _) => i.to_string(),
                    (_, Some(u), _) => u.to_string(),
                    (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => format!("{f:.0}"),
                    _ => return None,
                },
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", p.header), text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => unreachable!("a test schema is an object"),
        }
    }

    fn one(prop: Value) -> Result<Vec<HeaderParam>, String> {
        header_params(&schema(json!({ "type": "object", "properties": { "p": prop } })))
    }

    #[test]
    fn valid_declarations_are_found_with_their_paths() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "n": { "type": "integer", "x-mcp-header": "N" },
                "opts": { "type": "object", "properties": { "dry": { "type": "boolean", "x-mcp-header": "Dry-Run" } } },
                "q": { "type": "string" }
            }
        }));
        let mut found = header_params(&s).unwrap_or_default();
        found.sort_by(|a, b| a.header.cmp(&b.header));
        assert_eq!(
            found,
            vec![
                HeaderParam { header: "Dry-Run".into(), path: vec!["opts".into(), "dry".into()] },
                HeaderParam { header: "N".into(), path: vec!["n".into()] },
                HeaderParam { header: "Region".into(), path: vec!["region".into()] },
            ]
        );
        assert_eq!(one(json!({ "type": ["string", "null"], "x-mcp-header": "S" })).map(|v| v.len()), Ok(1));
    }

    #[test]
    fn invalid_declarations_are_rejected() {
        for bad in [
            json!({ "type": "string", "x-mcp-header": "" }),
            json!({ "type": "object", "x-mcp-header": "Data" }),
            json!({ "type": "array", "items": { "type": "string" }, "x-mcp-header": "Items" }),
            json!({ "type": "null", "x-mcp-header": "Nil" }),
            json!({ "type": "number", "x-mcp-header": "Score" }),
            json!({ "x-mcp-header": "NoType" }),
            json!({ "type": "string", "x-mcp-header": "My Region" }),
            json!({ "type": "string", "x-mcp-header": "Region:Primary" }),
            json!({ "type": "string", "x-mcp-header": "Région" }),
            json!({ "type": "string", "x-mcp-header": "Region\t1" }),
            json!({ "type": "string", "x-mcp-header": 7 }),
            json!({ "type": "array", "items": { "type": "string", "x-mcp-header": "Item" } }),
            json!({ "anyOf": [{ "type": "string", "x-mcp-header": "A" }] }),
        ] {
            assert!(one(bad.clone()).is_err(), "{bad} should be rejected");
        }
        let dup = |a: &str, b: &str| {
            header_params(&schema(json!({ "type": "object", "properties": {
                "f1": { "type": "string", "x-mcp-header": a },
                "f2": { "type": "string", "x-mcp-header": b }
            }})))
        };
        assert!(dup("Region", "Region").is_err());
        assert!(dup("MyField", "myfield").is_err());
        assert!(dup("A", "B").is_ok());
        let in_defs = schema(json!({
            "type": "object",
            "$defs": { "x": { "type": "string", "x-mcp-header": "X" } },
            "properties": { "x": { "$ref": "#/$defs/x" } }
        }));
        assert!(header_params(&in_defs).is_err());
    }

    #[test]
    fn data_named_like_the_annotation_is_not_a_declaration() {
        let s = schema(json!({
            "type": "object",
            "properties": { "x-mcp-header": { "type": "string" }, "c": { "const": { "x-mcp-header": "C" } } }
        }));
        assert_eq!(header_params(&s), Ok(vec![]));
    }

    #[test]
    fn values_are_encoded_and_absent_or_null_ones_omitted() {
        let params = [
            HeaderParam { header: "Region".into(), path: vec!["region".into()] },
            HeaderParam { header: "Priority".into(), path: vec!["priority".into()] },
            HeaderParam { header: "Verbose".into(), path: vec!["verbose".into()] },
            HeaderParam { header: "NonAscii".into(), path: vec!["text".into()] },
            HeaderParam { header: "Missing".into(), path: vec!["missing".into()] },
            HeaderParam { header: "Deep".into(), path: vec!["o".into(), "d".into()] },
        ];
        let args = json!({
            "region": "us-west1", "priority": 42, "verbose": null, "text": "Hello, 世界", "o": { "d": false }
        });
        assert_eq!(
            header_values(&params, &args),
            vec![
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
                ("Mcp-Param-Priority".to_owned(), "42".to_owned()),
                ("Mcp-Param-NonAscii".to_owned(), "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()),
                ("Mcp-Param-Deep".to_owned(), "false".to_owned()),
            ]
        );
        let whole = [HeaderParam { header: "N".into(), path: vec!["n".into()] }];
        assert_eq!(header_values(&whole, &json!({ "n": 42.0 })), vec![("Mcp-Param-N".to_owned(), "42".to_owned())]);
        assert_eq!(header_values(&whole, &json!({ "n": 4.5 })), vec![]);
    }
}
