//! Multi-round-trip requests (SEP-2322): `InputRequiredResult`, input requests and responses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CreateMessageParams, ElicitParams, JsonObject};
use super::{ErrorObject, ProtocolVersion};

/// The `resultType` of a 2026 result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResultType {
    /// A final result.
    Complete,
    /// The client must answer `inputRequests` and retry.
    InputRequired,
}

/// A request the server embeds in an `InputRequiredResult`: `{method, params}`, no id.
// Built once per question and serialized at once; boxing the sampling variant would only add
// an allocation to every sampling question.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
#[non_exhaustive]
pub enum InputRequest {
    /// Ask the user (form or URL mode).
    #[serde(rename = "elicitation/create")]
    Elicit(ElicitParams),
    /// Ask the client's model.
    #[serde(rename = "sampling/createMessage")]
    CreateMessage(CreateMessageParams),
    /// Ask for the client's roots.
    #[serde(rename = "roots/list")]
    ListRoots(#[serde(default)] ListRootsParams),
}

/// `roots/list` params (only `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsParams {
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl InputRequest {
    /// The JSON-RPC method this request would have as a server-to-client request.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => "elicitation/create",
            Self::CreateMessage(_) => "sampling/createMessage",
            Self::ListRoots(_) => "roots/list",
        }
    }

    /// The params as a JSON value.
    pub fn params_value(&self) -> Value {
        let v = serde_json::to_value(self).unwrap_or(Value::Null);
        v.get("params").cloned().unwrap_or_else(|| Value::Object(JsonObject::new()))
    }

    /// The params of this request as a server-to-client request of `version`.
    #[doc(hidden)]
    pub fn legacy_params(&self, version: ProtocolVersion) -> Result<Value, ErrorObject> {
        let mut params = self.params_value();
        if let InputRequest::Elicit(elicit) = self {
            if version < ProtocolVersion::V2025_06_18 {
                return Err(ErrorObject::internal(format!("elicitation does not exist at {version}")));
            }
            match elicit {
                ElicitParams::Url(_) if version < ProtocolVersion::V2025_11_25 => {
                    return Err(ErrorObject::internal(format!("URL-mode elicitation does not exist at {version}")));
                }
                ElicitParams::Url(_) => {
                    params["elicitationId"] = Value::String(uuid::Uuid::new_v4().to_string());
                }
                ElicitParams::Form(_) if version < ProtocolVersion::V2025_11_25 => {
                    if let Some(obj) = params.as_object_mut() {
                        obj.remove("mode");
                    }
                }
                ElicitParams::Form(_) => {}
            }
        }
        Ok(params)
    }
}

/// Input requests by server-chosen key (ordered, so the wire is deterministic).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// An interim result: the client must answer the input requests and retry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// Always `input_required`.
    pub result_type: ResultType,
    /// The questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque (sealed) state the client echoes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl InputRequiredResult {
    /// A round that asks `input_requests` and carries `request_state` for the retry (either
    /// may be absent, not both).
    pub fn new(input_requests: Option<InputRequests>, request_state: Option<String>) -> Self {
        Self { result_type: ResultType::InputRequired, input_requests, request_state, meta: None }
    }
}

setters!(InputRequiredResult { with_meta => meta: JsonObject });
