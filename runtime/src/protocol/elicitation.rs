//! `elicitation/create`: form and URL modes, and the answer.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// Parameters of an elicitation: a form or a URL to open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitParams {
    /// Out-of-band interaction at a URL.
    Url(ElicitUrlParams),
    /// A form with a restricted flat schema.
    Form(ElicitFormParams),
}

impl ElicitParams {
    /// A form elicitation.
    pub fn form(message: impl Into<String>, requested_schema: impl Into<Arc<JsonObject>>) -> Self {
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
pub struct ElicitFormParams {
    /// `"form"` or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// The question.
    pub message: String,
    /// A flat object schema of primitive properties (shared: a declared question's schema is
    /// built once, not per leg).
    pub requested_schema: Arc<JsonObject>,
}

/// The literal `"form"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FormMode {
    /// Form mode.
    Form,
}

/// URL-mode params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
pub enum UrlMode {
    /// URL mode.
    Url,
}

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form (accept, form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}
