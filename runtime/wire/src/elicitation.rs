//! `elicitation/create`: form and URL modes, and the answer.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::JsonObject;

/// Parameters of an elicitation: a form or a URL to open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ElicitParams {
    /// Out-of-band interaction at a URL.
    Url(ElicitUrlParams),
    /// A form with a restricted flat schema.
    Form(ElicitFormParams),
}

impl ElicitParams {
    /// A form elicitation.
    pub fn form(message: impl Into<String>, requested_schema: impl Into<RequestedSchema>) -> Self {
        Self::Form(ElicitFormParams { mode: None, message: message.into(), requested_schema: requested_schema.into() })
    }

    /// A URL elicitation.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Url(ElicitUrlParams {
            mode: UrlMode::Url,
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
        })
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            Self::Form(f) => &f.message,
            Self::Url(u) => &u.message,
        }
    }
}

/// Form-mode params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitFormParams {
    /// `"form"` or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// The question.
    pub message: String,
    /// A flat object schema of primitive properties (shared: a declared question's schema is
    /// built once, and written as JSON once, not per leg).
    pub requested_schema: RequestedSchema,
}

/// A form's requested schema: a JSON object, shared by every question asked with it, whose
/// JSON text is written the first time it is serialized and then reused.
///
/// For speed: a declared question sends the same schema on every leg, and writing it from
/// the object each time (its maps walked, its strings escaped) was a large part of writing a
/// leg's answer. It reads as the object it holds (`Deref`), and [`make_mut`](Self::make_mut)
/// gives a private copy to change, whose text is written anew.
#[derive(Clone)]
#[non_exhaustive]
pub struct RequestedSchema(Arc<Shared>);

struct Shared {
    object: JsonObject,
    /// The compact JSON text of `object`, once written (`None` inside if it could not be).
    text: OnceLock<Option<Box<RawValue>>>,
}

impl Clone for Shared {
    fn clone(&self) -> Self {
        Self { object: self.object.clone(), text: OnceLock::new() }
    }
}

impl RequestedSchema {
    /// A schema.
    pub fn new(object: JsonObject) -> Self {
        Self(Arc::new(Shared { object, text: OnceLock::new() }))
    }

    /// The schema to change: a copy of its own when it is shared, whose text is written again
    /// when it is next serialized.
    pub fn make_mut(&mut self) -> &mut JsonObject {
        let shared = Arc::make_mut(&mut self.0);
        shared.text = OnceLock::new();
        &mut shared.object
    }
}

impl Deref for RequestedSchema {
    type Target = JsonObject;

    fn deref(&self) -> &JsonObject {
        &self.0.object
    }
}

impl From<JsonObject> for RequestedSchema {
    fn from(object: JsonObject) -> Self {
        Self::new(object)
    }
}

impl From<Arc<JsonObject>> for RequestedSchema {
    fn from(object: Arc<JsonObject>) -> Self {
        Self::new(Arc::unwrap_or_clone(object))
    }
}

impl PartialEq for RequestedSchema {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.object == other.0.object
    }
}

impl fmt::Debug for RequestedSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.object.fmt(f)
    }
}

impl Serialize for RequestedSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.0.text.get_or_init(|| serde_json::value::to_raw_value(&self.0.object).ok());
        match text {
            Some(text) => text.serialize(serializer),
            None => self.0.object.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for RequestedSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        JsonObject::deserialize(deserializer).map(Self::new)
    }
}

/// The literal `"form"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum FormMode {
    /// Form mode.
    Form,
}

/// URL-mode params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitUrlParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL.
    pub url: String,
    /// Only on 2025-11-25 server-to-client requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

/// The literal `"url"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum UrlMode {
    /// URL mode.
    Url,
}

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitAction {
    /// Submitted (form) or consented (URL).
    Accept,
    /// Explicitly said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form (accept, form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}

impl ElicitFormParams {
    /// A form: a message and the flat schema of what to fill in.
    pub fn new(message: impl Into<String>, requested_schema: impl Into<RequestedSchema>) -> Self {
        Self { mode: None, message: message.into(), requested_schema: requested_schema.into() }
    }
}

impl ElicitUrlParams {
    /// A page to open at `url`, explained by `message`.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self { mode: UrlMode::Url, message: message.into(), url: url.into(), elicitation_id: None }
    }
}

setters!(ElicitUrlParams { with_elicitation_id => elicitation_id: String });

impl ElicitResult {
    /// An answer with `action` and, for `accept` of a form, its `content`.
    pub fn new(action: ElicitAction, content: Option<JsonObject>) -> Self {
        Self { action, content }
    }

    /// The user accepted and filled in `content`.
    pub fn accept(content: JsonObject) -> Self {
        Self::new(ElicitAction::Accept, Some(content))
    }

    /// The user declined.
    pub fn decline() -> Self {
        Self::new(ElicitAction::Decline, None)
    }

    /// The user dismissed the question.
    pub fn cancel() -> Self {
        Self::new(ElicitAction::Cancel, None)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn object(v: Value) -> JsonObject {
        serde_json::from_value(v).expect("an object")
    }

    #[test]
    fn a_schema_writes_as_its_object_and_reads_back() {
        let plain = object(
            json!({ "type": "object", "properties": { "région": { "type": "string", "description": "a \"quoted\" word" } } }),
        );
        let schema = RequestedSchema::new(plain.clone());
        let shared = schema.clone();
        let expected = serde_json::to_string(&plain).expect("serializes");
        assert_eq!(serde_json::to_string(&schema).expect("serializes"), expected);
        assert_eq!(serde_json::to_string(&shared).expect("serializes"), expected, "its clone reuses the text");
        assert_eq!(serde_json::to_value(&schema).expect("a value"), Value::Object(plain.clone()));
        assert_eq!(
            serde_json::to_string_pretty(&schema).expect("serializes").replace([' ', '\n'], ""),
            expected.replace(' ', "")
        );
        let back: RequestedSchema = serde_json::from_str(&expected).expect("reads back");
        assert_eq!(back, schema);
        assert_eq!(*back, plain);
    }

    #[test]
    fn a_changed_schema_is_written_anew_and_its_sharers_are_not_changed() {
        let schema = RequestedSchema::new(object(json!({ "type": "object", "properties": {} })));
        let before = serde_json::to_string(&schema).expect("serializes");
        let mut changed = schema.clone();
        changed.make_mut().insert("required".into(), json!(["a"]));
        assert_eq!(serde_json::to_string(&schema).expect("serializes"), before);
        assert_eq!(
            serde_json::to_string(&changed).expect("serializes"),
            r#"{"properties":{},"required":["a"],"type":"object"}"#
        );
        assert_ne!(changed, schema);
    }
}
