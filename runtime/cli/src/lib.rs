//! The runner every app's `main` calls (cargo feature `cli`): flags, environment, logs,
//! telemetry, health, and a clean stop.
//!
//! ```no_run
//! use roundtrip::prelude::*;
//!
//! /// Say hello.
//! #[tool(read_only)]
//! async fn hello(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     roundtrip::cli::run(Server::new("hello", "1.0.0").tools(tools![hello]))
//! }
//! ```
//!
//! The program then takes `--stdio`, `--http ADDR` (with `--playground`, `--metrics ADDR`,
//! `--allowed-host NAME`, `--allowed-origin ORIGIN`, `--allow-any-host`, `--trusted-proxy CIDR`,
//! `--forwarded-header H`, `--identity-header NAME`, `--shutdown-timeout SECS`), `--limit NAME=VALUE` (every limit of [`HttpOptions`] and
//! [`TaskOptions`] by its name: `max_streams_per_caller=64`, `idle_timeout=30s`, `max_tasks=500`,
//! `task_ttl=2h`; `--help` lists them), `--describe json|markdown` and `--help`, and reads:
//!
//! [`HttpOptions`]: roundtrip_transport::http::HttpOptions
//! [`TaskOptions`]: roundtrip_core::task::TaskOptions
//!
//! | variable | what it sets |
//! |---|---|
//! | `ROUNDTRIP_STATE_KEYS` | the keys that seal `requestState`, comma-separated hex or base64 (the first seals, all verify) |
//! | `ROUNDTRIP_TASK_STORE` | `redis://…` or `rediss://…`: tasks, the used states of single-use tools and the fleet's bus (list changes, resource updates, run-time registrations) in Redis (feature `redis`) |
//! | `ROUNDTRIP_AUTH_ISSUER`, `ROUNDTRIP_AUTH_RESOURCE`, `ROUNDTRIP_AUTH_SCOPES` | bearer tokens (JWT) of that issuer for that resource URL, with those scopes (feature `auth`) |
//! | `ROUNDTRIP_ALLOWED_HOSTS`, `ROUNDTRIP_ALLOWED_ORIGINS` | the `Host` names and browser origins the endpoint accepts |
//! | `ROUNDTRIP_ALLOW_ANY_HOST` | `1`: answer any `Host` on an address that is not loopback, the endpoint's and `--metrics` (otherwise refused without allowed hosts) |
//! | `ROUNDTRIP_TRUSTED_PROXIES`, `ROUNDTRIP_FORWARDED_HEADER`, `ROUNDTRIP_IDENTITY_HEADER` | the reverse proxies (addresses or networks, comma-separated) whose `X-Forwarded-For` (or `Forwarded`) names the client, and the header in which they name an authenticated caller |
//! | `ROUNDTRIP_LIMITS` | limits as `NAME=VALUE` pairs, comma-separated (the flags win) |
//! | `ROUNDTRIP_OTEL_TRUST_REMOTE_SAMPLED` | `authenticated` (default), `all` or `never`: whose `traceparent` sampled flag is followed (`roundtrip::otel::TrustRemoteSampled`, feature `otel`) |
//! | `ROUNDTRIP_SHUTDOWN_TIMEOUT` | seconds SIGTERM waits for the requests in hand (default 20; `--shutdown-timeout` wins) |
//! | `RUST_LOG` | the log filter (default `info`); logs go to stderr, stdout belongs to stdio |
//! | `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, … | traces and metrics by OTLP ([`roundtrip::otel`](https://docs.rs/roundtrip/latest/roundtrip/otel/index.html), feature `otel`) |
//!
//! `--metrics ADDR` serves `GET /metrics` alone, on a listener of its own with the endpoint's
//! protections: at most 32 connections, the header-read and idle timeouts, and the `Host`
//! check (loopback names on a loopback address; on any other, the `--allowed-host` names, or
//! any with `--allow-any-host`).
//!
//! Over HTTP, `GET /healthz` answers 200 while the process runs and `GET /readyz` 200 only
//! while the task store answers and the fleet's bus delivers (asked at most once a second,
//! however many the probes). SIGTERM (or Ctrl-C) stops taking connections, answers `408` to
//! a request whose body is still arriving, lets the requests in flight finish, waits for the
//! task bodies running here (up to 10 s), and flushes telemetry. The requests get at most the
//! shutdown timeout (20 s by default, within Kubernetes' grace period of 30 s; what is still
//! open after it is dropped), and the tasks what is left of it, at least a second. A bad flag or variable stops the program with exit status 2 and a message naming
//! it.
//!
//! The crate roundtrip-cli, which applications name `roundtrip::cli` (the feature `cli` of
//! [roundtrip](https://docs.rs/roundtrip), a default one; with `otel`, `redis` and `auth`, the
//! runner reads their variables).

mod args;
mod configure;
mod limits;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use args::{Format, Mode};
use roundtrip_core::server::Server;
use roundtrip_transport::ServeStream as _;
use roundtrip_transport::http::ServeHttp as _;

/// Run `server` as the command line and the environment say, on a Tokio runtime of its own;
/// the exit status to return from `main`.
pub fn run(server: Server) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime.block_on(serve(server)),
        Err(e) => {
            eprintln!("{}: could not start the Tokio runtime: {e}", program());
            ExitCode::FAILURE
        }
    }
}

/// [`run`], on the current Tokio runtime (for a `main` that has one already).
pub async fn serve(server: Server) -> ExitCode {
    let program = program();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fail = |e: String| {
        eprintln!("{program}: {e}");
        ExitCode::from(2)
    };
    let on_lambda = std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some();
    let args = match args::parse(&args, on_lambda) {
        Ok(args) => args,
        Err(e) => return fail(e),
    };
    match args.mode {
        Mode::Help => {
            println!("{}", args::usage(&program));
            return ExitCode::SUCCESS;
        }
        Mode::Describe(format) => {
            let doc = server.describe();
            match format {
                Format::Json => println!("{}", serde_json::to_string_pretty(doc.to_json()).unwrap_or_default()),
                Format::Markdown => print!("{}", doc.to_markdown()),
            }
            return ExitCode::SUCCESS;
        }
        Mode::Stdio | Mode::Http(_) | Mode::Lambda => {}
    }
    if let Err(e) = configure::logs() {
        return fail(e);
    }
    let telemetry = match configure::telemetry(&server, args.metrics.is_some()) {
        Ok(guard) => Arc::new(std::sync::Mutex::new(guard)),
        Err(e) => return fail(e),
    };
    let server = match configure::server(server, &args).await {
        Ok(server) => server,
        Err(e) => return fail(e),
    };
    if let Some(addr) = args.metrics {
        match configure::metrics_endpoint(addr, &args, telemetry.clone()).await {
            Ok(bound) => tracing::info!("Prometheus metrics at http://{bound}/metrics"),
            Err(e) => return fail(e),
        }
    }
    // When the shutdown signal came, and how long the whole shutdown may take (HTTP only).
    let stopping = Arc::new(std::sync::OnceLock::<std::time::Instant>::new());
    let mut deadline = None;
    let served = match &args.mode {
        Mode::Stdio => tokio::select! {
            served = server.clone().serve_stdio() => served,
            () = terminated() => Ok(()),
        },
        Mode::Http(addr) => {
            let options = match configure::http_options(&args, addr).await {
                Ok(options) => options,
                Err(e) => return fail(e),
            };
            deadline = Some(options.shutdown_timeout);
            let signal = {
                let stopping = stopping.clone();
                async move {
                    terminated().await;
                    let _ = stopping.set(std::time::Instant::now());
                }
            };
            match server.clone().bind_http_with(addr.as_str(), options).await {
                Ok(bound) => {
                    tracing::info!("serving MCP at {}", bound.url());
                    if let Some(url) = bound.playground_url() {
                        tracing::info!("playground at {url}");
                    }
                    bound.merge(configure::health_routes(&server)).run_until(signal).await
                }
                // Options that cannot be used (an open bind without allowed hosts, a trusted
                // proxy that is no address) are the operator's to fix, like a bad flag.
                Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => return fail(format!("--http {addr}: {e}")),
                Err(e) => Err(e),
            }
        }
        Mode::Lambda => match configure::http_options(&args, "").await {
            Ok(options) => lambda(server.clone(), options).await,
            Err(e) => return fail(e),
        },
        Mode::Describe(_) | Mode::Help => Ok(()),
    };
    // The task bodies of this process finish before it goes away; what is left fails once its
    // lease runs out, and an idempotent call is started again by the client. They are given
    // what is left of the shutdown's deadline (at least a second, at most ten), so that
    // telemetry is still flushed within the orchestrator's grace period.
    let mut within = Duration::from_secs(10);
    if let (Some(deadline), Some(since)) = (deadline, stopping.get()) {
        within = within.min(deadline.saturating_sub(since.elapsed())).max(Duration::from_secs(1));
    }
    let left = server.drain_tasks(within).await;
    if left > 0 {
        tracing::warn!("{left} task(s) still running at exit; they fail once their lease runs out");
    }
    if let Ok(mut guard) = telemetry.lock()
        && let Some(guard) = guard.as_mut()
    {
        guard.shutdown();
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serve the function until the Lambda runtime stops it.
#[cfg(feature = "lambda")]
async fn lambda(server: Server, options: roundtrip_transport::http::HttpOptions) -> std::io::Result<()> {
    // What `bind_http` checks before it serves, refused here rather than as a panic of the
    // handler's router.
    server.check_io()?;
    tracing::info!("serving MCP as an AWS Lambda function");
    roundtrip_lambda::serve_with(server, options).await.map_err(std::io::Error::other)
}

/// Without the `lambda` feature: an error that says what is missing.
#[cfg(not(feature = "lambda"))]
async fn lambda(_: Server, _: roundtrip_transport::http::HttpOptions) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "this program runs on AWS Lambda (AWS_LAMBDA_RUNTIME_API is set) but was built without roundtrip's \
         `lambda` feature: build it with that feature, or pass --http ADDR or --stdio",
    ))
}

/// The program's name, for messages.
fn program() -> String {
    std::env::args()
        .next()
        .and_then(|p| std::path::Path::new(&p).file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "server".to_owned())
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
