//! DNS-rebinding and cross-site protection: the `Host` and `Origin` headers a server accepts.
//!
//! Every endpoint checks `Origin` when a request has one (browsers send it; other clients
//! usually do not, and a request without one is not refused for that): against
//! [`HttpOptions::allowed_origins`](crate::http::HttpOptions::allowed_origins) when set, else against
//! the allowed hosts when they are checked, else it must name the host the request was sent
//! to (`Origin`'s host equal to `Host`'s), which refuses a page of another site calling the
//! server from a user's browser. A present foreign `Origin` is `403`.

use ::http::HeaderMap;

/// Which `Host` headers the endpoint accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostCheck {
    /// Decided where the server is bound: [`bind_http`](crate::http::ServeHttp::bind_http) on a
    /// loopback address accepts only loopback hosts; on any other address it refuses to start
    /// (the server cannot know the names it is reached by, and without them a DNS-rebinding
    /// page is not told from a client: name them with [`Allow`](Self::Allow), or opt out with
    /// [`Off`](Self::Off)), unless [`allowed_origins`](crate::http::HttpOptions::allowed_origins) is
    /// set. A
    /// [`router_with`](crate::http::ServeHttp::router_with) mounted by the caller cannot know its
    /// address: it checks `Origin` the same way and no host.
    #[default]
    Auto,
    /// Accept every host (a present `Origin` must still name the request's own host, unless
    /// [`allowed_origins`](crate::http::HttpOptions::allowed_origins) says otherwise): the explicit
    /// opt-out for a server behind a proxy that checks `Host` itself (the runner's
    /// `--allow-any-host`).
    Off,
    /// Only `localhost`, `127.0.0.1` and `[::1]`, with any port.
    Loopback,
    /// Only these host names (any port), or `host:port` entries matched exactly; compared
    /// case-insensitively.
    Allow(Vec<String>),
}

pub(crate) const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// The resolved policy of one endpoint.
#[derive(Debug, Clone)]
pub(crate) struct HostPolicy {
    /// Allowed hosts, lowercase; `None` accepts all.
    hosts: Option<Vec<String>>,
    /// Allowed origins (`scheme://host[:port]`), lowercase; `None` means: an origin whose
    /// host is an allowed host, or, when hosts are not checked, the request's own host.
    origins: Option<Vec<String>>,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    Host,
    Origin,
}

impl HostPolicy {
    pub fn new(check: &HostCheck, origins: Option<&[String]>, bound_to_loopback: Option<bool>) -> Self {
        let loopback = || LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>();
        let hosts = match check {
            HostCheck::Auto => bound_to_loopback.unwrap_or(false).then(loopback),
            HostCheck::Off => None,
            HostCheck::Loopback => Some(loopback()),
            HostCheck::Allow(list) => Some(list.iter().map(|h| h.trim().to_ascii_lowercase()).collect()),
        };
        let origins = origins.map(|o| o.iter().map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase()).collect());
        Self { hosts, origins }
    }

    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        if let Some(hosts) = &self.hosts {
            let host = headers.get(::http::header::HOST).and_then(|h| h.to_str().ok()).map(str::trim_ascii);
            if !host.is_some_and(|h| host_allowed(hosts, h)) {
                return Err(Refusal::Host);
            }
        }
        if let Some(origin) = headers.get(::http::header::ORIGIN) {
            let origin = origin.to_str().map(|o| o.trim_ascii().to_ascii_lowercase()).map_err(|_| Refusal::Origin)?;
            let ok = match (&self.origins, &self.hosts) {
                (Some(origins), _) => origins.contains(&origin),
                (None, Some(hosts)) => origin_host(&origin).is_some_and(|h| host_allowed(hosts, h)),
                (None, None) => {
                    let host = headers.get(::http::header::HOST).and_then(|h| h.to_str().ok()).map(str::trim_ascii);
                    same_host(origin_host(&origin), host)
                }
            };
            if !ok {
                return Err(Refusal::Origin);
            }
        }
        Ok(())
    }
}

/// `authority` (`host[:port]`) against the allowed list: an entry matches the whole authority
/// or its host part.
fn host_allowed(allowed: &[String], authority: &str) -> bool {
    let host = strip_port(authority);
    allowed.iter().any(|a| a.eq_ignore_ascii_case(authority) || a.eq_ignore_ascii_case(host))
}

/// Whether an origin's authority and a `Host` header name the same host (ports aside: a proxy
/// may or may not keep the default port in `Host`).
fn same_host(origin: Option<&str>, host: Option<&str>) -> bool {
    match (origin, host) {
        (Some(origin), Some(host)) => strip_port(origin).eq_ignore_ascii_case(strip_port(host)),
        _ => false,
    }
}

fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// The authority of an origin `scheme://authority`; `None` for `null` or garbage.
fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    if !(scheme == "http" || scheme == "https") || rest.is_empty() || rest.contains('/') {
        return None;
    }
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::http::HeaderValue;

    fn headers(host: Option<&'static str>, origin: Option<&'static str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(v) = host {
            h.insert(::http::header::HOST, HeaderValue::from_static(v));
        }
        if let Some(v) = origin {
            h.insert(::http::header::ORIGIN, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn loopback_policy() {
        let p = HostPolicy::new(&HostCheck::Auto, None, Some(true));
        assert!(p.check(&headers(Some("localhost:8080"), None)).is_ok());
        assert!(p.check(&headers(Some("127.0.0.1"), None)).is_ok());
        assert!(p.check(&headers(Some("[::1]:9"), None)).is_ok());
        assert!(p.check(&headers(Some("LOCALHOST:1"), Some("http://localhost:3000"))).is_ok());
        assert_eq!(p.check(&headers(Some("evil.example.com"), None)), Err(Refusal::Host));
        assert_eq!(p.check(&headers(Some("localhost.evil.com"), None)), Err(Refusal::Host));
        assert_eq!(p.check(&headers(None, None)), Err(Refusal::Host));
        assert_eq!(p.check(&headers(Some("localhost"), Some("https://evil.example.com"))), Err(Refusal::Origin));
        assert_eq!(p.check(&headers(Some("localhost"), Some("null"))), Err(Refusal::Origin));
    }

    #[test]
    fn without_a_host_list_an_origin_must_name_the_requests_own_host() {
        for off in [HostPolicy::new(&HostCheck::Auto, None, None), HostPolicy::new(&HostCheck::Auto, None, Some(false))]
        {
            assert!(off.check(&headers(Some("mcp.example.com"), Some("https://mcp.example.com"))).is_ok());
            assert!(off.check(&headers(Some("mcp.example.com:443"), Some("https://MCP.example.com"))).is_ok());
            assert!(off.check(&headers(Some("10.0.0.5:8080"), None)).is_ok(), "no Origin: not a browser");
            assert_eq!(off.check(&headers(Some("10.0.0.5:8080"), Some("http://attacker.test"))), Err(Refusal::Origin));
            assert_eq!(off.check(&headers(None, Some("http://attacker.test"))), Err(Refusal::Origin));
            assert_eq!(off.check(&headers(Some("10.0.0.5"), Some("null"))), Err(Refusal::Origin));
        }
    }

    #[test]
    fn off_and_explicit_lists() {
        let off = HostPolicy::new(&HostCheck::Off, None, None);
        assert!(off.check(&headers(Some("evil.example.com"), Some("https://evil.example.com"))).is_ok());
        assert!(off.check(&headers(Some("mcp.example.com"), Some("https://evil.example.com"))).is_err());
        let list = HostPolicy::new(&HostCheck::Allow(vec!["mcp.example.com".into()]), None, Some(true));
        assert!(list.check(&headers(Some("mcp.example.com:443"), Some("https://mcp.example.com"))).is_ok());
        assert!(list.check(&headers(Some("localhost"), None)).is_err());
        let origins = ["https://app.example.com".to_owned()];
        let o = HostPolicy::new(&HostCheck::Off, Some(&origins), None);
        assert!(o.check(&headers(Some("x"), Some("https://app.example.com"))).is_ok());
        assert!(o.check(&headers(Some("x"), Some("https://evil.example.com"))).is_err());
    }
}
