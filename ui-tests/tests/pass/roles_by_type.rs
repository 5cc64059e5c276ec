//! A parameter's role comes from its type, not from its name: an alias of `State<T>` is
//! registered state, a renamed `RequestContext` or `TaskContext` is the context, and a user's
//! own type named `State` is an argument, in the input schema.
use std::sync::Arc;

use roundtrip::prelude::*;
use roundtrip::server::RequestContext as Cx;
use roundtrip::task::TaskContext as Job;

struct Pool {
    size: usize,
}

type Db = roundtrip::State<Pool>;

/// The user's own `State`: the tool's argument.
#[derive(Deserialize, JsonSchema)]
struct State {
    /// Where it is.
    region: String,
}

/// Count the connections.
#[tool]
async fn connections(db: Db, cx: &Cx) -> String {
    format!("{} for {}", db.size, cx.target())
}

/// Move to the state given.
#[tool]
async fn relocate(state: State, db: Db) -> String {
    format!("{} with {}", state.region, db.size)
}

/// A context taken by value under another name, with the state after it.
#[tool]
async fn owned(cx: Cx, db: Db, count: u32) -> String {
    format!("{} {} {count}", cx.target(), db.size)
}

/// A renamed task context.
#[tool(task)]
async fn backup(job: Job, db: Db) -> String {
    format!("{:?} {}", job.task_id(), db.size)
}

/// An alias in a question's `with` fn, and the state given to a check.
#[tool(check = small(db))]
async fn ask(db: Db, #[resolve(with = pick(db))] choice: String) -> String {
    choice
}

async fn pick(db: roundtrip::State<Pool>) -> Resolve<String> {
    Resolve::Value(db.size.to_string())
}

fn small(db: Db) -> Result<(), String> {
    if db.size < 100 { Ok(()) } else { Err("too big".into()) }
}

#[prompt]
async fn review(file: String, db: Db) -> String {
    format!("{file} {}", db.size)
}

#[resource_template("pools://{name}")]
async fn pool(name: String, db: Db) -> String {
    format!("{name} {}", db.size)
}

#[resource("pools://all")]
async fn pools(db: Db, _cx: Cx) -> String {
    db.size.to_string()
}

fn main() {
    let server = Server::new("s", "1")
        .state(Arc::new(Pool { size: 4 }))
        .tools(tools![connections, relocate, owned, backup, ask])
        .prompts(prompts![review])
        .resources(resources![pool, pools]);
    assert!(server.check().is_ok());
    let schema = |name: &str| {
        let def = server.tool_defs().into_iter().find(|t| t.tool.name == name).expect("the tool");
        roundtrip::__private::serde_json::to_value(&def.tool.input_schema).expect("a schema")
    };
    // Neither the state nor the context is an argument.
    assert_eq!(schema("connections")["properties"], roundtrip::__private::serde_json::json!({}));
    assert_eq!(schema("owned")["required"], roundtrip::__private::serde_json::json!(["count"]));
    // The user's `State` is.
    let relocate = schema("relocate");
    assert_eq!(relocate["required"], roundtrip::__private::serde_json::json!(["state"]));
    assert_eq!(relocate["properties"]["state"]["properties"]["region"]["type"], "string");
    assert_eq!(relocate["properties"].as_object().map(|o| o.len()), Some(1));
}
