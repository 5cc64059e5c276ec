//! The provision example as a Cloudflare Worker: the declarations of `examples/src/provision.rs`
//! unchanged, served by roundtrip-workers at `/mcp`, sealing with the keys of the Worker's
//! secret `ROUNDTRIP_STATE_KEYS`. Every tool but `backup`, which runs as a task (a Worker's
//! isolate stops once it has answered).

use std::sync::OnceLock;

use roundtrip_workers::Endpoint;
use worker::{Context, Env, Request, Response, event};

#[path = "../../src/provision.rs"]
#[allow(dead_code)] // `server` (with the task) and `backup` are the process's
mod provision;

/// The endpoint, made by the isolate's first request (it needs the Worker's secrets).
static ENDPOINT: OnceLock<Endpoint> = OnceLock::new();

#[event(fetch)]
async fn fetch(request: Request, env: Env, _: Context) -> worker::Result<Response> {
    if request.path() != "/mcp" {
        return Response::error("Not Found: the MCP endpoint is /mcp", 404);
    }
    let endpoint = match ENDPOINT.get() {
        Some(endpoint) => endpoint,
        None => {
            let made = endpoint(&env)?;
            ENDPOINT.get_or_init(|| made)
        }
    };
    endpoint.serve(request).await
}

fn endpoint(env: &Env) -> worker::Result<Endpoint> {
    let keys = roundtrip_workers::keys(env)?;
    let server = provision::server_without_tasks().security(keys).map_err(|e| e.to_string())?;
    Endpoint::new(&server).map_err(|e| e.to_string().into())
}
