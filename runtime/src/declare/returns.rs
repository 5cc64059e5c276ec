//! What a declared tool may return, and how it becomes a `tools/call` result.

use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;

use crate::protocol::{CallToolResult, Content, ErrorObject, JsonObject};
use crate::server::Outcome;

/// Structured output: the value goes into `structuredContent` (and, serialized, into a text
/// block for older clients), and its schema becomes the tool's `outputSchema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// A return type a tool can have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]",
    label = "this return type",
    note = "return a String, Json<T>, CallToolResult, Vec<Content>, (), an Outcome<CallToolResult> (manual form), or a Result of one of these whose error implements Display"
)]
pub trait ToolReturn {
    /// Whether the tool can answer `input_required` itself (the manual form).
    const MAY_ASK: bool = false;

    /// The `outputSchema`, for structured returns.
    fn output_schema() -> Option<JsonObject> {
        None
    }

    /// The outcome on the wire.
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject>;
}

impl ToolReturn for CallToolResult {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        Ok(Outcome::Complete(self))
    }
}

impl ToolReturn for String {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        Ok(Outcome::Complete(CallToolResult::text(self)))
    }
}

impl ToolReturn for &'static str {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        Ok(Outcome::Complete(CallToolResult::text(self)))
    }
}

impl ToolReturn for () {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        Ok(Outcome::Complete(CallToolResult::success(Vec::new())))
    }
}

impl ToolReturn for Vec<Content> {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        Ok(Outcome::Complete(CallToolResult::success(self)))
    }
}

impl<T: Serialize + JsonSchema> ToolReturn for Json<T> {
    fn output_schema() -> Option<JsonObject> {
        let schema = schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
        match serde_json::to_value(schema) {
            Ok(serde_json::Value::Object(mut o)) => {
                o.remove("$schema");
                Some(o)
            }
            _ => None,
        }
    }

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        let value = serde_json::to_value(&self.0)
            .map_err(|e| ErrorObject::internal(format!("could not serialize the tool's output: {e}")))?;
        Ok(Outcome::Complete(CallToolResult {
            content: vec![Content::text(value.to_string())],
            structured_content: Some(value),
            ..CallToolResult::default()
        }))
    }
}

impl ToolReturn for Outcome<CallToolResult> {
    const MAY_ASK: bool = true;

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        Ok(self)
    }
}

impl<T: ToolReturn, E: Display> ToolReturn for Result<T, E> {
    const MAY_ASK: bool = T::MAY_ASK;

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, ErrorObject> {
        match self {
            Ok(v) => v.into_outcome(),
            Err(e) => Ok(Outcome::Complete(CallToolResult::error(e.to_string()))),
        }
    }
}
