//! The plain tools of the conformance suite, and the 2025-era tools that call back into the
//! client (`test_sampling`, `test_elicitation*`).
//!
//! Declared with `#[tool]` where the macros produce the wire the suite checks; the rest are
//! manual `ToolDef`s, each saying why.

use std::time::Duration;

use roundtrip::prelude::*;
use roundtrip::protocol::{ElicitAction, ElicitResult, LoggingLevel, Tool, empty_input_schema};
use roundtrip::server::{ListChange, ToolDef};
use serde_json::{Value, json};

use super::{PNG_BASE64, WAV_BASE64, object, pause};

/// The delay between the notifications of the logging and progress tools.
const STEP: Duration = Duration::from_millis(50);

/// Every tool of this module.
pub fn all() -> Vec<ToolDef> {
    let declared = tools![
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_error_handling,
        test_reconnection,
        test_tool_with_logging,
        test_tool_with_progress,
        test_logging_tool,
        test_trigger_tool_change,
        test_trigger_prompt_change,
        test_sampling,
        test_missing_capability,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_custom_header,
    ];
    let manual = [json_schema_2020_12(), streaming_elicitation()];
    declared.into_iter().chain(manual).collect()
}

/// Returns a simple text response
#[tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image
#[tool]
async fn test_image_content() -> Vec<Content> {
    vec![Content::image(PNG_BASE64, "image/png")]
}

/// Returns audio
#[tool]
async fn test_audio_content() -> Vec<Content> {
    vec![Content::audio(WAV_BASE64, "audio/wav")]
}

/// Returns an embedded resource
#[tool]
async fn test_embedded_resource() -> Vec<Content> {
    vec![Content::resource(ResourceContents::text(
        "test://embedded-resource",
        Some("text/plain"),
        "This is an embedded resource content.",
    ))]
}

/// Returns text, an image and a resource
#[tool]
async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG_BASE64, "image/png"),
        Content::resource(ResourceContents::text(
            "test://mixed-content-resource",
            Some("application/json"),
            r#"{"test":"data","value":123}"#,
        )),
    ]
}

/// Always fails with a tool error
#[tool]
async fn test_error_handling() -> CallToolResult {
    // A tool execution error the model sees, not a JSON-RPC error.
    CallToolResult::error("This tool intentionally returns an error for testing")
}

/// Completes normally (SSE polling is the transport's business)
#[tool]
async fn test_reconnection() -> &'static str {
    "Reconnection test completed successfully"
}

/// Sends three log messages while it runs
#[tool]
async fn test_tool_with_logging(cx: &RequestContext) -> &'static str {
    for (i, message) in
        ["Tool execution started", "Tool processing data", "Tool execution completed"].into_iter().enumerate()
    {
        if i > 0 {
            pause(STEP).await;
        }
        cx.log(LoggingLevel::Info, Some("conformance"), json!(message));
    }
    "Tool with logging executed successfully"
}

/// Reports progress 0, 50 and 100 of 100 when given a progress token
#[tool]
async fn test_tool_with_progress(cx: &RequestContext) -> String {
    for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            pause(STEP).await;
        }
        cx.progress(progress, Some(100.0), None);
    }
    let token = cx.progress_token().map(|t| json!(t).to_string()).unwrap_or_else(|| "none".into());
    format!("Progress tool completed (token: {token})")
}

/// Logs one message (only when the request asks for logs)
#[tool]
async fn test_logging_tool(cx: &RequestContext) -> &'static str {
    // Diagnostic tool of `server-stateless`: on 2026-07-28 it must log only when the request's
    // `_meta` asks for a log level, which `cx.log` already honours.
    cx.log(LoggingLevel::Info, Some("conformance"), json!("test_logging_tool was called"));
    "Logging tool completed"
}

/// Announces a change of the tool list
#[tool]
async fn test_trigger_tool_change(cx: &RequestContext) -> &'static str {
    cx.server().notify_list_changed(ListChange::Tools);
    "Tool list change notified"
}

/// Announces a change of the prompt list
#[tool]
async fn test_trigger_prompt_change(cx: &RequestContext) -> &'static str {
    cx.server().notify_list_changed(ListChange::Prompts);
    "Prompt list change notified"
}

/// Asks the client's model to complete a prompt
#[tool]
async fn test_sampling(
    /// The prompt to send to the LLM
    prompt: String,
    #[resolve(sample = "{prompt}", max_tokens = 100)] llm: String,
) -> String {
    let _ = prompt; // only the question needs it
    format!("LLM response: {llm}")
}

/// Needs the sampling capability of the client
#[tool]
async fn test_missing_capability(#[resolve(sample = "Say hello", max_tokens = 20)] llm: String) -> String {
    // Asks for sampling unconditionally: a 2026-07-28 request that did not declare sampling
    // gets -32021 with `requiredCapabilities: {sampling: {}}` from the framework.
    format!("LLM response: {llm}")
}

/// The form of `test_elicitation`: the scenario's client answers with `username` and `email`
/// (and may validate its answer against the schema).
#[derive(Serialize, Deserialize, JsonSchema, Elicit)]
struct Response {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Asks the user for their username and email
#[tool]
async fn test_elicitation(
    /// The message to show the user
    message: String,
    #[resolve(elicit = "{message}")] response: Answer<Response>,
) -> String {
    let _ = message; // only the question needs it
    answer_summary("User response", &response)
}

/// `<prefix>: action=accept, content={...}`, the text the elicitation scenarios describe.
fn answer_summary<T: Serialize>(prefix: &str, answer: &Answer<T>) -> String {
    let (action, content) = match answer {
        Answer::Accepted(v) => ("accept", serde_json::to_value(v).unwrap_or_default()),
        Answer::Declined => ("decline", json!({})),
        Answer::Cancelled => ("cancel", json!({})),
    };
    format!("{prefix}: action={action}, content={content}")
}

/// The SEP-1034 form: every field has a default.
#[derive(Serialize, Deserialize, JsonSchema, Elicit)]
struct WithDefaults {
    /// User name
    #[serde(default = "default_name")]
    name: String,
    /// User age
    #[serde(default = "default_age")]
    age: i64,
    /// User score
    #[serde(default = "default_score")]
    score: f64,
    /// User status
    #[serde(default)]
    status: Status,
    /// Verification status
    #[serde(default = "default_verified")]
    verified: bool,
}

fn default_name() -> String {
    "John Doe".into()
}

fn default_age() -> i64 {
    30
}

fn default_score() -> f64 {
    95.5
}

fn default_verified() -> bool {
    true
}

#[derive(Default, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

/// Elicits a form whose fields all have defaults (SEP-1034)
#[tool]
async fn test_elicitation_sep1034_defaults(
    #[resolve(elicit = "Please review and update the form fields with defaults")] form: Answer<WithDefaults>,
) -> String {
    answer_summary("Elicitation completed", &form)
}

/// The SEP-1330 form: the five enum shapes, none required (an unanswered one is left out of
/// the reported content).
#[derive(Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "camelCase")]
struct Enums {
    /// Select one option
    #[serde(skip_serializing_if = "Option::is_none")]
    untitled_single: Option<Untitled>,
    /// Select one option with titles
    #[serde(skip_serializing_if = "Option::is_none")]
    titled_single: Option<Titled>,
    /// Select one option (legacy)
    #[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
    #[serde(skip_serializing_if = "Option::is_none")]
    legacy_enum: Option<Legacy>,
    /// Select multiple options
    #[schemars(length(min = 1, max = 3))]
    #[serde(skip_serializing_if = "Option::is_none")]
    untitled_multi: Option<Vec<Untitled>>,
    /// Select multiple options with titles
    #[schemars(length(min = 1, max = 3))]
    #[serde(skip_serializing_if = "Option::is_none")]
    titled_multi: Option<Vec<TitledChoice>>,
}

#[derive(Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Titled {
    #[schemars(title = "First Option")]
    Value1,
    #[schemars(title = "Second Option")]
    Value2,
    #[schemars(title = "Third Option")]
    Value3,
}

#[derive(Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

#[derive(Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    #[schemars(title = "First Choice")]
    Value1,
    #[schemars(title = "Second Choice")]
    Value2,
    #[schemars(title = "Third Choice")]
    Value3,
}

/// Elicits a form with the five enum shapes of SEP-1330
#[tool]
async fn test_elicitation_sep1330_enums(
    #[resolve(elicit = "Please select options from the enum fields")] form: Answer<Enums>,
) -> String {
    answer_summary("Elicitation completed", &form)
}

// Manual: the input schema's root keywords (`$schema`, `$defs`, `allOf`, `if`/`then`/`else`)
// cannot be declared; a `#[tool]` input schema is only an object of its parameters.
fn json_schema_2020_12() -> ToolDef {
    // Exactly the schema of the `json-schema-2020-12` scenario: the listing must keep every
    // 2020-12 keyword (`$schema`, `$defs` with `$anchor`, `$ref`, composition, conditionals).
    let schema = object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [ { "anyOf": [ { "required": ["phone"] }, { "required": ["email"] } ] } ],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    }));
    let tool = Tool::new("json_schema_2020_12_tool", schema).with_description("Tool with JSON Schema 2020-12 features");
    ToolDef::new(tool, |cx| async move {
        let args = Value::Object(cx.arguments().clone());
        Ok(Outcome::Complete(CallToolResult::text(format!("Received arguments: {args}"))))
    })
}

/// The argument of `test_custom_header` (SEP-2243, unscored
/// `http-custom-header-server-validation`): mirrored in an `Mcp-Param-Region` header, which
/// the HTTP transport cross-checks against the body. A `#[tool]` parameter has no option for
/// extra schema keywords, so the type carries `x-mcp-header`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(extend("x-mcp-header" = "Region"))]
struct Region(String);

/// Echoes an argument sent as a header too
#[tool]
async fn test_custom_header(
    /// Where to run
    region: Region,
) -> String {
    format!("Region: {}", region.0)
}

/// `Elicitation completed: action=accept, content={...}`, the text the elicitation scenarios
/// describe.
fn elicitation_summary(prefix: &str, result: &ElicitResult) -> String {
    let action = match result.action {
        ElicitAction::Accept => "accept",
        ElicitAction::Decline => "decline",
        ElicitAction::Cancel => "cancel",
        _ => "unknown",
    };
    let content = Value::Object(result.content.clone().unwrap_or_default());
    format!("{prefix}: action={action}, content={content}")
}

// Manual: it reports progress before its question; a `#[tool]` body runs only once every
// `#[resolve]` parameter is answered.
fn streaming_elicitation() -> ToolDef {
    // Diagnostic tool of `server-stateless`: on 2026-07-28 its question must travel as an
    // `input_required` result, never as a JSON-RPC request on the response stream. It reports
    // progress first so the stream carries a notification before the result.
    let tool = Tool::new("test_streaming_elicitation", empty_input_schema())
        .with_description("Reports progress, then asks the user to confirm");
    let schema = object(json!({
        "type": "object",
        "properties": { "confirmed": { "type": "boolean" } },
        "required": ["confirmed"]
    }));
    ToolDef::new(tool, move |cx| {
        let schema = schema.clone();
        async move {
            if let Some(result) = cx.elicit_result("confirmation") {
                return Ok(Outcome::Complete(CallToolResult::text(elicitation_summary(
                    "Streaming elicitation completed",
                    &result,
                ))));
            }
            cx.progress(0.0, Some(1.0), Some("about to ask for confirmation"));
            Ok(InputRequired::new().elicit("confirmation", "Please confirm to continue", schema).into())
        }
    })
}
