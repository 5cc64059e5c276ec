//! The multi-round-trip fixtures of the `input-required-result-*` scenarios (2026-07-28):
//! tools and a prompt that answer `input_required` first and complete on the retry.
//!
//! Each handler is a pure function of its request: the answers of the previous round
//! (`cx.elicit_result`, `cx.sampling_result`, `cx.roots_result`) and the verified state
//! (`cx.state`). A retry whose answers are missing or unusable is asked again, which is what
//! `missing-input-response` and `validate-input` expect.

use roundtrip::RequestContext;
use roundtrip::protocol::{
    CallToolResult, CreateMessageParams, ElicitAction, ErrorObject, GetPromptResult, JsonObject, Prompt, PromptMessage,
    Tool, empty_input_schema,
};
use roundtrip::server::{HandlerResult, InputRequired, Outcome, PromptDef, ToolDef};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::object;

/// Every tool of this module.
pub fn tools() -> Vec<ToolDef> {
    vec![
        tool("test_input_required_result_elicitation", "Asks for the user's name", elicitation),
        tool("test_input_required_result_sampling", "Asks the client's model a question", sampling),
        tool("test_input_required_result_list_roots", "Asks for the client's roots", list_roots),
        tool("test_input_required_result_request_state", "Asks for a confirmation and carries state", request_state),
        tool("test_input_required_result_multiple_inputs", "Asks three questions at once", multiple_inputs),
        tool("test_input_required_result_multi_round", "Asks two questions in two rounds", multi_round),
        tool(
            "test_input_required_result_tampered_state",
            "Carries sealed state that must not be tampered with",
            tampered_state,
        ),
        tool("test_input_required_result_capabilities", "Asks only what the client declared", capabilities),
    ]
}

/// Every prompt of this module.
pub fn prompts() -> Vec<PromptDef> {
    let prompt = Prompt {
        description: Some("A prompt that asks the user for context".into()),
        ..Prompt::new("test_input_required_result_prompt")
    };
    vec![PromptDef::new(prompt, |cx| async move { context_prompt(&cx) })]
}

fn tool(name: &str, description: &str, handler: fn(&RequestContext) -> HandlerResult<CallToolResult>) -> ToolDef {
    ToolDef::new(
        Tool::new(name, empty_input_schema()).with_description(description),
        move |cx| async move { handler(&cx) },
    )
}

/// `{"type":"object","properties":{<field>:{"type":<ty>}},"required":[<field>]}`.
fn one_field(field: &str, ty: &str) -> JsonObject {
    object(json!({ "type": "object", "properties": { field: { "type": ty } }, "required": [field] }))
}

/// The string `field` of an accepted elicitation under `key`.
fn accepted_string(cx: &RequestContext, key: &str, field: &str) -> Option<String> {
    let result = cx.elicit_result(key)?;
    if result.action != ElicitAction::Accept {
        return None;
    }
    result.content?.get(field)?.as_str().map(str::to_owned)
}

fn ask_name(round: InputRequired) -> InputRequired {
    round.elicit("user_name", "What is your name?", one_field("name", "string"))
}

fn elicitation(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    Ok(match accepted_string(cx, "user_name", "name") {
        Some(name) => Outcome::Complete(CallToolResult::text(format!("Hello, {name}!"))),
        None => ask_name(InputRequired::new()).into(),
    })
}

fn capital_question(round: InputRequired, key: &str) -> InputRequired {
    round.sample(key, CreateMessageParams::prompt("What is the capital of France?", 100))
}

fn sampled_text(cx: &RequestContext, key: &str) -> Option<String> {
    let result = cx.sampling_result(key)?;
    Some(result.content.as_text().map_or_else(|| "<non-text content>".to_owned(), str::to_owned))
}

fn sampling(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    Ok(match sampled_text(cx, "capital_question") {
        Some(text) => Outcome::Complete(CallToolResult::text(format!("Sampling result: {text}"))),
        None => capital_question(InputRequired::new(), "capital_question").into(),
    })
}

fn roots_summary(cx: &RequestContext, key: &str) -> Option<String> {
    let roots = cx.roots_result(key)?.roots;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Some(format!("{} root(s): {}", uris.len(), uris.join(", ")))
}

fn list_roots(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    Ok(match roots_summary(cx, "client_roots") {
        Some(summary) => Outcome::Complete(CallToolResult::text(format!("Client roots: {summary}"))),
        None => InputRequired::new().list_roots("client_roots").into(),
    })
}

/// The verified state of the previous round as `T`.
///
/// The server seals every state it sends and rejects one that fails verification before the
/// handler runs; a state that still does not decode as what this tool wrote is refused here
/// too, so that a forged or stale state never completes a call.
fn verified_state<T: serde::de::DeserializeOwned>(cx: &RequestContext) -> Result<Option<T>, ErrorObject> {
    if !cx.has_state() {
        return Ok(None);
    }
    cx.state::<T>()
        .map(Some)
        .ok_or_else(|| ErrorObject::invalid_params(format!("requestState is not a state of `{}`", cx.target())))
}

/// The state the request-state, tampered-state, multiple-inputs and capabilities tools carry:
/// which tool wrote it, so that a state cannot be replayed against another tool.
#[derive(Debug, Serialize, Deserialize)]
struct Carried {
    tool: String,
}

fn carried(cx: &RequestContext) -> Result<Option<Carried>, ErrorObject> {
    match verified_state::<Carried>(cx)? {
        Some(state) if state.tool != cx.target() => {
            Err(ErrorObject::invalid_params(format!("requestState was written by `{}`", state.tool)))
        }
        state => Ok(state),
    }
}

fn carry(cx: &RequestContext) -> Carried {
    Carried { tool: cx.target().to_owned() }
}

fn request_state(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    let state = carried(cx)?;
    let confirm = cx.elicit_result("confirm");
    Ok(match (state, confirm) {
        (Some(_), Some(answer)) => {
            let ok = answer.content.as_ref().and_then(|c| c.get("ok")).and_then(Value::as_bool);
            let ok = ok.map_or_else(|| "unanswered".to_owned(), |b| b.to_string());
            Outcome::Complete(CallToolResult::text(format!("state-ok: requestState verified, confirmed={ok}")))
        }
        _ => InputRequired::new()
            .elicit("confirm", "Please confirm", one_field("ok", "boolean"))
            .state(&carry(cx))
            .into(),
    })
}

fn tampered_state(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    let state = carried(cx)?;
    Ok(match (state, accepted_string(cx, "user_name", "name")) {
        (Some(_), Some(name)) => Outcome::Complete(CallToolResult::text(format!("state-ok: Hello, {name}!"))),
        _ => ask_name(InputRequired::new()).state(&carry(cx)).into(),
    })
}

fn multiple_inputs(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    let state = carried(cx)?;
    let name = accepted_string(cx, "user_name", "name");
    let greeting = sampled_text(cx, "greeting");
    let roots = roots_summary(cx, "client_roots");
    Ok(match (state, name, greeting, roots) {
        (Some(_), Some(name), Some(greeting), Some(roots)) => {
            Outcome::Complete(CallToolResult::text(format!("Name: {name}; greeting: {greeting}; roots: {roots}")))
        }
        _ => ask_name(InputRequired::new())
            .sample("greeting", CreateMessageParams::prompt("Generate a greeting", 50))
            .list_roots("client_roots")
            .state(&carry(cx))
            .into(),
    })
}

/// Where the multi-round tool is: the state of each round says which question is open.
#[derive(Debug, Serialize, Deserialize)]
enum MultiRound {
    AskedName,
    AskedColor { name: String },
}

fn ask_step1() -> InputRequired {
    InputRequired::new()
        .elicit("step1", "Step 1: What is your name?", one_field("name", "string"))
        .state(&MultiRound::AskedName)
}

fn ask_step2(name: String) -> InputRequired {
    InputRequired::new()
        .elicit("step2", "Step 2: What is your favorite color?", one_field("color", "string"))
        .state(&MultiRound::AskedColor { name })
}

fn multi_round(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    Ok(match verified_state::<MultiRound>(cx)? {
        None => ask_step1().into(),
        Some(MultiRound::AskedName) => match accepted_string(cx, "step1", "name") {
            Some(name) => ask_step2(name).into(),
            None => ask_step1().into(),
        },
        Some(MultiRound::AskedColor { name }) => match accepted_string(cx, "step2", "color") {
            Some(color) => {
                Outcome::Complete(CallToolResult::text(format!("Hello, {name}! Your favorite color is {color}.")))
            }
            None => ask_step2(name).into(),
        },
    })
}

fn capabilities(cx: &RequestContext) -> HandlerResult<CallToolResult> {
    if carried(cx)?.is_some() {
        // The retry: report whatever was answered.
        let mut parts = Vec::new();
        if let Some(name) = accepted_string(cx, "user_name", "name") {
            parts.push(format!("name: {name}"));
        }
        if let Some(text) = sampled_text(cx, "capital_question") {
            parts.push(format!("sampling: {text}"));
        }
        if let Some(roots) = roots_summary(cx, "client_roots") {
            parts.push(format!("roots: {roots}"));
        }
        return Ok(Outcome::Complete(CallToolResult::text(format!("Answers: {}", parts.join("; ")))));
    }
    // Ask only what this request's client capabilities declare: the server refuses a round
    // with a question the client cannot answer (-32021).
    let caps = cx.client_capabilities();
    let mut round = InputRequired::new();
    if caps.elicitation_form() {
        round = ask_name(round);
    }
    if caps.sampling() {
        round = capital_question(round, "capital_question");
    }
    if caps.roots() {
        round = round.list_roots("client_roots");
    }
    if round.requests().is_empty() {
        return Ok(Outcome::Complete(CallToolResult::text("The client declared no capability to ask with")));
    }
    Ok(round.state(&carry(cx)).into())
}

fn context_prompt(cx: &RequestContext) -> HandlerResult<GetPromptResult> {
    Ok(match accepted_string(cx, "user_context", "context") {
        Some(context) => Outcome::Complete(GetPromptResult {
            description: Some("A prompt built from the user's context".into()),
            messages: vec![PromptMessage::user(format!("Prompt with context: {context}"))],
            ..GetPromptResult::default()
        }),
        None => InputRequired::new()
            .elicit("user_context", "What context should the prompt use?", one_field("context", "string"))
            .into(),
    })
}
