//! The command line every example server shares: `--stdio`, `--http ADDR`, or
//! `--describe json|markdown` (print the server's tools and their questions, then exit).
//!
//! On a loopback address (`--http 127.0.0.1:8080`) the examples also serve the playground,
//! a page that calls the server from a browser and answers its questions as forms; its URL
//! (`http://127.0.0.1:8080/playground`) is logged at start. Other addresses serve none.
//!
//! Over HTTP, two more routes answer probes, beside the endpoint: `GET /healthz` is `200`
//! while the process serves (liveness), and `GET /readyz` is `200` only while the task store
//! answers (`Server::ready`: Redis answers a `PING` within a second), else `503` (readiness:
//! flows that need no store still work, but tasks and single-use states cannot).
//!
//! SIGTERM (or Ctrl-C) stops gracefully: no new connections, requests in flight finish, task
//! bodies get 10 s to end.
//!
//! For deployments with several replicas, two environment variables configure what replicas
//! must share:
//!
//! - `ROUNDTRIP_STATE_KEYS`: the keys that seal `requestState`, comma-separated, hex or base64,
//!   each at least 32 bytes. The first seals, all verify: rotate by adding the new key second,
//!   then first, then dropping the old one (a rolling restart at each step).
//! - `ROUNDTRIP_TASK_STORE`: `redis://host:port/db`: tasks, and the used states of single-use
//!   tools, live in Redis, so any replica answers `tasks/get`, `tasks/update` and
//!   `tasks/cancel` for a task running on another.
//!
//! Over HTTP, two more protect the endpoint as an OAuth 2.1 resource server:
//!
//! - `ROUNDTRIP_AUTH_ISSUER`: the authorization server whose JWT access tokens are accepted
//!   (its keys are found through its metadata);
//! - `ROUNDTRIP_AUTH_RESOURCE`: this endpoint's public URL, e.g. `https://mcp.example.com/mcp`
//!   (the tokens' audience);
//! - optionally `ROUNDTRIP_AUTH_SCOPES`: scopes every request needs, space-separated.
//!
//! And two say which names the endpoint answers to (see `HttpOptions::allowed_hosts`):
//!
//! - `ROUNDTRIP_ALLOWED_HOSTS`: the `Host` names accepted, comma-separated (default: loopback
//!   names on a loopback address, any host elsewhere, with a warning);
//! - `ROUNDTRIP_ALLOWED_ORIGINS`: the browser origins accepted (`https://app.example.com`),
//!   comma-separated (default: the request's own host).

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use roundtrip::auth::{JwtVerifier, ResourceServer};
use roundtrip::seal::RedisReplayCache;
use roundtrip::task::RedisStore;
use roundtrip::transport::http::HttpOptions;
use roundtrip::{RequestStateSecurity, Server};
use tracing_subscriber::EnvFilter;

enum Mode {
    Stdio,
    Http(String),
}

/// Serve `server` as the command line says; logs go to stderr (stdout is the stdio
/// transport), `RUST_LOG` sets the level.
pub async fn serve(name: &str, server: Server) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, format] = args.as_slice()
        && flag == "--describe"
    {
        let doc = server.describe();
        match format.as_str() {
            "json" => println!("{}", serde_json::to_string_pretty(doc.to_json()).unwrap_or_default()),
            "markdown" => print!("{}", doc.to_markdown()),
            _ => {
                eprintln!("usage: {name} --describe json|markdown");
                return ExitCode::from(2);
            }
        }
        return ExitCode::SUCCESS;
    }
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let server = match configure(server).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("{name}: {e}");
            return ExitCode::from(2);
        }
    };
    let mode = match args.as_slice() {
        [flag] if flag == "--stdio" => Mode::Stdio,
        [flag, addr] if flag == "--http" => Mode::Http(addr.clone()),
        _ => {
            eprintln!("usage: {name} --stdio | --http ADDR | --describe json|markdown");
            return ExitCode::from(2);
        }
    };
    let options = match auth_options() {
        Ok(options) => allowed_names(options),
        Err(e) => {
            eprintln!("{name}: {e}");
            return ExitCode::from(2);
        }
    };
    let served = match mode {
        Mode::Stdio => server.clone().serve_stdio().await,
        Mode::Http(addr) => match server.clone().bind_http_with(&addr, http_options(&addr, options).await).await {
            Ok(bound) => {
                let bound = bound.merge(probes(server.clone()));
                tracing::info!("serving MCP at {}", bound.url());
                if let Some(url) = bound.playground_url() {
                    tracing::info!("playground at {url}");
                }
                // SIGTERM (a rolling restart) stops taking connections and lets the requests
                // in flight finish; SIGKILL is what loses them.
                bound.run_until(terminated()).await
            }
            Err(e) => Err(e),
        },
    };
    // Let the task bodies of this process finish before it goes away.
    let left = server.drain_tasks(std::time::Duration::from_secs(10)).await;
    if left > 0 {
        tracing::warn!("{left} task(s) still running at exit; they fail once their lease runs out");
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `GET /healthz`: `200` while the process serves. `GET /readyz`: `200` while the task store
/// answers, else `503` (the reason goes to the log, once per change).
fn probes(server: Server) -> axum::Router {
    use axum::http::StatusCode;
    let was_ready = Arc::new(AtomicBool::new(true));
    let ready = move || {
        let (server, was_ready) = (server.clone(), was_ready.clone());
        async move {
            match server.ready().await {
                Ok(()) => {
                    if !was_ready.swap(true, Ordering::Relaxed) {
                        tracing::info!("ready again: the task store answers");
                    }
                    (StatusCode::OK, "ready\n")
                }
                Err(e) => {
                    if was_ready.swap(false, Ordering::Relaxed) {
                        tracing::warn!("not ready: {e}");
                    }
                    (StatusCode::SERVICE_UNAVAILABLE, "not ready: the task store does not answer\n")
                }
            }
        }
    };
    axum::Router::new()
        .route("/healthz", axum::routing::get(|| async { "ok\n" }))
        .route("/readyz", axum::routing::get(ready))
}

/// The playground is on when `addr` is loopback only (every address it resolves to).
async fn http_options(addr: &str, options: HttpOptions) -> HttpOptions {
    let loopback = match tokio::net::lookup_host(addr).await {
        Ok(addrs) => {
            let addrs: Vec<_> = addrs.collect();
            !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())
        }
        Err(_) => false,
    };
    options.playground(loopback)
}

/// Apply `ROUNDTRIP_STATE_KEYS` and `ROUNDTRIP_TASK_STORE` when they are set.
async fn configure(mut server: Server) -> Result<Server, String> {
    if std::env::var_os("ROUNDTRIP_STATE_KEYS").is_some() {
        let policy = RequestStateSecurity::keys_from_env("ROUNDTRIP_STATE_KEYS").map_err(|e| e.to_string())?;
        server = server.security(policy).map_err(|e| e.to_string())?;
        tracing::info!("requestState sealed with the keys of ROUNDTRIP_STATE_KEYS");
    }
    if let Ok(url) = std::env::var("ROUNDTRIP_TASK_STORE") {
        if !url.starts_with("redis://") {
            return Err(format!("ROUNDTRIP_TASK_STORE must be a redis:// URL, not `{url}`"));
        }
        let store = RedisStore::connect(&url).await.map_err(|e| e.to_string())?;
        let replay = RedisReplayCache::connect(&url).await?;
        server = server.task_store(store).replay_cache(replay);
        tracing::info!("tasks and single-use states kept in {url}");
    }
    Ok(server)
}

/// The HTTP options: protected by a resource server when `ROUNDTRIP_AUTH_ISSUER` and
/// `ROUNDTRIP_AUTH_RESOURCE` are set.
fn auth_options() -> Result<HttpOptions, String> {
    let issuer = std::env::var("ROUNDTRIP_AUTH_ISSUER").ok();
    let resource = std::env::var("ROUNDTRIP_AUTH_RESOURCE").ok();
    let (issuer, resource) = match (issuer, resource) {
        (None, None) => return Ok(HttpOptions::default()),
        (Some(issuer), Some(resource)) => (issuer, resource),
        _ => return Err("set both ROUNDTRIP_AUTH_ISSUER and ROUNDTRIP_AUTH_RESOURCE, or neither".into()),
    };
    let scopes = std::env::var("ROUNDTRIP_AUTH_SCOPES").unwrap_or_default();
    let auth = ResourceServer::new(&resource, JwtVerifier::new(&issuer, &resource))
        .authorization_server(&issuer)
        .required_scopes(scopes.split_whitespace());
    tracing::info!("bearer tokens of {issuer} for {resource} required");
    Ok(HttpOptions::default().auth(auth))
}

/// `ROUNDTRIP_ALLOWED_HOSTS` and `ROUNDTRIP_ALLOWED_ORIGINS`, when set.
fn allowed_names(mut options: HttpOptions) -> HttpOptions {
    let list = |name: &str| {
        std::env::var(name)
            .ok()
            .map(|v| v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect::<Vec<_>>())
    };
    if let Some(hosts) = list("ROUNDTRIP_ALLOWED_HOSTS") {
        options = options.allowed_hosts(roundtrip::transport::http::HostCheck::Allow(hosts));
    }
    if let Some(origins) = list("ROUNDTRIP_ALLOWED_ORIGINS") {
        options = options.allowed_origins(origins);
    }
    options
}

/// Resolves on SIGTERM or Ctrl-C.
async fn terminated() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    () = ctrl_c => {}
                }
            }
            Err(_) => ctrl_c.await,
        }
    }
    #[cfg(not(unix))]
    ctrl_c.await;
}
