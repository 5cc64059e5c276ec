//! The OAuth 2.1 resource server (feature `auth`), end to end over real sockets: a test
//! authorization server on loopback (its ES256 keys generated here, its metadata, JWKS and
//! introspection endpoint served by axum, over plain HTTP or over TLS with a certificate of a
//! CA made here), tokens minted by it, and a protected MCP endpoint.

#![allow(clippy::unwrap_used)] // a test fails loudly

mod tls;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State as AxumState;
use axum::routing::{get, post};
use base64::Engine;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use roundtrip::auth::{IntrospectionVerifier, JwtVerifier, ResourceServer};
use roundtrip::client::{Client, ClientError, Step};
use roundtrip::prelude::*;
use roundtrip::protocol::TaskStatus;
use roundtrip::transport::http::HttpOptions;
use serde_json::{Value, json};

const V: &str = "2026-07-28";

// ---------------------------------------------------------------------------------------------
// The MCP server under test.

/// Who the token says the caller is.
#[tool(read_only)]
async fn whoami(cx: &RequestContext) -> String {
    match cx.auth() {
        Some(a) => format!("{} via {} with {}", a.subject, a.client_id.as_deref().unwrap_or("?"), a.scopes.join(" ")),
        None => "anonymous".into(),
    }
}

static CHECKS_RUN: AtomicUsize = AtomicUsize::new(0);

async fn known_service(service: String) -> Result<(), String> {
    CHECKS_RUN.fetch_add(1, Ordering::SeqCst);
    if service.is_empty() { Err("no service".into()) } else { Ok(()) }
}

/// Deploy a service: needs `deploy:write`, checks the service, then asks for a confirmation.
#[tool(destructive, scopes = ["deploy:write"], check = known_service(service))]
async fn deploy(service: String, #[resolve(elicit = "Deploy {service} now?")] confirm: bool) -> String {
    format!("deployed {service}: {confirm}")
}

/// Greets: asks the name (a two-leg flow whose state is bound to the caller).
#[tool]
async fn greet(#[resolve(elicit = "Your name?")] name: String) -> String {
    format!("Hello, {name}!")
}

/// A task that stays working while a test looks at it.
#[tool(task)]
async fn idle() -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "rested".into()
}

fn mcp_server() -> Server {
    Server::new("protected", "1.0.0").tools(tools![whoami, deploy, greet, idle])
}

// ---------------------------------------------------------------------------------------------
// The test authorization server.

/// One ES256 signing key of the issuer.
#[derive(Clone)]
struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    jwk: Jwk,
}

impl SigningKey {
    fn generate(kid: &str) -> Self {
        let secret = p256::SecretKey::random(&mut rand::rngs::OsRng);
        let der = secret.to_pkcs8_der().unwrap();
        let encoding = EncodingKey::from_ec_der(der.as_bytes());
        let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).unwrap();
        jwk.common.key_id = Some(kid.to_owned());
        Self { kid: kid.to_owned(), encoding, jwk }
    }
}

#[derive(Default)]
struct IssuerState {
    issuer: String,
    /// The keys the JWKS endpoint publishes.
    published: Mutex<Vec<Jwk>>,
    jwks_fetches: AtomicUsize,
    /// Opaque token → introspection answer.
    introspection: Mutex<HashMap<String, Value>>,
    introspections: AtomicUsize,
}

struct Issuer {
    url: String,
    state: Arc<IssuerState>,
    key: SigningKey,
}

const RS_CLIENT: (&str, &str) = ("rs-client", "rs-secret");

async fn start_issuer() -> Issuer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (issuer, app) = issuer_at(url);
    tokio::spawn(async move { axum::serve(listener, app).await });
    issuer
}

/// The issuer at `https://localhost:<port>`, over TLS with a certificate of `ca`; also how many
/// TLS handshakes it saw refused (by a client that does not trust `ca`).
async fn start_issuer_over_tls(ca: &tls::TestCa) -> (Issuer, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://localhost:{}", listener.local_addr().unwrap().port());
    let (issuer, app) = issuer_at(url);
    let listener = TlsListener::new(listener, ca.server_config());
    let refused = listener.refused.clone();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (issuer, refused)
}

/// The issuer whose identifier is `url`, and its routes.
fn issuer_at(url: String) -> (Issuer, axum::Router) {
    let key = SigningKey::generate("key-1");
    let state = Arc::new(IssuerState { issuer: url.clone(), ..IssuerState::default() });
    state.published.lock().unwrap().push(key.jwk.clone());
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(|AxumState(s): AxumState<Arc<IssuerState>>| async move {
                axum::Json(json!({
                    "issuer": s.issuer,
                    "jwks_uri": format!("{}/jwks", s.issuer),
                    "introspection_endpoint": format!("{}/introspect", s.issuer),
                    "response_types_supported": ["code"],
                }))
            }),
        )
        .route(
            "/jwks",
            get(|AxumState(s): AxumState<Arc<IssuerState>>| async move {
                s.jwks_fetches.fetch_add(1, Ordering::SeqCst);
                axum::Json(JwkSet { keys: s.published.lock().unwrap().clone() })
            }),
        )
        .route("/introspect", post(introspect))
        .with_state(state.clone());
    (Issuer { url, state, key }, app)
}

type TlsConnection = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;

/// TLS for `axum::serve`: connections accepted on a TCP listener, each brought through the
/// handshake in its own task (a client that refuses the certificate holds up no other).
struct TlsListener {
    accepted: tokio::sync::mpsc::Receiver<(TlsConnection, std::net::SocketAddr)>,
    addr: std::net::SocketAddr,
    /// Handshakes that failed.
    refused: Arc<AtomicUsize>,
}

impl TlsListener {
    fn new(listener: tokio::net::TcpListener, config: Arc<tokio_rustls::rustls::ServerConfig>) -> Self {
        let addr = listener.local_addr().unwrap();
        let refused = Arc::new(AtomicUsize::new(0));
        let (sender, accepted) = tokio::sync::mpsc::channel(16);
        let acceptor = tokio_rustls::TlsAcceptor::from(config);
        let counter = refused.clone();
        tokio::spawn(async move {
            while let Ok((tcp, peer)) = listener.accept().await {
                let (acceptor, sender, counter) = (acceptor.clone(), sender.clone(), counter.clone());
                tokio::spawn(async move {
                    match acceptor.accept(tcp).await {
                        Ok(tls) => drop(sender.send((tls, peer)).await),
                        Err(_) => drop(counter.fetch_add(1, Ordering::SeqCst)),
                    }
                });
            }
        });
        Self { accepted, addr, refused }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsConnection;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.accepted.recv().await {
            Some(connection) => connection,
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.addr)
    }
}

/// RFC 7662: the resource server authenticates with HTTP Basic and posts `token=…`.
async fn introspect(
    AxumState(s): AxumState<Arc<IssuerState>>,
    headers: http::HeaderMap,
    body: String,
) -> (http::StatusCode, axum::Json<Value>) {
    s.introspections.fetch_add(1, Ordering::SeqCst);
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", RS_CLIENT.0, RS_CLIENT.1));
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&format!("Basic {basic}")) {
        return (http::StatusCode::UNAUTHORIZED, axum::Json(json!({"error": "invalid_client"})));
    }
    let form: HashMap<&str, &str> = body.split('&').filter_map(|kv| kv.split_once('=')).collect();
    let answer = form
        .get("token")
        .and_then(|t| s.introspection.lock().unwrap().get(*t).cloned())
        .unwrap_or_else(|| json!({"active": false}));
    (http::StatusCode::OK, axum::Json(answer))
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

impl Issuer {
    /// A token of this issuer for `aud`, signed with `key`, with `patch` applied to the claims.
    fn mint_with(&self, key: &SigningKey, aud: &str, subject: &str, scope: &str, patch: Value) -> String {
        let mut claims = json!({
            "iss": self.url, "sub": subject, "aud": aud, "client_id": "test-client",
            "scope": scope, "iat": now(), "exp": now() + 300,
        });
        for (k, v) in patch.as_object().unwrap() {
            claims[k] = v.clone();
        }
        let header = Header { kid: Some(key.kid.clone()), ..Header::new(Algorithm::ES256) };
        jsonwebtoken::encode(&header, &claims, &key.encoding).unwrap()
    }

    fn mint(&self, aud: &str, subject: &str, scope: &str) -> String {
        self.mint_with(&self.key, aud, subject, scope, json!({}))
    }
}

// ---------------------------------------------------------------------------------------------
// The protected endpoint.

struct Protected {
    /// The resource identifier, which is also the endpoint's URL.
    url: String,
    origin: String,
    http: reqwest::Client,
}

/// Serve [`mcp_server`] at `/mcp`, protected by a resource server `configure` builds for the
/// endpoint's URL (only known once the port is bound).
async fn protect(configure: impl FnOnce(&str) -> ResourceServer) -> Protected {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{origin}/mcp");
    let router = mcp_server().router_with(HttpOptions::default().auth(configure(&url)));
    tokio::spawn(async move { axum::serve(listener, router).await });
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    Protected { url, origin, http }
}

/// The usual setup: JWTs of `issuer`, discovered from its metadata; every request needs
/// `mcp:tools`.
async fn protect_with_jwt(issuer: &Issuer) -> Protected {
    protect_with_verifier(issuer, |verifier| verifier).await
}

/// The usual setup with the verifier as `configure` leaves it.
async fn protect_with_verifier(issuer: &Issuer, configure: impl FnOnce(JwtVerifier) -> JwtVerifier) -> Protected {
    let iss = issuer.url.clone();
    protect(|resource| {
        ResourceServer::new(resource, configure(JwtVerifier::new(&iss, resource)))
            .authorization_server(&iss)
            .required_scopes(["mcp:tools"])
    })
    .await
}

impl Protected {
    fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.origin)
    }

    /// A 2026-07-28 request with the token (if any): `_meta` in the body, the standard headers.
    async fn call(&self, token: Option<&str>, method: &str, mut params: Value) -> reqwest::Response {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
        });
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", V)
            .header("Mcp-Method", method);
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            request = request.header("Mcp-Name", name);
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        request.body(body.to_string()).send().await.unwrap()
    }

    async fn call_tool(&self, token: Option<&str>, name: &str, arguments: Value) -> reqwest::Response {
        self.call(token, "tools/call", json!({ "name": name, "arguments": arguments })).await
    }
}

fn challenge(response: &reqwest::Response) -> String {
    response.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
}

async fn result_of(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    body.get("result").cloned().unwrap_or_else(|| panic!("no result in {body}"))
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {result}"))
}

// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_metadata_is_served_at_the_root_and_the_path_suffixed_well_known_uri() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"] {
        let response = rs.http.get(format!("{}{path}", rs.origin)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let doc: Value = response.json().await.unwrap();
        assert_eq!(
            doc,
            json!({
                "resource": rs.url,
                "authorization_servers": [issuer.url],
                "scopes_supported": ["mcp:tools", "deploy:write"],
                "bearer_methods_supported": ["header"],
            }),
            "{path}"
        );
    }
}

#[tokio::test]
async fn no_token_is_401_with_the_metadata_and_the_scope_on_every_method() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let expected = format!("Bearer resource_metadata=\"{}\", scope=\"mcp:tools\"", rs.metadata_url());
    let response = rs.call_tool(None, "whoami", json!({})).await;
    assert_eq!(response.status(), 401);
    assert_eq!(challenge(&response), expected);
    // The GET stream and DELETE of a session too; a token in the query string is not read.
    let token = issuer.mint(&rs.url, "alice", "mcp:tools");
    for request in [
        rs.http.get(&rs.url).header("accept", "text/event-stream"),
        rs.http.delete(&rs.url).header("mcp-session-id", "x"),
        rs.http.post(format!("{}?access_token={token}", rs.url)).header("content-type", "application/json"),
    ] {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401);
        assert_eq!(challenge(&response), expected);
    }
    // Another scheme is no bearer token.
    let response = rs.http.post(&rs.url).header("authorization", "Basic YTpi").body("{}").send().await.unwrap();
    assert_eq!((response.status().as_u16(), challenge(&response)), (401, expected));
}

#[tokio::test]
async fn a_token_that_does_not_verify_is_401_invalid_token() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let stranger = SigningKey::generate("key-1");
    let bad = [
        ("bad signature", issuer.mint_with(&stranger, &rs.url, "alice", "mcp:tools", json!({}))),
        ("wrong audience", issuer.mint(&format!("{}/other", rs.origin), "alice", "mcp:tools")),
        ("expired", issuer.mint_with(&issuer.key, &rs.url, "alice", "mcp:tools", json!({"exp": now() - 3600}))),
        ("not yet valid", issuer.mint_with(&issuer.key, &rs.url, "alice", "mcp:tools", json!({"nbf": now() + 3600}))),
        ("wrong issuer", issuer.mint_with(&issuer.key, &rs.url, "alice", "mcp:tools", json!({"iss": "http://evil"}))),
        ("no expiry", issuer.mint_with(&issuer.key, &rs.url, "alice", "mcp:tools", json!({"exp": null}))),
        ("not a JWT", "opaque-garbage".to_owned()),
    ];
    for (why, token) in bad {
        let response = rs.call_tool(Some(&token), "whoami", json!({})).await;
        assert_eq!(response.status(), 401, "{why}");
        let challenge = challenge(&response);
        assert!(challenge.starts_with("Bearer error=\"invalid_token\", "), "{why}: {challenge}");
        assert!(challenge.contains(&format!("resource_metadata=\"{}\"", rs.metadata_url())), "{why}: {challenge}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "invalid_token", "{why}");
    }
    // Within the leeway, an expiry a little in the past still passes (clock skew).
    let skewed = issuer.mint_with(&issuer.key, &rs.url, "alice", "mcp:tools", json!({"exp": now() - 5}));
    assert_eq!(rs.call_tool(Some(&skewed), "whoami", json!({})).await.status(), 200);
}

#[tokio::test]
async fn a_valid_token_reaches_the_tool_which_sees_its_principal() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let token = issuer.mint(&rs.url, "alice", "mcp:tools profile");
    let result = result_of(rs.call_tool(Some(&token), "whoami", json!({})).await).await;
    assert_eq!(text_of(&result), "alice via test-client with mcp:tools profile");
    // The server-wide scope is required of every request.
    let response = rs.call_tool(Some(&issuer.mint(&rs.url, "alice", "profile")), "whoami", json!({})).await;
    assert_eq!(response.status(), 403);
    assert_eq!(
        challenge(&response),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:tools\", resource_metadata=\"{}\", \
             error_description=\"The access token lacks a scope this request needs\"",
            rs.metadata_url()
        )
    );
}

/// The issuer's metadata and JWKS come over TLS, from `https://localhost:<port>` whose
/// certificate chains to a CA made here, given to the verifier as its client's only root.
#[tokio::test]
async fn a_token_of_an_https_issuer_is_verified_with_the_root_given_to_the_verifier() {
    let ca = tls::TestCa::new();
    let (issuer, refused) = start_issuer_over_tls(&ca).await;
    assert!(issuer.url.starts_with("https://localhost:"), "{}", issuer.url);
    let trusting = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(ca.root())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let rs = protect_with_verifier(&issuer, |verifier| verifier.http_client(trusting)).await;
    let token = issuer.mint(&rs.url, "alice", "mcp:tools");
    let result = result_of(rs.call_tool(Some(&token), "whoami", json!({})).await).await;
    assert_eq!(text_of(&result), "alice via test-client with mcp:tools");
    assert_eq!(issuer.state.jwks_fetches.load(Ordering::SeqCst), 1, "the keys came over TLS");
    assert_eq!(refused.load(Ordering::SeqCst), 0);
}

/// A verifier that does not trust the CA (its default client trusts the system's roots only)
/// refuses the issuer's certificate at the handshake: the token cannot be checked, `503` at
/// once (not after a timeout), and the reason names the certificate.
#[tokio::test]
async fn a_verifier_without_the_root_refuses_the_https_issuer_at_once() {
    let ca = tls::TestCa::new();
    let (issuer, refused) = start_issuer_over_tls(&ca).await;
    let rs = protect_with_jwt(&issuer).await;
    let token = issuer.mint(&rs.url, "alice", "mcp:tools");
    let started = std::time::Instant::now();
    let response = rs.call_tool(Some(&token), "whoami", json!({})).await;
    assert_eq!(response.status(), 503);
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(refused.load(Ordering::SeqCst) >= 1, "the verifier reached the issuer and refused its certificate");
    assert_eq!(issuer.state.jwks_fetches.load(Ordering::SeqCst), 0);

    // What the log says, through the verifier itself.
    use roundtrip::auth::{TokenVerifier, VerifyError};
    let verifier = JwtVerifier::new(&issuer.url, &rs.url);
    match verifier.verify(&token).await {
        Err(VerifyError::Unavailable(why)) => {
            assert!(why.contains("invalid peer certificate: UnknownIssuer"), "{why}");
        }
        other => panic!("expected the issuer to be unreachable, got {other:?}"),
    }
}

#[tokio::test]
async fn a_tool_scope_is_enforced_before_any_check_or_question() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let before = CHECKS_RUN.load(Ordering::SeqCst);
    let basic = issuer.mint(&rs.url, "alice", "mcp:tools");
    let response = rs.call_tool(Some(&basic), "deploy", json!({"service": "api"})).await;
    assert_eq!(response.status(), 403);
    let challenge = challenge(&response);
    assert!(
        challenge.starts_with(&format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:tools deploy:write\", resource_metadata=\"{}\"",
            rs.metadata_url()
        )),
        "{challenge}"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "insufficient_scope");
    assert_eq!(CHECKS_RUN.load(Ordering::SeqCst), before, "the check did not run");
    // Other tools stay callable with the same token.
    assert_eq!(rs.call_tool(Some(&basic), "whoami", json!({})).await.status(), 200);

    // Stepped up: the check runs and the question is asked.
    let stepped_up = issuer.mint(&rs.url, "alice", "mcp:tools deploy:write");
    let result = result_of(rs.call_tool(Some(&stepped_up), "deploy", json!({"service": "api"})).await).await;
    assert_eq!(result["resultType"], "input_required");
    assert!(result["inputRequests"]["confirm"].is_object(), "{result}");
    assert_eq!(CHECKS_RUN.load(Ordering::SeqCst), before + 1);
    // The retry with the answer is refused without the scope too, though its state is sound.
    let retry = json!({
        "name": "deploy", "arguments": {"service": "api"},
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
        "requestState": result["requestState"],
    });
    assert_eq!(rs.call(Some(&basic), "tools/call", retry.clone()).await.status(), 403);
    let done = result_of(rs.call(Some(&stepped_up), "tools/call", retry).await).await;
    assert_eq!(text_of(&done), "deployed api: true");
}

/// The names `tools/list` gave.
fn tool_names(result: &Value) -> Vec<&str> {
    result["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect()
}

#[tokio::test]
async fn tools_list_shows_a_token_only_the_tools_it_may_call() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let basic = issuer.mint(&rs.url, "alice", "mcp:tools");
    let full = issuer.mint(&rs.url, "bob", "mcp:tools deploy:write");
    let list = |token: String| {
        let rs = &rs;
        async move { result_of(rs.call(Some(&token), "tools/list", json!({})).await).await }
    };
    // Alice, then Bob, then Alice again: each sees their own list, and neither list is shared.
    for (token, sees_deploy) in [(&basic, false), (&full, true), (&basic, false)] {
        let listed = list(token.clone()).await;
        let names = tool_names(&listed);
        assert_eq!(names.contains(&"deploy"), sees_deploy, "{names:?}");
        assert!(names.contains(&"whoami"), "{names:?}");
        assert_eq!(listed["cacheScope"], "private", "a list that depends on the caller is private");
    }
    // Describing the server still shows every tool.
    assert!(mcp_server().describe().to_json()["tools"].as_array().unwrap().iter().any(|t| t["name"] == "deploy"));

    // Off: everyone sees every tool (the shared list), and the call is what gets refused.
    let iss = issuer.url.clone();
    let open = protect(|resource| {
        ResourceServer::new(resource, JwtVerifier::new(&iss, resource))
            .authorization_server(&iss)
            .required_scopes(["mcp:tools"])
            .hide_tools_out_of_scope(false)
    })
    .await;
    let basic = issuer.mint(&open.url, "alice", "mcp:tools");
    let listed = result_of(open.call(Some(&basic), "tools/list", json!({})).await).await;
    assert!(tool_names(&listed).contains(&"deploy"));
    assert_eq!(listed["cacheScope"], "public");
    assert_eq!(open.call_tool(Some(&basic), "deploy", json!({"service": "api"})).await.status(), 403);
}

#[tokio::test]
async fn state_sent_under_another_principal_gets_the_frozen_error() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let alice = issuer.mint(&rs.url, "alice", "mcp:tools");
    let first = result_of(rs.call_tool(Some(&alice), "greet", json!({})).await).await;
    assert_eq!(first["resultType"], "input_required");
    let retry = json!({
        "name": "greet", "arguments": {},
        "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}},
        "requestState": first["requestState"],
    });
    let bob = issuer.mint(&rs.url, "bob", "mcp:tools");
    let response = rs.call(Some(&bob), "tools/call", retry.clone()).await;
    // A rejected request is answered 400 by the transport, with the frozen error.
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], json!({"code": -32602, "message": "Invalid or expired requestState"}));
    // Alice finishes with another token of hers (other client, more scopes): the state is
    // bound to the issuer and the subject, not to one token.
    let alice_again = issuer.mint_with(
        &issuer.key,
        &rs.url,
        "alice",
        "mcp:tools deploy:write",
        json!({"client_id": "another-client"}),
    );
    let done = result_of(rs.call(Some(&alice_again), "tools/call", retry).await).await;
    assert_eq!(text_of(&done), "Hello, Ada!");
}

#[tokio::test]
async fn a_task_is_visible_only_to_the_principal_that_created_it() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let as_user = |token: String| {
        Client::builder("owner-test", "1").tasks(true).authorization(move || Some(format!("Bearer {token}")))
    };
    let alice = as_user(issuer.mint(&rs.url, "alice", "mcp:tools")).connect_http(&rs.url).await.unwrap();
    let bob = as_user(issuer.mint(&rs.url, "bob", "mcp:tools")).connect_http(&rs.url).await.unwrap();
    let Step::Task(task) = alice.call_tool_step("idle", json!({}), None, None).await.unwrap() else { panic!("a task") };
    assert_eq!(alice.get_task(&task.task_id).await.unwrap().task.task.status, TaskStatus::Working);
    let answers = json!({"overwrite": {"action": "accept", "content": {"overwrite": true}}});
    let update = bob.update_task(&task.task_id, answers.as_object().cloned().unwrap()).await;
    for attempt in [bob.get_task(&task.task_id).await.map(drop), update, bob.cancel_task(&task.task_id).await] {
        let err = attempt.unwrap_err();
        assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602), "{err:?}");
    }
    assert_eq!(alice.get_task(&task.task_id).await.unwrap().task.task.status, TaskStatus::Working, "bob did nothing");
    alice.cancel_task(&task.task_id).await.unwrap();
}

#[tokio::test]
async fn an_unknown_key_refreshes_the_jwks_within_its_budget() {
    let issuer = start_issuer().await;
    let iss = issuer.url.clone();
    let jwks = format!("{iss}/jwks");
    let rs = protect(|resource| {
        let verifier =
            JwtVerifier::new(&iss, resource).jwks_uri(&jwks).refresh_interval(Duration::ZERO).refresh_budget(2);
        ResourceServer::new(resource, verifier).authorization_server(&iss)
    })
    .await;
    let fetches = || issuer.state.jwks_fetches.load(Ordering::SeqCst);
    let token = issuer.mint(&rs.url, "alice", "");
    assert_eq!(rs.call_tool(Some(&token), "whoami", json!({})).await.status(), 200);
    assert_eq!(rs.call_tool(Some(&token), "whoami", json!({})).await.status(), 200);
    assert_eq!(fetches(), 1, "the keys are cached");

    // The issuer rotates in a new key; its first token makes the verifier fetch again.
    let rotated = SigningKey::generate("key-2");
    issuer.state.published.lock().unwrap().push(rotated.jwk.clone());
    let token = issuer.mint_with(&rotated, &rs.url, "alice", "", json!({}));
    assert_eq!(rs.call_tool(Some(&token), "whoami", json!({})).await.status(), 200);
    assert_eq!(fetches(), 2);

    // Made-up key ids cannot make it fetch past the minute's budget; until the budget allows
    // a fetch, a key not in hand may be a rotated one: 503 with when to retry.
    for i in 0..5 {
        let forged = SigningKey::generate(&format!("forged-{i}"));
        let token = issuer.mint_with(&forged, &rs.url, "alice", "", json!({}));
        let response = rs.call_tool(Some(&token), "whoami", json!({})).await;
        assert_eq!(response.status(), 503);
        let retry_after = retry_after(&response);
        assert!((1..=60).contains(&retry_after), "Retry-After: {retry_after}");
    }
    assert_eq!(fetches(), 2, "the budget of two fetches a minute is spent");
}

/// The `Retry-After` of `response`, in seconds.
fn retry_after(response: &reqwest::Response) -> u64 {
    let value = response.headers().get("retry-after").expect("a Retry-After header");
    value.to_str().expect("ascii").parse().expect("seconds")
}

#[tokio::test]
async fn a_rotated_key_waiting_for_the_refresh_budget_is_503_with_retry_after_not_401() {
    let issuer = start_issuer().await;
    let iss = issuer.url.clone();
    let jwks = format!("{iss}/jwks");
    let rs = protect(|resource| {
        let verifier =
            JwtVerifier::new(&iss, resource).jwks_uri(&jwks).refresh_interval(Duration::ZERO).refresh_budget(1);
        ResourceServer::new(resource, verifier).authorization_server(&iss)
    })
    .await;
    let token = issuer.mint(&rs.url, "alice", "");
    assert_eq!(rs.call_tool(Some(&token), "whoami", json!({})).await.status(), 200);
    // The issuer rotates in a new key, but the minute's one fetch is spent: the client is told
    // to come back when the keys can be fetched again, its token being perhaps good.
    let rotated = SigningKey::generate("key-2");
    issuer.state.published.lock().unwrap().push(rotated.jwk.clone());
    let token = issuer.mint_with(&rotated, &rs.url, "alice", "", json!({}));
    let response = rs.call_tool(Some(&token), "whoami", json!({})).await;
    assert_eq!(response.status(), 503, "not 401: the token may be good");
    let retry_after = retry_after(&response);
    assert!((50..=60).contains(&retry_after), "Retry-After: {retry_after}, the rest of the minute");
    assert!(!response.headers().contains_key("www-authenticate"), "no invalid_token challenge");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "temporarily_unavailable");
    assert_eq!(issuer.state.jwks_fetches.load(Ordering::SeqCst), 1, "no fetch past the budget");
    // The keys in hand still verify at once.
    assert_eq!(rs.call_tool(Some(&issuer.mint(&rs.url, "alice", "")), "whoami", json!({})).await.status(), 200);
}

#[tokio::test]
async fn a_made_up_key_just_before_a_rotation_keeps_the_new_key_out_for_seconds_at_most() {
    let issuer = start_issuer().await;
    let iss = issuer.url.clone();
    let jwks = format!("{iss}/jwks");
    // The defaults: refreshes 2 s apart, ten a minute.
    let rs = protect(|resource| {
        ResourceServer::new(resource, JwtVerifier::new(&iss, resource).jwks_uri(&jwks)).authorization_server(&iss)
    })
    .await;
    let token = issuer.mint(&rs.url, "alice", "");
    assert_eq!(rs.call_tool(Some(&token), "whoami", json!({})).await.status(), 200);
    let forged = SigningKey::generate("forged");
    let token = issuer.mint_with(&forged, &rs.url, "alice", "", json!({}));
    let response = rs.call_tool(Some(&token), "whoami", json!({})).await;
    assert_eq!(response.status(), 503, "too soon after the last fetch to tell");
    assert!(retry_after(&response) <= 2, "the refresh interval");
    // The real rotation, right after.
    let rotated = SigningKey::generate("key-2");
    issuer.state.published.lock().unwrap().push(rotated.jwk.clone());
    let token = issuer.mint_with(&rotated, &rs.url, "alice", "", json!({}));
    let started = std::time::Instant::now();
    loop {
        let status = rs.call_tool(Some(&token), "whoami", json!({})).await.status();
        if status == 200 {
            break;
        }
        assert_eq!(status, 503);
        assert!(started.elapsed() < Duration::from_secs(10), "the new key was kept out for 10 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("the new key was accepted {:?} after the rotation", started.elapsed());
}

#[tokio::test]
async fn the_subject_is_sub_unless_the_application_names_a_fallback() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    // No `sub`, and `client_id` is another user's subject: refused, never that user.
    let no_sub = issuer.mint_with(&issuer.key, &rs.url, "", "mcp:tools", json!({"sub": null, "client_id": "alice"}));
    let response = rs.call_tool(Some(&no_sub), "whoami", json!({})).await;
    assert_eq!(response.status(), 401);
    // Opted in: the client's id, marked as one.
    let iss = issuer.url.clone();
    let rs = protect(|resource| {
        ResourceServer::new(resource, JwtVerifier::new(&iss, resource).subject_fallback("client_id"))
            .authorization_server(&iss)
    })
    .await;
    let token = issuer.mint_with(&issuer.key, &rs.url, "", "", json!({"sub": null, "client_id": "alice"}));
    let result = result_of(rs.call_tool(Some(&token), "whoami", json!({})).await).await;
    assert!(text_of(&result).starts_with("client_id:alice via alice"), "{result}");
}

#[tokio::test]
async fn only_access_tokens_are_accepted() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let mint = |typ: Option<&str>, crit: Option<Vec<String>>| {
        let claims =
            json!({"iss": issuer.url, "sub": "alice", "aud": rs.url, "scope": "mcp:tools", "exp": now() + 300});
        let mut header = Header { kid: Some(issuer.key.kid.clone()), ..Header::new(Algorithm::ES256) };
        header.typ = typ.map(str::to_owned);
        header.crit = crit;
        jsonwebtoken::encode(&header, &claims, &issuer.key.encoding).unwrap()
    };
    for typ in ["at+jwt", "JWT"] {
        assert_eq!(rs.call_tool(Some(&mint(Some(typ), None)), "whoami", json!({})).await.status(), 200, "{typ}");
    }
    assert_eq!(rs.call_tool(Some(&mint(Some("dpop+jwt"), None)), "whoami", json!({})).await.status(), 401);
    let crit = mint(Some("at+jwt"), Some(vec!["exp".into()]));
    assert_eq!(rs.call_tool(Some(&crit), "whoami", json!({})).await.status(), 401);
}

#[tokio::test]
async fn an_issuer_that_cannot_be_reached_is_503_not_401() {
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let iss = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let rs =
        protect(|resource| ResourceServer::new(resource, JwtVerifier::new(&iss, resource)).authorization_server(&iss))
            .await;
    let issuer = start_issuer().await;
    // Again right after: answered at once from the failed attempt, not by queueing another.
    for _ in 0..2 {
        let response = rs.call_tool(Some(&issuer.mint(&rs.url, "alice", "")), "whoami", json!({})).await;
        assert_eq!(response.status(), 503);
        assert!(response.headers().contains_key("retry-after"));
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "temporarily_unavailable");
    }
}

#[tokio::test]
async fn opaque_tokens_are_introspected_with_client_credentials_and_cached() {
    let issuer = start_issuer().await;
    let endpoint = format!("{}/introspect", issuer.url);
    let (iss, endpoint2) = (issuer.url.clone(), endpoint.clone());
    let rs = protect(|resource| {
        let verifier =
            IntrospectionVerifier::new(&endpoint, resource).client_credentials(RS_CLIENT.0, RS_CLIENT.1).issuer(&iss);
        ResourceServer::new(resource, verifier).authorization_server(&iss).required_scopes(["mcp:tools"])
    })
    .await;
    let active = |sub: &str, aud: &str| json!({"active": true, "sub": sub, "client_id": "cli", "scope": "mcp:tools", "aud": aud, "exp": now() + 300});
    {
        let mut tokens = issuer.state.introspection.lock().unwrap();
        tokens.insert("tokalice".into(), active("alice", &rs.url));
        tokens.insert("tokother".into(), active("alice", "https://other.example/mcp"));
        tokens.insert("tokexpired".into(), json!({"active": true, "sub": "a", "aud": rs.url, "exp": now() - 10}));
    }
    let count = || issuer.state.introspections.load(Ordering::SeqCst);
    let result = result_of(rs.call_tool(Some("tokalice"), "whoami", json!({})).await).await;
    assert_eq!(text_of(&result), "alice via cli with mcp:tools");
    assert_eq!(rs.call_tool(Some("tokalice"), "whoami", json!({})).await.status(), 200);
    assert_eq!(count(), 1, "the second request used the cached answer");
    for token in ["tokother", "tokexpired", "tokunknown"] {
        let response = rs.call_tool(Some(token), "whoami", json!({})).await;
        assert_eq!(response.status(), 401, "{token}");
        assert!(challenge(&response).starts_with("Bearer error=\"invalid_token\""), "{token}");
    }
    // Wrong client credentials: the introspection endpoint refuses us, which is not the
    // client's fault.
    let iss = issuer.url.clone();
    let misconfigured = protect(|resource| {
        let verifier = IntrospectionVerifier::new(&endpoint2, resource).client_credentials(RS_CLIENT.0, "wrong");
        ResourceServer::new(resource, verifier).authorization_server(&iss)
    })
    .await;
    assert_eq!(misconfigured.call_tool(Some("tokalice"), "whoami", json!({})).await.status(), 503);
}

#[tokio::test]
async fn a_legacy_session_belongs_to_its_principal_and_its_calls_need_the_tool_scopes() {
    let issuer = start_issuer().await;
    let rs = protect_with_jwt(&issuer).await;
    let legacy = |token: &str, session: Option<&str>, body: Value| {
        let mut request = rs
            .http
            .post(&rs.url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
        }
        request.body(body.to_string()).send()
    };
    let alice = issuer.mint(&rs.url, "alice", "mcp:tools");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let response = legacy(&alice, None, init).await.unwrap();
    assert_eq!(response.status(), 200);
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let call = |name: &str| json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {"service": "api"}}});
    let whoami = result_of(legacy(&alice, Some(&session), call("whoami")).await.unwrap()).await;
    assert_eq!(text_of(&whoami), "alice via test-client with mcp:tools");

    // The tool's scope is enforced on the legacy path too.
    let response = legacy(&alice, Some(&session), call("deploy")).await.unwrap();
    assert_eq!(response.status(), 403);
    assert!(challenge(&response).contains("scope=\"mcp:tools deploy:write\""));

    // Bob's valid token does not open Alice's session, whatever he asks of it.
    let bob = issuer.mint(&rs.url, "bob", "mcp:tools deploy:write");
    assert_eq!(legacy(&bob, Some(&session), call("whoami")).await.unwrap().status(), 404);
    let get = rs.http.get(&rs.url).bearer_auth(&bob).header("accept", "text/event-stream");
    let get = get.header("mcp-session-id", &session).header("mcp-protocol-version", "2025-11-25");
    assert_eq!(get.send().await.unwrap().status(), 404);
    let delete = rs.http.delete(&rs.url).bearer_auth(&bob).header("mcp-session-id", &session);
    assert_eq!(delete.header("mcp-protocol-version", "2025-11-25").send().await.unwrap().status(), 404);
    // Still Alice's.
    assert_eq!(legacy(&alice, Some(&session), call("whoami")).await.unwrap().status(), 200);
}
