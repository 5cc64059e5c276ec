//! The playground (feature `playground`): where it is served, where it is refused, and that
//! the page can call the endpoint from its own origin.
#![cfg(feature = "playground")]
// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

use axum::body::Body;
use roundtrip::ServeHttp;
use roundtrip::Server;
use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
use roundtrip::server::{Outcome, ToolDef};
use roundtrip::transport::http::HttpOptions;
use serde_json::{Value, json};
use tower::ServiceExt;

fn server() -> Server {
    Server::new("play", "1.0.0").tool(ToolDef::new(Tool::new("hello", empty_input_schema()), |_cx| async {
        Ok(Outcome::Complete(CallToolResult::text("Hello!")))
    }))
}

async fn served(options: HttpOptions) -> (String, tokio::task::JoinHandle<()>) {
    let http = server().bind_http_with("127.0.0.1:0", options).await.unwrap();
    let base = format!("http://{}", http.local_addr());
    let handle = tokio::spawn(async move {
        let _ = http.run().await;
    });
    (base, handle)
}

#[tokio::test]
async fn off_unless_enabled() {
    let (base, handle) = served(HttpOptions::default()).await;
    let got = reqwest::get(format!("{base}/playground")).await.unwrap();
    assert_eq!(got.status(), 404);
    handle.abort();
}

#[tokio::test]
async fn a_loopback_server_serves_the_page_its_assets_and_its_description() {
    let http = server().bind_http_with("127.0.0.1:0", HttpOptions::default().playground(true)).await.unwrap();
    let url = http.playground_url().unwrap();
    assert_eq!(url, format!("http://{}/playground", http.local_addr()));
    let base = format!("http://{}", http.local_addr());
    let handle = tokio::spawn(async move {
        let _ = http.run().await;
    });

    let page = reqwest::get(&url).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let csp = page.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    let html = page.text().await.unwrap();
    assert!(html.contains(r#"<meta name="mcp-endpoint" content="/mcp">"#));

    for (asset, kind) in [("playground.js", "text/javascript"), ("playground.css", "text/css")] {
        let got = reqwest::get(format!("{url}/{asset}")).await.unwrap();
        assert_eq!(got.status(), 200);
        assert!(got.headers()["content-type"].to_str().unwrap().starts_with(kind));
        assert!(!got.bytes().await.unwrap().is_empty());
    }

    let described: Value = reqwest::get(format!("{url}/describe.json")).await.unwrap().json().await.unwrap();
    assert_eq!(&described, server().describe().to_json());

    // A foreign Host is refused as on the endpoint (DNS rebinding).
    let client = reqwest::Client::new();
    let evil = client.get(&url).header("host", "evil.example.com").send().await.unwrap();
    assert_eq!(evil.status(), 403);

    // The page calls the endpoint from its own origin: the origin check lets it through.
    let call = client
        .post(format!("{base}/mcp"))
        .header("origin", &base)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "hello")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {
                "name": "hello", "arguments": {},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(call.status(), 200);
    let body: Value = call.json().await.unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "Hello!");
    handle.abort();
}

#[tokio::test]
async fn a_public_address_needs_the_explicit_opt_in() {
    let refused = server().bind_http_with("0.0.0.0:0", HttpOptions::default().playground(true)).await;
    let err = refused.expect_err("a non-loopback bind with the playground must fail");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("playground_public"), "{err}");

    let public = HttpOptions::default()
        .playground(true)
        .playground_public(true)
        .allowed_hosts(roundtrip::transport::http::HostCheck::Allow(vec!["mcp.example.com".into()]));
    let http = server().bind_http_with("0.0.0.0:0", public).await.unwrap();
    assert!(http.playground_url().is_some());
}

#[tokio::test]
async fn a_mounted_router_serves_it_to_loopback_names_only() {
    let router = server().router_with(HttpOptions::default().playground(true));
    let get = |host: &'static str| {
        axum::http::Request::builder().uri("/playground").header("host", host).body(Body::empty()).unwrap()
    };
    assert_eq!(router.clone().oneshot(get("localhost:3000")).await.unwrap().status(), 200);
    assert_eq!(router.clone().oneshot(get("mcp.example.com")).await.unwrap().status(), 404);

    let public = server().router_with(HttpOptions::default().playground(true).playground_public(true));
    assert_eq!(public.oneshot(get("mcp.example.com")).await.unwrap().status(), 200);
}

/// A verifier that accepts the token `good` only.
#[cfg(feature = "auth")]
struct OneToken;

#[cfg(feature = "auth")]
impl roundtrip::auth::TokenVerifier for OneToken {
    fn verify<'a>(
        &'a self,
        token: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<roundtrip::auth::AuthPrincipal, roundtrip::auth::VerifyError>> {
        Box::pin(async move {
            match token {
                "good" => Ok(roundtrip::auth::AuthPrincipal::new("alice")),
                _ => Err(roundtrip::auth::VerifyError::Invalid("unknown token".into())),
            }
        })
    }
}

#[cfg(feature = "auth")]
#[tokio::test]
async fn with_auth_the_description_needs_the_endpoints_token() {
    let auth = roundtrip::auth::ResourceServer::new("http://localhost/mcp", OneToken);
    let router = server().router_with(HttpOptions::default().playground(true).auth(auth));
    let get = |path: &'static str, token: Option<&'static str>| {
        let mut request = axum::http::Request::builder().uri(path).header("host", "localhost");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        request.body(Body::empty()).unwrap()
    };
    let status = |r: axum::response::Response| r.status().as_u16();
    assert_eq!(status(router.clone().oneshot(get("/playground/describe.json", None)).await.unwrap()), 401);
    assert_eq!(status(router.clone().oneshot(get("/playground/describe.json", Some("bad"))).await.unwrap()), 401);
    let described = router.clone().oneshot(get("/playground/describe.json", Some("good"))).await.unwrap();
    assert_eq!(status(described), 200);
    // The page itself carries nothing of the server: a browser navigating to it sends no token.
    assert_eq!(status(router.oneshot(get("/playground", None)).await.unwrap()), 200);
}

/// MCP Apps: the views' sandbox is served with the policy built from the view's metadata,
/// refuses a `csp` parameter that is not origins, and gives its script to the opaque origin
/// it runs in (`Origin: null`) but not to a foreign one.
#[tokio::test]
async fn the_sandbox_of_views_carries_the_policy_of_their_metadata() {
    use base64::Engine as _;
    let (base, handle) = served(HttpOptions::default().playground(true)).await;
    let client = reqwest::Client::new();
    let encode = |json: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json);

    let plain = client.get(format!("{base}/playground/sandbox")).send().await.unwrap();
    assert_eq!(plain.status(), 200);
    let policy = plain.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(policy.starts_with("default-src 'none'; script-src 'self' 'unsafe-inline';"), "{policy}");
    assert!(policy.contains("connect-src 'none'") && policy.contains("frame-ancestors 'self'"), "{policy}");
    assert_eq!(plain.headers()["cache-control"], "no-store");
    assert!(plain.text().await.unwrap().contains(r#"<script src="sandbox.js"></script>"#));

    let declared =
        encode(r#"{"connectDomains":["https://api.example.com"],"resourceDomains":["https://*.cdn.example.com"]}"#);
    let got = client.get(format!("{base}/playground/sandbox?csp={declared}")).send().await.unwrap();
    let policy = got.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(policy.contains("connect-src https://api.example.com;"), "{policy}");
    assert!(policy.contains("img-src data: https://*.cdn.example.com;"), "{policy}");

    let injected = encode(r#"{"connectDomains":["https://a.example.com; script-src *"]}"#);
    let got = client.get(format!("{base}/playground/sandbox?csp={injected}")).send().await.unwrap();
    assert_eq!(got.status(), 400);
    assert!(got.text().await.unwrap().contains("not an origin"));

    let script =
        |origin: &'static str| client.get(format!("{base}/playground/sandbox.js")).header("origin", origin).send();
    assert_eq!(script("null").await.unwrap().status(), 200);
    assert_eq!(script("https://evil.example.com").await.unwrap().status(), 403);
    // The sandbox page itself is not for foreign origins either.
    let page = client.get(format!("{base}/playground/sandbox")).header("origin", "null").send().await.unwrap();
    assert_eq!(page.status(), 403);
    // The page may frame it.
    let page = client.get(format!("{base}/playground")).send().await.unwrap();
    assert!(page.headers()["content-security-policy"].to_str().unwrap().contains("frame-src 'self'"));
    assert!(page.text().await.unwrap().contains(r#"<script src="playground/apps.js" defer></script>"#));
    handle.abort();
}
