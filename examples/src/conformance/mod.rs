//! The conformance example server: every tool, prompt, resource and completion the official
//! MCP conformance suite (`@modelcontextprotocol/conformance` 0.2.0-alpha.12) calls, with the
//! names, texts and shapes its scenarios check. Declared with the macros (`#[tool]`,
//! `#[prompt]`, `#[resource]`, `#[resource_template]`) wherever they produce exactly the wire
//! a scenario checks; the remaining fixtures use the manual API, each saying why.
//!
//! - [`tools`]: the plain tools and the 2025-era callback tools (`test_sampling`, ...),
//! - [`mrtr`]: the `test_input_required_result_*` tools and prompt (2026-07-28 rounds),
//! - [`prompts`], [`resources`]: the prompt and resource fixtures,
//! - [`tasks`]: the tasks extension's fixtures (`#[tool(task)]`),
//! - [`skills`]: the skills extension's fixtures (`examples/skills/`, embedded).
//!
//! Tools that need the client (sampling, elicitation, roots) are written once, as
//! `#[resolve]` parameters or rounds of [`InputRequired`](roundtrip::InputRequired): a
//! 2026-07-28 client gets an `input_required` result and retries; on a 2025-era session the
//! server turns the same round into server-to-client requests and runs the handler again with
//! the answers.

pub mod mrtr;
pub mod prompts;
pub mod resources;
pub mod skills;
pub mod tasks;
pub mod tools;

use roundtrip::Server;
use roundtrip::protocol::{Completion, JsonObject};
use serde_json::Value;

/// The name the server reports in `serverInfo`.
pub const SERVER_NAME: &str = "roundtrip-conformance";

/// A 1x1 PNG (base64), the image of the image tool, prompt and binary resource.
pub const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file (base64), the audio of the audio tool.
pub const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The conformance server with everything registered.
pub fn server() -> Server {
    server_without_tasks().tools(tasks::tools())
}

/// Everything but the tasks extension's fixtures: what a Cloudflare Worker serves
/// (`examples/worker`), whose isolate does not run a task's body on after answering.
pub fn server_without_tasks() -> Server {
    Server::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .tools(tools::all())
        .tools(mrtr::tools())
        .prompts(prompts::all())
        .prompts(mrtr::prompts())
        .resources(resources::all())
        .skills(skills::all())
        // `completion-complete` only needs the capability and a well-formed answer.
        .completer(|_| Completion::default())
}

/// Wait `duration` between a tool's notifications. On wasm32 (a Worker) it does not wait:
/// there is no timer to wait on, and the notifications go out in one body after the call.
pub(crate) async fn pause(duration: std::time::Duration) {
    #[cfg(not(target_arch = "wasm32"))]
    tokio::time::sleep(duration).await;
    #[cfg(target_arch = "wasm32")]
    let _ = duration;
}

/// The object of a `json!` object literal (anything else is an empty object).
pub(crate) fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}
