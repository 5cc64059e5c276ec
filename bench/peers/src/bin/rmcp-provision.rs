//! The `provision` flow of roundtrip's example, written by hand on rmcp 3.11 (the official Rust
//! SDK), served over streamable HTTP in its stateless, JSON-response mode at `/mcp`.
//!
//! ```text
//! rmcp-provision 127.0.0.1:8081
//! ```
//!
//! Two tools, the same as the roundtrip servers the benchmark compares with:
//!
//! - `provision(name)`: leg 1 answers an `InputRequiredResult` with one elicitation under the
//!   key `region` ("Which region should {name} live in?", a required string field `region`) and
//!   a `requestState` sealed by rmcp's `RequestStateCodec` (HMAC-SHA256, a 600 s TTL, bound by
//!   associated data to the method, the tool and its arguments). Leg 2 opens the echoed state
//!   with the same binding, reads the accepted answer and returns
//!   `Provisioned '{name}' in {region}.`.
//! - `test_simple_text()`: completes at once with the conformance suite's fixed text (the plain
//!   `tools/call` of the comparison; roundtrip serves it from its `conformance` example).
//!
//! Only protocol revision 2026-07-28 is offered, and the transport requires its per-request
//! signals (`MCP-Protocol-Version`, `_meta`), as roundtrip does.
//!
//! Built with the feature `lambda`, it serves an AWS Lambda function instead when the Lambda
//! runtime starts it (`AWS_LAMBDA_RUNTIME_API` set), as roundtrip's runner does: each event
//! goes through `lambda_http` to the same `StreamableHttpService`, its body read whole
//! (`scripts/bench-lambda.sh` compares its cold start with roundtrip's).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequests, InputRequiredResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, RequestStateCodec, SealOptions, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::net::TcpListener;

const TEXT: &str = "This is a simple text response for testing.";
/// How long a sealed state stays valid, as roundtrip's default.
const STATE_TTL: Duration = Duration::from_secs(600);

/// What leg 1 remembers for leg 2, sealed into `requestState`.
#[derive(Serialize, Deserialize)]
struct ProvisionState {
    /// The question asked, so that an answer is only taken for it.
    awaiting: String,
}

#[derive(Clone)]
struct Provision {
    codec: Arc<RequestStateCodec>,
    tools: Arc<Vec<Tool>>,
}

fn object(value: Value) -> Arc<Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(Map::new()),
    }
}

impl Provision {
    fn new(key: Vec<u8>) -> Result<Self, String> {
        let codec = RequestStateCodec::try_new(key).map_err(|e| e.to_string())?;
        let provision = Tool::new(
            "provision",
            "Provision a database. Asks which region to put it in.",
            object(json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Name of the database."}},
                "required": ["name"],
            })),
        );
        let simple = Tool::new("test_simple_text", "Returns simple text", object(json!({"type": "object"})));
        Ok(Self { codec: Arc::new(codec), tools: Arc::new(vec![provision, simple]) })
    }

    /// What the state is bound to, as the codec's associated data (mixed into the HMAC, not
    /// stored): the method, the tool and its one argument, `name` (roundtrip's seal binds the
    /// method, the target and a digest of the canonical arguments). A state echoed with another
    /// `name` fails to open.
    fn binding(name: &str) -> Vec<u8> {
        let mut binding = b"tools/call\0provision\0".to_vec();
        binding.extend_from_slice(name.as_bytes());
        binding
    }

    fn provision(&self, request: CallToolRequestParams) -> Result<CallToolResponse, ErrorData> {
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| ErrorData::invalid_params("`name` is required and must be a string", None))?;
        let binding = Self::binding(name);
        let Some(sealed) = request.request_state.as_deref() else {
            return self.ask(name, &binding);
        };
        let state: ProvisionState = self
            .codec
            .open_json_with(sealed, &binding)
            .map_err(|_| ErrorData::invalid_params("Invalid or expired requestState", None))?;
        if state.awaiting != "region" {
            return Err(ErrorData::invalid_params("Invalid or expired requestState", None));
        }
        let Some(answer) = request.input_responses.as_ref().and_then(|r| r.get("region")) else {
            // No answer to the question: ask it again (a fresh state, as on leg 1).
            return self.ask(name, &binding);
        };
        let answer = ElicitResult::deserialize(answer)
            .map_err(|_| ErrorData::invalid_params("invalid answer to `region`", None))?;
        match answer.action {
            ElicitationAction::Accept => {
                let region = answer
                    .content
                    .as_ref()
                    .and_then(|c| c.get("region"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| ErrorData::invalid_params("the answer to `region` must be a string", None))?;
                let text = format!("Provisioned '{name}' in {region}.");
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            _ => Ok(CallToolResult::error(vec![ContentBlock::text("The question was declined.")]).into()),
        }
    }

    /// Leg 1: one form elicitation and the sealed state.
    fn ask(&self, name: &str, binding: &[u8]) -> Result<CallToolResponse, ErrorData> {
        let schema = ElicitationSchema::builder()
            .required_string("region")
            .build()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let question = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: format!("Which region should {name} live in?"),
            requested_schema: schema,
        });
        let state = ProvisionState { awaiting: "region".to_owned() };
        let sealed = self
            .codec
            .seal_json_with(&state, &SealOptions::new().associated_data(binding).ttl(STATE_TTL))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut requests = InputRequests::new();
        requests.insert("region".to_owned(), InputRequest::Elicitation(question));
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
    }
}

impl ServerHandler for Provision {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&[ProtocolVersion::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "provision" => self.provision(request),
            "test_simple_text" => Ok(CallToolResult::success(vec![ContentBlock::text(TEXT)]).into()),
            other => Err(ErrorData::invalid_params(format!("Unknown tool: {other}"), None)),
        }
    }
}

/// A per-process key, as roundtrip's and the Python SDK's defaults (neither is configured here).
fn process_key() -> Vec<u8> {
    use std::hash::{BuildHasher, Hasher};
    let mut key = Vec::with_capacity(32);
    while key.len() < 32 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
        key.extend_from_slice(&h.finish().to_le_bytes());
    }
    key
}

/// The allocator is the application's choice; `--features mimalloc` is the peer benchmark's
/// `--mimalloc` row (every Rust server of that run built the same way).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8081".to_owned());
    let handler = Provision::new(process_key())?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_stateless_protocol_metadata_required(true);
    let service =
        StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(NeverSessionManager::default()), config);
    #[cfg(feature = "lambda")]
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some() {
        return lambda::serve(service).await;
    }
    let service = TowerToHyperService::new(service);
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("rmcp-provision (rmcp 3.11.0) serving MCP at http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

/// The service as a Lambda function: each `lambda_http` event handed to it with its body, the
/// answer collected (a JSON response: no stream outlives an invocation).
#[cfg(feature = "lambda")]
mod lambda {
    use bytes::Bytes;
    use http_body_util::{BodyExt as _, Full};
    use rmcp::transport::streamable_http_server::StreamableHttpService;
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;

    use super::Provision;

    pub async fn serve(
        service: StreamableHttpService<Provision, NeverSessionManager>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        lambda_http::run(lambda_http::service_fn(move |event: lambda_http::Request| {
            let service = service.clone();
            async move {
                let (parts, body) = event.into_parts();
                let request = http::Request::from_parts(parts, Full::new(Bytes::copy_from_slice(body.as_ref())));
                let (parts, body) = service.handle(request).await.into_parts();
                let body = body.collect().await.map(|collected| collected.to_bytes()).unwrap_or_default();
                Ok::<_, lambda_http::Error>(http::Response::from_parts(parts, lambda_http::Body::from(body.to_vec())))
            }
        }))
        .await
        .map_err(|e| e.to_string().into())
    }
}
