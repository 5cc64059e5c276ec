//! The playground: one page, served beside the MCP endpoint, that calls the server over the
//! 2026-07-28 wire from a browser and answers its questions as HTML forms, round by round.
//!
//! Enabled with [`HttpOptions::playground`](super::HttpOptions::playground) (cargo feature
//! `playground`). With the endpoint at `/mcp` the page is `GET /playground`; its script and
//! style are `GET /playground/playground.js` and `/playground/playground.css`, and
//! `GET /playground/describe.json` is [`Server::describe`](roundtrip_core::server::Server::describe) as JSON
//! (the page draws each tool's question graph from it, since `tools/list` does not carry
//! the graph). Everything is embedded in the binary: no CDN, no build step.
//!
//! The page is a development tool. It is served only where it cannot reach strangers: a
//! server bound to a non-loopback address refuses to start with it unless
//! [`HttpOptions::playground_public`](super::HttpOptions::playground_public) says so, and a
//! [`router_with`](crate::http::ServeHttp::router_with) mounted elsewhere (whose address roundtrip
//! cannot know) serves it only to requests whose `Host` is a loopback name, again unless
//! made public. Its requests pass the endpoint's `Host` and `Origin` checks like any other
//! (the page calls the endpoint on its own origin).
//!
//! The page is an MCP Apps host (`io.modelcontextprotocol/ui`): a tool linked to a view gets
//! the view rendered beside its result, in a sandbox (`GET …/playground/sandbox`, see
//! [`sandbox`]) whose Content Security Policy the server builds from the view's metadata; the
//! host side of the view protocol is `apps.js`.
//!
//! On an endpoint protected by a [`ResourceServer`](roundtrip_auth::ResourceServer) (feature
//! `auth`), `describe.json` needs the same bearer token as the endpoint: it lists every tool
//! and question. The page, its script and its style carry nothing of the server (a browser
//! cannot send a bearer token when it navigates), and the page asks for a token when the
//! server answers `401`.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State as AxumState};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;

use ::http::{HeaderMap, HeaderValue, StatusCode, header};

use super::State;
use crate::host::{LOOPBACK_HOSTS, Refusal};

mod sandbox;

const HTML: &str = include_str!("playground.html");
const JS: &str = include_str!("playground.js");
const APPS_JS: &str = include_str!("apps.js");
const CSS: &str = include_str!("playground.css");

/// The headers every playground response carries: no framing by other sites, scripts and
/// styles only from this origin, images of results inline (`data:`), frames only of this
/// origin (the views' sandbox), nothing cached across deployments.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   media-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'none'; \
                   frame-ancestors 'none'; base-uri 'none'";

/// What the playground serves, built once per router.
pub(super) struct Assets {
    /// The page, with the endpoint's path filled in.
    page: Bytes,
    /// `Server::describe()` as JSON.
    describe: Bytes,
}

impl Assets {
    pub(super) fn new(server: &roundtrip_core::server::Server, endpoint: &str) -> Self {
        let page = HTML.replace("{{ENDPOINT}}", &escape_attr(endpoint));
        let describe = serde_json::to_vec(server.describe().to_json()).unwrap_or_else(|_| b"{}".to_vec());
        Self { page: Bytes::from(page), describe: Bytes::from(describe) }
    }
}

/// Where the playground lives for an endpoint at `endpoint`: beside it (`/mcp` gives
/// `/playground`, `/api/mcp` gives `/api/playground`).
/// An endpoint that is itself called `playground` gets the page under it.
pub(crate) fn path_for(endpoint: &str) -> String {
    let beside = match endpoint.rsplit_once('/') {
        Some((parent, _)) => format!("{parent}/playground"),
        None => "/playground".to_owned(),
    };
    if beside == endpoint { format!("{endpoint}/playground") } else { beside }
}

/// Add the playground's routes to the endpoint's router.
pub(super) fn mount(router: Router<Arc<State>>, endpoint: &str) -> Router<Arc<State>> {
    let base = path_for(endpoint);
    router
        .route(&base, get(page))
        .route(&format!("{base}/playground.js"), get(script))
        .route(&format!("{base}/apps.js"), get(apps_script))
        .route(&format!("{base}/playground.css"), get(style))
        .route(&format!("{base}/describe.json"), get(describe))
        .route(&format!("{base}/sandbox"), get(sandbox_page))
        .route(&format!("{base}/sandbox.js"), get(sandbox_script))
}

/// Why a request for the playground is not served: the endpoint's host and origin policy,
/// or a loopback-only playground asked for by a name that is not loopback.
fn refused(state: &State, headers: &HeaderMap) -> Option<Response> {
    if let Err(refusal) = state.policy.check(headers) {
        let what = match refusal {
            Refusal::Host => "Forbidden: invalid Host header",
            Refusal::Origin => "Forbidden: invalid Origin header",
        };
        return Some((StatusCode::FORBIDDEN, what).into_response());
    }
    let public = state.options.playground_public || state.bound_to_loopback == Some(true);
    if !public && !loopback_host(headers) {
        return Some((StatusCode::NOT_FOUND, "Not Found").into_response());
    }
    None
}

fn loopback_host(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else { return false };
    let host = host.trim().to_ascii_lowercase();
    let name = if host.starts_with('[') {
        host.split_inclusive(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    LOOPBACK_HOSTS.contains(&name)
}

fn asset(state: &State, request: &Request, content_type: &'static str, body: Bytes) -> Response {
    if let Some(refusal) = refused(state, request.headers()) {
        return refusal;
    }
    asset_response(content_type, body)
}

fn asset_response(content_type: &'static str, body: Bytes) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

async fn page(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    let body = state.playground.as_ref().map(|a| a.page.clone()).unwrap_or_default();
    asset(&state, &request, "text/html; charset=utf-8", body)
}

async fn script(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    asset(&state, &request, "text/javascript; charset=utf-8", Bytes::from_static(JS.as_bytes()))
}

async fn apps_script(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    asset(&state, &request, "text/javascript; charset=utf-8", Bytes::from_static(APPS_JS.as_bytes()))
}

/// The sandbox a view runs in, with the policy built from its metadata (see [`sandbox`]).
async fn sandbox_page(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    if let Some(refusal) = refused(&state, request.headers()) {
        return refusal;
    }
    let csp = match sandbox::parse(request.uri().query()) {
        Ok(csp) => csp,
        Err(why) => return (StatusCode::BAD_REQUEST, format!("Bad Request: {why}")).into_response(),
    };
    let policy = sandbox::policy(&csp);
    let Ok(policy) = HeaderValue::from_str(&policy) else {
        // Every origin was checked to be visible ASCII; a policy that is not a header value
        // is a bug, and no view is better than one without its policy.
        return (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response();
    };
    let mut response = (StatusCode::OK, Bytes::from_static(sandbox::HTML.as_bytes())).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(header::CONTENT_SECURITY_POLICY, policy);
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn sandbox_script(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    // The sandbox asks for its script from an opaque origin, so the request says `Origin:
    // null`. The script carries nothing of the server: that origin may have it. Every other
    // check (the host, a foreign origin, loopback only) stands.
    let mut headers = request.headers().clone();
    if headers.get(header::ORIGIN).is_some_and(|o| o.as_bytes() == b"null") {
        headers.remove(header::ORIGIN);
    }
    if let Some(refusal) = refused(&state, &headers) {
        return refusal;
    }
    asset_response("text/javascript; charset=utf-8", Bytes::from_static(sandbox::JS.as_bytes()))
}

async fn style(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    asset(&state, &request, "text/css; charset=utf-8", Bytes::from_static(CSS.as_bytes()))
}

async fn describe(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    #[cfg(feature = "auth")]
    if let Some(auth) = &state.options.auth
        && refused(&state, request.headers()).is_none()
        && let Err(refusal) = auth.authenticate(request.headers()).await
    {
        return auth.refuse(refusal);
    }
    let body = state.playground.as_ref().map(|a| a.describe.clone()).unwrap_or_default();
    asset(&state, &request, "application/json", body)
}

/// Escape text for a double-quoted HTML attribute.
fn escape_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_playground_sits_beside_the_endpoint() {
        assert_eq!(path_for("/mcp"), "/playground");
        assert_eq!(path_for("/api/v1/mcp"), "/api/v1/playground");
        assert_eq!(path_for("/playground"), "/playground/playground");
    }

    #[test]
    fn only_loopback_names_count_as_loopback() {
        let with_host = |h: &'static str| {
            let mut m = HeaderMap::new();
            m.insert(header::HOST, HeaderValue::from_static(h));
            m
        };
        assert!(loopback_host(&with_host("localhost:8080")));
        assert!(loopback_host(&with_host("127.0.0.1")));
        assert!(loopback_host(&with_host("[::1]:9")));
        assert!(!loopback_host(&with_host("localhost.evil.example")));
        assert!(!loopback_host(&with_host("mcp.example.com")));
        assert!(!loopback_host(&HeaderMap::new()));
    }

    #[test]
    fn the_endpoint_path_is_escaped_into_the_page() {
        assert_eq!(escape_attr("/a\"b<c>&"), "/a&quot;b&lt;c&gt;&amp;");
        assert!(HTML.contains("{{ENDPOINT}}"));
    }
}
