//! A declaration's arguments: the input schema from their types, and reading each (or a
//! flattened struct) from a request.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Argument, schema_of};
use crate::error::Error;
use crate::protocol::JsonObject;

#[doc(hidden)]
pub fn from_json<T: DeserializeOwned>(name: &str, v: Value) -> Result<T, Error> {
    serde_json::from_value(v).map_err(|e| Error::internal(format!("`{name}` does not fit its type: {e}")))
}

/// One argument of a declared tool, for its input schema.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Field {
    pub name: &'static str,
    pub schema: Value,
    pub description: Option<&'static str>,
    pub required: bool,
    /// `#[arg(flatten)]`: the schema's properties are the tool's own.
    pub flatten: bool,
}

/// The JSON schema of an argument's type, without the root keywords that only make sense at
/// a document's root (`$schema`, the type's name as `title`).
#[doc(hidden)]
pub fn argument_schema<T: Argument>() -> Value {
    argument_schema_of::<T>()
}

/// The input schema of a declared tool: an object of its arguments.
#[doc(hidden)]
pub fn input_schema(fields: Vec<Field>) -> JsonObject {
    let mut properties = JsonObject::new();
    let mut required = Vec::new();
    let mut open = None;
    for field in fields {
        if field.flatten {
            // The struct's properties and required ones (or an open object's
            // `additionalProperties`) become the tool's. A schema that allows anything (`{}`, a
            // `serde_json::Value`'s) flattened is the whole arguments object, which is an
            // object: open, as a `Map`'s.
            if field.schema.as_object().is_some_and(JsonObject::is_empty) {
                open = Some(Value::Bool(true));
            } else if let Value::Object(mut flat) = field.schema {
                if let Some(Value::Object(props)) = flat.remove("properties") {
                    properties.extend(props);
                }
                if let Some(Value::Array(names)) = flat.remove("required") {
                    required.extend(names);
                }
                if let Some(additional) = flat.remove("additionalProperties") {
                    open = Some(additional);
                }
            }
            continue;
        }
        let mut schema = field.schema;
        if let (Some(description), Some(obj)) = (field.description, schema.as_object_mut()) {
            obj.insert("description".into(), Value::String(description.into()));
        }
        properties.insert(field.name.into(), schema);
        if field.required {
            required.push(Value::String(field.name.into()));
        }
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if let Some(open) = open {
        schema.insert("additionalProperties".into(), open);
    }
    schema
}

/// A `#[arg(flatten)]` argument: the whole arguments object, as the struct (or open object) it
/// stands for. A wrong one ends the call naming what was wrong, as a plain argument does.
#[doc(hidden)]
pub fn flattened<T: Argument>(item: &str, args: &JsonObject) -> Result<T, Error> {
    // Deserialized from the borrowed object: no copy of the arguments.
    T::deserialize(serde::de::value::MapDeserializer::new(args.iter().map(|(k, v)| (k.as_str(), v))))
        .map_err(|e: serde_json::Error| Error::new(format!("Invalid arguments for {item}: {e}")))
}

/// One argument of a call, as its type. A missing or ill-typed one ends the call naming it:
/// a tool answers an `isError` result (SEP-1303), a prompt or resource `-32602`.
#[doc(hidden)]
pub fn argument<T: Argument>(item: &str, args: &JsonObject, name: &str) -> Result<T, Error> {
    T::deserialize(args.get(name).unwrap_or(&Value::Null)).map_err(|e| {
        let why = if args.contains_key(name) { e.to_string() } else { "it is missing".to_owned() };
        Error::invalid_argument(item, name, why)
    })
}

/// The schema of the value a `with` fn gives, when its type has one (for documentation).
#[doc(hidden)]
#[derive(Debug)]
pub struct ValueSchema<T>(std::marker::PhantomData<T>);

impl<T> ValueSchema<T> {
    #[doc(hidden)]
    pub fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<T> Default for ValueSchema<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Picked by autoref when `T` has a schema.
#[doc(hidden)]
pub trait HasSchema {
    fn value_schema(&self) -> Option<Value>;
}

impl<T: schemars::JsonSchema> HasSchema for ValueSchema<T> {
    fn value_schema(&self) -> Option<Value> {
        Some(argument_schema_of::<T>())
    }
}

/// The fallback when `T` has none.
#[doc(hidden)]
pub trait NoSchema {
    fn value_schema(&self) -> Option<Value>;
}

impl<T> NoSchema for &ValueSchema<T> {
    fn value_schema(&self) -> Option<Value> {
        None
    }
}

fn argument_schema_of<T: schemars::JsonSchema>() -> Value {
    let mut schema = schema_of::<T>();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
    }
    schema
}
