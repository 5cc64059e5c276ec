//! What a declared tool may return, and how it becomes a `tools/call` result.

use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Error;
use crate::protocol::{
    CallToolResult, Content, ErrorObject, GetPromptResult, JsonObject, PromptMessage, ReadResourceResult,
    ResourceContents,
};
use crate::server::Outcome;

/// Structured output: the value goes into `structuredContent` (and, serialized, into a text
/// block for older clients), and its schema becomes the tool's `outputSchema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// A return type a tool can have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]",
    label = "this return type",
    note = "return a String, Json<T>, (String, Json<T>), CallToolResult, Vec<Content>, (), an Outcome<CallToolResult> (manual form), or a Result of one of these whose error is roundtrip::Error or implements Display"
)]
pub trait ToolReturn: Sized {
    /// Whether the tool can answer `input_required` itself (the manual form).
    const MAY_ASK: bool = false;

    /// The `outputSchema`, for structured returns.
    fn output_schema() -> Option<JsonObject> {
        None
    }

    /// The outcome on the wire.
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error>;

    /// All of the above in one value: generated code asks for the return type's
    /// implementation once, so that a type that cannot be returned is reported once.
    #[doc(hidden)]
    const RETURNS: Returns<Self> =
        Returns { may_ask: Self::MAY_ASK, output_schema: Self::output_schema, outcome: Self::into_outcome };
}

/// What a declared tool takes of its return type ([`ToolReturn::RETURNS`]).
#[doc(hidden)]
#[derive(Debug)]
pub struct Returns<R> {
    pub may_ask: bool,
    pub output_schema: fn() -> Option<JsonObject>,
    pub outcome: fn(R) -> Result<Outcome<CallToolResult>, Error>,
}

impl ToolReturn for CallToolResult {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(Outcome::Complete(self))
    }
}

impl ToolReturn for String {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(Outcome::Complete(CallToolResult::text(self)))
    }
}

impl ToolReturn for &'static str {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(Outcome::Complete(CallToolResult::text(self)))
    }
}

impl ToolReturn for () {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(Outcome::Complete(CallToolResult::success(Vec::new())))
    }
}

impl ToolReturn for Vec<Content> {
    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(Outcome::Complete(CallToolResult::success(self)))
    }
}

impl<T: Serialize + JsonSchema> ToolReturn for Json<T> {
    fn output_schema() -> Option<JsonObject> {
        // As the input schema: sub-schemas inlined, standard `format`s only.
        match crate::resolve::schema_of::<T>() {
            serde_json::Value::Object(mut o) => {
                o.remove("$schema");
                Some(o)
            }
            _ => None,
        }
    }

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        let value = structured(&self.0)?;
        Ok(Outcome::Complete(CallToolResult::text(value.to_string()).with_structured_content(value)))
    }
}

/// Text for the reader and structured content for programs: `(text, Json(value))`.
impl<T: Serialize + JsonSchema> ToolReturn for (String, Json<T>) {
    fn output_schema() -> Option<JsonObject> {
        Json::<T>::output_schema()
    }

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        let value = structured(&self.1.0)?;
        Ok(Outcome::Complete(CallToolResult::text(self.0).with_structured_content(value)))
    }
}

fn structured<T: Serialize>(value: &T) -> Result<serde_json::Value, Error> {
    serde_json::to_value(value).map_err(|e| Error::internal(format!("could not serialize the tool's output: {e}")))
}

impl ToolReturn for Outcome<CallToolResult> {
    const MAY_ASK: bool = true;

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        Ok(self)
    }
}

/// `Err(e)`: an `isError` result with `e`'s text.
impl<T: ToolReturn, E: Display> ToolReturn for Result<T, E> {
    const MAY_ASK: bool = T::MAY_ASK;

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        match self {
            Ok(v) => v.into_outcome(),
            Err(e) => Ok(Outcome::Complete(CallToolResult::error(e.to_string()))),
        }
    }
}

/// `Err(e)`: what the [`Error`]'s kind says.
impl<T: ToolReturn> ToolReturn for Result<T, Error> {
    const MAY_ASK: bool = T::MAY_ASK;

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_outcome(self) -> Result<Outcome<CallToolResult>, Error> {
        self?.into_outcome()
    }
}

/// Binary resource contents; sent base64-encoded as a `blob`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Blob(pub Vec<u8>);

/// A return type a prompt can have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[prompt]",
    label = "this return type",
    note = "return a String or &'static str (one user message), a PromptMessage, a Vec<PromptMessage>, a GetPromptResult, an Outcome<GetPromptResult> (manual form), or a Result of one of these whose error is roundtrip::Error or implements Display"
)]
pub trait PromptReturn: Sized {
    /// Whether the prompt can answer `input_required` itself (the manual form).
    const MAY_ASK: bool = false;

    /// The outcome on the wire.
    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error>;

    /// Both of the above in one value, asked for once by generated code (see
    /// [`ToolReturn::RETURNS`]).
    #[doc(hidden)]
    const RETURNS: PromptReturns<Self> = PromptReturns { may_ask: Self::MAY_ASK, outcome: Self::into_outcome };
}

/// What a declared prompt takes of its return type ([`PromptReturn::RETURNS`]).
#[doc(hidden)]
#[derive(Debug)]
pub struct PromptReturns<R> {
    pub may_ask: bool,
    pub outcome: fn(R) -> Result<Outcome<GetPromptResult>, Error>,
}

impl PromptReturn for GetPromptResult {
    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(Outcome::Complete(self))
    }
}

impl PromptReturn for Vec<PromptMessage> {
    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(Outcome::Complete(GetPromptResult::new(self)))
    }
}

impl PromptReturn for PromptMessage {
    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        vec![self].into_outcome()
    }
}

impl PromptReturn for &'static str {
    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        PromptMessage::user(self).into_outcome()
    }
}

impl PromptReturn for String {
    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        PromptMessage::user(self).into_outcome()
    }
}

impl PromptReturn for Outcome<GetPromptResult> {
    const MAY_ASK: bool = true;

    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        Ok(self)
    }
}

/// `Err(e)`: `-32603` with `e`'s text.
impl<T: PromptReturn, E: Display> PromptReturn for Result<T, E> {
    const MAY_ASK: bool = T::MAY_ASK;

    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        self.map_err(|e| Error::rpc(ErrorObject::internal(e.to_string())))?.into_outcome()
    }
}

/// `Err(e)`: what the [`Error`]'s kind says.
impl<T: PromptReturn> PromptReturn for Result<T, Error> {
    const MAY_ASK: bool = T::MAY_ASK;

    fn into_outcome(self) -> Result<Outcome<GetPromptResult>, Error> {
        self?.into_outcome()
    }
}

/// A return type a resource can have; plain values become contents at the read URI.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "this return type",
    note = "return a String or &'static str (text), a Blob (binary), ResourceContents, a Vec<ResourceContents>, a ReadResourceResult, an Outcome<ReadResourceResult> (manual form), or a Result of one of these whose error is roundtrip::Error or implements Display"
)]
pub trait ResourceReturn: Sized {
    /// Whether the resource can answer `input_required` itself (the manual form).
    const MAY_ASK: bool = false;

    /// The outcome on the wire, for a read of `uri` of this MIME type.
    fn into_outcome(self, uri: &str, mime_type: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error>;

    /// Both of the above in one value, asked for once by generated code (see
    /// [`ToolReturn::RETURNS`]).
    #[doc(hidden)]
    const RETURNS: ResourceReturns<Self> = ResourceReturns { may_ask: Self::MAY_ASK, outcome: Self::into_outcome };
}

/// What a declared resource takes of its return type ([`ResourceReturn::RETURNS`]).
#[doc(hidden)]
#[derive(Debug)]
pub struct ResourceReturns<R> {
    pub may_ask: bool,
    pub outcome: fn(R, &str, Option<&str>) -> ResourceOutcome,
}

type ResourceOutcome = Result<Outcome<ReadResourceResult>, Error>;

impl ResourceReturn for ReadResourceResult {
    fn into_outcome(self, _: &str, _: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        Ok(Outcome::Complete(self))
    }
}

impl ResourceReturn for Vec<ResourceContents> {
    fn into_outcome(self, _: &str, _: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        Ok(Outcome::Complete(ReadResourceResult::new(self)))
    }
}

impl ResourceReturn for ResourceContents {
    fn into_outcome(self, uri: &str, mime: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        vec![self].into_outcome(uri, mime)
    }
}

impl ResourceReturn for String {
    fn into_outcome(self, uri: &str, mime: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        ResourceContents::text(uri, mime, self).into_outcome(uri, mime)
    }
}

impl ResourceReturn for &'static str {
    fn into_outcome(self, uri: &str, mime: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        ResourceContents::text(uri, mime, self).into_outcome(uri, mime)
    }
}

impl ResourceReturn for Blob {
    fn into_outcome(self, uri: &str, mime: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(self.0);
        ResourceContents::blob(uri, mime, data).into_outcome(uri, mime)
    }
}

impl ResourceReturn for Outcome<ReadResourceResult> {
    const MAY_ASK: bool = true;

    fn into_outcome(self, _: &str, _: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        Ok(self)
    }
}

/// `Err(e)`: `-32603` with `e`'s text.
impl<T: ResourceReturn, E: Display> ResourceReturn for Result<T, E> {
    const MAY_ASK: bool = T::MAY_ASK;

    fn into_outcome(self, uri: &str, mime: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        self.map_err(|e| Error::rpc(ErrorObject::internal(e.to_string())))?.into_outcome(uri, mime)
    }
}

/// `Err(e)`: what the [`Error`]'s kind says (e.g. [`Error::not_found`]: "Resource not found").
impl<T: ResourceReturn> ResourceReturn for Result<T, Error> {
    const MAY_ASK: bool = T::MAY_ASK;

    fn into_outcome(self, uri: &str, mime: Option<&str>) -> Result<Outcome<ReadResourceResult>, Error> {
        self?.into_outcome(uri, mime)
    }
}
