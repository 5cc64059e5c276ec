//! Declarations that reach the application's state: `State<T>` registered on the server
//! (checked when it starts), `#[toolset]` values, `with` fns that ask from data (choices,
//! multi-selects, defaults), how often they run, and the errors the protocol expects.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use roundtrip::client::{Client, ClientError, Step};
use roundtrip::prelude::*;
use roundtrip::protocol::{CreateMessageParams, InputRequest, JsonObject};
use roundtrip::testing::{Scripted, TestKit};
use serde_json::{Value, json};

/// The application: a list of hosts that may change between legs, and a lookup counter.
#[derive(Debug, Default)]
struct Fleet {
    hosts: Mutex<Vec<String>>,
    lookups: AtomicUsize,
}

impl Fleet {
    fn with_hosts(hosts: &[&str]) -> Arc<Self> {
        Arc::new(Self { hosts: Mutex::new(hosts.iter().map(|h| (*h).to_owned()).collect()), ..Self::default() })
    }

    fn hosts(&self) -> Vec<String> {
        self.hosts.lock().unwrap().clone()
    }
}

/// Drain one host (a free fn taking the state by type).
#[tool]
async fn drain(fleet: State<Fleet>, #[resolve(with = pick_host(fleet))] host: String) -> String {
    format!("Drained {host} of {}.", fleet.hosts().len())
}

async fn pick_host(fleet: State<Fleet>) -> Resolve<String> {
    fleet.lookups.fetch_add(1, Ordering::SeqCst);
    Resolve::Ask(Question::choice("Drain which host?", "host", fleet.hosts().into_iter().map(|h| (h.clone(), h))))
}

#[test]
fn a_missing_state_is_refused_when_the_server_starts() {
    let server = Server::new("fleet", "1").tools(tools![drain]);
    let err = server.check().unwrap_err();
    assert_eq!(err.name, "drain");
    assert!(err.to_string().contains("State<") && err.to_string().contains("Fleet"), "{err}");
    let served = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async { server.serve_connection_for_test().await });
    assert_eq!(served.unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    assert!(Server::new("fleet", "1").state(Fleet::with_hosts(&["a"])).tools(tools![drain]).check().is_ok());
}

trait ServeForTest {
    async fn serve_connection_for_test(self) -> std::io::Result<()>;
}

impl ServeForTest for Server {
    async fn serve_connection_for_test(self) -> std::io::Result<()> {
        let (reader, writer) = tokio::io::duplex(64);
        roundtrip::transport::serve_connection(self, reader, writer).await
    }
}

fn accept(key: &str, content: Value) -> JsonObject {
    let mut answers = JsonObject::new();
    answers.insert(key.into(), json!({"action": "accept", "content": content}));
    answers
}

async fn client(server: Server) -> Client {
    Client::builder("state-test", "1")
        .on_elicit(|_| async { Err(ClientError::Callback("driven by hand".into())) })
        .connect_in_memory(server)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_changed_option_set_asks_again_and_an_answer_is_checked_against_the_current_options() {
    let fleet = Fleet::with_hosts(&["a", "b"]);
    let client = client(Server::new("fleet", "1").state(fleet.clone()).tools(tools![drain])).await;
    let Step::InputRequired(first) = client.call_tool_step("drain", json!({}), None, None).await.unwrap() else {
        panic!("asks first")
    };
    // Between the legs, host `b` is gone and `c` came: the answer `b` was given to a question
    // that is no longer the one the server would ask.
    *fleet.hosts.lock().unwrap() = vec!["a".into(), "c".into()];
    let again =
        client.call_tool_step("drain", json!({}), Some(accept("host", json!({"host": "b"}))), first.request_state);
    let Step::InputRequired(again) = again.await.unwrap() else { panic!("the changed question is asked again") };
    let InputRequest::Elicit(params) = &again.input_requests.as_ref().unwrap()["host"] else { panic!("a form") };
    let schema = serde_json::to_value(params).unwrap();
    assert_eq!(
        schema["requestedSchema"]["properties"]["host"]["oneOf"],
        json!([{"const": "a", "title": "a"}, {"const": "c", "title": "c"}])
    );
    let done =
        client.call_tool_step("drain", json!({}), Some(accept("host", json!({"host": "c"}))), again.request_state);
    let Step::Complete(done) = done.await.unwrap() else { panic!("completes") };
    assert_eq!(done.content[0].as_text(), Some("Drained c of 2."));
    // Asked on leg 1, re-asked on leg 2, answer checked on leg 3: never more than once a leg.
    assert_eq!(fleet.lookups.load(Ordering::SeqCst), 3);
}

/// The shared value of a toolset, with its own `with` method, check and resource.
#[derive(Debug, Default)]
struct Catalog {
    default_size: u32,
    lookups: AtomicUsize,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
struct Volume {
    /// Size in GiB.
    size: u32,
    /// Encrypt it.
    encrypted: bool,
}

#[toolset]
impl Catalog {
    async fn volume_form(&self, name: String) -> Resolve<Volume> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        Resolve::Ask(
            Question::elicit::<Volume>(format!("Volume for {name}?"), "volume")
                .with_default("size", self.default_size)
                .with_default("encrypted", true),
        )
    }

    async fn regions(&self) -> Resolve<Vec<String>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        Resolve::Ask(Question::multi_select("Which regions?", "regions", [("eu", "Europe"), ("us", "Americas")]))
    }

    async fn not_reserved(&self, name: String) -> Result<(), Error> {
        if name == "root" { Err(Error::invalid_params("`root` is reserved")) } else { Ok(()) }
    }

    /// Create a volume.
    #[tool(check = self.not_reserved(name))]
    async fn create(
        &self,
        name: String,
        #[resolve(with = self.volume_form(name))] volume: Volume,
        #[resolve(with = self.regions())] regions: Vec<String>,
    ) -> String {
        format!("{name}: {} GiB, encrypted {}, in {}", volume.size, volume.encrypted, regions.join("+"))
    }

    /// A secret that cannot be read.
    #[resource("catalog://secret")]
    async fn secret(&self) -> Result<String, Error> {
        Err(Error::internal("the vault at 10.0.0.7 refused: token expired"))
    }

    /// Reserve an entry: the application's own JSON-RPC error when it is taken.
    #[tool]
    async fn reserve(&self, id: String) -> Result<String, Error> {
        let taken = roundtrip::protocol::ErrorObject::new(-32050, "Entry taken").with_data(json!({"id": id}));
        Err(Error::jsonrpc(taken))
    }

    /// An entry of the catalog.
    #[resource_template("catalog://entries/{id}")]
    async fn entry(&self, id: String) -> Result<String, Error> {
        Err(Error::not_found(format!("no entry {id}")))
    }
}

#[tokio::test]
async fn forms_take_defaults_from_state_and_multi_selects_take_options_from_data() {
    let catalog = Arc::new(Catalog { default_size: 20, ..Catalog::default() });
    let server = Server::new("catalog", "1").toolset(catalog.clone());
    let flow = TestKit::new(server)
        .answer("volume", json!({"size": 50, "encrypted": false}))
        .answer("regions", json!({"regions": ["eu", "us"]}))
        .call_tool("create", json!({"name": "logs"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["regions", "volume"]]);
    let volume = serde_json::to_value(&flow.rounds[0]["volume"]).unwrap();
    assert_eq!(volume["params"]["requestedSchema"]["properties"]["size"]["default"], 20);
    assert_eq!(volume["params"]["requestedSchema"]["properties"]["encrypted"]["default"], true);
    let regions = serde_json::to_value(&flow.rounds[0]["regions"]).unwrap();
    assert_eq!(
        regions["params"]["requestedSchema"]["properties"]["regions"]["items"]["anyOf"],
        json!([{"const": "eu", "title": "Europe"}, {"const": "us", "title": "Americas"}])
    );
    assert_eq!(flow.text(), "logs: 50 GiB, encrypted false, in eu+us");
    // Each with fn ran on the asking leg and on the answering leg, and not again.
    assert_eq!(catalog.lookups.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_typed_error_chooses_what_the_client_sees() {
    let server = Server::new("catalog", "1").toolset(Arc::new(Catalog::default()));
    // A check's invalid_params is a JSON-RPC error, before any question.
    let err = TestKit::new(server.clone()).call_tool("create", json!({"name": "root"})).await.unwrap_err();
    assert!(err.rounds.is_empty());
    assert!(matches!(&err.error, ClientError::Rpc(e) if e.code == -32602 && e.message == "`root` is reserved"));
    // An internal error hides its detail.
    let err = TestKit::new(server.clone()).read_resource("catalog://secret").await.unwrap_err();
    let ClientError::Rpc(e) = &err.error else { panic!("{err:?}") };
    assert_eq!((e.code, e.message.as_str()), (-32603, "Internal error"));
    assert!(!format!("{e:?}").contains("10.0.0.7"));
    // Not found is the protocol's Resource not found, era-correct: -32602 on 2026-07-28...
    let err = TestKit::new(server.clone()).read_resource("catalog://entries/9").await.unwrap_err();
    let ClientError::Rpc(e) = &err.error else { panic!("{err:?}") };
    assert_eq!(
        (e.code, e.message.as_str(), e.data.clone()),
        (-32602, "Resource not found", Some(json!({"uri": "catalog://entries/9"})))
    );
    // ... and -32002 on a 2025-era session.
    let legacy = Client::builder("legacy", "1")
        .mode(roundtrip::client::Mode::Legacy)
        .connect_in_memory(server.clone())
        .await
        .unwrap();
    let ClientError::Rpc(e) = legacy.read_resource("catalog://entries/9").await.unwrap_err() else { panic!() };
    assert_eq!((e.code, e.data), (-32002, Some(json!({"uri": "catalog://entries/9"}))));
    // Error::jsonrpc reaches the client whole, in both eras (a tool's too: not an isError result).
    let expected = (-32050, "Entry taken".to_owned(), Some(json!({"id": "7"})));
    let ClientError::Rpc(e) = legacy.call_tool("reserve", json!({"id": "7"})).await.unwrap_err() else { panic!() };
    assert_eq!((e.code, e.message, e.data), expected);
    let err = TestKit::new(server).call_tool("reserve", json!({"id": "7"})).await.unwrap_err();
    let ClientError::Rpc(e) = err.error else { panic!("{err:?}") };
    assert_eq!((e.code, e.message, e.data), expected);
}

#[tokio::test]
async fn a_hand_written_handler_fails_as_a_declared_one_does() {
    use roundtrip::protocol::{ErrorObject, Tool, empty_input_schema};
    use roundtrip::server::ToolDef;

    fn lookup(id: &str) -> Result<String, ErrorObject> {
        Err(ErrorObject::new(-32050, "Entry taken").with_data(json!({ "id": id })))
    }
    let server = Server::new("manual", "1")
        // `?` on an ErrorObject answers it as it is (not as an internal error).
        .tool(ToolDef::new(Tool::new("reserve", empty_input_schema()), |cx| async move {
            let id: String = cx.argument("id")?;
            Ok(Outcome::Complete(CallToolResult::text(lookup(&id)?)))
        }))
        // A refusal is the model's isError result, as a declared tool's is.
        .tool(ToolDef::new(
            Tool::new("refuse", empty_input_schema()),
            |_cx| async move { Err(Error::new("not today")) },
        ))
        // Any other error is internal, its detail logged only.
        .tool(ToolDef::new(Tool::new("parse", empty_input_schema()), |_cx| async move {
            let n: u32 = "twelve".parse()?;
            Ok(Outcome::Complete(CallToolResult::text(n.to_string())))
        }));
    let kit = TestKit::new(server);
    let err = kit.call_tool("reserve", json!({"id": "7"})).await.unwrap_err();
    let ClientError::Rpc(e) = err.error else { panic!("{err:?}") };
    assert_eq!((e.code, e.message.as_str(), e.data), (-32050, "Entry taken", Some(json!({"id": "7"}))));
    // A bad argument is -32602 naming it.
    let err = kit.call_tool("reserve", json!({"id": 7})).await.unwrap_err();
    let ClientError::Rpc(e) = err.error else { panic!("{err:?}") };
    assert!(e.code == -32602 && e.message.contains("`id`"), "{e:?}");
    let flow = kit.call_tool("refuse", json!({})).await.unwrap();
    assert_eq!((flow.result.is_error, flow.text()), (Some(true), "not today".to_owned()));
    let err = kit.call_tool("parse", json!({})).await.unwrap_err();
    let ClientError::Rpc(e) = err.error else { panic!("{err:?}") };
    assert_eq!((e.code, e.message.as_str()), (-32603, "Internal error"));
}

/// Summarize with options chosen at run time.
#[tool]
async fn brief(topic: String, #[resolve(with = brief_request(topic))] text: String) -> String {
    format!("Brief: {text}")
}

async fn brief_request(topic: String) -> Resolve<String> {
    Resolve::Ask(Question::sampling(
        CreateMessageParams::prompt(format!("Brief me on {topic}."), 100)
            .system_prompt("You are concise.")
            .temperature(0.1)
            .stop_sequences(["\n\n"]),
    ))
}

/// Summarize with every option of the attribute.
#[tool]
async fn digest(
    topic: String,
    #[resolve(
        sample = "Digest {topic}.",
        max_tokens = 50,
        system = "You are terse.",
        temperature = 0.5,
        stop = ["END"],
        model_hints = ["claude", "gpt"],
        cost_priority = 0.2,
        speed_priority = 0.3,
        intelligence_priority = 0.9,
        include_context = "thisServer"
    )]
    text: String,
) -> String {
    format!("Digest: {text}")
}

#[tokio::test]
async fn sampling_options_reach_the_wire_from_the_attribute_and_from_a_with_fn() {
    let server = Server::new("sampling", "1").tools(tools![brief, digest]);
    let kit = TestKit::new(server).script("text", Scripted::Sample("ok".into()));
    let flow = kit.call_tool("brief", json!({"topic": "rust"})).await.unwrap();
    let q = serde_json::to_value(&flow.rounds[0]["text"]).unwrap();
    assert_eq!(q["params"]["systemPrompt"], "You are concise.");
    assert_eq!(q["params"]["temperature"], 0.1);
    assert_eq!(q["params"]["stopSequences"], json!(["\n\n"]));
    assert_eq!(flow.text(), "Brief: ok");
    let flow = kit.call_tool("digest", json!({"topic": "rust"})).await.unwrap();
    let p = &serde_json::to_value(&flow.rounds[0]["text"]).unwrap()["params"];
    assert_eq!(p["systemPrompt"], "You are terse.");
    assert_eq!(p["temperature"], 0.5);
    assert_eq!(p["stopSequences"], json!(["END"]));
    assert_eq!(p["includeContext"], "thisServer");
    assert_eq!(
        p["modelPreferences"],
        json!({"hints": [{"name": "claude"}, {"name": "gpt"}], "costPriority": 0.2, "speedPriority": 0.3, "intelligencePriority": 0.9})
    );
    assert_eq!(flow.text(), "Digest: ok");
}

/// Asks forever: each answer is re-asked.
#[tool]
async fn stubborn(#[resolve(with = never_satisfied())] _x: String, cx: &RequestContext) -> String {
    cx.progress(1.0, None, None);
    String::new()
}

async fn never_satisfied() -> Resolve<String> {
    Resolve::Ask(Question::choice("Pick", "x", [("only", "Only")]))
}

#[tokio::test]
async fn the_round_cap_returns_what_was_recorded() {
    let server = Server::new("cap", "1").tools(tools![stubborn]);
    let err = TestKit::new(server).property("x", json!("other")).max_rounds(3).call_tool("stubborn", json!({})).await;
    let err = err.unwrap_err();
    assert_eq!(err, ClientError::TooManyRounds(3));
    assert_eq!(err.rounds.len(), 3, "every round asked, and was recorded");
    assert_eq!(err.notifications.len(), 3);
}

/// Greets in the language of the tool's caller: the `with` fn reads the request context.
#[tool]
async fn hello(cx: &RequestContext, #[resolve(with = caller_name(cx))] caller: String) -> String {
    format!("Hello, {caller}!")
}

async fn caller_name(cx: &RequestContext) -> Resolve<String> {
    Resolve::Value(format!("{} via {}", cx.target(), cx.method()))
}

#[tokio::test]
async fn a_with_fn_may_take_the_request_context() {
    let flow = TestKit::new(Server::new("ctx", "1").tools(tools![hello])).call_tool("hello", json!({})).await.unwrap();
    assert!(flow.rounds.is_empty());
    assert_eq!(flow.text(), "Hello, hello via tools/call!");
}
