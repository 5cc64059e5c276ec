//! Servers mounted into one (`Server::mount`): each part's tools and prompts under its
//! namespace, its multi-round flows completed through the mounted name, its state served, its
//! task tools run as tasks under the mounted name; a name that is taken, a state type registered twice and a namespace that is not one are
//! refused before anything is mounted.

#![allow(clippy::unwrap_used)] // a test fails loudly

mod common;

use std::sync::Arc;

use common::{send_as as send, tool_names};
use roundtrip::prelude::*;
use roundtrip::server::Problem;
use serde_json::{Value, json};

/// Greet the user: asks their name.
#[tool]
async fn greet(#[resolve(elicit = "Your name?")] name: String) -> String {
    format!("Hello, {name}!")
}

struct Counter {
    value: u32,
}

/// How far the counter got.
#[tool(read_only)]
async fn count(counter: State<Counter>) -> String {
    counter.value.to_string()
}

/// A prompt of the part.
#[prompt]
async fn haiku() -> String {
    "Write a haiku.".to_owned()
}

/// Runs on after its call: a task.
#[tool(task)]
async fn crunch(n: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    format!("crunched {n}")
}

fn greeter() -> Server {
    Server::new("greeter", "1.0.0").tools(tools![greet]).prompts(prompts![haiku])
}

fn counter(value: u32) -> Server {
    Server::new("counter", "1.0.0").tools(tools![count]).state(Arc::new(Counter { value }))
}

/// Answer the one question of `asked` with `content`, on the next leg of tool `name`.
fn answered(name: &str, asked: &Value, content: Value) -> Value {
    let (key, _) = asked["inputRequests"].as_object().unwrap().iter().next().unwrap();
    json!({
        "name": name,
        "arguments": {},
        "inputResponses": { key.clone(): {"action": "accept", "content": content} },
        "requestState": asked["requestState"],
    })
}

#[tokio::test]
async fn each_part_is_served_under_its_namespace_with_its_flows_and_state() {
    let server =
        Server::new("gateway", "1.0.0").mount("people", greeter()).unwrap().mount("stats", counter(7)).unwrap();
    assert_eq!(tool_names(&server, None).await, ["people_greet", "stats_count"]);

    let asked = send(&server, None, "tools/call", json!({"name": "people_greet", "arguments": {}})).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
    let done = send(&server, None, "tools/call", answered("people_greet", &asked, json!({"name": "Ada"}))).await;
    assert_eq!(done.unwrap()["content"][0]["text"], "Hello, Ada!");

    let counted = send(&server, None, "tools/call", json!({"name": "stats_count", "arguments": {}})).await.unwrap();
    assert_eq!(counted["content"][0]["text"], "7", "the part's state is served");
    let got = send(&server, None, "prompts/get", json!({"name": "people_haiku"})).await.unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Write a haiku.");
    assert!(send(&server, None, "tools/call", json!({"name": "greet", "arguments": {}})).await.is_err());
}

#[test]
fn a_taken_name_a_state_twice_and_a_bad_namespace_are_refused() {
    let server = Server::new("gateway", "1.0.0").mount("people", greeter()).unwrap();
    let taken = server.clone().mount("people", greeter()).unwrap_err();
    assert_eq!((taken.kind, taken.name.as_str(), &taken.problem), ("tool", "people_greet", &Problem::Taken));
    assert!(taken.to_string().contains("mount the part under another namespace"), "{taken}");

    let twice = Server::new("gateway", "1.0.0").mount("a", counter(1)).unwrap().mount("b", counter(2)).unwrap_err();
    assert!(matches!(twice.problem, Problem::StateTwice { type_name } if type_name.ends_with("Counter")), "{twice}");

    for bad in ["has space", "dot.ted", &"x".repeat(65)] {
        let refused = Server::new("gateway", "1.0.0").mount(bad, greeter()).unwrap_err();
        assert_eq!(refused.problem, Problem::BadNamespace, "{bad:?}");
    }
    assert_eq!(server.tool_defs().len(), 1, "nothing was mounted by the refused calls");

    // An empty namespace keeps the part's names (and so clashes on them).
    let merged = Server::new("gateway", "1.0.0").mount("", greeter()).unwrap();
    assert_eq!(merged.tool_defs()[0].tool.name, "greet");
    assert_eq!(merged.mount("", greeter()).unwrap_err().problem, Problem::Taken);
}

#[tokio::test]
async fn a_mounted_task_tool_runs_as_a_task_under_its_mounted_name() {
    use roundtrip::client::{Client, Step};
    use roundtrip::protocol::TaskStatus;

    let part = Server::new("batch", "1.0.0").tools(tools![crunch]);
    let server = Server::new("gateway", "1.0.0").mount("batch", part).unwrap();
    let client = Client::builder("mount-test", "1").connect_in_memory(server).await.unwrap();
    let task = match client.call_tool_step("batch_crunch", json!({"n": 7}), None, None).await.unwrap() {
        Step::Task(task) => task,
        other => panic!("batch_crunch did not become a task: {other:?}"),
    };
    let mut done = None;
    for _ in 0..200 {
        let got = client.get_task(&task.task_id).await.unwrap().task;
        if got.task.status == TaskStatus::Completed {
            done = Some(got);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let done = done.expect("the task completed");
    assert_eq!(done.result.unwrap()["content"][0]["text"], "crunched 7");
}

#[test]
fn a_parts_skills_join_the_servers() {
    use roundtrip::skills::Skills;
    let skill = |name: &str| format!("---\nname: {name}\ndescription: Does {name}.\n---\nSteps.\n").into_bytes();
    let files = Server::new("files", "1.0.0").skills(Skills::from_files([("read/SKILL.md", skill("read"))]).unwrap());
    let issues = Server::new("issues", "1.0.0").skills(Skills::from_files([("open/SKILL.md", skill("open"))]).unwrap());
    let server =
        Server::new("gateway", "1.0.0").mount("files", files.clone()).unwrap().mount("issues", issues).unwrap();
    let names: Vec<&str> = server.skill_set().unwrap().names().collect();
    assert_eq!(names, ["open", "read"]);
    let twice = server.mount("again", files).unwrap_err();
    assert_eq!((twice.kind, twice.name.as_str()), ("skill file", "read/SKILL.md"));
    assert!(matches!(twice.problem, Problem::SkillsRefused { .. }), "{twice}");
}
