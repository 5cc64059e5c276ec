//! The strict schema profile: tool schemas rewritten for clients and model APIs that refuse
//! references, `type` lists and `anyOf` for an optional value.

use serde_json::{Map, Value};

use crate::protocol::{JsonObject, Tool};

/// Write `tool`'s schemas in the strict profile ([`Server::strict_schemas`](super::Server::strict_schemas)).
pub(super) fn apply(tool: &mut Tool) {
    make_strict(&mut tool.input_schema);
    if let Some(output) = &mut tool.output_schema {
        make_strict(output);
    }
}

/// Where `tool`'s schemas break the strict profile: which schema, the place in it, and how.
pub(super) fn tool_violation(tool: &Tool) -> Option<(&'static str, String, &'static str)> {
    let input = violation(&tool.input_schema).map(|(at, why)| ("inputSchema", at, why));
    input.or_else(|| violation(tool.output_schema.as_ref()?).map(|(at, why)| ("outputSchema", at, why)))
}

/// The keywords whose value is one sub-schema.
const SCHEMA_KEYWORDS: &[&str] =
    &["items", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedItems"];
/// The keywords whose value is a list of sub-schemas.
const LIST_KEYWORDS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// The keywords whose value maps names to sub-schemas.
const MAP_KEYWORDS: &[&str] = &["properties", "patternProperties", "$defs", "dependentSchemas"];

/// Rewrite `schema` in the strict profile, as far as it can be: each local reference
/// (`#/$defs/…`) that is not recursive is replaced by its definition; `null` leaves `type`
/// lists, `enum`s and `default`s; an `anyOf`/`oneOf` of a value and `null` becomes the
/// value's schema. What cannot be rewritten is left for [`violation`] to name.
pub(super) fn make_strict(schema: &mut JsonObject) {
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        let defs = defs.clone();
        inline_refs(schema, &defs, &mut Vec::new());
        if !schema.iter().any(|(key, value)| key != "$defs" && contains_ref(value)) {
            schema.remove("$defs");
        }
    }
    drop_null(schema);
}

/// Replace each `{"$ref": "#/$defs/name"}` under `schema` with the definition, except where
/// the definition is already being inlined (a recursive type): that reference stays.
fn inline_refs(schema: &mut JsonObject, defs: &JsonObject, inlining: &mut Vec<String>) {
    let target = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
    if let Some(name) = target.filter(|name| !inlining.iter().any(|n| n == name)).map(str::to_owned)
        && let Some(Value::Object(def)) = defs.get(&name)
    {
        schema.remove("$ref");
        // What the referring schema says (its description) stays; an anchor would be
        // written twice where the definition is used twice.
        for (key, value) in def.iter().filter(|(key, _)| *key != "$anchor") {
            schema.entry(key.clone()).or_insert_with(|| value.clone());
        }
        inlining.push(name);
        inline_refs(schema, defs, inlining);
        inlining.pop();
        return;
    }
    for_each_subschema(schema, &mut |key, sub| {
        if key != "$defs" {
            inline_refs(sub, defs, inlining);
        }
    });
}

/// Take `null` out of `schema` and every sub-schema: an optional value is its value's schema.
fn drop_null(schema: &mut JsonObject) {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            schema.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if schema.get("default").is_some_and(Value::is_null) {
        schema.remove("default");
    }
    optional_as_value(schema, "anyOf");
    optional_as_value(schema, "oneOf");
    for_each_subschema(schema, &mut |_, sub| drop_null(sub));
}

/// A `keyword` (`anyOf`, `oneOf`) of a value's schema and `{"type": "null"}`, as schemars
/// writes an `Option` of a type with sub-schemas, written as the value's schema: what the
/// outer schema says (its description, its default) is kept over the value's. A value that
/// may be anything (`true`) leaves the outer schema alone. Anything else stays as it is.
/// Forms read optional fields the same way (`declare::elicit_schema`).
pub(crate) fn optional_as_value(schema: &mut JsonObject, keyword: &str) {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    let value = match schema.get(keyword).and_then(Value::as_array).map(Vec::as_slice) {
        Some([a, b]) if is_null(b) && !is_null(a) => a.clone(),
        Some([a, b]) if is_null(a) && !is_null(b) => b.clone(),
        _ => return,
    };
    match value {
        Value::Object(value) => {
            schema.remove(keyword);
            for (key, v) in value {
                schema.entry(key).or_insert(v);
            }
        }
        Value::Bool(true) => {
            schema.remove(keyword);
        }
        _ => {}
    }
}

/// Where `schema` breaks the strict profile (a JSON pointer) and how; `None` when it meets it.
pub(super) fn violation(schema: &JsonObject) -> Option<(String, &'static str)> {
    if schema.contains_key("$ref") || schema.contains_key("$defs") {
        return Some((String::new(), "refers to a definition (a recursive type cannot be inlined)"));
    }
    if schema.get("type").is_some_and(Value::is_array) {
        return Some((String::new(), "has several types"));
    }
    for keyword in ["anyOf", "oneOf"] {
        let branches = schema.get(keyword).and_then(Value::as_array).into_iter().flatten();
        if branches.into_iter().any(|b| b.get("type").is_some_and(|t| t == "null")) {
            return Some((String::new(), "makes a value optional with `anyOf`/`oneOf`"));
        }
    }
    let mut found = None;
    visit_subschemas(schema, &mut |path, sub| {
        if found.is_none() {
            found = violation(sub).map(|(inner, why)| (format!("{path}{inner}"), why));
        }
    });
    found
}

fn contains_ref(value: &Value) -> bool {
    match value {
        Value::Object(o) => o.contains_key("$ref") || o.values().any(contains_ref),
        Value::Array(a) => a.iter().any(contains_ref),
        _ => false,
    }
}

/// Call `f` with each sub-schema directly under `schema`, and the keyword it is under.
fn for_each_subschema(schema: &mut JsonObject, f: &mut dyn FnMut(&str, &mut JsonObject)) {
    for (key, value) in schema.iter_mut() {
        let key = key.as_str();
        match value {
            Value::Object(sub) if SCHEMA_KEYWORDS.contains(&key) => f(key, sub),
            Value::Array(list) if LIST_KEYWORDS.contains(&key) => {
                list.iter_mut().filter_map(Value::as_object_mut).for_each(|sub| f(key, sub))
            }
            Value::Object(map) if MAP_KEYWORDS.contains(&key) => {
                map.values_mut().filter_map(Value::as_object_mut).for_each(|sub| f(key, sub))
            }
            _ => {}
        }
    }
}

fn visit_subschemas(schema: &Map<String, Value>, f: &mut dyn FnMut(String, &JsonObject)) {
    for (key, value) in schema {
        match value {
            Value::Object(sub) if SCHEMA_KEYWORDS.contains(&key.as_str()) => f(format!("/{key}"), sub),
            Value::Array(list) if LIST_KEYWORDS.contains(&key.as_str()) => {
                for (i, sub) in list.iter().enumerate().filter_map(|(i, v)| Some((i, v.as_object()?))) {
                    f(format!("/{key}/{i}"), sub);
                }
            }
            Value::Object(map) if MAP_KEYWORDS.contains(&key.as_str()) => {
                for (name, sub) in map.iter().filter_map(|(n, v)| Some((n, v.as_object()?))) {
                    f(format!("/{key}/{}", name.replace('~', "~0").replace('/', "~1")), sub);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn strict(schema: Value) -> Value {
        let Value::Object(mut o) = schema else { panic!("not an object") };
        make_strict(&mut o);
        Value::Object(o)
    }

    #[test]
    fn an_optional_primitive_is_its_value() {
        let schema = json!({"type": "object", "properties": {
            "note": {"type": ["string", "null"], "default": null, "description": "A note."},
            "level": {"enum": ["low", "high", null], "type": ["string", "null"]},
        }});
        assert_eq!(
            strict(schema),
            json!({"type": "object", "properties": {
                "note": {"type": "string", "description": "A note."},
                "level": {"enum": ["low", "high"], "type": "string"},
            }})
        );
    }

    #[test]
    fn an_optional_struct_is_its_schema_with_the_outer_description() {
        let schema = json!({"type": "object", "properties": {"owner": {
            "description": "Who owns it.",
            "anyOf": [{"type": "object", "description": "A person.", "properties": {
                "name": {"type": "string"}, "team": {"type": ["string", "null"]}}}, {"type": "null"}],
        }}});
        let got = strict(schema);
        assert_eq!(
            got["properties"]["owner"],
            json!({"description": "Who owns it.", "type": "object", "properties": {
                "name": {"type": "string"}, "team": {"type": "string"}}})
        );
        assert_eq!(violation(got.as_object().unwrap()), None);
    }

    #[test]
    fn what_cannot_be_rewritten_is_named_by_its_place() {
        let recursive = json!({"type": "object", "properties": {"tree": {"type": "array",
            "items": {"$ref": "#/$defs/Node"}}}, "$defs": {"Node": {"type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
        let got = strict(recursive);
        assert_eq!(violation(got.as_object().unwrap()).unwrap().1, got_why_ref());
        let several = strict(json!({"type": "object", "properties": {"n/m": {"type": ["string", "integer", "null"]}}}));
        assert_eq!(violation(several.as_object().unwrap()), Some(("/properties/n~1m".to_owned(), "has several types")));
        let choice = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert_eq!(strict(choice.clone()), choice, "a choice between values is not an optional value");
    }

    #[test]
    fn an_optional_value_of_any_shape_is_the_outer_schema() {
        let schema = json!({"properties": {"extra": {"description": "Anything.", "anyOf": [true, {"type": "null"}]}}});
        assert_eq!(strict(schema), json!({"properties": {"extra": {"description": "Anything."}}}));
    }

    #[test]
    fn a_local_reference_is_replaced_by_its_definition() {
        let schema = json!({"type": "object", "$defs": {"address": {"$anchor": "a", "type": "object",
            "properties": {"city": {"type": "string"}, "previous": {"$ref": "#/$defs/address"}}}},
            "properties": {"home": {"$ref": "#/$defs/address", "description": "Home."},
                           "work": {"$ref": "#/$defs/address"}}});
        let got = strict(schema);
        let home = &got["properties"]["home"];
        assert_eq!(home["description"], "Home.");
        assert_eq!(home["properties"]["city"], json!({"type": "string"}));
        assert!(home.get("$anchor").is_none());
        // The recursion is cut where it recurs: that reference, and the definitions, stay.
        assert_eq!(home["properties"]["previous"], json!({"$ref": "#/$defs/address"}));
        assert!(got.get("$defs").is_some());
        let flat = strict(json!({"$defs": {"n": {"type": "integer"}}, "properties": {"n": {"$ref": "#/$defs/n"}}}));
        assert_eq!(flat, json!({"properties": {"n": {"type": "integer"}}}));
    }

    fn got_why_ref() -> &'static str {
        "refers to a definition (a recursive type cannot be inlined)"
    }
}
