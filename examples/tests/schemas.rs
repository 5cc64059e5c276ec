//! Every example's schemas are ones every client and model API takes: no number `format`s
//! (schemars' `uint32`…), and, in the strict profile, no reference, no `type` list, no
//! `anyOf`/`oneOf` for an optional value. Checked over what each server describes (its tools' input and output
//! schemas and its questions' requested schemas), by a walk of its own.

use roundtrip::Server;
use serde_json::Value;

fn examples() -> [(&'static str, Server); 3] {
    [
        ("provision", roundtrip_examples::provision::server()),
        ("ops", roundtrip_examples::ops::server()),
        ("conformance", roundtrip_examples::conformance::server()),
    ]
}

/// A format schemars writes for a Rust number type (`uint32`, `int64`, `double`…), which
/// JSON Schema does not define.
fn schemars_number_format(format: &str) -> bool {
    let bits = format.trim_start_matches('u').trim_start_matches("int");
    (format.starts_with("int") || format.starts_with("uint")) && bits.chars().all(|c| c.is_ascii_digit())
        || ["float", "double"].contains(&format)
}

/// What a strict model API or a validator refuses, anywhere under `value`, each with its place.
fn refused(value: &Value, at: &str, strict: bool, found: &mut Vec<String>) {
    match value {
        Value::Object(o) => {
            if let Some(format) = o.get("format").and_then(Value::as_str).filter(|f| schemars_number_format(f)) {
                found.push(format!("{at}: format {format}"));
            }
            if strict {
                for key in ["$ref", "$defs"].into_iter().filter(|k| o.contains_key(*k)) {
                    found.push(format!("{at}: {key}"));
                }
                if o.get("type").is_some_and(Value::is_array) {
                    found.push(format!("{at}: a type list"));
                }
                for key in ["anyOf", "oneOf"] {
                    let branches = o.get(key).and_then(Value::as_array).into_iter().flatten();
                    if branches.into_iter().any(|b| b["type"] == "null") {
                        found.push(format!("{at}: {key} with null"));
                    }
                }
            }
            for (k, v) in o {
                refused(v, &format!("{at}/{k}"), strict, found);
            }
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| refused(v, &format!("{at}/{i}"), strict, found)),
        _ => {}
    }
}

/// Every schema the server describes, with where it is.
fn schemas(server: &Server) -> Vec<(String, Value)> {
    let description = server.describe();
    let doc = description.to_json();
    let mut out = Vec::new();
    for tool in doc["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().unwrap_or_default();
        for key in ["inputSchema", "outputSchema"].into_iter().filter(|k| !tool[*k].is_null()) {
            out.push((format!("tool {name} {key}"), tool[key].clone()));
        }
        for (i, question) in tool["questions"].as_array().into_iter().flatten().enumerate() {
            out.push((format!("tool {name} question {i}"), question.clone()));
        }
    }
    out
}

#[test]
fn no_example_schema_has_a_number_format() {
    for (example, server) in examples() {
        let mut found = Vec::new();
        for (place, schema) in schemas(&server) {
            refused(&schema, &format!("{example}: {place}"), false, &mut found);
        }
        assert!(found.is_empty(), "{found:#?}");
    }
}

#[test]
fn every_example_serves_in_the_strict_profile() {
    let mut checked = 0;
    for (example, server) in examples() {
        let server = server.strict_schemas();
        server.check().unwrap_or_else(|e| panic!("{example}: {e}"));
        let mut found = Vec::new();
        for (place, schema) in schemas(&server) {
            refused(&schema, &format!("{example}: {place}"), true, &mut found);
            checked += 1;
        }
        assert!(found.is_empty(), "{found:#?}");
    }
    assert!(checked > 30, "only {checked} schemas: the walk lost the examples' tools");
}

/// The walk finds what it is there to find (a walk that finds nothing proves nothing).
#[test]
fn the_walk_finds_each_refused_shape() {
    let schema = serde_json::json!({"properties": {
        "a": {"type": ["string", "null"]},
        "b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]},
        "c": {"type": "integer", "format": "uint32"},
    }, "$defs": {"B": {}}});
    let mut found = Vec::new();
    refused(&schema, "", true, &mut found);
    found.sort();
    let mut expected = [
        ": $defs",
        "/properties/a: a type list",
        "/properties/b/anyOf/0: $ref",
        "/properties/b: anyOf with null",
        "/properties/c: format uint32",
    ];
    expected.sort();
    assert_eq!(found, expected);
}
