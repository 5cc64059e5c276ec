//! The client's OAuth against a tiny authorization server and a protected roundtrip endpoint
//! in one process: sign-in on a 401 (resource metadata, authorization server metadata,
//! dynamic registration, PKCE checked by the server, `resource` and `iss`), step-up on a 403
//! `insufficient_scope`, a refresh when the server stops taking the token, and a plain error
//! when the client has no OAuth.
#![allow(clippy::unwrap_used)]

use roundtrip::ServeHttp;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use futures::future::BoxFuture;
use roundtrip::Server;
use roundtrip::client::oauth::{AuthorizationHandler, ClientInfo, OAuth};
use roundtrip::client::{Client, ClientError};
use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
use roundtrip::server::{Outcome, ToolDef};
use serde_json::{Value, json};
use sha2::Digest;

#[derive(Default)]
struct AuthServer {
    base: String,
    registrations: usize,
    /// The `scope` of each authorization request ("" when none).
    authorizations: Vec<String>,
    /// The `grant_type` of each token request.
    grants: Vec<String>,
    /// code → (challenge, scope, resource)
    codes: HashMap<String, (String, String, String)>,
    /// access token → scopes
    tokens: HashMap<String, Vec<String>>,
    refresh: HashMap<String, Vec<String>>,
    next: usize,
    /// The `expires_in` of the tokens issued.
    lifetime: u64,
    /// How many requests the resource server answered 401.
    unauthorized: usize,
}

type Shared = Arc<Mutex<AuthServer>>;

fn pairs(query: &str) -> HashMap<String, String> {
    reqwest::Url::parse(&format!("http://x/?{query}")).unwrap().query_pairs().into_owned().collect()
}

async fn prm(State(s): State<Shared>) -> Response {
    let base = s.lock().unwrap().base.clone();
    axum::Json(
        json!({ "resource": format!("{base}/mcp"), "authorization_servers": [base], "scopes_supported": ["read"] }),
    )
    .into_response()
}

async fn metadata(State(s): State<Shared>) -> Response {
    let base = s.lock().unwrap().base.clone();
    axum::Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post"],
        "authorization_response_iss_parameter_supported": true,
    }))
    .into_response()
}

async fn register(State(s): State<Shared>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["token_endpoint_auth_method"], "client_secret_post");
    assert_eq!(body["application_type"], "native");
    s.lock().unwrap().registrations += 1;
    (StatusCode::CREATED, axum::Json(json!({ "client_id": "c1", "client_secret": "s1" }))).into_response()
}

async fn authorize(State(s): State<Shared>, uri: Uri) -> Response {
    let q = pairs(uri.query().unwrap_or_default());
    assert_eq!(q["client_id"], "c1");
    assert_eq!(q["code_challenge_method"], "S256");
    let mut s = s.lock().unwrap();
    s.next += 1;
    let code = format!("code-{}", s.next);
    let scope = q.get("scope").cloned().unwrap_or_default();
    s.authorizations.push(scope.clone());
    s.codes.insert(code.clone(), (q["code_challenge"].clone(), scope, q["resource"].clone()));
    let mut to = reqwest::Url::parse(&q["redirect_uri"]).unwrap();
    to.query_pairs_mut().append_pair("code", &code).append_pair("state", &q["state"]).append_pair("iss", &s.base);
    (StatusCode::FOUND, [("location", to.to_string())]).into_response()
}

async fn token(State(s): State<Shared>, body: Bytes) -> Response {
    let f = pairs(std::str::from_utf8(&body).unwrap());
    assert_eq!((f["client_id"].as_str(), f["client_secret"].as_str()), ("c1", "s1"));
    let mut s = s.lock().unwrap();
    assert_eq!(f["resource"], format!("{}/mcp", s.base));
    s.grants.push(f["grant_type"].clone());
    let scopes: Vec<String> = match f["grant_type"].as_str() {
        "authorization_code" => {
            let (challenge, scope, resource) = s.codes.remove(&f["code"]).expect("a code issued once");
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(f["code_verifier"].as_bytes()));
            if computed != challenge || resource != f["resource"] {
                return (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_grant" }))).into_response();
            }
            scope.split_whitespace().map(str::to_owned).collect()
        }
        "client_credentials" => {
            f.get("scope").map(|s| s.split_whitespace().map(str::to_owned).collect()).unwrap_or_default()
        }
        "refresh_token" => match s.refresh.get(&f["refresh_token"]) {
            Some(scopes) => scopes.clone(),
            None => return (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_grant" }))).into_response(),
        },
        _ => {
            return (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "unsupported_grant_type" }))).into_response();
        }
    };
    s.next += 1;
    let (access, refresh) = (format!("at-{}", s.next), format!("rt-{}", s.next));
    s.tokens.insert(access.clone(), scopes.clone());
    s.refresh.insert(refresh.clone(), scopes.clone());
    axum::Json(json!({
        "access_token": access, "token_type": "Bearer", "expires_in": s.lifetime,
        "refresh_token": refresh, "scope": scopes.join(" "),
    }))
    .into_response()
}

/// The resource server's side: a known bearer token, and the `write` scope for `tools/call`.
async fn guard(State(s): State<Shared>, request: Request, next: Next) -> Response {
    let base = s.lock().unwrap().base.clone();
    let metadata = format!("{base}/.well-known/oauth-protected-resource/mcp");
    let token = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let scopes = token.and_then(|t| s.lock().unwrap().tokens.get(&t).cloned());
    let Some(scopes) = scopes else {
        s.lock().unwrap().unauthorized += 1;
        let challenge = format!(r#"Bearer error="invalid_token", scope="read", resource_metadata="{metadata}""#);
        return (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]).into_response();
    };
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let method = serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v["method"].as_str().map(str::to_owned));
    if method.as_deref() == Some("tools/call") && !scopes.iter().any(|s| s == "write") {
        let challenge = format!(r#"Bearer error="insufficient_scope", scope="write", resource_metadata="{metadata}""#);
        return (StatusCode::FORBIDDEN, [("www-authenticate", challenge)]).into_response();
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

async fn protected_server() -> (String, Shared) {
    let shared: Shared = Arc::default();
    let server = Server::new("protected", "1.0.0")
        .tool(ToolDef::new(Tool::new("hello", empty_input_schema()), |_| async {
            Ok(Outcome::Complete(CallToolResult::text("hello")))
        }));
    let mcp = server.router().layer(axum::middleware::from_fn_with_state(shared.clone(), guard));
    let app = Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(prm))
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(shared.clone())
        .merge(mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    shared.lock().unwrap().base = base.clone();
    shared.lock().unwrap().lifetime = 3600;
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("{base}/mcp"), shared)
}

/// The user agent of a test: the authorization server redirects at once.
struct Follow(reqwest::Client);

impl AuthorizationHandler for Follow {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1:1/callback".into()
    }

    fn authorize(&self, url: String) -> BoxFuture<'static, Result<String, ClientError>> {
        let sent = self.0.get(url).send();
        Box::pin(async move {
            let r = sent.await.map_err(|e| ClientError::Auth(e.to_string()))?;
            Ok(r.headers()["location"].to_str().unwrap().to_owned())
        })
    }
}

#[tokio::test]
async fn signs_in_on_401_steps_up_on_403_and_refreshes_a_refused_token() {
    let (url, shared) = protected_server().await;
    let follow = Follow(reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap());
    let oauth = OAuth::new(follow);
    let client = Client::builder("oauth-test", "1").oauth(oauth.clone()).connect_http(&url).await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
    {
        let s = shared.lock().unwrap();
        assert_eq!((s.registrations, s.authorizations.clone()), (1, vec!["read".to_owned()]));
    }

    // tools/call needs `write`: one step-up, asking for what it had and what is missing.
    let r = client.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("hello"));
    assert_eq!(shared.lock().unwrap().authorizations, ["read", "read write"]);
    assert_eq!(oauth.tokens().unwrap().scopes, ["read", "write"]);

    // The server forgets the token: the refresh token gets a new one, without the user.
    let held = oauth.tokens().unwrap().access_token;
    shared.lock().unwrap().tokens.remove(&held);
    client.call_tool("hello", json!({})).await.unwrap();
    let s = shared.lock().unwrap();
    assert_eq!(s.grants, ["authorization_code", "authorization_code", "refresh_token"]);
    assert_eq!(s.authorizations.len(), 2);
    assert_eq!(s.registrations, 1);
    assert_ne!(oauth.tokens().unwrap().access_token, held);
}

#[tokio::test]
async fn without_oauth_a_401_is_an_authorization_error() {
    let (url, shared) = protected_server().await;
    match Client::builder("plain", "1").connect_http(&url).await {
        Err(ClientError::Auth(message)) => assert!(message.contains("401"), "{message}"),
        other => panic!("expected an authorization error, got {other:?}"),
    }
    // A token from elsewhere (the `authorization` seam) is sent as it is.
    shared.lock().unwrap().tokens.insert("given".into(), vec!["read".into(), "write".into()]);
    let client = Client::builder("seam", "1").authorization(|| Some("Bearer given".into())).connect_http(&url).await;
    let r = client.unwrap().call_tool("hello", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("hello"));
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_the_request() {
    let (url, shared) = protected_server().await;
    shared.lock().unwrap().lifetime = 5;
    let follow = Follow(reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap());
    let oauth = OAuth::new(follow);
    let client = Client::builder("oauth-test", "1").oauth(oauth.clone()).connect_http(&url).await.unwrap();
    let first = oauth.tokens().unwrap().access_token;
    client.list_all_tools().await.unwrap();
    let s = shared.lock().unwrap();
    // The sign-in's 401 only: the refresh came before the server could refuse anything.
    assert_eq!(s.unauthorized, 1);
    assert_eq!(s.grants, ["authorization_code", "refresh_token"]);
    assert_ne!(oauth.tokens().unwrap().access_token, first);
}

#[tokio::test]
async fn a_machine_client_uses_the_client_credentials_grant() {
    let (url, shared) = protected_server().await;
    let oauth = OAuth::client_credentials(ClientInfo::confidential("c1", "s1"));
    let client = Client::builder("machine", "1").oauth(oauth.clone()).connect_http(&url).await.unwrap();
    client.list_all_tools().await.unwrap();
    let s = shared.lock().unwrap();
    assert_eq!((s.registrations, s.authorizations.len()), (0, 0));
    assert_eq!(s.grants, ["client_credentials"]);
    assert_eq!(oauth.tokens().unwrap().scopes, ["read"]);
}
