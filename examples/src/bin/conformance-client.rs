//! The client the official MCP conformance suite drives in its client mode:
//!
//! ```text
//! conformance client --command "target/debug/conformance-client" --scenario tools_call
//! ```
//!
//! The suite starts a mock server, appends its URL as the last argument and names the
//! scenario in `MCP_CONFORMANCE_SCENARIO` (and, for some, passes arguments in
//! `MCP_CONFORMANCE_CONTEXT`). This client connects over streamable HTTP with
//! `roundtrip::client::Client` and does what the scenario exercises; it answers every
//! question the server asks (elicitation: accept with the schema's defaults or sample
//! values; sampling: a canned reply; roots: none). Exit status 1 on any error.
//!
//! For the `auth/*` scenarios it signs in with OAuth as any app would, configured the way an
//! app's settings would configure it: a client metadata document URL (the suite's mock
//! authorization servers accept the one below without fetching it), pre-registered
//! credentials when the suite hands some over in the context (`client_id`, `client_secret`),
//! and a user agent that follows the authorization endpoint's redirect itself (the mock
//! servers redirect at once, without a login page).

use std::process::ExitCode;

use futures::future::BoxFuture;
use roundtrip::client::oauth::{
    AssertionSource, AuthorizationHandler, ClientAssertionKey, ClientInfo, EnterpriseIdp, OAuth,
};
use roundtrip::client::{Client, ClientError, Step};
use roundtrip::protocol::{CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, JsonObject, Tool};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL   (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    eprintln!("conformance-client: scenario `{scenario}` against {url}");
    match run(&scenario, &url, &context).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-client: {e}");
            ExitCode::FAILURE
        }
    }
}

/// This client's metadata document URL (the suite's mock servers take it as it is).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The user agent of a headless run: request the authorization URL and read the redirect's
/// `Location` instead of showing a login page to anyone.
#[derive(Debug)]
struct FollowRedirect {
    http: reqwest::Client,
}

impl AuthorizationHandler for FollowRedirect {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1:3000/callback".into()
    }

    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String, ClientError>> {
        let request = self.http.get(&authorization_url).send();
        Box::pin(async move {
            let response = request.await.map_err(|e| ClientError::Auth(e.to_string()))?;
            let location = response.headers().get("location").and_then(|v| v.to_str().ok());
            location.map(str::to_owned).ok_or_else(|| {
                ClientError::Auth(format!(
                    "the authorization endpoint answered {} without a redirect",
                    response.status()
                ))
            })
        })
    }
}

fn oauth(context: &Value) -> Result<OAuth, ClientError> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ClientError::Transport(e.to_string()))?;
    let text = |key: &str| context.get(key).and_then(Value::as_str);
    // Settings that say how a machine client signs in (the auth extensions).
    if let (Some(id), Some(pem)) = (text("client_id"), text("private_key_pem")) {
        // Client credentials with a private key (private_key_jwt).
        let key = ClientAssertionKey::from_pem(pem, text("signing_algorithm").unwrap_or("ES256"))?;
        return Ok(OAuth::client_credentials(ClientInfo::public(id)).private_key_jwt(key));
    }
    if let Some(jwt) = text("valid_jwt") {
        // A workload's identity token in the JWT bearer grant.
        let oauth = OAuth::jwt_bearer(AssertionSource::fixed(jwt));
        return Ok(match text("client_id") {
            Some(id) => oauth.pre_registered(
                ClientInfo { token_endpoint_auth_method: Some("none".into()), ..ClientInfo::public(id) },
                None,
            ),
            None => oauth,
        });
    }
    if let (Some(endpoint), Some(idp_client), Some(id_token), Some(id), Some(secret)) = (
        text("idp_token_endpoint"),
        text("idp_client_id"),
        text("idp_id_token"),
        text("client_id"),
        text("client_secret"),
    ) {
        // Enterprise-managed: the user's ID token from the identity provider.
        let idp = EnterpriseIdp::new(endpoint, idp_client, AssertionSource::fixed(id_token));
        return Ok(OAuth::enterprise(idp, ClientInfo::confidential(id, secret)));
    }
    let credentials = context.get("client_id").and_then(Value::as_str).map(|id| {
        match context.get("client_secret").and_then(Value::as_str) {
            Some(secret) => ClientInfo::confidential(id, secret),
            None => ClientInfo::public(id),
        }
    });
    // A machine client (the client-credentials extension) signs in without a user.
    let machine = context.get("name").and_then(Value::as_str) == Some("auth/client-credentials-basic");
    Ok(match credentials {
        Some(client) if machine => OAuth::client_credentials(client),
        Some(client) => {
            OAuth::new(FollowRedirect { http }).client_metadata_url(CLIENT_METADATA_URL).pre_registered(client, None)
        }
        None => OAuth::new(FollowRedirect { http }).client_metadata_url(CLIENT_METADATA_URL),
    })
}

async fn connect(url: &str, context: &Value) -> Result<Client, ClientError> {
    Client::builder("roundtrip-conformance-client", env!("CARGO_PKG_VERSION"))
        .oauth(oauth(context)?)
        .on_elicit(|params| async move {
            let content = match &params {
                ElicitParams::Form(form) => Some(sample_object(&form.requested_schema, true)),
                _ => None,
            };
            Ok(ElicitResult::new(ElicitAction::Accept, content))
        })
        .on_sample(|_| async {
            Ok(CreateMessageResult::text("This is a sampled reply from the conformance client.", "conformance-client")
                .with_stop_reason("endTurn"))
        })
        .on_roots(|| async { Ok(Vec::new()) })
        .connect_http(url)
        .await
}

async fn run(scenario: &str, url: &str, context: &Value) -> Result<(), ClientError> {
    let client = connect(url, context).await?;
    eprintln!("connected: {} ({:?})", client.protocol_version(), client.server_info());
    match scenario {
        "sep-2322-client-request-state" => request_state(&client).await,
        "http-standard-headers" => everything(&client).await,
        // Skills: list only; no file of any skill is read ahead of need.
        "sep-2640-client-no-prefetch" => {
            for skill in client.list_skills().await? {
                println!("skill {}: {}", skill.name(), skill.description());
            }
            Ok(())
        }
        // A host that decided it needs the first skill: load it (its SKILL.md, checked against
        // the listing's size, digest and frontmatter). The suite's server tampers with it, so
        // loading fails, and nothing more of the skill is read.
        "sep-2640-client-verify-digest" | "sep-2640-client-verify-size" | "sep-2640-client-verify-frontmatter" => {
            let skills = client.list_skills().await?;
            let first = skills.first().ok_or_else(|| ClientError::Protocol("no skill listed".into()))?;
            let skill = client.load_skill(first).await?;
            println!("loaded {}: {} bytes of instructions", skill.name(), skill.body().len());
            Ok(())
        }
        // Echo a tool's input schema as received: 2020-12 keywords ($defs, $anchor, if/then/else,
        // allOf/anyOf) are data and pass through untouched.
        "json-schema-2020-12-preservation" => {
            let tools = client.list_all_tools().await?;
            let tool = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or_else(|| ClientError::Protocol("json_schema_2020_12_tool is not listed".into()))?;
            let schema = Value::Object(tool.input_schema.clone());
            call_tool(&client, "json_schema_echo", json!({ "schema": schema })).await
        }
        "json-schema-ref-no-deref" => {
            // List only: schemas are data to this client, and a `$ref` is never fetched.
            for tool in client.list_all_tools().await? {
                println!("tool {}: {}", tool.name, Value::Object(tool.input_schema));
            }
            Ok(())
        }
        _ => {
            let tools = client.list_all_tools().await?;
            match context.get("toolCalls").and_then(Value::as_array) {
                // The scenario names the calls (http-custom-headers).
                Some(calls) => {
                    for call in calls {
                        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                        let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
                        call_tool(&client, name, arguments).await?;
                    }
                    Ok(())
                }
                // Otherwise call every (valid) tool with arguments made from its schema
                // (tools_call, request-metadata, http-invalid-tool-headers).
                None => {
                    for tool in &tools {
                        call_tool(&client, &tool.name, sample_arguments(tool)).await?;
                    }
                    Ok(())
                }
            }
        }
    }
}

async fn call_tool(client: &Client, name: &str, arguments: Value) -> Result<(), ClientError> {
    let result = client.call_tool(name, arguments).await?;
    let text: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).collect();
    println!("{name}: {}", text.join(" "));
    Ok(())
}

/// SEP-2322: echo `requestState` unchanged, omit it when none came, send nothing of one flow
/// on an unrelated call made between its rounds, and treat a result without `resultType`
/// as complete.
async fn request_state(client: &Client) -> Result<(), ClientError> {
    client.list_all_tools().await?;
    let confirm = |key: &str| {
        let mut answers = JsonObject::new();
        answers.insert(key.into(), json!({ "action": "accept", "content": { "confirmed": true } }));
        answers
    };
    // Round 1 of the stateful flow, then an unrelated call, then the retry.
    let first = client.call_tool_step("test_mrtr_echo_state", json!({}), None, None).await?;
    let Step::InputRequired(round) = first else {
        return Err(ClientError::Protocol("test_mrtr_echo_state did not ask".into()));
    };
    call_tool(client, "test_mrtr_unrelated", json!({})).await?;
    let keys: Vec<String> = round.input_requests.unwrap_or_default().into_keys().collect();
    let answers = keys.iter().fold(JsonObject::new(), |mut acc, k| {
        acc.extend(confirm(k));
        acc
    });
    match client.call_tool_step("test_mrtr_echo_state", json!({}), Some(answers), round.request_state).await? {
        Step::Complete(r) => println!("test_mrtr_echo_state: {:?}", r.content.first().and_then(|c| c.as_text())),
        Step::InputRequired(_) => return Err(ClientError::Protocol("test_mrtr_echo_state asked again".into())),
        Step::Task(_) => return Err(ClientError::Protocol("test_mrtr_echo_state became a task".into())),
    }
    // The loop answers through the callbacks and sends no state when none came.
    call_tool(client, "test_mrtr_no_state", json!({})).await?;
    call_tool(client, "test_mrtr_no_result_type", json!({})).await
}

/// Exercise every request that carries standard headers: tools, resources and prompts.
async fn everything(client: &Client) -> Result<(), ClientError> {
    for tool in client.list_all_tools().await? {
        call_tool(client, &tool.name, sample_arguments(&tool)).await?;
    }
    for resource in client.list_resources().await?.resources {
        let read = client.read_resource(&resource.uri).await?;
        println!("{}: {} content item(s)", resource.uri, read.contents.len());
    }
    for prompt in client.list_prompts().await?.prompts {
        let args: JsonObject = prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true))
            .map(|a| (a.name.clone(), json!("test")))
            .collect();
        let got = client.get_prompt(&prompt.name, Value::Object(args)).await?;
        println!("{}: {} message(s)", prompt.name, got.messages.len());
    }
    Ok(())
}

/// Arguments for a tool: its required properties filled from their schemas.
fn sample_arguments(tool: &Tool) -> Value {
    Value::Object(sample_object(&tool.input_schema, false))
}

/// An object for an object schema: every property (`all`) or only the required ones.
fn sample_object(schema: &JsonObject, all: bool) -> JsonObject {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut n = 0;
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(name, _)| all || required.contains(&name.as_str()))
        .map(|(name, prop)| {
            n += 1;
            (name.clone(), sample_value(prop, n))
        })
        .collect()
}

fn sample_value(schema: &Value, n: i64) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("string"),
        _ => "string",
    };
    match ty {
        "integer" | "number" => json!(n),
        "boolean" => json!(true),
        "object" => Value::Object(schema.as_object().map(|o| sample_object(o, false)).unwrap_or_default()),
        "array" => json!([]),
        "null" => Value::Null,
        _ => json!("test"),
    }
}
