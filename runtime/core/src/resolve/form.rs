//! Elicitation forms: the restricted flat schema (string, number, integer, boolean, enums)
//! made from a Rust type's JSON schema, and validation of an accepted answer against it.

use serde_json::{Map, Value, json};

use crate::protocol::JsonObject;

const STRING_FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// The formats JSON Schema 2020-12 defines (§7.3). schemars also writes its own for numbers
/// (`uint32`, `int64`, `double`…), which validators warn about and some model APIs refuse;
/// a number's range is in its `minimum` and `maximum` instead.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The JSON schema of a type, with sub-schemas inlined and only standard `format`s.
pub fn schema_of<T: schemars::JsonSchema>() -> Value {
    let standard_formats = schemars::transform::RecursiveTransform(|schema: &mut schemars::Schema| {
        if schema.get("format").and_then(Value::as_str).is_some_and(|f| !STANDARD_FORMATS.contains(&f)) {
            schema.remove("format");
        }
    });
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .with_transform(standard_formats)
        .into_generator()
        .into_root_schema_for::<T>();
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

/// The requested schema of a form for a struct, from its generated JSON schema: an object
/// whose properties are all primitive. `Err` says which property is not and why.
pub fn form_schema(schema: &Value) -> Result<JsonObject, String> {
    let obj = schema.as_object().ok_or("the schema is not an object")?;
    if obj.get("type") != Some(&json!("object")) {
        return Err("it is not a struct with named fields".into());
    }
    let mut properties = Map::new();
    for (name, prop) in obj.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let prop = primitive(prop).map_err(|why| format!("field `{name}` {why}"))?;
        properties.insert(name.clone(), prop);
    }
    let mut form = JsonObject::new();
    form.insert("type".into(), json!("object"));
    form.insert("properties".into(), Value::Object(properties));
    if let Some(required) = obj.get("required").filter(|r| r.as_array().is_some_and(|a| !a.is_empty())) {
        form.insert("required".into(), required.clone());
    }
    Ok(form)
}

/// A one-property form for a primitive or enum parameter named `name`.
pub fn single_property_form(name: &str, schema: &Value) -> Result<JsonObject, String> {
    let prop = primitive(schema).map_err(|why| format!("`{name}` {why}"))?;
    let mut form = JsonObject::new();
    form.insert("type".into(), json!("object"));
    form.insert("properties".into(), json!({ name: prop }));
    form.insert("required".into(), json!([name]));
    Ok(form)
}

/// One property schema in the restricted form: keep the keywords the protocol allows, turn
/// `["string","null"]` (an `Option`) into `string`, refuse nesting.
fn primitive(schema: &Value) -> Result<Value, String> {
    let obj = schema.as_object().ok_or("has no schema")?;
    let ty: &str = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => {
            let mut non_null = types.iter().filter_map(Value::as_str).filter(|t| *t != "null");
            match (non_null.next(), non_null.next()) {
                (Some(t), None) => t,
                _ => return Err("has several types; a form field has one".into()),
            }
        }
        None if obj.contains_key("enum") || obj.contains_key("oneOf") => "string",
        _ => return Err("is not a string, number, integer, boolean or enum".into()),
    };
    let mut out = Map::new();
    out.insert("type".into(), json!(ty));
    for key in ["title", "description"] {
        if let Some(v) = obj.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    match ty {
        "string" => {
            for key in ["minLength", "maxLength", "default", "enumNames"] {
                copy(obj, &mut out, key);
            }
            if let Some(f) = obj.get("format").and_then(Value::as_str).filter(|f| STRING_FORMATS.contains(f)) {
                out.insert("format".into(), json!(f));
            }
            if let Some(values) = obj.get("enum") {
                let strings: Vec<&Value> = values.as_array().into_iter().flatten().filter(|v| !v.is_null()).collect();
                if strings.iter().any(|v| !v.is_string()) {
                    return Err("is an enum with non-string values".into());
                }
                out.insert("enum".into(), json!(strings));
            }
            if let Some(one_of) = obj.get("oneOf") {
                out.insert("oneOf".into(), titled_options(one_of)?);
            }
        }
        "number" | "integer" => {
            for key in ["minimum", "maximum", "default"] {
                copy(obj, &mut out, key);
            }
        }
        "boolean" => copy(obj, &mut out, "default"),
        "array" => {
            let items = obj.get("items").and_then(Value::as_object).ok_or("is a list without an item schema")?;
            let mut item = Map::new();
            if let Some(values) = items.get("enum") {
                item.insert("type".into(), json!("string"));
                item.insert("enum".into(), values.clone());
            } else if let Some(any_of) = items.get("anyOf").or_else(|| items.get("oneOf")) {
                item.insert("anyOf".into(), titled_options(any_of)?);
            } else {
                return Err(
                    "is a list of something other than enum values (only multi-select enums are allowed)".into()
                );
            }
            out.insert("items".into(), Value::Object(item));
            for key in ["minItems", "maxItems", "default"] {
                copy(obj, &mut out, key);
            }
        }
        "object" => return Err("is a nested struct or map; a form is flat".into()),
        other => return Err(format!("has type `{other}`, which a form cannot ask for")),
    }
    Ok(Value::Object(out))
}

fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, key: &str) {
    if let Some(v) = from.get(key).filter(|v| !v.is_null()) {
        to.insert(key.into(), v.clone());
    }
}

/// `[{const, title}]` options of a titled enum.
fn titled_options(options: &Value) -> Result<Value, String> {
    let options = options.as_array().ok_or("has malformed enum options")?;
    let mut out = Vec::with_capacity(options.len());
    for o in options {
        let value = o.get("const").and_then(Value::as_str).ok_or("has enum options that are not plain strings")?;
        let title = o.get("title").or_else(|| o.get("description")).and_then(Value::as_str).unwrap_or(value);
        out.push(json!({"const": value, "title": title}));
    }
    Ok(Value::Array(out))
}

/// What a refused value is when it is outside a choice's options (the engine says "no longer"
/// when the options changed since it was chosen).
pub(crate) const NOT_A_CHOICE: &str = "is not one of the choices";

/// Check an accepted form's content against its requested schema. The error names every
/// property that is wrong, each with the value refused and the rule it broke, in words a
/// user understands (`\`name\` "A" is too short (at least 2 characters); \`age\` -1 is too
/// small (at least 0)`), so that one round of asking again can fix them all.
pub fn validate(schema: &JsonObject, content: &JsonObject) -> Result<(), String> {
    let empty = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let mut wrong = Vec::new();
    for required in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        if content.get(required).is_none_or(Value::is_null) {
            wrong.push(format!("`{required}` is required"));
        }
    }
    for (name, prop) in properties {
        let (Some(prop), Some(value)) = (prop.as_object(), content.get(name)) else { continue };
        if value.is_null() {
            continue;
        }
        if let Err(why) = check_value(prop, value) {
            wrong.push(format!("`{name}` {} {why}", shown(value)));
        }
    }
    if wrong.is_empty() { Ok(()) } else { Err(wrong.join("; ")) }
}

/// A refused value as the user typed it, shortened.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 { format!("{}…", text.chars().take(40).collect::<String>()) } else { text }
}

fn check_value(prop: &Map<String, Value>, value: &Value) -> Result<(), String> {
    let num = |key: &str| prop.get(key).and_then(Value::as_f64);
    match prop.get("type").and_then(Value::as_str).unwrap_or("string") {
        "string" => {
            let s = value.as_str().ok_or("is not text")?;
            let len = s.chars().count() as f64;
            if let Some(m) = num("minLength").filter(|m| len < *m) {
                return Err(format!("is too short (at least {m} characters)"));
            }
            if let Some(m) = num("maxLength").filter(|m| len > *m) {
                return Err(format!("is too long (at most {m} characters)"));
            }
            if !allowed(prop.get("enum"), prop.get("oneOf"), s) {
                return Err(format!("{NOT_A_CHOICE} ({})", choices(prop.get("enum"), prop.get("oneOf"))));
            }
        }
        ty @ ("number" | "integer") => {
            let n = value.as_f64().ok_or("is not a number")?;
            if ty == "integer" && !(value.is_i64() || value.is_u64() || n.fract() == 0.0) {
                return Err("is not a whole number".into());
            }
            if let Some(m) = num("minimum").filter(|m| n < *m) {
                return Err(format!("is too small (at least {m})"));
            }
            if let Some(m) = num("maximum").filter(|m| n > *m) {
                return Err(format!("is too large (at most {m})"));
            }
        }
        "boolean" => {
            value.as_bool().ok_or("is not true or false")?;
        }
        "array" => {
            let items = value.as_array().ok_or("is not a list of choices")?;
            let len = items.len() as f64;
            if let Some(m) = num("minItems").filter(|m| len < *m) {
                return Err(format!("has too few choices (at least {m})"));
            }
            if let Some(m) = num("maxItems").filter(|m| len > *m) {
                return Err(format!("has too many choices (at most {m})"));
            }
            let spec = prop.get("items").and_then(Value::as_object);
            for item in items {
                let s = item.as_str().ok_or("is not a list of choices")?;
                if let Some(spec) = spec
                    && !allowed(spec.get("enum"), spec.get("anyOf"), s)
                {
                    return Err(format!(
                        "contains \"{s}\", which {NOT_A_CHOICE} ({})",
                        choices(spec.get("enum"), spec.get("anyOf"))
                    ));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The allowed values of an `enum` or of `oneOf`/`anyOf` options, for a message.
fn choices(values: Option<&Value>, options: Option<&Value>) -> String {
    let listed: Vec<String> = match (values.and_then(Value::as_array), options.and_then(Value::as_array)) {
        (Some(values), _) => values.iter().map(|v| v.to_string()).collect(),
        (None, Some(options)) => options.iter().filter_map(|o| o.get("const")).map(|v| v.to_string()).collect(),
        (None, None) => Vec::new(),
    };
    match listed.len() {
        0 => "none left".to_owned(),
        1..=8 => listed.join(", "),
        n => format!("{}, … {} in all", listed[..6].join(", "), n),
    }
}

fn allowed(values: Option<&Value>, options: Option<&Value>, s: &str) -> bool {
    let in_enum = values.and_then(Value::as_array).map(|v| v.iter().any(|x| x == s));
    let in_options = options.and_then(Value::as_array).map(|o| o.iter().any(|x| x.get("const") == Some(&json!(s))));
    in_enum.or(in_options).unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn schemas_keep_only_standard_formats() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Order {
            count: u32,
            price: f64,
            placed: Option<u64>,
            contact: Contact,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Contact {
            #[schemars(email)]
            email: String,
        }
        let schema = schema_of::<Order>();
        let props = &schema["properties"];
        assert_eq!(props["count"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(props["price"], json!({"type": "number"}));
        assert_eq!(props["placed"], json!({"type": ["integer", "null"], "minimum": 0}));
        assert_eq!(props["contact"]["properties"]["email"]["format"], "email");
    }

    #[test]
    fn struct_schemas_become_flat_forms() {
        let generated = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Contact",
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Your name"},
                "age": {"type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 255},
                "email": {"type": "string", "format": "email"},
                "color": {"type": "string", "enum": ["red", "green"]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            },
            "required": ["name", "email", "color", "tags"],
        });
        let form = form_schema(&generated).unwrap();
        assert_eq!(form["properties"]["age"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
        assert_eq!(form["properties"]["email"], json!({"type": "string", "format": "email"}));
        assert!(form.get("$schema").is_none() && form.get("title").is_none());
        assert_eq!(form["required"], json!(["name", "email", "color", "tags"]));
    }

    #[test]
    fn nested_and_unsupported_shapes_are_refused_by_name() {
        let nested = json!({"type": "object", "properties": {"home": {"type": "object", "properties": {}}}});
        assert_eq!(form_schema(&nested).unwrap_err(), "field `home` is a nested struct or map; a form is flat");
        let list = json!({"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "object"}}}});
        assert!(form_schema(&list).unwrap_err().starts_with("field `xs` is a list of something other"));
        assert!(form_schema(&json!({"type": "string"})).is_err());
        assert_eq!(
            single_property_form("confirm", &json!({"type": "boolean"})).unwrap(),
            obj(json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}))
        );
    }

    #[test]
    fn answers_are_checked_in_plain_words() {
        let schema = obj(json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 2},
            "age": {"type": "integer", "minimum": 0},
            "ok": {"type": "boolean"},
            "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}, "maxItems": 1},
        }, "required": ["name"]}));
        assert_eq!(
            validate(&schema, &obj(json!({"name": "Ada", "age": 3, "ok": true, "color": "r", "tags": ["a"]}))),
            Ok(())
        );
        assert_eq!(validate(&schema, &obj(json!({}))), Err("`name` is required".into()));
        assert_eq!(validate(&schema, &obj(json!({"name": 5}))), Err("`name` 5 is not text".into()));
        assert_eq!(
            validate(&schema, &obj(json!({"name": "A"}))),
            Err("`name` \"A\" is too short (at least 2 characters)".into())
        );
        assert_eq!(
            validate(&schema, &obj(json!({"name": "Ada", "age": 1.5}))),
            Err("`age` 1.5 is not a whole number".into())
        );
        assert_eq!(
            validate(&schema, &obj(json!({"name": "Ada", "color": "b"}))),
            Err("`color` \"b\" is not one of the choices (\"r\")".into())
        );
        assert_eq!(
            validate(&schema, &obj(json!({"name": "Ada", "tags": ["a", "a"]}))),
            Err("`tags` [\"a\",\"a\"] has too many choices (at most 1)".into())
        );
        assert_eq!(validate(&schema, &obj(json!({"name": "Ada", "extra": {"x": 1}}))), Ok(()));
    }

    #[test]
    fn every_wrong_field_is_named_in_one_round() {
        let schema = obj(json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 2},
            "age": {"type": "integer", "minimum": 0},
            "email": {"type": "string"},
        }, "required": ["name", "email"]}));
        assert_eq!(
            validate(&schema, &obj(json!({"name": "A", "age": -1}))),
            Err("`email` is required; `age` -1 is too small (at least 0); `name` \"A\" is too short (at least 2 characters)"
                .into())
        );
    }
}
