//! The multi-round-trip fixtures of the `input-required-result-*` scenarios (2026-07-28):
//! tools and a prompt that answer `input_required` first and complete on the retry.
//!
//! Declared with `#[resolve]` parameters: the question key is the parameter's name, a
//! `#[derive(Elicit)]` struct is the whole form, and the framework seals its own
//! `requestState` (bound to the tool), re-asks a question whose answer is missing or does not
//! fit (`missing-input-response`, `validate-input`) and rejects a tampered state before the
//! fn runs (`tampered-state`). `test_input_required_result_elicitation` and
//! `test_input_required_result_capabilities` are manual, at the end.

use roundtrip::RequestContext;
use roundtrip::prelude::*;
use roundtrip::protocol::{CreateMessageParams, ElicitAction, ErrorObject, JsonObject, Tool, empty_input_schema};
use roundtrip::resolve::Question;
use roundtrip::server::{HandlerResult, PromptDef, ToolDef};
use serde_json::json;

use super::object;

/// Every tool of this module.
pub fn tools() -> Vec<ToolDef> {
    let declared = tools![
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_request_state,
        test_input_required_result_multiple_inputs,
        test_input_required_result_multi_round,
        test_input_required_result_tampered_state,
    ];
    let manual = [
        tool("test_input_required_result_elicitation", "Asks for the user's name", elicitation),
        tool("test_input_required_result_capabilities", "Asks only what the client declared", capabilities),
    ];
    declared.into_iter().chain(manual).collect()
}

/// Every prompt of this module.
pub fn prompts() -> Vec<PromptDef> {
    prompts![test_input_required_result_prompt].into()
}

/// The form of the `user_name` question: `{name: string}`, required.
#[derive(Deserialize, JsonSchema, Elicit)]
struct UserName {
    name: String,
}

/// Asks the client's model a question
#[tool]
async fn test_input_required_result_sampling(
    #[resolve(sample = "What is the capital of France?", max_tokens = 100)] capital_question: String,
) -> String {
    format!("Sampling result: {capital_question}")
}

/// `<n> root(s): <uri>, <uri>`.
fn roots_text(roots: &[Root]) -> String {
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    format!("{} root(s): {}", uris.len(), uris.join(", "))
}

/// Asks for the client's roots
#[tool]
async fn test_input_required_result_list_roots(#[resolve(roots)] client_roots: Vec<Root>) -> String {
    format!("Client roots: {}", roots_text(&client_roots))
}

/// The form of the `confirm` question: `{ok: boolean}`, required.
#[derive(Deserialize, JsonSchema, Elicit)]
struct Confirm {
    ok: bool,
}

/// Asks for a confirmation and carries state
#[tool]
async fn test_input_required_result_request_state(
    #[resolve(elicit = "Please confirm")] confirm: Answer<Confirm>,
) -> String {
    // The answer is only taken with the sealed state of the round that asked it.
    let ok = confirm.accepted().map_or_else(|| "unanswered".to_owned(), |c| c.ok.to_string());
    format!("state-ok: requestState verified, confirmed={ok}")
}

/// Carries sealed state that must not be tampered with
#[tool]
async fn test_input_required_result_tampered_state(
    #[resolve(elicit = "What is your name?")] user_name: UserName,
) -> String {
    // A tampered `requestState` is a JSON-RPC error before this runs.
    format!("state-ok: Hello, {}!", user_name.name)
}

/// Asks three questions at once
#[tool]
async fn test_input_required_result_multiple_inputs(
    #[resolve(elicit = "What is your name?")] user_name: UserName,
    #[resolve(sample = "Generate a greeting", max_tokens = 50)] greeting: String,
    #[resolve(roots)] client_roots: Vec<Root>,
) -> String {
    format!("Name: {}; greeting: {greeting}; roots: {}", user_name.name, roots_text(&client_roots))
}

/// The form of the `step2` question: `{color: string}`, required (`Serialize`: a `with`
/// resolver could also give it without asking).
#[derive(Serialize, Deserialize, JsonSchema)]
struct Color {
    color: String,
}

/// Step 2, asked once step 1 is answered: its text names no earlier answer, so taking `step1`
/// is what orders it into a second round.
async fn ask_color(step1: UserName) -> Resolve<Color> {
    let _ = step1;
    match Question::form_of::<Color>("Step 2: What is your favorite color?") {
        Ok(question) => Resolve::Ask(question),
        Err(why) => unreachable!("Color is a flat form: {why}"),
    }
}

/// Asks two questions in two rounds
#[tool]
async fn test_input_required_result_multi_round(
    #[resolve(elicit = "Step 1: What is your name?")] step1: UserName,
    #[resolve(with = ask_color(step1))] step2: Color,
) -> String {
    format!("Hello, {}! Your favorite color is {}.", step1.name, step2.color)
}

/// The form of the prompt's `user_context` question: `{context: string}`, required.
#[derive(Deserialize, JsonSchema, Elicit)]
struct UserContext {
    context: String,
}

/// A prompt that asks the user for context
#[prompt]
async fn test_input_required_result_prompt(
    #[resolve(elicit = "What context should the prompt use?")] user_context: UserContext,
) -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::user(format!("Prompt with context: {}", user_context.context))])
        .with_description("A prompt built from the user's context")
}

// ---- The manual fixtures ----

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

// Manual: `ignore-extra-params` sends the `user_name` answer on the first call, without a
// `requestState`; a `#[resolve]` parameter only takes an answer to a question its sealed
// state says was asked, so the DSL would ask again instead of completing.
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

fn roots_summary(cx: &RequestContext, key: &str) -> Option<String> {
    Some(roots_text(&cx.roots_result(key)?.roots))
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

// Manual: it asks only what this request's client capabilities declare (the suite declares
// only sampling); a `#[resolve]` parameter is always asked.
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
