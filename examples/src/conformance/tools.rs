//! The plain tools of the conformance suite, and the 2025-era tools that call back into the
//! client (`test_sampling`, `test_elicitation*`), written as `InputRequired` rounds.

use std::time::Duration;

use roundtrip::protocol::{
    CallToolResult, Content, CreateMessageParams, ElicitAction, ElicitResult, LoggingLevel, ResourceContents, Tool,
    empty_input_schema,
};
use roundtrip::server::{InputRequired, ListChange, Outcome, ToolDef};
use serde_json::{Value, json};

use super::{PNG_BASE64, WAV_BASE64, object};

/// The delay between the notifications of the logging and progress tools.
const STEP: Duration = Duration::from_millis(50);

/// Every tool of this module.
pub fn all() -> Vec<ToolDef> {
    vec![
        simple("test_simple_text", "Returns a simple text response", || {
            CallToolResult::text("This is a simple text response for testing.")
        }),
        simple("test_image_content", "Returns an image", || {
            CallToolResult::success(vec![Content::image(PNG_BASE64, "image/png")])
        }),
        simple("test_audio_content", "Returns audio", || {
            CallToolResult::success(vec![Content::audio(WAV_BASE64, "audio/wav")])
        }),
        simple("test_embedded_resource", "Returns an embedded resource", || {
            CallToolResult::success(vec![Content::resource(ResourceContents::text(
                "test://embedded-resource",
                Some("text/plain"),
                "This is an embedded resource content.",
            ))])
        }),
        simple("test_multiple_content_types", "Returns text, an image and a resource", || {
            CallToolResult::success(vec![
                Content::text("Multiple content types test:"),
                Content::image(PNG_BASE64, "image/png"),
                Content::resource(ResourceContents::text(
                    "test://mixed-content-resource",
                    Some("application/json"),
                    r#"{"test":"data","value":123}"#,
                )),
            ])
        }),
        simple("test_error_handling", "Always fails with a tool error", || {
            // A tool execution error the model sees, not a JSON-RPC error.
            CallToolResult::error("This tool intentionally returns an error for testing")
        }),
        simple("test_reconnection", "Completes normally (SSE polling is the transport's business)", || {
            CallToolResult::text("Reconnection test completed successfully")
        }),
        logging(),
        progress(),
        logging_tool(),
        simple_with_cx("test_trigger_tool_change", "Announces a change of the tool list", |cx| {
            cx.server().notify_list_changed(ListChange::Tools);
            CallToolResult::text("Tool list change notified")
        }),
        simple_with_cx("test_trigger_prompt_change", "Announces a change of the prompt list", |cx| {
            cx.server().notify_list_changed(ListChange::Prompts);
            CallToolResult::text("Prompt list change notified")
        }),
        json_schema_2020_12(),
        custom_header(),
        sampling(),
        missing_capability(),
        elicitation(),
        elicitation_defaults(),
        elicitation_enums(),
        streaming_elicitation(),
    ]
}

fn simple(name: &str, description: &str, result: fn() -> CallToolResult) -> ToolDef {
    ToolDef::new(Tool::new(name, empty_input_schema()).with_description(description), move |_cx| async move {
        Ok(Outcome::Complete(result()))
    })
}

fn simple_with_cx(name: &str, description: &str, result: fn(&roundtrip::RequestContext) -> CallToolResult) -> ToolDef {
    ToolDef::new(Tool::new(name, empty_input_schema()).with_description(description), move |cx| async move {
        Ok(Outcome::Complete(result(&cx)))
    })
}

fn logging() -> ToolDef {
    let tool = Tool::new("test_tool_with_logging", empty_input_schema())
        .with_description("Sends three log messages while it runs");
    ToolDef::new(tool, |cx| async move {
        for (i, message) in
            ["Tool execution started", "Tool processing data", "Tool execution completed"].into_iter().enumerate()
        {
            if i > 0 {
                tokio::time::sleep(STEP).await;
            }
            cx.log(LoggingLevel::Info, Some("conformance"), json!(message));
        }
        Ok(Outcome::Complete(CallToolResult::text("Tool with logging executed successfully")))
    })
}

fn progress() -> ToolDef {
    let tool = Tool::new("test_tool_with_progress", empty_input_schema())
        .with_description("Reports progress 0, 50 and 100 of 100 when given a progress token");
    ToolDef::new(tool, |cx| async move {
        for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(STEP).await;
            }
            cx.progress(progress, Some(100.0), None);
        }
        let token = cx.progress_token().map(|t| json!(t).to_string()).unwrap_or_else(|| "none".into());
        Ok(Outcome::Complete(CallToolResult::text(format!("Progress tool completed (token: {token})"))))
    })
}

fn logging_tool() -> ToolDef {
    // Diagnostic tool of `server-stateless`: on 2026-07-28 it must log only when the request's
    // `_meta` asks for a log level, which `cx.log` already honours.
    let tool = Tool::new("test_logging_tool", empty_input_schema())
        .with_description("Logs one message (only when the request asks for logs)");
    ToolDef::new(tool, |cx| async move {
        cx.log(LoggingLevel::Info, Some("conformance"), json!("test_logging_tool was called"));
        Ok(Outcome::Complete(CallToolResult::text("Logging tool completed")))
    })
}

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

fn custom_header() -> ToolDef {
    // SEP-2243 (unscored `http-custom-header-server-validation`): an argument mirrored in an
    // `Mcp-Param-Region` header, which the HTTP transport cross-checks against the body.
    let schema = object(json!({
        "type": "object",
        "properties": {
            "region": { "type": "string", "description": "Where to run", "x-mcp-header": "Region" }
        },
        "required": ["region"]
    }));
    let tool = Tool::new("test_custom_header", schema).with_description("Echoes an argument sent as a header too");
    ToolDef::new(tool, |cx| async move {
        let region: String = cx.argument("region")?;
        Ok(Outcome::Complete(CallToolResult::text(format!("Region: {region}"))))
    })
}

fn prompt_schema(name: &str, description: &str) -> roundtrip::protocol::JsonObject {
    object(json!({
        "type": "object",
        "properties": { name: { "type": "string", "description": description } },
        "required": [name]
    }))
}

/// The text of a sampling answer, or a note that it had none.
fn sampled_text(cx: &roundtrip::RequestContext, key: &str) -> Option<String> {
    let result = cx.sampling_result(key)?;
    Some(result.content.as_text().map_or_else(|| "<non-text content>".to_owned(), str::to_owned))
}

fn sampling() -> ToolDef {
    let tool = Tool::new("test_sampling", prompt_schema("prompt", "The prompt to send to the LLM"))
        .with_description("Asks the client's model to complete a prompt");
    ToolDef::new(tool, |cx| async move {
        let prompt: String = cx.argument("prompt")?;
        Ok(match sampled_text(&cx, "llm") {
            Some(text) => Outcome::Complete(CallToolResult::text(format!("LLM response: {text}"))),
            None => InputRequired::new().sample("llm", CreateMessageParams::prompt(prompt, 100)).into(),
        })
    })
}

fn missing_capability() -> ToolDef {
    // Asks for sampling unconditionally: a 2026-07-28 request that did not declare sampling
    // gets -32021 with `requiredCapabilities: {sampling: {}}` from the framework.
    let tool = Tool::new("test_missing_capability", empty_input_schema())
        .with_description("Needs the sampling capability of the client");
    ToolDef::new(tool, |cx| async move {
        Ok(match sampled_text(&cx, "llm") {
            Some(text) => Outcome::Complete(CallToolResult::text(format!("LLM response: {text}"))),
            None => InputRequired::new().sample("llm", CreateMessageParams::prompt("Say hello", 20)).into(),
        })
    })
}

/// `Elicitation completed: action=accept, content={...}`, the text the elicitation scenarios
/// describe.
fn elicitation_summary(prefix: &str, result: &ElicitResult) -> String {
    let action = match result.action {
        ElicitAction::Accept => "accept",
        ElicitAction::Decline => "decline",
        ElicitAction::Cancel => "cancel",
    };
    let content = Value::Object(result.content.clone().unwrap_or_default());
    format!("{prefix}: action={action}, content={content}")
}

fn elicitation() -> ToolDef {
    let tool = Tool::new("test_elicitation", prompt_schema("message", "The message to show the user"))
        .with_description("Asks the user for their username and email");
    // The schema of the `tools-call-elicitation` scenario text (its client answers with
    // `username` and `email`, and a client may validate the answer against the schema).
    let schema = object(json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" }
        },
        "required": ["username", "email"]
    }));
    ToolDef::new(tool, move |cx| {
        let schema = schema.clone();
        async move {
            let message: String = cx.argument("message")?;
            Ok(match cx.elicit_result("response") {
                Some(result) => Outcome::Complete(CallToolResult::text(elicitation_summary("User response", &result))),
                None => InputRequired::new().elicit("response", message, schema).into(),
            })
        }
    })
}

fn elicitation_defaults() -> ToolDef {
    let tool = Tool::new("test_elicitation_sep1034_defaults", empty_input_schema())
        .with_description("Elicits a form whose fields all have defaults (SEP-1034)");
    let schema = object(json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": { "type": "boolean", "description": "Verification status", "default": true }
        },
        "required": []
    }));
    elicit_once(tool, "Please review and update the form fields with defaults", schema)
}

fn elicitation_enums() -> ToolDef {
    let tool = Tool::new("test_elicitation_sep1330_enums", empty_input_schema())
        .with_description("Elicits a form with the five enum shapes of SEP-1330");
    let schema = object(json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        { "const": "value1", "title": "First Choice" },
                        { "const": "value2", "title": "Second Choice" },
                        { "const": "value3", "title": "Third Choice" }
                    ]
                }
            }
        },
        "required": []
    }));
    elicit_once(tool, "Please select options from the enum fields", schema)
}

/// A tool that elicits `schema` once and reports the answer.
fn elicit_once(tool: Tool, message: &'static str, schema: roundtrip::protocol::JsonObject) -> ToolDef {
    ToolDef::new(tool, move |cx| {
        let schema = schema.clone();
        async move {
            Ok(match cx.elicit_result("form") {
                Some(result) => {
                    Outcome::Complete(CallToolResult::text(elicitation_summary("Elicitation completed", &result)))
                }
                None => InputRequired::new().elicit("form", message, schema).into(),
            })
        }
    })
}

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
