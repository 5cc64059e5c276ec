//! `sampling/createMessage`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Content, JsonObject, Role};

/// A message sent to or from the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// One block or several (tool use, tool results).
    pub content: SamplingContent,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl SamplingMessage {
    /// A user message with text.
    pub fn user(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: SamplingContent::One(Box::new(Content::text(text))), meta: None }
    }
}

/// One content block or several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SamplingContent {
    /// A single block.
    One(Box<Content>),
    /// Several blocks (any JSON, to carry tool use and tool results).
    Many(Vec<Value>),
}

impl SamplingContent {
    /// The text of a single text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::One(c) => c.as_text(),
            Self::Many(_) => None,
        }
    }
}

/// `sampling/createMessage` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `none`, `thisServer` or `allServers` (the latter two deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Upper bound of tokens to generate.
    pub max_tokens: u32,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tools the model may call (needs `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    /// Tool choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
}

impl CreateMessageParams {
    /// One user text message with a token bound.
    pub fn prompt(text: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            messages: vec![SamplingMessage::user(text)],
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }

    /// With a system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// With a sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// With stop sequences.
    pub fn stop_sequences(mut self, stops: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.stop_sequences = Some(stops.into_iter().map(Into::into).collect());
        self
    }

    /// With model preferences.
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(preferences);
        self
    }

    /// With `includeContext` (`none`, `thisServer` or `allServers`).
    pub fn include_context(mut self, context: impl Into<String>) -> Self {
        self.include_context = Some(context.into());
        self
    }
}

/// Which model the server would like: hints by name and priorities from 0 to 1.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names or families, most preferred first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<ModelHint>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// One model hint.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelHint {
    /// A model name or part of one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Usually `assistant`.
    pub role: Role,
    /// What the model said.
    pub content: SamplingContent,
    /// The model that answered.
    pub model: String,
    /// Why it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl SamplingMessage {
    /// A message of `role` with `content`.
    pub fn new(role: Role, content: SamplingContent) -> Self {
        Self { role, content, meta: None }
    }
}

setters!(SamplingMessage { with_meta => meta: JsonObject });

setters!(ModelPreferences {
    with_cost_priority => cost_priority = f64,
    with_speed_priority => speed_priority = f64,
    with_intelligence_priority => intelligence_priority = f64,
});

impl ModelPreferences {
    /// Adds a model name hint (hints are tried in order).
    #[must_use]
    pub fn with_hint(mut self, name: impl Into<String>) -> Self {
        self.hints.push(ModelHint::new(name));
        self
    }
}

impl ModelHint {
    /// A hint naming a model (or a family: a substring of model names).
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: Some(name.into()) }
    }
}

impl CreateMessageResult {
    /// A completion by `model`.
    pub fn new(role: Role, content: SamplingContent, model: impl Into<String>) -> Self {
        Self { role, content, model: model.into(), stop_reason: None }
    }

    /// An assistant's text completion by `model`.
    pub fn text(text: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(Role::Assistant, SamplingContent::One(Box::new(Content::text(text))), model)
    }
}

setters!(CreateMessageResult { with_stop_reason => stop_reason: String });
