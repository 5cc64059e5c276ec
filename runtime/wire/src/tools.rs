//! `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CacheScope, Content, Icon, JsonObject, ResultType, TaskSupport, ToolExecution};

/// A tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Unique name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (root `type: object`).
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Whether calls may become tasks (the tasks extension); shown to 2026-07-28 clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Tool {
    /// A tool with a name and an input schema.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
        }
    }

    /// How calls of this tool take part in the tasks extension (forbidden when unset).
    pub fn task_support(&self) -> TaskSupport {
        self.execution.map(|e| e.task_support).unwrap_or_default()
    }
}

setters!(Tool {
    with_title => title: String,
    with_description => description: String,
    with_output_schema => output_schema: JsonObject,
    with_annotations => annotations: ToolAnnotations,
    with_icons => icons: Vec<Icon>,
    with_execution => execution: ToolExecution,
    with_meta => meta: JsonObject,
});

/// The input schema of a tool without arguments: `{"type":"object","properties":{}}`.
pub fn empty_input_schema() -> JsonObject {
    let mut m = JsonObject::new();
    m.insert("type".into(), Value::String("object".into()));
    m.insert("properties".into(), Value::Object(JsonObject::new()));
    m
}

/// Hints about a tool's behaviour.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// May destroy data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// Talks to the outside world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

setters!(ToolAnnotations {
    with_title => title: String,
    with_read_only_hint => read_only_hint: bool,
    with_destructive_hint => destructive_hint: bool,
    with_idempotent_hint => idempotent_hint: bool,
    with_open_world_hint => open_world_hint: bool,
});

/// `tools/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The tools.
    pub tools: Vec<Tool>,
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

impl ListToolsResult {
    /// One page of tools.
    pub fn new(tools: Vec<Tool>) -> Self {
        Self { result_type: None, tools, next_cursor: None, ttl_ms: None, cache_scope: None, meta: None }
    }
}

list_setters!(ListToolsResult);
setters!(ListToolsResult { with_meta => meta: JsonObject });

/// `tools/call` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolParams {
    /// The tool.
    pub name: String,
    /// Its arguments; absent means `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's input requests (2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<JsonObject>,
    /// The echoed state of the previous round (2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolParams {
    /// A call of the tool `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), ..Self::default() }
    }
}

setters!(CallToolParams {
    with_arguments => arguments: JsonObject,
    with_input_responses => input_responses: JsonObject,
    with_request_state => request_state: String,
    with_meta => meta: JsonObject,
});

/// `tools/call` complete result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// `complete` (2026 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Unstructured content.
    pub content: Vec<Content>,
    /// Structured content matching the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// A tool execution error (not a protocol error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result with these content blocks.
    pub fn success(content: Vec<Content>) -> Self {
        Self { content, ..Self::default() }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![Content::text(text)])
    }

    /// A tool execution error with one text block: the model sees it and may correct itself.
    pub fn error(text: impl Into<String>) -> Self {
        Self { content: vec![Content::text(text)], is_error: Some(true), ..Self::default() }
    }
}

setters!(CallToolResult {
    with_result_type => result_type: ResultType,
    with_structured_content => structured_content: Value,
    with_is_error => is_error: bool,
    with_meta => meta: JsonObject,
});
