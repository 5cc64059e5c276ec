//! The provision example as a Cloudflare Worker: the declarations of `examples/src/provision.rs`
//! unchanged, served by roundtrip-workers at `/mcp`, sealing with the keys of the Worker's
//! secret `ROUNDTRIP_STATE_KEYS` and answering the hosts of `ROUNDTRIP_ALLOWED_HOSTS` (any, when
//! it is not set). Every tool but `backup`, which runs as a task (a Worker's isolate stops once
//! it has answered).
//!
//! With the feature `conformance`, the conformance example (`examples/src/conformance/`, its
//! task fixtures aside) at `/conformance/mcp` too, for `SERVE=worker scripts/conformance.sh`.

use std::sync::OnceLock;

use roundtrip::Server;
use roundtrip_workers::Endpoint;
use worker::{Context, Env, Request, Response, event};

#[path = "../../src/provision.rs"]
#[allow(dead_code)] // `server` (with the task) and `backup` are the process's
mod provision;

#[cfg(feature = "conformance")]
#[path = "../../src/conformance/mod.rs"]
#[allow(dead_code)] // `server` (with the tasks extension's fixtures) is the process's
mod conformance;

#[event(fetch)]
async fn fetch(request: Request, env: Env, _: Context) -> worker::Result<Response> {
    /// Each endpoint, made by the isolate's first request to it (it needs the Worker's secrets).
    static PROVISION: OnceLock<Endpoint> = OnceLock::new();
    #[cfg(feature = "conformance")]
    static CONFORMANCE: OnceLock<Endpoint> = OnceLock::new();

    match request.path().as_str() {
        "/mcp" => endpoint(&PROVISION, &env, provision::server_without_tasks)?.serve(request).await,
        #[cfg(feature = "conformance")]
        "/conformance/mcp" => endpoint(&CONFORMANCE, &env, conformance::server_without_tasks)?.serve(request).await,
        _ => Response::error("Not Found: the MCP endpoint is /mcp", 404),
    }
}

fn endpoint<'a>(made: &'a OnceLock<Endpoint>, env: &Env, server: fn() -> Server) -> worker::Result<&'a Endpoint> {
    if let Some(endpoint) = made.get() {
        return Ok(endpoint);
    }
    let server = server().security(roundtrip_workers::keys(env)?).map_err(|e| e.to_string())?;
    let endpoint = Endpoint::new(&server).map_err(|e| e.to_string())?.allowed_hosts(roundtrip_workers::hosts(env));
    Ok(made.get_or_init(|| endpoint))
}
