//! What the runner sets up from its flags and the environment: logs, telemetry, the server's
//! keys, task store and authorization, the HTTP options, and the health and metrics routes.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::response::IntoResponse;
use axum::routing::get;

use crate::args::{Args, env_list, seconds};
#[cfg(feature = "otel")]
pub(super) use roundtrip_otel::OtelGuard;
use roundtrip_transport::http::{ForwardedHeader, HostCheck, HttpOptions};

/// Telemetry is not built in: nothing to flush or render.
#[cfg(not(feature = "otel"))]
#[derive(Debug)]
pub(super) struct OtelGuard;

#[cfg(not(feature = "otel"))]
impl OtelGuard {
    pub(super) fn shutdown(&mut self) {}

    fn prometheus_text(&self) -> Option<String> {
        None
    }
}
use roundtrip_core::seal::RequestStateSecurity;
use roundtrip_core::server::Server;

/// Logs to stderr (stdout belongs to stdio), filtered by `RUST_LOG` (default `info`).
pub(super) fn logs() -> Result<(), String> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(spec) => tracing_subscriber::EnvFilter::try_new(&spec).map_err(|e| format!("RUST_LOG=`{spec}`: {e}"))?,
        Err(_) => tracing_subscriber::EnvFilter::new("info"),
    };
    // A second runner in one process (tests) keeps the first subscriber.
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).try_init();
    Ok(())
}

/// Telemetry from `OTEL_*`, and Prometheus when `--metrics` asks for it.
#[cfg(feature = "otel")]
pub(super) fn telemetry(server: &Server, prometheus: bool) -> Result<Option<OtelGuard>, String> {
    let mut settings = roundtrip_otel::OtelSettings::from_env().map_err(|e| e.0)?;
    settings.prometheus = prometheus;
    settings.service_name = Some(server.name().to_owned());
    if !settings.otlp && !settings.prometheus {
        return Ok(None);
    }
    let guard = roundtrip_otel::init(settings).map_err(|e| e.0)?;
    tracing::info!("telemetry: {guard:?}");
    Ok(Some(guard))
}

/// Without the `otel` feature: an error when telemetry was asked for.
#[cfg(not(feature = "otel"))]
pub(super) fn telemetry(_: &Server, prometheus: bool) -> Result<Option<OtelGuard>, String> {
    if prometheus {
        return Err("--metrics needs roundtrip's `otel` feature, which this program was built without".into());
    }
    if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some() {
        tracing::warn!(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set, but this program was built without roundtrip's `otel` feature"
        );
    }
    Ok(None)
}

/// `ROUNDTRIP_STATE_KEYS` and `ROUNDTRIP_TASK_STORE`, when set, and the task limits.
pub(super) async fn server(mut server: Server, args: &Args) -> Result<Server, String> {
    let limits = crate::limits::from_env_and_flags(&args.limits)?;
    let tasks = crate::limits::tasks(&limits, server.tasks().options)?;
    server = crate::limits::rates(&limits, server.task_options(tasks))?;
    if std::env::var_os("ROUNDTRIP_STATE_KEYS").is_some() {
        let policy = RequestStateSecurity::keys_from_env("ROUNDTRIP_STATE_KEYS")
            .map_err(|e| format!("ROUNDTRIP_STATE_KEYS: {e}"))?;
        server = server.security(policy).map_err(|e| format!("ROUNDTRIP_STATE_KEYS: {e}"))?;
        tracing::info!("requestState sealed with the keys of ROUNDTRIP_STATE_KEYS");
    }
    if let Ok(url) = std::env::var("ROUNDTRIP_TASK_STORE") {
        server = task_store(server, &url).await?;
    }
    Ok(server)
}

/// `rediss://` is Redis over TLS, trusting the system's roots (`SSL_CERT_FILE`, `SSL_CERT_DIR`).
#[cfg(feature = "redis")]
async fn task_store(server: Server, url: &str) -> Result<Server, String> {
    if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
        return Err(format!("ROUNDTRIP_TASK_STORE must be a redis:// or rediss:// URL, not `{}`", redacted(url)));
    }
    let store = roundtrip_redis::RedisStore::connect(url).await.map_err(|e| format!("ROUNDTRIP_TASK_STORE: {e}"))?;
    let replay =
        roundtrip_redis::RedisReplayCache::connect(url).await.map_err(|e| format!("ROUNDTRIP_TASK_STORE: {e}"))?;
    // The same Redis carries the fleet's list changes and run-time registrations.
    let bus = roundtrip_redis::RedisBus::connect(url).await.map_err(|e| format!("ROUNDTRIP_TASK_STORE: {e}"))?;
    tracing::info!("tasks, single-use states and the fleet's changes kept in {}", redacted(url));
    Ok(server.task_store(store).replay_cache(replay).bus(bus))
}

/// `url` without its password (`rediss://user:***@host`), for the log: hosted Redis over TLS
/// usually takes one in the URL.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            let hidden = if userinfo.contains(':') { format!("{user}:***") } else { "***".to_owned() };
            format!("{scheme}://{hidden}@{host}{}", &rest[authority.len()..])
        }
        None => url.to_owned(),
    }
}

#[cfg(not(feature = "redis"))]
async fn task_store(_: Server, _: &str) -> Result<Server, String> {
    Err("ROUNDTRIP_TASK_STORE is set, but this program was built without roundtrip's `redis` feature".into())
}

/// The HTTP endpoint's options: authorization, allowed names, proxies, limits, the shutdown's
/// deadline, the playground.
pub(super) async fn http_options(args: &Args, addr: &str) -> Result<HttpOptions, String> {
    let mut options = auth()?;
    options = crate::limits::http(&crate::limits::from_env_and_flags(&args.limits)?, options)?;
    let proxies =
        args.trusted_proxies.iter().cloned().chain(env_list("ROUNDTRIP_TRUSTED_PROXIES").into_iter().flatten());
    options = options.trusted_proxies(proxies);
    let forwarded = args.forwarded_header.clone().or_else(|| std::env::var("ROUNDTRIP_FORWARDED_HEADER").ok());
    match forwarded.as_deref().map(|h| h.trim().to_ascii_lowercase()).as_deref() {
        None | Some("x-forwarded-for") => {}
        Some("forwarded") => options = options.forwarded_header(ForwardedHeader::Forwarded),
        Some(other) => {
            return Err(format!("--forwarded-header takes x-forwarded-for or forwarded, not `{other}`"));
        }
    }
    if let Some(header) = args.identity_header.clone().or_else(|| std::env::var("ROUNDTRIP_IDENTITY_HEADER").ok()) {
        options = options.identity_header(header);
    }
    if args.allow_any_host || env_flag("ROUNDTRIP_ALLOW_ANY_HOST")? {
        options = options.allowed_hosts(HostCheck::Off);
    }
    let hosts = args.allowed_hosts.iter().cloned().chain(env_list("ROUNDTRIP_ALLOWED_HOSTS").into_iter().flatten());
    let hosts: Vec<String> = hosts.collect();
    if !hosts.is_empty() {
        options = options.allowed_hosts(HostCheck::Allow(hosts));
    }
    let origins =
        args.allowed_origins.iter().cloned().chain(env_list("ROUNDTRIP_ALLOWED_ORIGINS").into_iter().flatten());
    let origins: Vec<String> = origins.collect();
    if !origins.is_empty() {
        options = options.allowed_origins(origins);
    }
    let shutdown_timeout = match (args.shutdown_timeout, std::env::var("ROUNDTRIP_SHUTDOWN_TIMEOUT")) {
        (Some(timeout), _) => Some(timeout),
        (None, Ok(value)) => Some(seconds(&value).map_err(|e| format!("ROUNDTRIP_SHUTDOWN_TIMEOUT {e}"))?),
        (None, Err(_)) => None,
    };
    if let Some(timeout) = shutdown_timeout {
        options = options.shutdown_timeout(timeout);
    }
    if args.playground {
        let loopback = match tokio::net::lookup_host(addr).await {
            Ok(addrs) => {
                let addrs: Vec<_> = addrs.collect();
                !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())
            }
            Err(e) => return Err(format!("--http {addr}: {e}")),
        };
        if !loopback {
            return Err(format!("--playground is served on loopback addresses only, and {addr} is not"));
        }
        options = options.playground(true);
    }
    Ok(options)
}

/// Whether the boolean variable `name` is set: `1`/`true`/`yes` or `0`/`false`/`no`.
fn env_flag(name: &str) -> Result<bool, String> {
    match std::env::var(name) {
        Err(_) => Ok(false),
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" => Ok(true),
            "" | "0" | "false" | "no" => Ok(false),
            _ => Err(format!("{name} takes 1 or 0, not `{v}`")),
        },
    }
}

/// Protected by a resource server when `ROUNDTRIP_AUTH_ISSUER` and `ROUNDTRIP_AUTH_RESOURCE`
/// are set.
#[cfg(feature = "auth")]
fn auth() -> Result<HttpOptions, String> {
    use roundtrip_auth::{JwtVerifier, ResourceServer};
    let issuer = std::env::var("ROUNDTRIP_AUTH_ISSUER").ok();
    let resource = std::env::var("ROUNDTRIP_AUTH_RESOURCE").ok();
    let (issuer, resource) = match (issuer, resource) {
        (None, None) => return Ok(HttpOptions::default()),
        (Some(issuer), Some(resource)) => (issuer, resource),
        (Some(_), None) => return Err("ROUNDTRIP_AUTH_ISSUER is set without ROUNDTRIP_AUTH_RESOURCE".into()),
        (None, Some(_)) => return Err("ROUNDTRIP_AUTH_RESOURCE is set without ROUNDTRIP_AUTH_ISSUER".into()),
    };
    let scopes = std::env::var("ROUNDTRIP_AUTH_SCOPES").unwrap_or_default();
    let auth = ResourceServer::new(&resource, JwtVerifier::new(&issuer, &resource))
        .authorization_server(&issuer)
        .required_scopes(scopes.split_whitespace());
    tracing::info!("bearer tokens of {issuer} for {resource} required");
    Ok(HttpOptions::default().auth(auth))
}

#[cfg(not(feature = "auth"))]
fn auth() -> Result<HttpOptions, String> {
    if std::env::var_os("ROUNDTRIP_AUTH_ISSUER").is_some() || std::env::var_os("ROUNDTRIP_AUTH_RESOURCE").is_some() {
        return Err("ROUNDTRIP_AUTH_* is set, but this program was built without roundtrip's `auth` feature".into());
    }
    Ok(HttpOptions::default())
}

/// How long a `/readyz` answer is reused: probes, however many, reach the task store at most
/// once in this time, so they cannot be used to load it (Redis).
const READY_FOR: Duration = Duration::from_secs(1);

/// `GET /healthz`: `200` while the process serves. `GET /readyz`: `200` while the task store
/// answers and the fleet's bus delivers (`Server::ready`), else `503`; the reason goes to the log, once per change, never to the prober. The
/// store is asked at most once every [`READY_FOR`].
pub(super) fn health_routes(server: &Server) -> Router {
    let server = server.clone();
    let ready = Readiness::new(move || {
        let server = server.clone();
        async move { server.ready().await.map_err(|e| e.to_string()) }
    });
    Router::new().route("/healthz", get(|| async { "ok\n" })).route("/readyz", get(move || ready.clone().answer()))
}

/// The readiness check behind `/readyz`, its last result cached for [`READY_FOR`].
struct Readiness<F> {
    check: F,
    /// When the store was last asked, and whether it answered; held while asking, so that
    /// probes arriving meanwhile wait for that answer instead of asking again.
    last: tokio::sync::Mutex<Option<(Instant, bool)>>,
    was_ready: AtomicBool,
}

impl<F, Fut> Readiness<F>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), String>> + Send,
{
    fn new(check: F) -> Arc<Self> {
        Arc::new(Self { check, last: tokio::sync::Mutex::new(None), was_ready: AtomicBool::new(true) })
    }

    /// Whether the store answers: the cached answer when it is recent, else the store's.
    async fn ready(&self) -> bool {
        let mut last = self.last.lock().await;
        if let Some((at, ready)) = *last
            && at.elapsed() < READY_FOR
        {
            return ready;
        }
        let ready = match (self.check)().await {
            Ok(()) => {
                if !self.was_ready.swap(true, Ordering::Relaxed) {
                    tracing::info!("ready again");
                }
                true
            }
            Err(e) => {
                if self.was_ready.swap(false, Ordering::Relaxed) {
                    tracing::warn!("not ready: {e}");
                }
                false
            }
        };
        *last = Some((Instant::now(), ready));
        ready
    }

    async fn answer(self: Arc<Self>) -> (http::StatusCode, &'static str) {
        if self.ready().await {
            (http::StatusCode::OK, "ready\n")
        } else {
            (http::StatusCode::SERVICE_UNAVAILABLE, "not ready: the task store or the fleet's bus does not answer\n")
        }
    }
}

/// The most connections open at once to the metrics listener. A scraper keeps one
/// keep-alive connection per target, so 32 leaves room for several scrapers and a person
/// with `curl`, and is far below any open-file limit: connections beyond it are answered `503`
/// and closed, and cannot take the files the MCP endpoint needs (1,100 idle connections to an
/// unbounded listener left a process with 1,024 files unable to accept on its endpoint).
const METRICS_MAX_CONNECTIONS: usize = 32;

/// Which `Host` names the metrics listener at `addr` answers to: the `--allowed-host` names
/// (and `ROUNDTRIP_ALLOWED_HOSTS`) when there are some; else on a loopback address the
/// loopback names; else any name if `--allow-any-host` (or `ROUNDTRIP_ALLOW_ANY_HOST=1`) says
/// so. A non-loopback address with neither is refused: the metrics would be open to
/// DNS rebinding, as the endpoint would.
fn metrics_hosts(addr: SocketAddr, allowed: Vec<String>, allow_any_host: bool) -> Result<HostCheck, String> {
    if !allowed.is_empty() {
        Ok(HostCheck::Allow(allowed))
    } else if addr.ip().is_loopback() {
        Ok(HostCheck::Auto)
    } else if allow_any_host {
        Ok(HostCheck::Off)
    } else {
        Err(format!(
            "--metrics {addr} is not a loopback address: name the hosts it is reached by with --allowed-host NAME \
             (or ROUNDTRIP_ALLOWED_HOSTS), or accept any Host with --allow-any-host (or ROUNDTRIP_ALLOW_ANY_HOST=1)"
        ))
    }
}

/// Serve the Prometheus text of `telemetry` at `http://{addr}/metrics`, the only route, with
/// the endpoint's connection limits and `Host` check (see [`metrics_hosts`]); the address
/// bound.
pub(super) async fn metrics_endpoint(
    addr: SocketAddr,
    args: &Args,
    telemetry: Arc<Mutex<Option<OtelGuard>>>,
) -> Result<SocketAddr, String> {
    let allowed = args.allowed_hosts.iter().cloned().chain(env_list("ROUNDTRIP_ALLOWED_HOSTS").into_iter().flatten());
    let hosts = metrics_hosts(addr, allowed.collect(), args.allow_any_host || env_flag("ROUNDTRIP_ALLOW_ANY_HOST")?)?;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("--metrics {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| format!("--metrics {addr}: {e}"))?;
    let app = Router::new().route(
        "/metrics",
        get(move || {
            let text = telemetry.lock().ok().and_then(|g| g.as_ref().and_then(OtelGuard::prometheus_text));
            async move {
                let mut response = text.unwrap_or_default().into_response();
                response.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    http::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
                );
                response
            }
        }),
    );
    tokio::spawn(async move {
        if let Err(e) = roundtrip_transport::http::serve_routes(listener, app, METRICS_MAX_CONNECTIONS, &hosts).await {
            tracing::error!("the metrics endpoint stopped: {e}");
        }
    });
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

    use super::{READY_FOR, Readiness};

    #[tokio::test]
    async fn readyz_asks_the_store_at_most_once_a_second() {
        let (asked, up) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(true)));
        let (a, u) = (asked.clone(), up.clone());
        let readiness = Readiness::new(move || {
            let (a, u) = (a.clone(), u.clone());
            async move {
                a.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                if u.load(Ordering::SeqCst) { Ok(()) } else { Err("down".to_owned()) }
            }
        });
        // A burst of probes, at once and one after another: one question to the store.
        let burst: Vec<_> = (0..50).map(|_| tokio::spawn(readiness.clone().answer())).collect();
        for probe in burst {
            assert_eq!(probe.await.expect("no panic").0, http::StatusCode::OK);
        }
        for _ in 0..50 {
            assert_eq!(readiness.clone().answer().await.0, http::StatusCode::OK);
        }
        assert_eq!(asked.load(Ordering::SeqCst), 1, "the store was asked once for 100 probes");
        // The store goes down: probes see it once the cached answer is older than READY_FOR.
        up.store(false, Ordering::SeqCst);
        tokio::time::sleep(READY_FOR + Duration::from_millis(50)).await;
        assert_eq!(readiness.clone().answer().await.0, http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(readiness.clone().answer().await.0, http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(asked.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_metrics_listener_off_loopback_needs_its_hosts_named_or_any_allowed() {
        use super::{HostCheck, metrics_hosts};
        let addr = |a: &str| a.parse().expect("an address");
        assert_eq!(metrics_hosts(addr("127.0.0.1:9464"), vec![], false), Ok(HostCheck::Auto));
        let refused = metrics_hosts(addr("0.0.0.0:9464"), vec![], false).expect_err("refused");
        assert!(refused.contains("--allowed-host NAME") && refused.contains("--allow-any-host"), "{refused}");
        assert_eq!(metrics_hosts(addr("0.0.0.0:9464"), vec![], true), Ok(HostCheck::Off));
        let named = vec!["metrics.internal".to_owned()];
        assert_eq!(metrics_hosts(addr("10.0.0.5:9464"), named.clone(), false), Ok(HostCheck::Allow(named)));
    }

    #[test]
    fn the_logged_store_url_hides_its_password() {
        assert_eq!(
            super::redacted("rediss://default:s3cret@cache.example:6380/0"),
            "rediss://default:***@cache.example:6380/0"
        );
        assert_eq!(super::redacted("rediss://:s3cret@cache.example"), "rediss://:***@cache.example");
        assert_eq!(super::redacted("redis://token@127.0.0.1:6379/"), "redis://***@127.0.0.1:6379/");
        assert_eq!(super::redacted("redis://127.0.0.1:6379/"), "redis://127.0.0.1:6379/");
        assert_eq!(super::redacted("not a url"), "not a url");
    }
}
