//! `completion/complete`.

use serde::{Deserialize, Serialize};

use super::{JsonObject, ResultType};

/// What is being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionRef {
    /// A prompt argument.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt.
        name: String,
    },
    /// A resource template variable.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The template.
        uri: String,
    },
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// Its name.
    pub name: String,
    /// What was typed so far.
    pub value: String,
}

/// `completion/complete` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionRef,
    /// The argument.
    pub argument: CompletionArgument,
    /// Other arguments already given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
}

/// The suggestions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many there are in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// `completion/complete` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The suggestions.
    pub completion: Completion,
}
