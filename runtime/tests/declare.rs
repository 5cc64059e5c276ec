//! Declared items: what reaches the wire from the signature.

#![allow(clippy::unwrap_used)] // a test fails loudly

use roundtrip::prelude::*;
use roundtrip::testing::TestKit;
use serde_json::json;

/// Open a resource after confirming.
#[tool]
async fn open(
    /// The resource.
    #[arg(rename = "resourceUri")]
    resource_uri: String,
    #[resolve(elicit = "Open {resource_uri}?")] ok: bool,
) -> String {
    format!("{resource_uri} {ok}")
}

/// Review a file.
#[prompt]
async fn review(#[arg(rename = "fileName")] file_name: String) -> String {
    format!("Review {file_name}")
}

#[tokio::test]
async fn renamed_arguments_use_their_wire_name_and_placeholders_their_rust_name() {
    let server = Server::new("declare", "1").tools(tools![open]).prompts(prompts![review]);
    let schema = serde_json::to_value(&server.tool_defs()[0].tool.input_schema).unwrap();
    assert_eq!(schema["properties"], json!({"resourceUri": {"type": "string", "description": "The resource."}}));
    assert_eq!(schema["required"], json!(["resourceUri"]));
    let prompt = serde_json::to_value(&server.prompt_defs()[0].prompt).unwrap();
    assert_eq!(prompt["arguments"][0]["name"], "fileName");
    let kit = TestKit::new(server).property("ok", json!(true));
    let flow = kit.call_tool("open", json!({"resourceUri": "file:///a"})).await.unwrap();
    let question = serde_json::to_value(&flow.rounds[0]["ok"]).unwrap();
    assert_eq!(question["params"]["message"], "Open file:///a?");
    assert_eq!(flow.text(), "file:///a true");
    let prompt = kit.get_prompt("review", json!({"fileName": "main.rs"})).await.unwrap();
    assert_eq!(prompt.result.messages[0].content.as_text(), Some("Review main.rs"));
}

mod roles {
    //! A parameter's role comes from its type: an alias of `State<T>` is registered state, a
    //! renamed context is the context, a user's own `State` is an argument.

    use std::sync::Arc;

    use roundtrip::prelude::*;
    use roundtrip::server::RequestContext as Cx;

    pub struct Pool {
        pub size: usize,
    }

    type Db = roundtrip::State<Pool>;

    /// The user's own type named `State`.
    #[derive(Deserialize, JsonSchema)]
    pub struct State {
        pub region: String,
    }

    #[tool]
    pub async fn relocate(state: State, db: Db, cx: &Cx) -> String {
        format!("{} {} {}", state.region, db.size, cx.target())
    }

    #[tool]
    pub async fn owned(db: Db, cx: Cx, #[resolve(with = twice(db))] twice: usize) -> String {
        format!("{} {} {twice}", db.size, cx.target())
    }

    async fn twice(db: Db) -> Resolve<usize> {
        Resolve::Value(db.size * 2)
    }

    /// A struct of the user's: an argument, which a check and a `with` fn take.
    #[derive(Deserialize, JsonSchema)]
    pub struct Target {
        pub host: String,
    }

    #[tool(check = reachable(target, db))]
    pub async fn plan(target: Target, db: Db, #[resolve(with = port_of(db, target))] port: u16) -> String {
        format!("{}:{port} of {}", target.host, db.size)
    }

    fn reachable(target: Target, db: Db) -> Result<(), String> {
        if target.host.is_empty() || db.size == 0 { Err("unreachable".into()) } else { Ok(()) }
    }

    async fn port_of(db: Db, target: Target) -> Resolve<u16> {
        Resolve::Value(u16::try_from(db.size).unwrap_or(0) + u16::try_from(target.host.len()).unwrap_or(0))
    }

    #[resource("pools://size")]
    pub async fn size(db: Db) -> String {
        db.size.to_string()
    }

    pub fn server() -> Server {
        Server::new("roles", "1")
            .state(Arc::new(Pool { size: 4 }))
            .tools(tools![relocate, owned, plan])
            .resources(resources![size])
    }
}

#[tokio::test]
async fn roles_come_from_types_not_names() {
    let server = roles::server();
    assert!(server.check().is_ok());
    let relocate = server.tool_defs().into_iter().find(|t| t.tool.name == "relocate").unwrap();
    let schema = serde_json::to_value(&relocate.tool.input_schema).unwrap();
    assert_eq!(schema["required"], json!(["state"]));
    assert_eq!(schema["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["state"]);
    let kit = TestKit::new(server);
    let flow = kit.call_tool("relocate", json!({"state": {"region": "eu"}})).await.unwrap();
    assert_eq!(flow.text(), "eu 4 relocate");
    let flow = kit.call_tool("owned", json!({})).await.unwrap();
    assert_eq!(flow.text(), "4 owned 8");
    let flow = kit.call_tool("plan", json!({"target": {"host": "db1"}})).await.unwrap();
    assert_eq!(flow.text(), "db1:7 of 4");
    let flow = kit.call_tool("plan", json!({"target": {"host": ""}})).await.unwrap();
    assert!(flow.is_error(), "the check refuses: {}", flow.text());
    let flow = kit.read_resource("pools://size").await.unwrap();
    assert_eq!(flow.text(), "4");
}
