//! The provision example's contract, flow by flow, through the testing kit.

#![allow(clippy::unwrap_used)] // a test fails loudly
use roundtrip::ServeHttp;
use roundtrip::testing::{Scripted as Answer, TestKit};
use roundtrip_examples::provision::server;
use serde_json::json;

fn kit() -> TestKit {
    TestKit::new(server())
}

#[tokio::test]
async fn provision_asks_the_region_in_one_round() {
    let flow =
        kit().property("region", json!("eu-west")).call_tool("provision", json!({"name": "orders"})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["region"]]);
    let question = serde_json::to_value(&flow.rounds[0]["region"]).unwrap();
    assert_eq!(question["params"]["message"], "Which region should orders live in?");
    assert_eq!(
        question["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]})
    );
    assert_eq!(flow.text(), "Provisioned 'orders' in eu-west.");
}

#[tokio::test]
async fn provision_declined_is_an_error_result() {
    let flow = kit().decline("region").call_tool("provision", json!({"name": "orders"})).await.unwrap();
    assert!(flow.is_error());
    assert!(flow.text().contains("`region`"), "{}", flow.text());
}

#[tokio::test]
async fn the_region_is_also_an_optional_argument() {
    let tools = server();
    let provision = tools.tool_defs().into_iter().find(|t| t.tool.name == "provision").unwrap();
    let schema = serde_json::to_value(&provision.tool.input_schema).unwrap();
    assert_eq!(schema["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["name", "region"]);
    assert_eq!(schema["properties"]["name"]["description"], "Name of the database.");
    assert_eq!(schema["properties"]["region"]["type"], "string");
    assert_eq!(schema["required"], json!(["name"]));
    assert!(provision.tool.description.as_deref().unwrap().starts_with("Provision a database. Asks which region"));
}

#[tokio::test]
async fn a_given_region_is_not_asked() {
    let flow = kit().call_tool("provision", json!({"name": "orders", "region": "eu-west-1"})).await.unwrap();
    assert!(flow.rounds.is_empty(), "{:?}", flow.questions());
    assert_eq!(flow.text(), "Provisioned 'orders' in eu-west-1.");
}

#[tokio::test]
async fn a_host_that_cannot_ask_passes_the_region_or_is_told_to() {
    let kit = kit().without_elicitation();
    let flow = kit.call_tool("provision", json!({"name": "orders", "region": "eu-west-1"})).await.unwrap();
    assert_eq!(flow.text(), "Provisioned 'orders' in eu-west-1.");
    let flow = kit.call_tool("provision", json!({"name": "orders"})).await.unwrap();
    assert!(flow.is_error());
    assert_eq!(
        flow.text(),
        "This client cannot be asked for `region`: it does not support elicitation. Pass `region` as an argument instead."
    );
    // An ill-typed region is the caller's mistake, said as an argument's is.
    let flow = kit.call_tool("provision", json!({"name": "orders", "region": 7})).await.unwrap();
    assert!(flow.is_error() && flow.text().starts_with("Invalid arguments for provision: `region`"), "{}", flow.text());
}

#[tokio::test]
async fn wizard_takes_exactly_two_rounds() {
    let flow =
        kit().property("name", json!("Ada")).property("age", json!(36)).call_tool("wizard", json!({})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["name"], vec!["age"]]);
    let second = serde_json::to_value(&flow.rounds[1]["age"]).unwrap();
    assert_eq!(second["params"]["message"], "How old are you, Ada?");
    assert_eq!(second["params"]["requestedSchema"]["properties"]["age"]["type"], "integer");
    assert_eq!(flow.text(), "Hello Ada, you are 36.");
}

#[tokio::test]
async fn confirm_delete_branches_on_every_answer() {
    let cases = [
        (Answer::Accept(json!({"confirm": true})), "Deleted /tmp/x."),
        (Answer::Accept(json!({"confirm": false})), "Kept /tmp/x."),
        (Answer::Decline, "Kept /tmp/x (declined)."),
        (Answer::Cancel, "Kept /tmp/x (cancelled)."),
    ];
    for (answer, expected) in cases {
        let flow =
            kit().script("confirm", answer).call_tool("confirm_delete", json!({"path": "/tmp/x"})).await.unwrap();
        assert_eq!(flow.text(), expected);
    }
}

#[tokio::test]
async fn slow_sum_parks_once_then_finishes() {
    let flow = kit().call_tool("slow_sum", json!({"n": 10})).await.unwrap();
    assert_eq!(flow.questions(), vec![Vec::<&str>::new()]);
    assert_eq!(flow.text(), "sum(1..10) = 55");
    // The largest bound does not wrap around.
    let flow = kit().call_tool("slow_sum", json!({"n": u64::MAX})).await.unwrap();
    assert_eq!(
        flow.text(),
        format!("sum(1..{}) = {}", u64::MAX, u128::from(u64::MAX) * (u128::from(u64::MAX) + 1) / 2)
    );
}

#[tokio::test]
async fn link_account_asks_a_url() {
    let flow = kit()
        .script("_consent", Answer::Accept(serde_json::Value::Null))
        .call_tool("link_account", json!({}))
        .await
        .unwrap();
    let question = serde_json::to_value(&flow.rounds[0]["_consent"]).unwrap();
    assert_eq!(question["params"]["mode"], "url");
    assert_eq!(question["params"]["url"], "https://accounts.example.com/link");
    assert_eq!(flow.text(), "Account linked.");
}

#[tokio::test]
async fn summarize_samples_once() {
    let flow = kit()
        .script("summary", Answer::Sample("It is short.".into()))
        .call_tool("summarize", json!({"text": "A long text."}))
        .await
        .unwrap();
    let question = serde_json::to_value(&flow.rounds[0]["summary"]).unwrap();
    assert_eq!(question["method"], "sampling/createMessage");
    assert_eq!(question["params"]["messages"][0]["content"]["text"], "Summarize in one sentence: A long text.");
    assert_eq!(question["params"]["maxTokens"], 200);
    assert_eq!(flow.text(), "Summary: It is short.");
}

#[tokio::test]
async fn workspace_lists_roots() {
    let flow = kit()
        .script("roots", Answer::Roots(vec!["file:///a".into(), "file:///b".into()]))
        .call_tool("workspace", json!({}))
        .await
        .unwrap();
    assert_eq!(flow.text(), "Roots: file:///a, file:///b");
}

#[tokio::test]
async fn tool_annotations_come_from_options() {
    let tools = server();
    let get = |n: &str| tools.tool_defs().into_iter().find(|t| t.tool.name == n).unwrap().tool.annotations.clone();
    assert_eq!(get("confirm_delete").unwrap().destructive_hint, Some(true));
    let sum = get("slow_sum").unwrap();
    assert_eq!((sum.read_only_hint, sum.idempotent_hint), (Some(true), Some(true)));
    // Provisioning is declarative: the same name in the same region twice is one database,
    // so a client may resend a leg that failed with 502/503 (the fleet test relies on it).
    assert_eq!(get("provision").unwrap().idempotent_hint, Some(true));
    assert!(get("link_account").is_none());
}

mod toolset {
    //! Methods of an impl block, sharing one value.

    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use roundtrip::prelude::*;
    use roundtrip::testing::TestKit;
    use serde_json::json;

    struct Inventory {
        shelves: AtomicU32,
    }

    #[toolset]
    impl Inventory {
        /// Add a shelf, after asking where.
        #[tool(name = "add_shelf")]
        async fn add(&self, #[resolve(elicit = "Which aisle?")] aisle: String) -> String {
            let n = self.shelves.fetch_add(1, Ordering::SeqCst) + 1;
            format!("{n} shelves; the new one is in {aisle}.")
        }

        /// Count shelves.
        #[tool(read_only)]
        async fn count(&self, cx: &RequestContext) -> String {
            format!("{} shelves ({})", self.shelves.load(Ordering::SeqCst), cx.target())
        }

        fn not_a_tool(&self) -> u32 {
            self.shelves.load(Ordering::SeqCst)
        }
    }

    #[tokio::test]
    async fn methods_share_the_value() {
        let inventory = Arc::new(Inventory { shelves: AtomicU32::new(0) });
        let server = Server::new("inventory", "1").tools(inventory.clone().tools());
        let kit = TestKit::new(server).property("aisle", json!("7"));
        assert_eq!(kit.call_tool("add_shelf", json!({})).await.unwrap().text(), "1 shelves; the new one is in 7.");
        assert_eq!(kit.call_tool("add_shelf", json!({})).await.unwrap().text(), "2 shelves; the new one is in 7.");
        assert_eq!(kit.call_tool("count", json!({})).await.unwrap().text(), "2 shelves (count)");
        assert_eq!(inventory.not_a_tool(), 2);
    }
}

#[tokio::test]
async fn greeting_asks_the_name() {
    let flow = kit().property("name", json!("Ada")).get_prompt("greeting", json!({})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["name"]]);
    assert_eq!(flow.result.messages.len(), 1);
    assert_eq!(flow.result.messages[0].content.as_text(), Some("Hello, Ada! Welcome aboard."));
}

#[tokio::test]
async fn notes_ask_the_passphrase() {
    let flow = kit().property("passphrase", json!("swordfish")).read_resource("notes://42").await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["passphrase"]]);
    let question = serde_json::to_value(&flow.rounds[0]["passphrase"]).unwrap();
    assert_eq!(question["params"]["message"], "Passphrase for note 42?");
    let contents = serde_json::to_value(&flow.result.contents).unwrap();
    assert_eq!(
        contents,
        json!([{"uri": "notes://42", "mimeType": "text/plain", "text": "Note 42: the eagle lands at dawn."}])
    );
}

#[tokio::test]
async fn prompts_and_templates_are_listed() {
    let server = server();
    let (prompts, templates) = (server.prompt_defs(), server.resource_template_defs());
    let greeting = &prompts[0].prompt;
    assert_eq!(greeting.name, "greeting");
    assert!(greeting.arguments.is_none(), "the name is asked, not an argument");
    let note = &templates[0].template;
    assert_eq!((note.uri_template.as_str(), note.name.as_str()), ("notes://{id}", "note"));
    assert_eq!(note.mime_type.as_deref(), Some("text/plain"));
}

#[tokio::test]
async fn template_variables_complete_through_their_completer() {
    let client = roundtrip::client::Client::builder("t", "1").connect_in_memory(server()).await.unwrap();
    let params =
        json!({"ref": {"type": "ref/resource", "uri": "notes://{id}"}, "argument": {"name": "id", "value": "4"}});
    let result = client.request("completion/complete", params.as_object().cloned().unwrap()).await.unwrap();
    assert_eq!(result["completion"], json!({"values": ["42", "420"], "total": 2, "hasMore": false}));
    let params = json!({"ref": {"type": "ref/prompt", "name": "greeting"}, "argument": {"name": "x", "value": ""}});
    let result = client.request("completion/complete", params.as_object().cloned().unwrap()).await.unwrap();
    assert_eq!(result["completion"]["values"], json!([]));
}

/// `backup`: the region is asked through multi-round trips, then the call becomes a task that
/// asks, mid-run, whether to overwrite; the Rust client answers both through its callback,
/// over HTTP, and gets the result as from a plain call.
#[tokio::test]
async fn backup_asks_first_then_runs_as_a_task_that_asks_while_running_over_http() {
    use roundtrip::client::Client;
    use roundtrip::protocol::{ElicitAction, ElicitResult};
    use std::sync::{Arc, Mutex};

    let http = server().bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::builder("backup-test", "1")
        .on_elicit(move |params| {
            seen.lock().unwrap().push(params.message().to_owned());
            let content = if params.message().starts_with("Which region") {
                json!({"region": "eu"})
            } else {
                json!({"overwrite": true})
            };
            async move { Ok(ElicitResult::new(ElicitAction::Accept, content.as_object().cloned())) }
        })
        .connect_http(&url)
        .await
        .unwrap();
    let result = client.call_tool("backup", json!({"database": "orders"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Backed up orders to backups/eu/orders.dump (overwritten)."));
    assert_eq!(
        *asked.lock().unwrap(),
        ["Which region should the backup of orders go to?", "backups/eu/orders.dump already exists. Overwrite it?"]
    );
    // The same call through the kit shows the task: its question and its progress.
    let flow = kit()
        .property("region", json!("us"))
        .property("overwrite", json!(false))
        .call_tool("backup", json!({"database": "logs"}))
        .await
        .unwrap();
    let task = flow.task.as_ref().expect("a task");
    assert_eq!(task.questions[0].keys().collect::<Vec<_>>(), ["overwrite"]);
    assert!(task.status_messages.iter().any(|m| m.starts_with("copying part")), "{:?}", task.status_messages);
    assert_eq!(flow.text(), "Backed up logs to backups/us/logs.dump.new (the existing backup was kept).");
}

#[tokio::test]
async fn databases_come_as_text_and_for_the_view() {
    let flow = kit().call_tool("databases", json!({})).await.unwrap();
    assert_eq!(flow.text(), "events (ap-south-1, 200 GB), orders (eu-west-1, 20 GB), users (us-east-1, 50 GB)");
    let databases = &flow.result.structured_content.as_ref().unwrap()["databases"];
    assert_eq!(databases[1], json!({"name": "orders", "region": "eu-west-1", "size_gb": 20}));
    let server = server();
    let tool = server.tool_defs().into_iter().find(|t| t.tool.name == "databases").unwrap();
    assert_eq!(tool.tool.meta.as_ref().unwrap()["ui"]["resourceUri"], "ui://provision/databases");
    assert!(server.check().is_ok(), "the view came with the tool");
}

#[tokio::test]
async fn the_view_is_html_with_the_sdk_inlined() {
    let flow = kit().read_resource("ui://provision/databases").await.unwrap();
    let contents = serde_json::to_value(&flow.result.contents[0]).unwrap();
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(contents["_meta"]["ui"], json!({"prefersBorder": true}));
    let html = contents["text"].as_str().unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("const McpExtApps = (function () {") && html.contains("App: "), "the SDK is inlined");
    assert!(!html.contains("@ext-apps: the SDK is inlined here"), "the marker is replaced");
}

#[tokio::test]
async fn drop_database_asks_first_and_keeps_it_unless_confirmed() {
    let kit = kit();
    let flow = kit.clone().decline("confirm").call_tool("drop_database", json!({"name": "orders"})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["confirm"]]);
    let question = serde_json::to_value(&flow.rounds[0]["confirm"]).unwrap();
    assert_eq!(question["params"]["message"], "Really drop the database orders? Its data is lost.");
    assert!(flow.text().starts_with("Kept orders. "), "{}", flow.text());

    let flow = kit.clone().property("confirm", json!(true)).call_tool("drop_database", json!({"name": "orders"})).await;
    let flow = flow.unwrap();
    assert_eq!(flow.text(), "Dropped orders. events (ap-south-1, 200 GB), users (us-east-1, 50 GB)");
    assert_eq!(flow.result.structured_content.as_ref().unwrap()["databases"].as_array().unwrap().len(), 2);

    // Checked before anything is asked.
    let flow = kit.call_tool("drop_database", json!({"name": "orders"})).await.unwrap();
    assert!(flow.rounds.is_empty() && flow.is_error());
    assert_eq!(flow.text(), "There is no database named 'orders'.");
}
