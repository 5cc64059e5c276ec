//! `ask`: call a tool of any MCP server from the terminal, answering its questions as you go.
//!
//! ```text
//! ask --url http://127.0.0.1:8080/mcp [TOOL [ARGS…]]
//! ask [OPTIONS] [TOOL [ARGS…]] -- COMMAND ARGS…        (the server as a stdio child)
//!
//! ask wizard -- target/debug/provision --stdio
//! ask confirm_delete path=/tmp/x -- target/debug/provision --stdio
//! ask --answers answers.json provision name=orders -- target/debug/provision --stdio
//! ask --skills -- target/debug/conformance --stdio
//! ask --skill pdf-processing -- target/debug/conformance --stdio
//! ```
//!
//! Without TOOL it lists the tools and asks which one to call. ARGS are `key=value` (typed
//! by the tool's input schema: integer, number, boolean or string), `key:=JSON`, or one JSON
//! object; missing required arguments are asked for. Each question of the server becomes a
//! terminal form: text, number, integer, yes/no, numbered single and multiple choices, with
//! defaults taken on empty input. Type `:decline` or `:cancel` at any prompt (Ctrl-D
//! cancels). URL requests print the URL and ask to confirm, sampling requests ask you to type
//! the model's reply, roots requests offer the current directory.
//!
//! Options:
//!   --url URL        a streamable HTTP endpoint, http:// or https:// (TLS trusts the
//!                    system's roots: SSL_CERT_FILE, SSL_CERT_DIR, else the OS store)
//!   --answers FILE   answer from a JSON object `{"<question key or property>": value, …}`
//!                    instead of the terminal (values `":decline"`/`":cancel"` decline or
//!                    cancel a question; `"sampling"` holds model replies, `"roots"` a list
//!                    of URIs or false); nothing is read from the terminal then
//!   --legacy         speak the 2025-11-25 handshake instead of probing for 2026-07-28
//!   --skills         list the server's skills (skills extension) instead of its tools; no
//!                    skill's files are read
//!   --skill NAME     load the skill NAME and print its SKILL.md and its files; what is read is
//!                    checked against the listing (size, digest, frontmatter) and refused
//!                    when it differs
//!   --callback-port PORT   the loopback port that takes the sign-in redirect (default: any)
//!   --client-id ID [--client-secret SECRET]
//!                    credentials registered with the server's authorization server
//!                    (otherwise ask registers itself where the server allows it)
//!   --client-metadata-url URL
//!                    ask's client metadata document, used as its client id where the
//!                    authorization server accepts one
//!   -h, --help       this text
//!
//! Signing in: when a server at --url answers 401, ask signs in with OAuth: it prints the
//! authorization URL to open in a browser and takes the redirect on
//! http://127.0.0.1:PORT/callback, then sends the request again with the token (and asks for
//! more scopes once if the server says a call needs them).
//!
//! Tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set (and the other standard OTEL_* variables,
//! as for the servers), ask exports its spans by OTLP: one trace per run, the requests it sends
//! in it, and, through the trace context it sends along (params._meta), the server's spans. A
//! server started with -- COMMAND inherits the environment, so it exports to the same place.
//!
//! The result's text is printed (and its structuredContent as JSON); the exit status is 1
//! when the call fails or the tool reports an error, 2 on bad usage.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use roundtrip::client::oauth::{ClientInfo, LoopbackHandler, OAuth};
use roundtrip::client::{Client, ClientError, Mode, Step};
use roundtrip::protocol::{
    CallToolResult, Content, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    ErrorObject, InputRequest, JsonObject, ListRootsResult, Notification, Role, Root, Task, TaskStatus, Tool,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const USAGE: &str = "usage: ask [--answers FILE] [--legacy] [SIGN-IN OPTIONS] (--url URL [TOOL [ARGS…]] | [TOOL [ARGS…]] -- COMMAND ARGS…)";
const MAX_ROUNDS: usize = 20;

#[derive(Debug, Default, PartialEq)]
struct Options {
    url: Option<String>,
    command: Vec<String>,
    answers: Option<PathBuf>,
    legacy: bool,
    skills: bool,
    skill: Option<String>,
    tool: Option<String>,
    args: Vec<String>,
    sign_in: SignIn,
}

/// How ask signs in to a server that answers 401.
#[derive(Debug, Default, PartialEq)]
struct SignIn {
    callback_port: u16,
    client_id: Option<String>,
    client_secret: Option<String>,
    client_metadata_url: Option<String>,
}

fn parse_options(args: Vec<String>) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.into_iter();
    let mut positional = Vec::new();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => {
                o.command = it.by_ref().collect();
                break;
            }
            "--url" => o.url = Some(it.next().ok_or("--url needs a URL")?),
            "--answers" => o.answers = Some(it.next().ok_or("--answers needs a file")?.into()),
            "--legacy" => o.legacy = true,
            "--skills" => o.skills = true,
            "--skill" => o.skill = Some(it.next().ok_or("--skill needs a skill's name")?),
            "--callback-port" => {
                let port = it.next().ok_or("--callback-port needs a port")?;
                o.sign_in.callback_port =
                    port.parse().map_err(|_| format!("--callback-port: `{port}` is not a port"))?;
            }
            "--client-id" => o.sign_in.client_id = Some(it.next().ok_or("--client-id needs an id")?),
            "--client-secret" => o.sign_in.client_secret = Some(it.next().ok_or("--client-secret needs a secret")?),
            "--client-metadata-url" => {
                o.sign_in.client_metadata_url = Some(it.next().ok_or("--client-metadata-url needs a URL")?);
            }
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with("--") && positional.is_empty() => return Err(format!("unknown option {s}")),
            _ => positional.push(a),
        }
    }
    match (&o.url, o.command.is_empty()) {
        (Some(_), false) => return Err("give either --url or -- COMMAND, not both".into()),
        (None, true) => return Err("give the server: --url URL or -- COMMAND ARGS…".into()),
        _ => {}
    }
    if o.sign_in.client_secret.is_some() && o.sign_in.client_id.is_none() {
        return Err("--client-secret goes with --client-id".into());
    }
    let mut positional = positional.into_iter();
    o.tool = positional.next();
    o.args = positional.collect();
    Ok(o)
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_options(std::env::args().skip(1).collect()) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            println!(
                "{}",
                include_str!("ask.rs")
                    .lines()
                    .take_while(|l| l.starts_with("//!"))
                    .map(|l| l.trim_start_matches("//!").strip_prefix(' ').unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("ask: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let answers = match &options.answers {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<JsonObject>(&t).map_err(|e| format!("not a JSON object: {e}")))
        {
            Ok(a) => Some(a),
            Err(e) => {
                eprintln!("ask: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
    };
    let asker = Asker::new(answers);
    #[cfg(feature = "otel")]
    let mut telemetry = match telemetry() {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("ask: {e}");
            return ExitCode::from(2);
        }
    };
    #[cfg(feature = "otel")]
    let outcome = traced(options.tool.clone(), run(options, asker)).await;
    #[cfg(not(feature = "otel"))]
    let outcome = run(options, asker).await;
    #[cfg(feature = "otel")]
    if let Some(guard) = telemetry.as_mut() {
        guard.shutdown();
    }
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Export by OTLP when the `OTEL_*` variables say where (as the servers' runner does), with
/// `ask` as the service's name unless OTEL_SERVICE_NAME gives one.
#[cfg(feature = "otel")]
fn telemetry() -> Result<Option<roundtrip::otel::OtelGuard>, roundtrip::otel::OtelError> {
    let mut settings = roundtrip::otel::OtelSettings::from_env()?;
    if !settings.otlp {
        return Ok(None);
    }
    settings.service_name = Some("ask".into());
    roundtrip::otel::init(settings).map(Some)
}

/// Run `work` in a span of its own (`ask TOOL`): ask drives a call's rounds itself, leg by
/// leg, so without a parent each leg (and each poll of a task) would start a trace of its own.
#[cfg(feature = "otel")]
async fn traced<T>(tool: Option<String>, work: impl Future<Output = T>) -> T {
    use opentelemetry::context::FutureExt as _;
    use opentelemetry::trace::{TraceContextExt as _, Tracer as _};
    let name = tool.map_or_else(|| "ask".to_owned(), |tool| format!("ask {tool}"));
    let cx = opentelemetry::Context::current_with_span(opentelemetry::global::tracer("ask").start(name));
    let out = work.with_context(cx.clone()).await;
    cx.span().end();
    out
}

async fn run(options: Options, asker: Asker) -> Result<ExitCode, ClientError> {
    let (a, b, c) = (asker.clone(), asker.clone(), asker.clone());
    let progress = Arc::new(Mutex::new(Progress::default()));
    let builder = Client::builder("ask", env!("CARGO_PKG_VERSION"))
        .mode(if options.legacy { Mode::Legacy } else { Mode::Auto })
        .max_rounds(MAX_ROUNDS)
        .progress_tokens(true)
        .on_elicit(move |p| {
            let a = a.clone();
            async move { a.elicit(None, p).await }
        })
        .on_sample(move |p| {
            let b = b.clone();
            async move { b.sample(None, p).await }
        })
        .on_roots(move || {
            let c = c.clone();
            async move { c.roots(None).await }
        })
        .on_notification(move |n| show_notification(&progress, n));
    let client = match &options.url {
        Some(url) => builder.oauth(sign_in(&options.sign_in).await?).connect_http(url).await?,
        None => {
            let mut command = tokio::process::Command::new(&options.command[0]);
            command.args(&options.command[1..]);
            builder.connect_stdio(command).await?
        }
    };
    let outcome = session(&client, &options, &asker).await;
    // A server started with -- COMMAND is let exit by itself (stdin closed) rather than killed,
    // so that it can finish and export what it holds.
    client.close().await;
    outcome
}

/// What ask does once connected: list the skills or tools, or call the tool.
async fn session(client: &Client, options: &Options, asker: &Asker) -> Result<ExitCode, ClientError> {
    let server = client.server_info().map(|i| format!("{} {}", i.name, i.version)).unwrap_or("the server".into());
    if options.skills || options.skill.is_some() {
        return skills(client, &server, options.skill.as_deref()).await;
    }
    let tools = client.list_all_tools().await?;

    let tool = match &options.tool {
        Some(name) => tools
            .iter()
            .find(|t| &t.name == name)
            .ok_or_else(|| ClientError::Protocol(format!("{server} has no tool `{name}`")))?,
        None => {
            println!("Tools of {server} ({}):", client.protocol_version());
            print_tools(&tools);
            if asker.scripted() || tools.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            match asker.choose_tool(&tools).await {
                Some(t) => t,
                None => return Ok(ExitCode::SUCCESS),
            }
        }
    };
    let mut arguments = parse_arguments(&tool.input_schema, &options.args).map_err(ClientError::Protocol)?;
    match asker.missing_arguments(&tool.input_schema, &arguments).await? {
        Form::Accept(more) => arguments.extend(more),
        Form::Decline | Form::Cancel => return Err(ClientError::Callback("cancelled".into())),
    }
    let result = call(client, asker, &tool.name, Value::Object(arguments)).await?;
    print_result(&result);
    Ok(if result.is_error == Some(true) { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// `--skills`: list the skills (reading none of their files); `--skill NAME`: load one, checked
/// against the listing, and print its SKILL.md and its files.
async fn skills(client: &Client, server: &str, name: Option<&str>) -> Result<ExitCode, ClientError> {
    let skills = client.list_skills().await?;
    let Some(name) = name else {
        println!("Skills of {server} ({}):", skills.len());
        for skill in &skills {
            println!("  {:<24} {}", skill.name(), skill.description());
            println!("  {:<24} {}", "", skill.uri);
        }
        return Ok(ExitCode::SUCCESS);
    };
    let entry = skills
        .iter()
        .find(|s| s.name() == name || s.uri == name)
        .ok_or_else(|| ClientError::Protocol(format!("{server} has no skill `{name}`")))?;
    let skill = client.load_skill(entry).await?;
    println!("{}", skill.text.trim_end());
    let files = skill.files();
    if !files.is_empty() {
        println!("\nFiles of {} (each checked against this listing when it is read):", skill.name());
        for f in files {
            println!("  {} ({} bytes, {})", f.uri, f.size, f.digest);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Call the tool. On 2026-07-28 this drives the rounds itself, so each question is known by
/// its key (for `--answers`); on a legacy session the callbacks answer mid-call.
async fn call(client: &Client, asker: &Asker, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
    if !client.protocol_version().is_modern() {
        return client.call_tool(name, arguments).await;
    }
    let (mut responses, mut state) = (None, None);
    let mut backoff = Duration::from_millis(50);
    for _ in 0..MAX_ROUNDS {
        match client.call_tool_step(name, arguments.clone(), responses.take(), state.take()).await? {
            Step::Complete(result) => return Ok(result),
            Step::Task(task) => return follow_task(client, asker, task).await,
            Step::InputRequired(round) => {
                state = round.request_state;
                match round.input_requests {
                    Some(requests) if !requests.is_empty() => {
                        let mut answers = JsonObject::new();
                        for (key, request) in requests {
                            let answer = asker.answer(&key, request).await?;
                            answers.insert(key, answer);
                        }
                        responses = Some(answers);
                    }
                    _ => {
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(Duration::from_millis(250));
                    }
                }
            }
        }
    }
    Err(ClientError::TooManyRounds(MAX_ROUNDS))
}

/// Follow a call that became a task: show its status and progress as it runs, ask its
/// questions as they come, and return its result.
async fn follow_task(client: &Client, asker: &Asker, task: Task) -> Result<CallToolResult, ClientError> {
    eprintln!("task {}: {}", task.task_id, status_word(task.status));
    let mut answered = std::collections::HashSet::new();
    let mut shown = String::new();
    let mut interval = task.poll_interval_ms.unwrap_or(500).clamp(50, 2_000);
    loop {
        tokio::time::sleep(Duration::from_millis(interval)).await;
        let got = client.get_task(&task.task_id).await?.task;
        interval = got.task.poll_interval_ms.unwrap_or(interval).clamp(50, 2_000);
        let line = match &got.task.status_message {
            Some(m) => format!("{}: {m}", status_word(got.task.status)),
            None => status_word(got.task.status).to_owned(),
        };
        if line != shown {
            eprintln!("task {}: {line}", task.task_id);
            shown = line;
        }
        match got.task.status {
            TaskStatus::Completed => {
                let result = got.result.unwrap_or_default();
                return serde_json::from_value(Value::Object(result))
                    .map_err(|e| ClientError::Protocol(format!("the task's result: {e}")));
            }
            TaskStatus::Failed => {
                return Err(ClientError::Rpc(got.error.unwrap_or_else(|| ErrorObject::internal("the task failed"))));
            }
            TaskStatus::Cancelled => {
                return Err(ClientError::TaskCancelled(got.task.status_message.unwrap_or_default()));
            }
            TaskStatus::InputRequired => {
                let mut answers = JsonObject::new();
                for (key, request) in got.input_requests.unwrap_or_default() {
                    if answered.insert(key.clone()) {
                        let answer = asker.answer(&key, request).await?;
                        answers.insert(key, answer);
                    }
                }
                if !answers.is_empty() {
                    client.update_task(&task.task_id, answers).await?;
                }
            }
            // Working, or a status newer than this client: look again.
            _ => {}
        }
    }
}

fn status_word(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "waiting for your answer",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "in a state this client does not know",
    }
}

fn print_tools(tools: &[Tool]) {
    for (i, tool) in tools.iter().enumerate() {
        let description = tool.description.as_deref().unwrap_or("").lines().next().unwrap_or("");
        println!("  {:>2}) {:<18} {description}", i + 1, tool.name);
        let required = required(&tool.input_schema);
        let args: Vec<String> = properties(&tool.input_schema)
            .map(|(name, schema)| {
                let star = if required.contains(&name.as_str()) { "" } else { "?" };
                format!("{name}{star}: {}", type_name(schema))
            })
            .collect();
        if !args.is_empty() {
            println!("      args: {}", args.join(", "));
        }
    }
}

fn print_result(result: &CallToolResult) {
    for content in &result.content {
        match content {
            Content::Text { text, .. } => println!("{text}"),
            other => {
                let mut v = serde_json::to_value(other).unwrap_or(Value::Null);
                if let Some(data) = v.get_mut("data") {
                    *data = json!(format!("<{} bytes of base64>", data.as_str().map_or(0, str::len)));
                }
                println!("{v}");
            }
        }
    }
    if let Some(structured) = &result.structured_content {
        println!("structuredContent: {}", serde_json::to_string_pretty(structured).unwrap_or_default());
    }
}

// ---------------------------------------------------------------------------------------
// Arguments

fn properties(schema: &JsonObject) -> impl Iterator<Item = (&String, &Value)> {
    schema.get("properties").and_then(Value::as_object).into_iter().flatten()
}

fn required(schema: &JsonObject) -> Vec<&str> {
    schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

/// The JSON type a property schema names (the first that is not `null`).
fn type_name(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("string"),
        _ if schema.get("enum").is_some() || schema.get("oneOf").is_some() => "string",
        _ => "any",
    }
}

/// `key=value` (typed by the schema), `key:=JSON`, or a single JSON object.
fn parse_arguments(schema: &JsonObject, args: &[String]) -> Result<JsonObject, String> {
    if let [only] = args
        && only.trim_start().starts_with('{')
    {
        return serde_json::from_str(only).map_err(|e| format!("the arguments are not a JSON object: {e}"));
    }
    let props: JsonObject = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut out = JsonObject::new();
    for arg in args {
        if let Some((key, raw)) = arg.split_once(":=") {
            let v = serde_json::from_str(raw).map_err(|e| format!("{key}: not JSON: {e}"))?;
            out.insert(key.to_owned(), v);
            continue;
        }
        let (key, raw) = arg.split_once('=').ok_or_else(|| format!("`{arg}`: expected key=value"))?;
        let ty = props.get(key).map_or("string", type_name);
        let value = typed(ty, raw).map_err(|e| format!("{key}: {e}"))?;
        out.insert(key.to_owned(), value);
    }
    Ok(out)
}

/// A value of this JSON type from what the user typed.
fn typed(ty: &str, raw: &str) -> Result<Value, String> {
    let raw_t = raw.trim();
    match ty {
        "integer" => raw_t.parse::<i64>().map(Value::from).map_err(|_| format!("`{raw}` is not an integer")),
        "number" => match raw_t.parse::<i64>() {
            Ok(i) => Ok(Value::from(i)),
            Err(_) => raw_t
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Value::from)
                .ok_or_else(|| format!("`{raw}` is not a number")),
        },
        "boolean" => match raw_t.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" | "1" => Ok(Value::Bool(true)),
            "n" | "no" | "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("`{raw}` is not yes or no")),
        },
        "object" | "array" => serde_json::from_str(raw).map_err(|e| format!("not JSON: {e}")),
        _ => Ok(Value::String(raw.to_owned())),
    }
}

// ---------------------------------------------------------------------------------------
// Questions

/// A form's outcome.
enum Form {
    Accept(JsonObject),
    Decline,
    Cancel,
}

/// One field's outcome.
enum Field {
    Value(Value),
    Skip,
    Decline,
    Cancel,
}

/// Answers questions from the terminal, or from `--answers` (then reading nothing).
#[derive(Clone)]
struct Asker {
    answers: Option<Arc<JsonObject>>,
    /// Lines typed on stdin (`None` once stdin is closed); held for a whole form so that
    /// concurrent questions do not interleave.
    lines: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<String>>>,
}

impl Asker {
    fn new(answers: Option<JsonObject>) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        if answers.is_none() {
            std::thread::spawn(move || {
                let stdin = std::io::stdin();
                for line in stdin.lock().lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Self { answers: answers.map(Arc::new), lines: Arc::new(tokio::sync::Mutex::new(rx)) }
    }

    fn scripted(&self) -> bool {
        self.answers.is_some()
    }

    /// The answer to one input request, as its result JSON.
    async fn answer(&self, key: &str, request: InputRequest) -> Result<Value, ClientError> {
        let json = |v: Result<Value, serde_json::Error>| v.map_err(|e| ClientError::Callback(e.to_string()));
        match request {
            InputRequest::Elicit(p) => json(serde_json::to_value(self.elicit(Some(key), p).await?)),
            InputRequest::CreateMessage(p) => json(serde_json::to_value(self.sample(Some(key), p).await?)),
            InputRequest::ListRoots(_) => {
                json(serde_json::to_value(ListRootsResult::new(self.roots(Some(key)).await?)))
            }
            other => Err(ClientError::Callback(format!("ask cannot answer `{}`", other.method()))),
        }
    }

    async fn choose_tool<'t>(&self, tools: &'t [Tool]) -> Option<&'t Tool> {
        let mut lines = self.lines.lock().await;
        loop {
            let line = prompt(&mut lines, "Which tool? (number or name, Ctrl-D to quit): ").await?;
            let line = line.trim();
            let pick = line.parse::<usize>().ok().and_then(|n| tools.get(n.wrapping_sub(1)));
            if let Some(t) = pick.or_else(|| tools.iter().find(|t| t.name == line)) {
                return Some(t);
            }
            println!("  no tool `{line}`");
        }
    }

    /// Ask for the required arguments not given on the command line.
    async fn missing_arguments(&self, schema: &JsonObject, given: &JsonObject) -> Result<Form, ClientError> {
        let required = required(schema);
        let missing: JsonObject = properties(schema)
            .filter(|(name, _)| required.contains(&name.as_str()) && !given.contains_key(*name))
            .map(|(n, s)| (n.clone(), s.clone()))
            .collect();
        if missing.is_empty() {
            return Ok(Form::Accept(JsonObject::new()));
        }
        let names: Vec<&String> = missing.keys().collect();
        let form = json!({ "type": "object", "properties": missing, "required": names });
        let form = form.as_object().cloned().unwrap_or_default();
        match &self.answers {
            Some(a) => Ok(from_answers(a, None, &form)?),
            None => {
                println!("The tool needs these arguments:");
                Ok(self.form(&form).await)
            }
        }
    }

    async fn elicit(&self, key: Option<&str>, params: ElicitParams) -> Result<ElicitResult, ClientError> {
        let result = |action, content| Ok(ElicitResult::new(action, content));
        match params {
            ElicitParams::Form(form) => {
                let outcome = match &self.answers {
                    Some(a) => from_answers(a, key, &form.requested_schema)?,
                    None => {
                        println!("\n? {}", form.message);
                        self.form(&form.requested_schema).await
                    }
                };
                match outcome {
                    Form::Accept(content) => result(ElicitAction::Accept, Some(content)),
                    Form::Decline => result(ElicitAction::Decline, None),
                    Form::Cancel => result(ElicitAction::Cancel, None),
                }
            }
            ElicitParams::Url(url) => {
                let action = match &self.answers {
                    Some(a) => match key.and_then(|k| a.get(k)) {
                        Some(Value::String(s)) if s == ":decline" => ElicitAction::Decline,
                        Some(Value::String(s)) if s == ":cancel" => ElicitAction::Cancel,
                        Some(Value::Bool(false)) => ElicitAction::Decline,
                        _ => ElicitAction::Accept,
                    },
                    None => {
                        println!("\n? {}\n  Open this URL in your browser:\n    {}", url.message, url.url);
                        let mut lines = self.lines.lock().await;
                        match ask_field(&mut lines, "Done", &json!({ "type": "boolean", "default": true }), true).await
                        {
                            Field::Value(Value::Bool(true)) => ElicitAction::Accept,
                            Field::Value(_) | Field::Decline | Field::Skip => ElicitAction::Decline,
                            Field::Cancel => ElicitAction::Cancel,
                        }
                    }
                };
                result(action, None)
            }
            // A mode newer than this client: it cannot show it, so it declines.
            _ => result(ElicitAction::Decline, None),
        }
    }

    /// Fill a flat form schema from the terminal.
    async fn form(&self, schema: &JsonObject) -> Form {
        let required = required(schema);
        let mut lines = self.lines.lock().await;
        let mut content = JsonObject::new();
        for (name, prop) in properties(schema) {
            let label = prop.get("title").and_then(Value::as_str).unwrap_or(name);
            if let Some(d) = prop.get("description").and_then(Value::as_str) {
                println!("  {d}");
            }
            match ask_field(&mut lines, label, prop, required.contains(&name.as_str())).await {
                Field::Value(v) => {
                    content.insert(name.clone(), v);
                }
                Field::Skip => {}
                Field::Decline => return Form::Decline,
                Field::Cancel => return Form::Cancel,
            }
        }
        Form::Accept(content)
    }

    async fn sample(&self, key: Option<&str>, params: CreateMessageParams) -> Result<CreateMessageResult, ClientError> {
        let reply = match &self.answers {
            Some(a) => {
                let found = key.and_then(|k| a.get(k)).or_else(|| a.get("sampling"));
                match found {
                    Some(Value::String(s)) => s.clone(),
                    _ => {
                        return Err(ClientError::Callback(format!(
                            "no model reply for `{}` in the answers file",
                            key.unwrap_or("sampling")
                        )));
                    }
                }
            }
            None => {
                println!("\n? The server asks your model (at most {} tokens):", params.max_tokens);
                if let Some(system) = &params.system_prompt {
                    println!("  [system] {system}");
                }
                for m in &params.messages {
                    let role = match m.role {
                        Role::User => "user",
                        Role::Assistant => "assistant",
                        _ => "?",
                    };
                    let text = m
                        .content
                        .as_text()
                        .map(str::to_owned)
                        .unwrap_or_else(|| serde_json::to_string(&m.content).unwrap_or_default());
                    println!("  [{role}] {text}");
                }
                let mut lines = self.lines.lock().await;
                loop {
                    match prompt(&mut lines, "Type the model's reply: ").await {
                        None => return Err(ClientError::Callback("cancelled".into())),
                        Some(l) if l.trim() == ":cancel" || l.trim() == ":decline" => {
                            return Err(ClientError::Callback("the sampling request was refused".into()));
                        }
                        Some(l) if l.trim().is_empty() => println!("  (a reply is needed; :cancel to give up)"),
                        Some(l) => break l,
                    }
                }
            }
        };
        Ok(CreateMessageResult::text(reply, "human (ask)").with_stop_reason("endTurn"))
    }

    async fn roots(&self, key: Option<&str>) -> Result<Vec<Root>, ClientError> {
        let cwd = std::env::current_dir().map_err(|e| ClientError::Callback(e.to_string()))?;
        let mut here = Root::new(format!("file://{}", cwd.display()));
        here.name = cwd.file_name().map(|n| n.to_string_lossy().into_owned());
        match &self.answers {
            Some(a) => match key.and_then(|k| a.get(k)).or_else(|| a.get("roots")) {
                Some(Value::Bool(false)) => Ok(Vec::new()),
                Some(Value::Array(uris)) => Ok(uris.iter().filter_map(Value::as_str).map(Root::new).collect()),
                _ => Ok(vec![here]),
            },
            None => {
                println!("\n? The server asks for your roots (the folders it may work in).");
                let question = format!("Share {}", here.uri);
                let mut lines = self.lines.lock().await;
                match ask_field(&mut lines, &question, &json!({ "type": "boolean", "default": true }), true).await {
                    Field::Value(Value::Bool(true)) => Ok(vec![here]),
                    Field::Cancel => Err(ClientError::Callback("cancelled".into())),
                    _ => Ok(Vec::new()),
                }
            }
        }
    }
}

/// Print a prompt and read one line; `None` at end of input (Ctrl-D).
async fn prompt(lines: &mut mpsc::UnboundedReceiver<String>, text: &str) -> Option<String> {
    print!("{text}");
    let _ = std::io::stdout().flush();
    let line = lines.recv().await;
    if line.is_none() {
        println!();
    }
    line
}

/// The choices of an enum-like schema: (value, label).
fn choices(schema: &Value) -> Option<Vec<(Value, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let label = names.and_then(|n| n.get(i)).and_then(Value::as_str).map(str::to_owned);
                    (v.clone(), label.unwrap_or_else(|| plain(v)))
                })
                .collect(),
        );
    }
    let options = schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array)?;
    let out: Vec<(Value, String)> = options
        .iter()
        .filter_map(|o| {
            let v = o.get("const")?.clone();
            let label = o.get("title").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| plain(&v));
            Some((v, label))
        })
        .collect();
    (!out.is_empty()).then_some(out)
}

fn plain(v: &Value) -> String {
    v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())
}

/// Ask one field until the input is valid.
async fn ask_field(lines: &mut mpsc::UnboundedReceiver<String>, label: &str, schema: &Value, required: bool) -> Field {
    let ty = type_name(schema);
    let default = schema.get("default");
    let single = if ty == "array" { None } else { choices(schema) };
    let multi = if ty == "array" { schema.get("items").and_then(choices) } else { None };
    let list = single.as_ref().or(multi.as_ref());
    if let Some(list) = list {
        for (i, (_, label)) in list.iter().enumerate() {
            println!("    {}) {label}", i + 1);
        }
    }
    let hint = match (ty, &single, &multi) {
        (_, Some(_), _) => "number",
        (_, _, Some(_)) => "numbers, e.g. 1,3",
        ("boolean", ..) => "y/n",
        ("integer", ..) => "integer",
        ("number", ..) => "number",
        _ => "",
    };
    let shown_default = default.map(|d| match (d, list) {
        (Value::Array(items), Some(list)) => items
            .iter()
            .filter_map(|item| list.iter().position(|(v, _)| v == item).map(|i| (i + 1).to_string()))
            .collect::<Vec<_>>()
            .join(","),
        (Value::Bool(b), _) => (if *b { "y" } else { "n" }).to_owned(),
        (d, Some(list)) => list.iter().position(|(v, _)| v == d).map_or_else(|| plain(d), |i| (i + 1).to_string()),
        (d, None) => plain(d),
    });
    let mut text = label.to_owned();
    if !hint.is_empty() {
        text.push_str(&format!(" ({hint})"));
    }
    if let Some(d) = &shown_default {
        text.push_str(&format!(" [{d}]"));
    } else if !required {
        text.push_str(" [optional]");
    }
    text.push_str(": ");
    loop {
        let Some(line) = prompt(lines, &text).await else { return Field::Cancel };
        let input = line.trim();
        match input {
            ":decline" => return Field::Decline,
            ":cancel" => return Field::Cancel,
            "" => match default {
                Some(d) => return Field::Value(d.clone()),
                None if !required => return Field::Skip,
                None => {
                    println!("  (required; :decline or :cancel to refuse)");
                    continue;
                }
            },
            _ => {}
        }
        let parsed = if let Some(list) = &single {
            pick(list, input).ok_or_else(|| format!("choose 1 to {}", list.len()))
        } else if let Some(list) = &multi {
            input
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| pick(list, s).ok_or_else(|| format!("`{s}`: choose 1 to {}", list.len())))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
        } else {
            typed(if ty == "any" { "string" } else { ty }, &line)
        };
        match parsed.and_then(|v| check(schema, v)) {
            Ok(v) => return Field::Value(v),
            Err(e) => println!("  {e}"),
        }
    }
}

fn pick(list: &[(Value, String)], input: &str) -> Option<Value> {
    if let Ok(n) = input.parse::<usize>()
        && let Some((v, _)) = list.get(n.wrapping_sub(1))
    {
        return Some(v.clone());
    }
    list.iter().find(|(v, label)| plain(v) == input || label == input).map(|(v, _)| v.clone())
}

/// The range and length limits a form field may carry.
fn check(schema: &Value, v: Value) -> Result<Value, String> {
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    if let Some(x) = v.as_f64() {
        if let Some(min) = num("minimum").filter(|m| x < *m) {
            return Err(format!("at least {min}"));
        }
        if let Some(max) = num("maximum").filter(|m| x > *m) {
            return Err(format!("at most {max}"));
        }
    }
    if let Some(s) = v.as_str() {
        let n = s.chars().count() as f64;
        if let Some(min) = num("minLength").filter(|m| n < *m) {
            return Err(format!("at least {min} characters"));
        }
        if let Some(max) = num("maxLength").filter(|m| n > *m) {
            return Err(format!("at most {max} characters"));
        }
    }
    if let Some(items) = v.as_array() {
        let n = items.len() as f64;
        if let Some(min) = num("minItems").filter(|m| n < *m) {
            return Err(format!("choose at least {min}"));
        }
        if let Some(max) = num("maxItems").filter(|m| n > *m) {
            return Err(format!("choose at most {max}"));
        }
    }
    Ok(v)
}

/// A form answered from the `--answers` object: the question's key may hold the whole
/// content (an object), one value (a form of one field) or `":decline"`/`":cancel"`; each
/// property may also be answered by its own name. Defaults fill the rest.
fn from_answers(answers: &JsonObject, key: Option<&str>, schema: &JsonObject) -> Result<Form, ClientError> {
    let by_key = key.and_then(|k| answers.get(k));
    match by_key {
        Some(Value::String(s)) if s == ":decline" => return Ok(Form::Decline),
        Some(Value::String(s)) if s == ":cancel" => return Ok(Form::Cancel),
        _ => {}
    }
    let props: Vec<(&String, &Value)> = properties(schema).collect();
    let required = required(schema);
    let mut content = JsonObject::new();
    for (name, prop) in &props {
        let value = match by_key {
            Some(Value::Object(o)) if o.contains_key(*name) => o.get(*name).cloned(),
            Some(v) if props.len() == 1 && !v.is_object() => Some(v.clone()),
            _ => None,
        }
        .or_else(|| answers.get(*name).cloned())
        .or_else(|| prop.get("default").cloned());
        match value {
            Some(v) => {
                // Loose typing: "36" for an integer field is 36.
                let v = match (&v, type_name(prop)) {
                    (Value::String(s), ty @ ("integer" | "number" | "boolean")) => typed(ty, s).unwrap_or(v),
                    _ => v,
                };
                content.insert((*name).clone(), v);
            }
            None if required.contains(&name.as_str()) => {
                return Err(ClientError::Callback(format!(
                    "the answers file has no answer for `{name}`{}",
                    key.map(|k| format!(" (question `{k}`)")).unwrap_or_default()
                )));
            }
            None => {}
        }
    }
    Ok(Form::Accept(content))
}

// ---------------------------------------------------------------------------------------
// Notifications

#[derive(Default)]
struct Progress {
    open: bool,
}

fn show_notification(state: &Mutex<Progress>, n: Notification) {
    let params = n.params.unwrap_or(Value::Null);
    let mut err = std::io::stderr().lock();
    match n.method.as_str() {
        "notifications/progress" => {
            let progress = params.get("progress").and_then(Value::as_f64).unwrap_or(0.0);
            let total = params.get("total").and_then(Value::as_f64);
            let message = params.get("message").and_then(Value::as_str).unwrap_or("");
            let line = match total {
                Some(t) if t > 0.0 => {
                    let frac = (progress / t).clamp(0.0, 1.0);
                    let filled = (frac * 30.0).round() as usize;
                    format!("[{}{}] {:>3.0}% {message}", "#".repeat(filled), " ".repeat(30 - filled), frac * 100.0)
                }
                _ => format!("[{progress}] {message}"),
            };
            let _ = write!(err, "\r\x1b[2K{line}");
            let done = total.is_some_and(|t| progress >= t);
            if done {
                let _ = writeln!(err);
            }
            if let Ok(mut s) = state.lock() {
                s.open = !done;
            }
        }
        "notifications/message" => {
            let level = params.get("level").and_then(Value::as_str).unwrap_or("info");
            let data = params.get("data").map(plain).unwrap_or_default();
            let _ = writeln!(err, "[{level}] {data}");
        }
        _ => {}
    }
    let _ = err.flush();
}

/// OAuth for an HTTP server: the authorization URL goes to the terminal, the redirect comes
/// back to a loopback port.
async fn sign_in(options: &SignIn) -> Result<OAuth, ClientError> {
    let handler = LoopbackHandler::bind(&format!("127.0.0.1:{}", options.callback_port))
        .await
        .map_err(|e| ClientError::Auth(format!("cannot listen for the sign-in redirect: {e}")))?
        .on_url(|url| {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "The server asks you to sign in. Open this URL in a browser:\n\n  {url}\n");
            let _ = writeln!(err, "Waiting for the authorization server to send you back…");
        });
    let mut oauth = OAuth::new(handler);
    if let Some(id) = &options.client_id {
        let client = match &options.client_secret {
            Some(secret) => ClientInfo::confidential(id, secret),
            None => ClientInfo::public(id),
        };
        oauth = oauth.pre_registered(client, None);
    }
    if let Some(url) = &options.client_metadata_url {
        oauth = oauth.client_metadata_url(url);
    }
    Ok(oauth)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_command_line_names_the_server_the_tool_and_its_arguments() {
        let o = parse_options(args(&["wizard", "--", "provision", "--stdio"])).unwrap();
        assert_eq!(o.tool.as_deref(), Some("wizard"));
        assert_eq!(o.command, ["provision", "--stdio"]);
        let o =
            parse_options(args(&["--url", "http://h/mcp", "--answers", "a.json", "provision", "name=orders"])).unwrap();
        assert_eq!(o.url.as_deref(), Some("http://h/mcp"));
        assert_eq!(o.answers, Some(PathBuf::from("a.json")));
        assert_eq!(o.args, ["name=orders"]);
        assert!(parse_options(args(&["wizard"])).is_err());
        assert!(parse_options(args(&["--url", "u", "--", "cmd"])).is_err());
        assert!(parse_options(args(&["--help"])).is_err_and(|e| e.is_empty()));
        let o = parse_options(args(&[
            "--url",
            "http://h/mcp",
            "--callback-port",
            "8765",
            "--client-id",
            "app",
            "--client-secret",
            "s",
        ]))
        .unwrap();
        assert_eq!(
            o.sign_in,
            SignIn {
                callback_port: 8765,
                client_id: Some("app".into()),
                client_secret: Some("s".into()),
                client_metadata_url: None
            }
        );
        assert!(parse_options(args(&["--url", "u", "--callback-port", "high"])).is_err());
        assert!(parse_options(args(&["--url", "u", "--client-secret", "s"])).is_err());
    }

    #[test]
    fn arguments_are_typed_by_the_schema() {
        let schema = json!({ "type": "object", "properties": {
            "n": { "type": "integer" }, "x": { "type": "number" }, "b": { "type": "boolean" },
            "s": { "type": "string" }, "tags": { "type": "array" }
        }});
        let schema = schema.as_object().unwrap();
        let got =
            parse_arguments(schema, &args(&["n=42", "x=2.5", "b=yes", "s=007", "tags=[1,2]", "extra:={\"k\":1}"]));
        assert_eq!(
            Value::Object(got.unwrap()),
            json!({ "n": 42, "x": 2.5, "b": true, "s": "007", "tags": [1, 2], "extra": { "k": 1 } })
        );
        assert_eq!(Value::Object(parse_arguments(schema, &args(&["{\"n\": 1}"])).unwrap()), json!({ "n": 1 }));
        assert!(parse_arguments(schema, &args(&["n=many"])).is_err());
        assert!(parse_arguments(schema, &args(&["novalue"])).is_err());
    }

    #[test]
    fn answers_files_answer_by_key_or_property_with_defaults() {
        let schema = json!({ "type": "object", "properties": {
            "region": { "type": "string" }, "size": { "type": "integer", "default": 2 }
        }, "required": ["region"] });
        let schema = schema.as_object().unwrap();
        let answers = |v: Value| v.as_object().cloned().unwrap();
        let Ok(Form::Accept(c)) = from_answers(&answers(json!({ "region": "eu-west" })), Some("q"), schema) else {
            panic!("expected an accepted form");
        };
        assert_eq!(Value::Object(c), json!({ "region": "eu-west", "size": 2 }));
        let Ok(Form::Accept(c)) =
            from_answers(&answers(json!({ "q": { "region": "us", "size": "5" } })), Some("q"), schema)
        else {
            panic!("expected an accepted form");
        };
        assert_eq!(Value::Object(c), json!({ "region": "us", "size": 5 }));
        assert!(matches!(from_answers(&answers(json!({ "q": ":decline" })), Some("q"), schema), Ok(Form::Decline)));
        assert!(from_answers(&answers(json!({})), Some("q"), schema).is_err());
    }

    #[test]
    fn enum_schemas_become_numbered_choices() {
        let titled = json!({ "oneOf": [{ "const": "a", "title": "Apple" }, { "const": "b", "title": "Banana" }] });
        let list = choices(&titled).unwrap();
        assert_eq!(pick(&list, "2"), Some(json!("b")));
        assert_eq!(pick(&list, "Apple"), Some(json!("a")));
        assert_eq!(pick(&list, "3"), None);
        let legacy = json!({ "enum": ["x", "y"], "enumNames": ["Ex", "Why"] });
        assert_eq!(choices(&legacy).unwrap()[1], (json!("y"), "Why".to_owned()));
    }
}
