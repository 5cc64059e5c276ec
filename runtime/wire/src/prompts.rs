//! `prompts/list` and `prompts/get`.

use serde::{Deserialize, Serialize};

use super::{CacheScope, Content, Icon, JsonObject, ResultType, Role};

/// A prompt definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// Unique name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Prompt {
    /// A prompt with a name and no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), title: None, description: None, arguments: None, icons: None, meta: None }
    }
}

setters!(Prompt {
    with_title => title: String,
    with_description => description: String,
    with_arguments => arguments: Vec<PromptArgument>,
    with_icons => icons: Vec<Icon>,
    with_meta => meta: JsonObject,
});

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// An optional argument called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), title: None, description: None, required: None }
    }
}

setters!(PromptArgument {
    with_title => title: String,
    with_description => description: String,
    with_required => required: bool,
});

/// `prompts/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListPromptsResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The prompts.
    pub prompts: Vec<Prompt>,
    /// Next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Cache lifetime (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Metadata of the list result (`Server::list_meta`).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ListPromptsResult {
    /// One page of prompts.
    pub fn new(prompts: Vec<Prompt>) -> Self {
        Self { result_type: None, prompts, next_cursor: None, ttl_ms: None, cache_scope: None, meta: None }
    }
}

list_setters!(ListPromptsResult);
setters!(ListPromptsResult { with_meta => meta: JsonObject });

/// `prompts/get` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptParams {
    /// The prompt.
    pub name: String,
    /// String arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's input requests (2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<JsonObject>,
    /// The echoed state (2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl GetPromptParams {
    /// A request for the prompt `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), ..Self::default() }
    }
}

setters!(GetPromptParams {
    with_arguments => arguments: JsonObject,
    with_input_responses => input_responses: JsonObject,
    with_request_state => request_state: String,
});

/// A message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A message with any content.
    pub fn new(role: Role, content: Content) -> Self {
        Self { role, content }
    }

    /// A user message with text.
    pub fn user(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: Content::text(text) }
    }

    /// An assistant message with text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self { role: Role::Assistant, content: Content::text(text) }
    }
}

/// `prompts/get` complete result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl GetPromptResult {
    /// A prompt's messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self { messages, ..Self::default() }
    }
}

setters!(GetPromptResult {
    with_result_type => result_type: ResultType,
    with_description => description: String,
    with_meta => meta: JsonObject,
});
