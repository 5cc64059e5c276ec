//! Test support: a fixture server with manual handlers, a line-protocol client over the
//! in-memory transport, and validation of every message the server emits against the
//! official JSON schema of its era.
#![allow(dead_code, clippy::unwrap_used)]

use roundtrip::ServeStream;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use roundtrip::Server;
use roundtrip::protocol::{
    CallToolResult, CreateMessageParams, GetPromptResult, JsonObject, PromptArgument, PromptMessage,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Tool, empty_input_schema,
};
use roundtrip::server::{InputRequired, Outcome, PromptDef, ResourceDef, ResourceTemplateDef, ToolDef};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

pub const MODERN: &str = "2026-07-28";

/// One 2026-07-28 request, straight to `server.handle`, by the caller of organization `org`
/// (its `org` claim; anonymous without one), from a client that answers form elicitations.
pub async fn send_as(
    server: &Server,
    org: Option<&str>,
    method: &str,
    mut params: Value,
) -> Result<Value, roundtrip::protocol::ErrorObject> {
    use roundtrip::protocol::{ErrorObject, Request, RequestId, ResponseBody};
    let mut inbound = roundtrip::server::Inbound::new(std::sync::Arc::new(roundtrip::server::NullPeer));
    inbound.auth = org.map(|org| {
        let mut caller = roundtrip::auth::AuthPrincipal::new(format!("user@{org}"));
        caller.claims.insert("org".into(), json!(org));
        std::sync::Arc::new(caller)
    });
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let reply = server.handle(Request::new(RequestId::Number(1), method, Some(params)), inbound).await;
    match reply.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(v)) => Ok(v),
        Some(ResponseBody::Error(e)) => Err(e),
        None => Err(ErrorObject::internal("no response")),
    }
}

/// The names of the tools `server` lists to the caller of `org` ([`send_as`]).
pub async fn tool_names(server: &Server, org: Option<&str>) -> Vec<String> {
    let list = send_as(server, org, "tools/list", json!({})).await.unwrap();
    list["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

pub fn object(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap()
}

/// A 2026 `_meta` with these client capabilities.
pub fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    })
}

pub fn all_caps() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

fn name_schema() -> JsonObject {
    object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}))
}

/// Two tools whose handlers panic: `panics_at_once` before it returns its future,
/// `panics_later` as its future runs. Each must be answered with an internal error.
pub fn panicking_tools() -> [ToolDef; 2] {
    [
        ToolDef::new(Tool::new("panics_at_once", empty_input_schema()), |cx| {
            if cx.target() == "panics_at_once" {
                panic!("a handler's panic, before its future");
            }
            async { Ok(Outcome::Complete(CallToolResult::text("unreachable"))) }
        }),
        ToolDef::new(Tool::new("panics_later", empty_input_schema()), |_| async {
            tokio::task::yield_now().await;
            panic!("a handler's panic, as it runs");
        }),
    ]
}

/// The fixture server.
pub fn fixture() -> Server {
    Server::new("fixture", "1.0.0")
        .tool(ToolDef::new(Tool::new("hello", empty_input_schema()), |_| async {
            Ok(Outcome::Complete(CallToolResult::text("Hello!")))
        }))
        .tool(ToolDef::new(
            Tool::new(
                "echo",
                object(json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})),
            ),
            |cx| async move {
                let text: String = cx.argument("text")?;
                Ok(Outcome::Complete(CallToolResult::text(text)))
            },
        ))
        .tool(ToolDef::new(Tool::new("ask_name", empty_input_schema()), |cx| async move {
            match (cx.state::<String>(), cx.elicit_result("user_name")) {
                (Some(tag), Some(answer)) if tag == "asked" => {
                    let name = answer.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str);
                    match name {
                        Some(name) => Ok(Outcome::Complete(CallToolResult::text(format!("Hello, {name}!")))),
                        None => Ok(Outcome::Complete(CallToolResult::error("no name given"))),
                    }
                }
                _ => Ok(InputRequired::new()
                    .elicit("user_name", "What is your name?", name_schema())
                    .state("asked")
                    .into()),
            }
        }))
        .tool(ToolDef::new(Tool::new("ask_everything", empty_input_schema()), |cx| async move {
            let (Some(e), Some(s), Some(r)) =
                (cx.elicit_result("who"), cx.sampling_result("capital"), cx.roots_result("roots"))
            else {
                return Ok(InputRequired::new()
                    .elicit("who", "Who are you?", name_schema())
                    .sample("capital", CreateMessageParams::prompt("What is the capital of France?", 100))
                    .list_roots("roots")
                    .into());
            };
            let name = e.content.and_then(|c| c.get("name").cloned()).unwrap_or(Value::Null);
            let text = format!(
                "{} / {} / {}",
                name.as_str().unwrap_or("?"),
                s.content.as_text().unwrap_or("?"),
                r.roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(",")
            );
            Ok(Outcome::Complete(CallToolResult::text(text)))
        }))
        .tool(ToolDef::new(Tool::new("state_only", empty_input_schema()), |cx| async move {
            match cx.state::<u32>() {
                Some(n) => Ok(Outcome::Complete(CallToolResult::text(format!("resumed {n}")))),
                None => Ok(InputRequired::new().state(&7u32).into()),
            }
        }))
        .tool(ToolDef::new(Tool::new("progress", empty_input_schema()), |cx| async move {
            cx.progress(0.0, Some(2.0), None);
            cx.progress(1.0, Some(2.0), Some("half"));
            cx.log(roundtrip::protocol::LoggingLevel::Info, Some("fixture"), json!("working"));
            cx.progress(2.0, Some(2.0), None);
            Ok(Outcome::Complete(CallToolResult::text("done")))
        }))
        .tool(ToolDef::new(Tool::new("needs_url", empty_input_schema()), |cx| async move {
            if cx.elicit_result("link").is_some() {
                return Ok(Outcome::Complete(CallToolResult::text("linked")));
            }
            Ok(InputRequired::new().elicit_url("link", "Link your account", "https://example.com/link").into())
        }))
        .tool(ToolDef::new(
            Tool::new("bad_round", empty_input_schema()),
            |_| async move { Ok(InputRequired::new().into()) },
        ))
        .prompt(PromptDef::new(
            roundtrip::protocol::Prompt::new("greet")
                .with_arguments(vec![PromptArgument::new("name").with_required(true)]),
            |cx| async move {
                let name: String = cx.argument("name")?;
                Ok(Outcome::Complete(GetPromptResult::new(vec![PromptMessage::user(format!("Hello, {name}!"))])))
            },
        ))
        .resource(ResourceDef::new(Resource::new("mem://a", "a"), |cx| async move {
            Ok(Outcome::Complete(ReadResourceResult::new(vec![ResourceContents::text(
                cx.target(),
                Some("text/plain"),
                "A",
            )])))
        }))
        .resource_template(
            ResourceTemplateDef::new(ResourceTemplate::new("mem://items/{id}", "item"), |cx| async move {
                let id = cx.uri_variable("id").unwrap_or_default().to_owned();
                Ok(Outcome::Complete(ReadResourceResult::new(vec![ResourceContents::text(
                    cx.target(),
                    None,
                    format!("item {id}"),
                )])))
            })
            .unwrap(),
        )
}

/// The official schema of an era, compiled per definition on first use.
fn validator(era: &str, def: &str) -> &'static jsonschema::Validator {
    static CACHE: OnceLock<Mutex<HashMap<String, &'static jsonschema::Validator>>> = OnceLock::new();
    let key = format!("{era}#{def}");
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    cache.entry(key).or_insert_with(|| {
        let file = format!("{}/tests/data/schema-{era}.json", env!("CARGO_MANIFEST_DIR"));
        let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        schema["$ref"] = json!(format!("#/$defs/{def}"));
        Box::leak(Box::new(jsonschema::validator_for(&schema).unwrap()))
    })
}

/// Whether `value` is a valid `def` of `era`'s schema.
pub fn is_valid(era: &str, def: &str, value: &Value) -> bool {
    validator(era, def).is_valid(value)
}

/// Assert `value` is a valid `def` of `era`'s schema.
pub fn assert_valid(era: &str, def: &str, value: &Value) {
    let errors: Vec<String> =
        validator(era, def).iter_errors(value).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "not a valid {def} of {era}: {errors:?}\n{value:#}");
}

/// The schema definition of a result of `method` (and its result type).
fn result_def(method: &str, result: &Value) -> &'static str {
    if result.get("resultType") == Some(&json!("input_required")) {
        return "InputRequiredResult";
    }
    match method {
        "server/discover" => "DiscoverResult",
        "initialize" => "InitializeResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        _ => "Result",
    }
}

/// A client end of the in-memory transport that validates everything it receives.
pub struct Wire {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    /// The era to validate against: `2026-07-28` or `2025-11-25`.
    pub era: &'static str,
    methods: HashMap<String, String>,
    next_id: i64,
    /// Notifications and server-to-client requests received while waiting for responses.
    pub events: Vec<Value>,
}

impl Wire {
    pub fn new(server: Server, era: &'static str) -> Self {
        let (reader, writer) = tokio::io::split(server.serve_in_memory());
        Self { reader: BufReader::new(reader), writer, era, methods: HashMap::new(), next_id: 1, events: Vec::new() }
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
    }

    pub async fn send(&mut self, message: &Value) {
        if let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str)) {
            self.methods.insert(id.to_string(), method.to_owned());
        }
        self.send_raw(message.to_string().as_bytes()).await;
    }

    /// The next message from the server, validated.
    pub async fn recv(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), self.reader.read_line(&mut line))
            .await
            .expect("the server did not answer within 10 s")
            .unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        self.validate(&message);
        message
    }

    fn validate(&self, message: &Value) {
        assert_valid(self.era, "JSONRPCMessage", message);
        if message.get("error").is_some() {
            assert_valid(self.era, "JSONRPCErrorResponse", message);
        } else if let Some(result) = message.get("result") {
            let method = message.get("id").and_then(|id| self.methods.get(&id.to_string())).map(String::as_str);
            if let Some(method) = method {
                assert_valid(self.era, result_def(method, result), result);
                if self.era == MODERN {
                    assert!(result.get("resultType").is_some(), "2026 result without resultType: {message}");
                } else {
                    assert!(result.get("resultType").is_none(), "legacy result with resultType: {message}");
                }
            }
        } else if message.get("id").is_some() {
            assert_ne!(self.era, MODERN, "a server-to-client request on a 2026 connection: {message}");
            assert_valid(self.era, "ServerRequest", message);
        } else {
            assert_valid(self.era, "ServerNotification", message);
        }
    }

    /// Send a request and wait for its response, keeping other messages in `events`.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        loop {
            let message = self.recv().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.events.push(message);
        }
    }

    /// A 2026 request with `_meta` merged into `params`.
    pub async fn modern(&mut self, method: &str, mut params: Value, caps: Value) -> Value {
        params["_meta"] = meta(caps);
        self.request(method, params).await
    }
}

/// Poll the task `id` through `client` every 10 ms until `done` holds of its status (at most
/// 500 times), and return that status.
pub async fn wait_for(
    client: &roundtrip::client::Client,
    id: &str,
    done: impl Fn(roundtrip::protocol::TaskStatus) -> bool,
) -> roundtrip::protocol::TaskStatus {
    for _ in 0..500 {
        let status = client.get_task(id).await.unwrap().task.task.status;
        if done(status) {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} did not reach the expected status")
}
