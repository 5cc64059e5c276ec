//! Interceptors (`Server::intercept`): every request and its outcome, on every transport (in
//! memory, stdio, HTTP), with a multi-round flow seen as one flow, round by round; a refusal
//! is the client's answer; annotations reach later interceptors and the handler.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::{Arc, Mutex};

use roundtrip::client::{Client, ClientError};
use roundtrip::prelude::*;
use roundtrip::protocol::{ElicitResult, ErrorObject};
use roundtrip::server::{Call, Interceptor};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

/// Greet the user: asks their name, then (knowing it) their age.
#[tool]
async fn wizard(
    #[resolve(elicit = "Your name?")] name: String,
    #[resolve(elicit = "How old are you, {name}?")] age: u32,
) -> String {
    format!("{name} is {age}")
}

/// The tenant an interceptor attached, as the handler reads it.
#[tool(read_only)]
async fn whoami(cx: &RequestContext) -> String {
    cx.extension::<Tenant>().map_or_else(|| "no tenant".to_owned(), |t| t.0.clone())
}

#[derive(Clone)]
struct Tenant(String);

/// Fails as badly as a tool can.
#[tool]
async fn explode() -> String {
    panic!("the tool exploded")
}

/// What an interceptor saw of one request, in `after`.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    method: String,
    target: Option<String>,
    flow: Option<u128>,
    round: u16,
    asked: bool,
    error: Option<i64>,
    /// What `before` saw as the round (`None`: `before` did not run).
    round_before: Option<u16>,
}

#[derive(Clone)]
struct RoundBefore(u16);

/// Records every request; refuses a `wizard` leg at `refuse_round`, with its own error.
#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<Seen>>,
    refuse_round: Option<u16>,
}

impl Interceptor for Recorder {
    async fn before(&self, call: &mut Call) -> Result<(), ErrorObject> {
        call.annotate(RoundBefore(call.round()));
        if call.target() == Some("wizard") && Some(call.round()) == self.refuse_round {
            return Err(ErrorObject::new(-32042, "the wizard may not go on").with_data(json!({"round": call.round()})));
        }
        Ok(())
    }

    fn after(&self, call: &Call) {
        self.seen.lock().unwrap().push(Seen {
            method: call.method().to_owned(),
            target: call.target().map(str::to_owned),
            flow: call.flow(),
            round: call.round(),
            asked: call.asked(),
            error: call.error().map(|e| e.code),
            round_before: call.annotation::<RoundBefore>().map(|r| r.0),
        });
    }
}

/// Attaches the tenant named by the caller's `_meta` … here, always `acme`.
struct Tenancy;

impl Interceptor for Tenancy {
    async fn before(&self, call: &mut Call) -> Result<(), ErrorObject> {
        call.annotate(Tenant("acme".into()));
        Ok(())
    }
}

fn server(recorder: &Arc<Recorder>) -> Server {
    Server::new("intercepted", "1.0.0").tools(tools![wizard, whoami, explode]).intercept(Shared(Arc::clone(recorder)))
}

/// An interceptor the test keeps a handle on.
struct Shared(Arc<Recorder>);

impl Interceptor for Shared {
    async fn before(&self, call: &mut Call) -> Result<(), ErrorObject> {
        self.0.before(call).await
    }

    fn after(&self, call: &Call) {
        self.0.after(call);
    }
}

fn answering() -> roundtrip::client::ClientBuilder {
    Client::builder("interceptor-test", "1.0.0").on_elicit(|params| async move {
        let content =
            if params.message().starts_with("Your name") { json!({"name": "Ada"}) } else { json!({"age": 36}) };
        Ok(ElicitResult::accept(content.as_object().unwrap().clone()))
    })
}

/// The three legs of one `wizard` flow, as the recorder saw them.
fn check_one_flow(seen: &[Seen]) {
    let legs: Vec<&Seen> = seen.iter().filter(|s| s.target.as_deref() == Some("wizard")).collect();
    assert_eq!(legs.len(), 3, "{seen:#?}");
    let rounds: Vec<(u16, Option<u16>, bool, Option<i64>)> =
        legs.iter().map(|s| (s.round, s.round_before, s.asked, s.error)).collect();
    assert_eq!(rounds, vec![(0, Some(0), true, None), (1, Some(1), true, None), (2, Some(2), false, None)]);
    let flow = legs[0].flow.expect("a leg has a flow");
    assert!(legs.iter().all(|s| s.flow == Some(flow) && s.method == "tools/call"), "one flow: {legs:#?}");
    // Requests of other methods are seen too, with no flow.
    let other = seen.iter().find(|s| s.method == "server/discover" || s.method == "initialize");
    assert!(other.is_some_and(|s| s.flow.is_none() && s.round_before == Some(0)), "{seen:#?}");
}

#[tokio::test]
async fn in_memory_a_wizard_is_one_flow_of_rounds_0_1_2() {
    let recorder = Arc::new(Recorder::default());
    let client = answering().connect_in_memory(server(&recorder)).await.unwrap();
    assert_eq!(client.call_tool("wizard", json!({})).await.unwrap().content[0].as_text(), Some("Ada is 36"));
    check_one_flow(&recorder.seen.lock().unwrap());
    // A second flow is another flow.
    client.call_tool("wizard", json!({})).await.unwrap();
    let seen = recorder.seen.lock().unwrap();
    let flows: std::collections::HashSet<u128> = seen.iter().filter_map(|s| s.flow).collect();
    assert_eq!(flows.len(), 2, "two flows: {seen:#?}");
}

#[tokio::test]
async fn over_http_a_wizard_is_one_flow_of_rounds_0_1_2() {
    let recorder = Arc::new(Recorder::default());
    let http = server(&recorder).bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    let client = answering().connect_http(&url).await.unwrap();
    assert_eq!(client.call_tool("wizard", json!({})).await.unwrap().content[0].as_text(), Some("Ada is 36"));
    check_one_flow(&recorder.seen.lock().unwrap());
}

#[tokio::test]
async fn over_stdio_a_wizard_is_one_flow_of_rounds_0_1_2() {
    let recorder = Arc::new(Recorder::default());
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (reader, writer) = tokio::io::split(server_end);
    tokio::spawn(roundtrip::transport::serve_connection(server(&recorder), reader, writer));
    let (reader, mut writer) = tokio::io::split(client_end);
    let mut lines = BufReader::new(reader).lines();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let mut send = async |id: u64, method: &str, params: Value| -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        writer.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        reply["result"].clone()
    };
    send(1, "server/discover", json!({"_meta": meta})).await;
    let mut params = json!({"name": "wizard", "arguments": {}, "_meta": meta});
    let mut answers = vec![json!({"name": "Ada"}), json!({"age": 36})].into_iter();
    for id in 2.. {
        let result = send(id, "tools/call", params.clone()).await;
        if result["resultType"] != "input_required" {
            assert_eq!(result["content"][0]["text"], "Ada is 36");
            break;
        }
        let (key, _) = result["inputRequests"].as_object().unwrap().iter().next().unwrap();
        let answer = json!({ key.clone(): {"action": "accept", "content": answers.next().unwrap()} });
        params["inputResponses"] = answer;
        params["requestState"] = result["requestState"].clone();
    }
    check_one_flow(&recorder.seen.lock().unwrap());
}

#[tokio::test]
async fn a_refusal_is_the_answer_the_client_gets_and_the_handler_does_not_run() {
    let recorder = Arc::new(Recorder { refuse_round: Some(1), ..Recorder::default() });
    let client = answering().connect_in_memory(server(&recorder)).await.unwrap();
    let refused = client.call_tool("wizard", json!({})).await.unwrap_err();
    let ClientError::Rpc(error) = refused else { panic!("{refused:?}") };
    assert_eq!((error.code, error.message.as_str()), (-32042, "the wizard may not go on"));
    assert_eq!(error.data, Some(json!({"round": 1})));
    let seen = recorder.seen.lock().unwrap();
    let legs: Vec<(u16, bool, Option<i64>)> =
        seen.iter().filter(|s| s.target.as_deref() == Some("wizard")).map(|s| (s.round, s.asked, s.error)).collect();
    assert_eq!(legs, vec![(0, true, None), (1, false, Some(-32042))]);
}

#[tokio::test]
async fn a_refused_request_of_another_method_gets_the_error_too() {
    struct NoLists;
    impl Interceptor for NoLists {
        async fn before(&self, call: &mut Call) -> Result<(), ErrorObject> {
            match call.method() {
                "tools/list" => Err(ErrorObject::new(-32043, "lists are closed")),
                _ => Ok(()),
            }
        }
    }
    let server = Server::new("closed", "1.0.0").tools(tools![wizard]).intercept(NoLists);
    let client = answering().connect_in_memory(server).await.unwrap();
    let refused = client.list_tools().await.unwrap_err();
    assert!(matches!(&refused, ClientError::Rpc(e) if e.code == -32043), "{refused:?}");
}

#[tokio::test]
async fn annotations_reach_later_interceptors_and_the_handler_in_order() {
    let recorder = Arc::new(Recorder::default());
    let server = server(&recorder).intercept(Tenancy);
    let client = answering().connect_in_memory(server.clone()).await.unwrap();
    let text = client.call_tool("whoami", json!({})).await.unwrap().content[0].as_text().map(str::to_owned);
    assert_eq!(text.as_deref(), Some("acme"));
    // Without the interceptor, the handler finds nothing.
    let plain = Server::new("plain", "1.0.0").tools(tools![whoami]);
    let client = answering().connect_in_memory(plain).await.unwrap();
    let text = client.call_tool("whoami", json!({})).await.unwrap().content[0].as_text().map(str::to_owned);
    assert_eq!(text.as_deref(), Some("no tenant"));
}

#[tokio::test]
async fn a_state_from_a_server_without_interceptors_starts_a_flow_past_round_0() {
    // A replica without interceptors seals no flow for its first leg's state until it asks;
    // the flow it mints is carried on from then: any replica sees the same flow.
    let recorder = Arc::new(Recorder::default());
    let key: Vec<u8> = (0u8..32).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
    let keys = roundtrip::seal::RequestStateSecurity::new().keys([key]);
    let plain = Server::new("intercepted", "1.0.0").tools(tools![wizard]).security(keys.clone()).unwrap();
    let watched = server(&recorder).security(keys).unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let mut params = json!({"name": "wizard", "arguments": {}, "_meta": meta});
    let answers = [json!({"name": "Ada"}), json!({"age": 36})];
    for (leg, server) in [&plain, &watched, &watched].into_iter().enumerate() {
        let inbound = roundtrip::server::Inbound::new(Arc::new(roundtrip::server::NullPeer));
        let request = roundtrip::protocol::Request::new(
            roundtrip::protocol::RequestId::Number(leg as i64),
            "tools/call",
            Some(params.clone()),
        );
        let response = server.handle(request, inbound).await.response.unwrap().into_response();
        let result = match response.body {
            roundtrip::protocol::ResponseBody::Result(v) => v,
            roundtrip::protocol::ResponseBody::Error(e) => panic!("{e:?}"),
        };
        if leg == 2 {
            assert_eq!(result["content"][0]["text"], "Ada is 36");
            break;
        }
        let (key, _) = result["inputRequests"].as_object().unwrap().iter().next().unwrap();
        params["inputResponses"] = json!({ key.clone(): {"action": "accept", "content": answers[leg]} });
        params["requestState"] = result["requestState"].clone();
    }
    let seen = recorder.seen.lock().unwrap();
    assert_eq!(seen.iter().map(|s| s.round).collect::<Vec<_>>(), vec![1, 2]);
    assert!(seen[0].flow.is_some() && seen[0].flow == seen[1].flow, "{seen:#?}");
}

#[tokio::test]
async fn a_legacy_session_runs_its_flow_in_one_request_seen_once() {
    let recorder = Arc::new(Recorder::default());
    let client = answering().mode(roundtrip::client::Mode::Legacy).connect_in_memory(server(&recorder)).await.unwrap();
    assert_eq!(client.call_tool("wizard", json!({})).await.unwrap().content[0].as_text(), Some("Ada is 36"));
    let seen = recorder.seen.lock().unwrap();
    let legs: Vec<&Seen> = seen.iter().filter(|s| s.target.as_deref() == Some("wizard")).collect();
    assert_eq!(legs.len(), 1, "{seen:#?}");
    assert_eq!((legs[0].round, legs[0].round_before, legs[0].flow, legs[0].asked), (0, Some(0), None, false));
    assert!(seen.iter().any(|s| s.method == "initialize"), "{seen:#?}");
}

#[tokio::test]
async fn a_handler_that_panics_is_seen_ending_in_an_internal_error() {
    let recorder = Arc::new(Recorder::default());
    let client = answering().connect_in_memory(server(&recorder)).await.unwrap();
    let failed = client.call_tool("explode", json!({})).await.unwrap_err();
    assert!(matches!(&failed, ClientError::Rpc(e) if e.code == -32603), "{failed:?}");
    let seen = recorder.seen.lock().unwrap();
    let explode = seen.iter().find(|s| s.target.as_deref() == Some("explode")).expect("seen");
    assert_eq!((explode.error, explode.round_before), (Some(-32603), Some(0)), "{seen:#?}");
}
