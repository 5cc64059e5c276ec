//! The fixtures of the suite's `tasks-*` scenarios (the `io.modelcontextprotocol/tasks`
//! extension), declared with `#[tool(task)]`: long work that runs as a task, asks while it
//! runs, fails as a tool or as a protocol, and a tool that asks first (multi-round trips) and
//! then becomes a task.

use std::time::Duration;

use roundtrip::prelude::*;
use roundtrip::server::ToolDef;

/// Greets by name (never a task).
#[tool]
pub async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleeps `seconds` seconds, then answers; a task when the client can take one.
#[tool(task)]
pub async fn slow_compute(
    /// How long the work takes.
    seconds: u64,
    /// A label echoed in the result.
    label: Option<String>,
    task: TaskContext,
) -> String {
    task.progress(0.0, Some(seconds as f64), Some("computing"));
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    format!("Computed {} in {seconds}s.", label.unwrap_or_default())
}

/// Fails as a tool (an `isError` result) after about a second; only as a task.
#[tool(task = "required")]
pub async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed: the input was rejected".into())
}

/// Fails as a protocol (a JSON-RPC error): its body panics.
#[tool(task)]
pub async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("protocol_error_job always fails")
}

/// Asks, while running, whether to delete the file.
#[tool(task)]
pub async fn confirm_delete(
    /// The file.
    filename: String,
    task: TaskContext,
) -> Result<String, Error> {
    let confirm = task.ask_as::<bool>(Question::confirm(format!("Delete {filename}?"), "confirm")).await?;
    Ok(match confirm {
        Answer::Accepted(true) => format!("Deleted {filename}."),
        _ => format!("Kept {filename}."),
    })
}

/// Asks two questions at once while running.
#[tool(task)]
pub async fn multi_input(task: TaskContext) -> Result<String, Error> {
    let name = Question::elicit::<String>("What is your name?", "name");
    let confirm = Question::confirm("Proceed?", "confirm");
    let (name, confirm) = tokio::join!(task.ask_as::<String>(name), task.ask_as::<bool>(confirm));
    Ok(format!("name: {:?}, confirm: {:?}", name?, confirm?))
}

/// The answer of the first round.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
pub struct UserName {
    /// Your name.
    pub name: String,
}

/// Asks the user's name (multi-round trips), then greets as a task.
#[tool(task = "required")]
pub async fn test_tool_with_task(
    #[resolve(elicit = "What is your name?")] user_name: UserName,
    task: TaskContext,
) -> String {
    task.progress(0.5, Some(1.0), Some("greeting"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    format!("Hello, {}! (from a task)", user_name.name)
}

/// The task fixtures.
pub fn tools() -> Vec<ToolDef> {
    Vec::from(tools![
        greet,
        slow_compute,
        failing_job,
        protocol_error_job,
        confirm_delete,
        multi_input,
        test_tool_with_task
    ])
}
