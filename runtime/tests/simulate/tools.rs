//! The tools the fleet serves: one of each way a call can go (one leg after a question, or a
//! task that asks again while it runs; idempotent or not). Every answer the client gives names
//! its flow (`a-<flow>` to the question before the call, `t-<flow>` to the task's question),
//! and every body checks that it got its own flow's answers and counts its side effect in the
//! ledger, so an answer applied to another flow and a body run twice are both seen.

use std::time::Duration;

use roundtrip::prelude::*;
use serde_json::json;

use super::world::current;

/// The side effect of a body: counted for `flow`, with the answers it was given.
fn effect(flow: &str, answers: &[(&str, &str)]) {
    let sim = current();
    let answers: Vec<(String, String)> = answers.iter().map(|(w, g)| ((*w).to_owned(), (*g).to_owned())).collect();
    sim.event(format_args!("body {flow} effect"));
    sim.state().ledger.effect(flow, &answers);
}

/// A while of work, chosen by the seed.
async fn work() {
    let wait = current().millis(0..400);
    tokio::time::sleep(wait).await;
}

/// Asks, while running as a task, for this flow's second answer.
async fn ask_again(task: &TaskContext, flow: &str) -> Result<String, Error> {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]});
    let schema = schema.as_object().cloned().unwrap_or_default();
    let question = Question::property(format!("Go on with {flow}?"), schema, "answer");
    match task.ask_as::<String>(question).await? {
        Answer::Accepted(answer) => Ok(answer),
        _ => Err(Error::new("the question was not accepted")),
    }
}

/// Provisions a database for `flow`; asks where. Running it again does no harm.
#[tool(idempotent)]
pub async fn provision(flow: String, #[resolve(elicit = "Where should {flow} live?")] answer: String) -> String {
    effect(&flow, &[(&format!("a-{flow}"), &answer)]);
    format!("provisioned {flow} with {answer}")
}

/// Transfers money for `flow` after the user confirms: not idempotent, each state accepted once.
#[tool(single_use)]
pub async fn transfer(flow: String, #[resolve(elicit = "Transfer for {flow}?")] answer: String) -> String {
    effect(&flow, &[(&format!("a-{flow}"), &answer)]);
    format!("transferred {flow} with {answer}")
}

/// Backs up `flow` as a task that works, asks again, then finishes. Idempotent.
#[tool(task, idempotent)]
pub async fn backup(
    flow: String,
    #[resolve(elicit = "Back up {flow} where?")] answer: String,
    task: TaskContext,
) -> Result<String, Error> {
    work().await;
    let second = ask_again(&task, &flow).await?;
    work().await;
    effect(&flow, &[(&format!("a-{flow}"), &answer), (&format!("t-{flow}"), &second)]);
    Ok(format!("backed up {flow} with {answer} and {second}"))
}

/// Charges for `flow` as a task that works, asks again, then charges: not idempotent (a task
/// tool's states are single-use).
#[tool(task)]
pub async fn charge(
    flow: String,
    #[resolve(elicit = "Charge for {flow}?")] answer: String,
    task: TaskContext,
) -> Result<String, Error> {
    work().await;
    let second = ask_again(&task, &flow).await?;
    effect(&flow, &[(&format!("a-{flow}"), &answer), (&format!("t-{flow}"), &second)]);
    // The work after the side effect: a replica that dies here leaves a task whose effect
    // happened but whose result was never recorded.
    tokio::time::sleep(Duration::from_millis(current().range(0..200))).await;
    Ok(format!("charged {flow} with {answer} and {second}"))
}

/// The tool's name, whether it is idempotent, and the result a flow of it returns.
pub const TOOLS: [(&str, bool); 4] = [("provision", true), ("transfer", false), ("backup", true), ("charge", false)];

/// The result the body of `flow` of `tool` returns.
pub fn expected(tool: &str, flow: &str) -> String {
    match tool {
        "provision" => format!("provisioned {flow} with a-{flow}"),
        "transfer" => format!("transferred {flow} with a-{flow}"),
        "backup" => format!("backed up {flow} with a-{flow} and t-{flow}"),
        _ => format!("charged {flow} with a-{flow} and t-{flow}"),
    }
}
