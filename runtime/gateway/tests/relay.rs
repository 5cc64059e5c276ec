//! The gateway's relays, in one process: a roundtrip server upstream (in memory), spoken to
//! at 2026-07-28 or, pinned to the 2025 handshake, as a 2025-era server that asks inside the
//! call; callers with identities of their own.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use roundtrip::client::{Client, Mode};
use roundtrip::prelude::*;
use roundtrip::protocol::{ElicitResult, ErrorObject, Request, RequestId, ResponseBody};
use roundtrip::seal::{Codec, RequestStateSecurity};
use roundtrip::server::{Inbound, NullPeer};
use roundtrip_gateway::{HoldLimits, Proxy, Upstream};
use serde_json::{Value, json};

/// Two rounds: the second question needs the first answer.
#[tool]
async fn two_rounds(
    #[resolve(elicit = "Your story?")] story: String,
    #[resolve(elicit = "Sign it, {story}?")] sign: bool,
) -> String {
    format!("{} bytes, signed {sign}", story.len())
}

/// A codec that keeps every token it seals, so a test can look for them where they must not
/// be.
#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Vec<String>>>);

impl Codec for Recording {
    fn seal(&self, bytes: &[u8]) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
        let token = format!("up.{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
        self.0.lock().unwrap().push(token.clone());
        Ok(token)
    }
    fn unseal(&self, token: &str) -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
        let hex = token.strip_prefix("up.").ok_or("not ours")?;
        (0..hex.len()).step_by(2).map(|i| Ok(u8::from_str_radix(hex.get(i..i + 2).ok_or("odd")?, 16)?)).collect()
    }
}

fn upstream(tokens: &Recording) -> Server {
    Server::new("stories", "1.0.0")
        .tools(tools![two_rounds])
        .security(RequestStateSecurity::new().codec(tokens.clone()))
        .unwrap()
}

async fn gateway(upstream: Upstream) -> Server {
    Proxy::connect(upstream).await.unwrap().mount(Server::new("gateway", "1.0.0"), "stories").unwrap()
}

/// One 2026-07-28 request to `server` by the caller `who`.
async fn send(server: &Server, who: &str, method: &str, mut params: Value) -> Result<Value, ErrorObject> {
    let mut inbound = Inbound::new(Arc::new(NullPeer));
    inbound.auth = Some(Arc::new(roundtrip::auth::AuthPrincipal::new(who)));
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let reply = server.handle(Request::new(RequestId::Number(1), method, Some(params)), inbound).await;
    match reply.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(v)) => Ok(v),
        Some(ResponseBody::Error(e)) => Err(e),
        None => panic!("no response"),
    }
}

fn leg(name: &str, answers: Value, state: Option<&Value>) -> Value {
    let mut params = json!({"name": name, "arguments": {}, "inputResponses": answers});
    if let Some(state) = state {
        params["requestState"] = state.clone();
    }
    params
}

fn accept(field: &str, value: Value) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

#[tokio::test]
async fn a_2026_upstreams_rounds_reach_the_caller_and_its_state_never_does() {
    let tokens = Recording::default();
    let gateway = gateway(Upstream::in_memory(upstream(&tokens))).await;
    let mut wire = Vec::new();

    let first = send(&gateway, "alice", "tools/call", leg("stories_two_rounds", json!({}), None)).await.unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"]["story"]["params"]["message"], "Your story?");
    wire.push(first.to_string());
    let answers = json!({"story": accept("story", json!("once"))});
    let second =
        send(&gateway, "alice", "tools/call", leg("stories_two_rounds", answers.clone(), Some(&first["requestState"])));
    let second = second.await.unwrap();
    assert_eq!(second["inputRequests"]["sign"]["params"]["message"], "Sign it, once?", "{second}");
    wire.push(second.to_string());

    // Bob replaying Alice's leg, and a tampered state, are refused as any sealed state is.
    let replayed =
        send(&gateway, "bob", "tools/call", leg("stories_two_rounds", answers, Some(&first["requestState"])));
    assert_eq!(replayed.await.unwrap_err(), ErrorObject::invalid_request_state());
    let mut tampered = second["requestState"].as_str().unwrap().to_owned();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    let answers = json!({"sign": accept("sign", json!(true))});
    let forged =
        send(&gateway, "alice", "tools/call", leg("stories_two_rounds", answers.clone(), Some(&json!(tampered))));
    assert_eq!(forged.await.unwrap_err(), ErrorObject::invalid_request_state());

    let done = send(&gateway, "alice", "tools/call", leg("stories_two_rounds", answers, Some(&second["requestState"])));
    let done = done.await.unwrap();
    assert_eq!(done["content"][0]["text"], "4 bytes, signed true", "{done}");
    wire.push(done.to_string());

    // The upstream sealed a state for each of its two rounds; none reached the caller.
    let sealed = tokens.0.lock().unwrap().clone();
    assert!(sealed.len() >= 2, "{sealed:?}");
    for token in &sealed {
        assert!(wire.iter().all(|message| !message.contains(token.as_str())), "the upstream's state {token} leaked");
    }
}

#[tokio::test]
async fn a_2025_era_caller_completes_a_2026_upstreams_rounds_inside_its_call() {
    let gateway = gateway(Upstream::in_memory(upstream(&Recording::default()))).await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::builder("legacy", "1")
        .mode(Mode::Legacy)
        .on_elicit(move |params| {
            let message = serde_json::to_value(&params).unwrap()["message"].as_str().unwrap().to_owned();
            seen.lock().unwrap().push(message.clone());
            let content = if message == "Your story?" { json!({"story": "abc"}) } else { json!({"sign": false}) };
            async move { Ok(ElicitResult::accept(content.as_object().cloned().unwrap())) }
        })
        .connect_in_memory(gateway)
        .await
        .unwrap();
    assert!(!client.protocol_version().is_modern());
    let result = client.call_tool("stories_two_rounds", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("3 bytes, signed false"));
    assert_eq!(*asked.lock().unwrap(), ["Your story?", "Sign it, abc?"]);
}

/// A roundtrip server spoken to with the 2025 handshake asks inside the call, as a 2025-era
/// server does.
fn legacy(limits: HoldLimits) -> Upstream {
    Upstream::in_memory(upstream(&Recording::default())).mode(Mode::Legacy).hold_limits(limits)
}

#[tokio::test]
async fn a_2025_upstreams_in_call_questions_reach_a_2026_caller_as_rounds() {
    let gateway = gateway(legacy(HoldLimits::default())).await;
    let first = send(&gateway, "alice", "tools/call", leg("stories_two_rounds", json!({}), None)).await.unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"]["upstream"]["params"]["message"], "Your story?", "{first}");
    let answers = json!({"upstream": accept("story", json!("twelve bytes"))});
    let state = &first["requestState"];
    // Bob cannot answer Alice's held call.
    let bobs = send(&gateway, "bob", "tools/call", leg("stories_two_rounds", answers.clone(), Some(state))).await;
    assert_eq!(bobs.unwrap_err(), ErrorObject::invalid_request_state());
    let second = send(&gateway, "alice", "tools/call", leg("stories_two_rounds", answers, Some(state))).await.unwrap();
    assert_eq!(second["inputRequests"]["upstream"]["params"]["message"], "Sign it, twelve bytes?", "{second}");
    let answers = json!({"upstream": accept("sign", json!(true))});
    let done = send(
        &gateway,
        "alice",
        "tools/call",
        leg("stories_two_rounds", answers.clone(), Some(&second["requestState"])),
    );
    assert_eq!(done.await.unwrap()["content"][0]["text"], "12 bytes, signed true");
    // A held call is answered once: its state is spent.
    let again =
        send(&gateway, "alice", "tools/call", leg("stories_two_rounds", answers, Some(&second["requestState"])));
    assert_eq!(again.await.unwrap_err(), ErrorObject::invalid_request_state());
}

#[tokio::test]
async fn one_caller_cannot_hold_every_call_and_a_held_call_expires() {
    let mut limits = HoldLimits::default();
    limits.max_held = 4;
    limits.max_held_per_caller = 2;
    limits.idle = Duration::from_millis(300);
    let gateway = gateway(legacy(limits)).await;
    let start = |who: &'static str| send(&gateway, who, "tools/call", leg("stories_two_rounds", json!({}), None));
    // Mallory holds her two; her third is refused, not queued.
    for _ in 0..2 {
        assert_eq!(start("mallory").await.unwrap()["resultType"], "input_required");
    }
    let refused = start("mallory").await.unwrap_err();
    assert!(refused.message.contains("try again later"), "{refused:?}");
    // Alice still gets hers.
    let alices = start("alice").await.unwrap();
    assert_eq!(alices["resultType"], "input_required");
    // After the idle time the held call is gone: its next leg is refused, and Mallory may
    // start again.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let answers = json!({"upstream": accept("story", json!("late"))});
    let late = send(&gateway, "alice", "tools/call", leg("stories_two_rounds", answers, Some(&alices["requestState"])));
    assert_eq!(late.await.unwrap_err(), ErrorObject::invalid_request_state());
    assert_eq!(start("mallory").await.unwrap()["resultType"], "input_required");
}

#[tokio::test]
async fn an_upstreams_list_change_reaches_the_gateways_list() {
    /// Added while serving.
    #[tool(read_only)]
    async fn later() -> &'static str {
        "later"
    }
    let upstream = upstream(&Recording::default());
    let gateway = gateway(Upstream::in_memory(upstream.clone())).await;
    let names = |server: &Server| {
        let mut names = server.tool_defs().into_iter().map(|d| d.tool.name).collect::<Vec<_>>();
        names.sort();
        names
    };
    assert_eq!(names(&gateway), ["stories_two_rounds"]);
    // The gateway's subscriptions/listen is open before the change.
    tokio::time::sleep(Duration::from_millis(200)).await;
    upstream.add_tools(tools![later]).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while names(&gateway).len() < 2 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(names(&gateway), ["stories_later", "stories_two_rounds"]);
    let called =
        send(&gateway, "alice", "tools/call", json!({"name": "stories_later", "arguments": {}})).await.unwrap();
    assert_eq!(called["content"][0]["text"], "later");
    assert!(upstream.remove_tool("later"));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while names(&gateway).len() > 1 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(names(&gateway), ["stories_two_rounds"]);
}

/// Reports progress and a log line, and says which of sampling and the tasks extension the
/// caller declared.
fn chatty() -> roundtrip::server::ToolDef {
    use roundtrip::protocol::{CallToolResult, LoggingLevel, Tool, empty_input_schema};
    roundtrip::server::ToolDef::new(Tool::new("chatty", empty_input_schema()), |cx| async move {
        cx.progress(1.0, Some(2.0), Some("half way"));
        cx.log(LoggingLevel::Warning, Some("upstream"), json!("careful"));
        let caps = cx.client_capabilities();
        let said = format!("sampling {}, tasks {}", caps.sampling.is_some(), cx.accepts_tasks());
        Ok(roundtrip::server::Outcome::Complete(CallToolResult::text(said)))
    })
}

#[tokio::test]
async fn the_callers_capabilities_progress_and_logs_cross_the_gateway() {
    use roundtrip::protocol::{CreateMessageResult, LoggingLevel, Notification};
    for upstream_mode in [Mode::Auto, Mode::Legacy] {
        let upstream = Upstream::in_memory(Server::new("chatty", "1.0.0").tool(chatty())).mode(upstream_mode);
        let gateway = Proxy::connect(upstream).await.unwrap().mount(Server::new("gateway", "1.0.0"), "up").unwrap();
        let heard: Arc<Mutex<Vec<Notification>>> = Arc::default();
        let hear = heard.clone();
        let bare = Client::builder("bare", "1")
            .progress_tokens(true)
            .log_level(LoggingLevel::Info)
            .on_notification(move |n| hear.lock().unwrap().push(n))
            .connect_in_memory(gateway.clone())
            .await
            .unwrap();
        let result = bare.call_tool("up_chatty", json!({})).await.unwrap();
        if upstream_mode == Mode::Auto {
            // A 2026 upstream sees the caller's own capabilities (this client declares the
            // tasks extension, the next one does not).
            assert_eq!(result.content[0].as_text(), Some("sampling false, tasks true"));
        }
        let heard = heard.lock().unwrap().clone();
        let progress = heard.iter().find(|n| n.method == "notifications/progress").expect("progress relayed");
        let params = progress.params.clone().unwrap();
        assert_eq!((params["progress"].as_f64(), params["message"].as_str()), (Some(1.0), Some("half way")));
        assert!(params["progressToken"].is_number(), "the caller's own token: {params}");
        let log = heard.iter().find(|n| n.method == "notifications/message").expect("log relayed");
        assert_eq!(log.params.as_ref().unwrap()["data"], "careful");

        let sampler = Client::builder("sampler", "1")
            .tasks(false)
            .on_sample(|_| async { Ok(CreateMessageResult::text("ok", "m")) })
            .connect_in_memory(gateway)
            .await
            .unwrap();
        let result = sampler.call_tool("up_chatty", json!({})).await.unwrap();
        if upstream_mode == Mode::Auto {
            assert_eq!(result.content[0].as_text(), Some("sampling true, tasks false"));
        }
    }
}

#[tokio::test]
async fn completions_of_a_relayed_prompt_are_the_upstreams() {
    use roundtrip::protocol::{GetPromptResult, Prompt, PromptArgument};
    use roundtrip::server::{Outcome, PromptDef};
    let prompt = Prompt::new("pick").with_arguments(vec![PromptArgument::new("fruit")]);
    let def = PromptDef::new(prompt, |_cx| async { Ok(Outcome::Complete(GetPromptResult::new(vec![]))) })
        .with_completer(|_argument, typed| {
            ["apple", "apricot", "banana"].into_iter().filter(|f| f.starts_with(typed)).map(String::from).collect()
        });
    let upstream = Server::new("fruit", "1.0.0").prompt(def);
    let gateway = gateway(Upstream::in_memory(upstream)).await;
    let params =
        json!({"ref": {"type": "ref/prompt", "name": "stories_pick"}, "argument": {"name": "fruit", "value": "ap"}});
    let done = send(&gateway, "alice", "completion/complete", params).await.unwrap();
    assert_eq!(done["completion"]["values"], json!(["apple", "apricot"]), "{done}");
}

/// Back up a database; asks before overwriting.
#[tool(task)]
async fn backup(database: String, task: TaskContext) -> Result<String, Error> {
    task.progress(0.5, Some(1.0), Some("copying"));
    let overwrite = task.ask_as::<bool>(Question::confirm("Overwrite yesterday's backup?", "overwrite")).await?;
    Ok(match overwrite {
        Answer::Accepted(true) => format!("Backed up {database} (overwritten)."),
        _ => format!("Backed up {database} beside yesterday's."),
    })
}

/// One 2026-07-28 request by `who` from a client that declares the tasks extension.
async fn send_tasks(server: &Server, who: &str, method: &str, mut params: Value) -> Value {
    let mut inbound = Inbound::new(Arc::new(NullPeer));
    inbound.auth = Some(Arc::new(roundtrip::auth::AuthPrincipal::new(who)));
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
    });
    let reply = server.handle(Request::new(RequestId::Number(1), method, Some(params)), inbound).await;
    match reply.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(v)) => v,
        other => panic!("no result: {other:?}"),
    }
}

/// `tasks/get` of `id` until its status is not `working`.
async fn settled(server: &Server, id: &str) -> Value {
    for _ in 0..500 {
        let got = send_tasks(server, "alice", "tasks/get", json!({"taskId": id})).await;
        if got["status"] != "working" {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} kept working");
}

#[tokio::test]
async fn an_upstreams_task_is_followed_by_a_task_of_the_gateways() {
    let upstream = Server::new("backups", "1.0.0").tools(tools![backup]);
    let gateway = Proxy::connect(Upstream::in_memory(upstream.clone()))
        .await
        .unwrap()
        .mount(Server::new("gateway", "1.0.0"), "up")
        .unwrap();
    let call = json!({"name": "up_backup", "arguments": {"database": "orders"}});
    let created = send_tasks(&gateway, "alice", "tools/call", call).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    // The gateway's own task: the upstream does not know its id.
    let unknown = send(&upstream, "alice", "tasks/get", json!({"taskId": id})).await;
    assert!(unknown.is_err(), "{unknown:?}");

    // The upstream's question is the gateway task's.
    let asking = settled(&gateway, &id).await;
    assert_eq!(asking["status"], "input_required", "{asking}");
    let (key, question) = asking["inputRequests"].as_object().unwrap().iter().next().unwrap();
    assert_eq!(question["params"]["message"], "Overwrite yesterday's backup?");
    let answer = json!({key.clone(): {"action": "accept", "content": {"overwrite": true}}});
    send_tasks(&gateway, "alice", "tasks/update", json!({"taskId": id, "inputResponses": answer})).await;
    let done = settled(&gateway, &id).await;
    let done = if done["status"] == "input_required" { settled(&gateway, &id).await } else { done };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Backed up orders (overwritten).");

    // A client that follows tasks does so through the gateway as with any server.
    let client = Client::builder("tasks", "1")
        .on_elicit(|_params| async {
            Ok(ElicitResult::accept(json!({"overwrite": false}).as_object().cloned().unwrap()))
        })
        .connect_in_memory(gateway)
        .await
        .unwrap();
    let result = client.call_tool("up_backup", json!({"database": "users"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Backed up users beside yesterday's."));
}

#[tokio::test]
async fn arguments_an_http_upstream_wants_as_headers_travel_as_headers() {
    use roundtrip::ServeHttp;
    use roundtrip::protocol::{CallToolResult, Tool};
    use roundtrip::server::{Outcome, ToolDef};
    // The upstream checks each `Mcp-Param-Region` header against the body (-32020 without).
    let schema = json!({
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        "required": ["region"],
    });
    let tool = Tool::new("query", schema.as_object().cloned().unwrap());
    let upstream = Server::new("headers", "1.0.0").tool(ToolDef::new(tool, |cx| async move {
        let region: String = cx.argument("region")?;
        Ok(Outcome::Complete(CallToolResult::text(format!("ran in {region}"))))
    }));
    let bound = upstream.bind_http("127.0.0.1:0").await.unwrap();
    let url = bound.url();
    tokio::spawn(bound.run());
    let gateway = gateway(Upstream::http(url)).await;
    // Several at once: each leg on a connection of its own, each of which must know the
    // declarations.
    let calls = (0..3).map(|n| {
        let gateway = gateway.clone();
        async move {
            let call = json!({"name": "stories_query", "arguments": {"region": format!("eu-{n}")}});
            send(&gateway, "alice", "tools/call", call).await
        }
    });
    for (n, done) in futures::future::join_all(calls).await.into_iter().enumerate() {
        assert_eq!(done.unwrap()["content"][0]["text"], format!("ran in eu-{n}"));
    }
}
