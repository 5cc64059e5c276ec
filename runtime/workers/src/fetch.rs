//! A Worker's fetch event as one exchange: workers-rs's request read into `http`'s types, the
//! exchange's answer written back into a workers-rs response.

use std::net::IpAddr;

use bytes::Bytes;
use roundtrip_core::seal::RequestStateSecurity;
use roundtrip_core::server::{CheckError, Server};
use roundtrip_transport::exchange::{Exchange, MAX_BODY_BYTES, too_large};
use worker::{Env, Headers, Request, Response};

/// The Worker secret that holds the sealing keys: comma-separated, each hex
/// (`openssl rand -hex 32`) or base64, the first sealing (as `ROUNDTRIP_STATE_KEYS` anywhere
/// else). Set it with `wrangler secret put ROUNDTRIP_STATE_KEYS`, and in `.dev.vars` for
/// `wrangler dev`.
pub const KEYS_SECRET: &str = "ROUNDTRIP_STATE_KEYS";

/// The sealing keys in the secret [`KEYS_SECRET`], for
/// [`Server::security`](roundtrip_core::server::Server::security). Every isolate of a Worker
/// must seal with the same keys: without them each would make its own, and a leg answered by
/// another isolate than the one that asked would be refused.
pub fn keys(env: &Env) -> worker::Result<RequestStateSecurity> {
    let secret = env
        .secret(KEYS_SECRET)
        .map_err(|_| format!("the Worker has no secret {KEYS_SECRET}: `wrangler secret put {KEYS_SECRET}`"))?;
    RequestStateSecurity::keys_from_text(&secret.to_string()).map_err(|e| format!("{KEYS_SECRET}: {e}").into())
}

/// The Worker variable that names the hosts an endpoint answers, comma-separated (for
/// [`Endpoint::allowed_hosts`]): `wrangler dev --var ROUNDTRIP_ALLOWED_HOSTS:localhost`.
pub const HOSTS_VAR: &str = "ROUNDTRIP_ALLOWED_HOSTS";

/// The hosts named by the variable [`HOSTS_VAR`], none when it is not set.
pub fn hosts(env: &Env) -> Vec<String> {
    let Ok(var) = env.var(HOSTS_VAR) else { return Vec::new() };
    var.to_string().split(',').map(str::trim).filter(|h| !h.is_empty()).map(str::to_owned).collect()
}

/// A server answering a Worker's fetch events.
#[derive(Debug, Clone)]
pub struct Endpoint {
    exchange: Exchange,
}

impl Endpoint {
    /// The endpoint of `server`, once it passes its [`check`](Server::check). What a Worker
    /// cannot do is withdrawn (no `listChanged`, no resource subscriptions). A server with a
    /// tool that may run as a task is refused (`Problem::NoTasksOn`): a task's body runs on
    /// after its call is answered, and a Worker's isolate does not.
    pub fn new(server: &Server) -> Result<Self, CheckError> {
        Ok(Self { exchange: Exchange::new(server)? })
    }

    /// Answer only requests whose `Host` is one of `hosts` (a name, any port, or `host:port`
    /// exactly), and whose `Origin`, when a browser sends one, names one of them: `403`
    /// otherwise. Cloudflare routes a deployed Worker by host, so it needs none; `wrangler dev`
    /// serves on the developer's machine, where a page of any site could reach it through a
    /// name of its own resolved to `127.0.0.1` (DNS rebinding): name `localhost` there. See
    /// [`hosts`] for reading them from a variable.
    pub fn allowed_hosts(self, hosts: Vec<String>) -> Self {
        Self { exchange: self.exchange.allowed_hosts(hosts) }
    }

    /// Answer one fetch event: a `POST` of a 2026-07-28 request gets its JSON reply, whatever
    /// the path (route the endpoint's path to it). The caller is the address Cloudflare gives
    /// in `CF-Connecting-IP`.
    pub async fn serve(&self, mut request: Request) -> worker::Result<Response> {
        let declared = request.headers().get("content-length")?.and_then(|n| n.trim().parse::<usize>().ok());
        if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
            return response(too_large());
        }
        let mut head = http::Request::builder()
            .method(http::Method::from_bytes(request.method().as_ref().as_bytes()).map_err(|e| e.to_string())?)
            .uri(request.url()?.as_str());
        if let Some(headers) = head.headers_mut() {
            for (name, value) in request.headers().entries() {
                if let (Ok(name), Ok(value)) =
                    (http::HeaderName::try_from(name.as_str()), http::HeaderValue::try_from(value.as_str()))
                {
                    headers.append(name, value);
                }
            }
        }
        let caller = request.headers().get("cf-connecting-ip")?.and_then(|ip| ip.trim().parse::<IpAddr>().ok());
        let body = if request.method() == worker::Method::Post { request.bytes().await? } else { Vec::new() };
        let request = head.body(Bytes::from(body)).map_err(|e| e.to_string())?;
        response(self.exchange.answer(request, caller).await)
    }
}

/// An exchange's answer as a workers-rs response.
fn response(answer: http::Response<Bytes>) -> worker::Result<Response> {
    let (parts, body) = answer.into_parts();
    let headers = Headers::new();
    for (name, value) in &parts.headers {
        if let Ok(value) = value.to_str() {
            headers.append(name.as_str(), value)?;
        }
    }
    Ok(Response::from_bytes(body.to_vec())?.with_status(parts.status.as_u16()).with_headers(headers))
}
