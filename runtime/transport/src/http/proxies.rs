//! Trusted proxies: who the client is when a reverse proxy stands between it and the server.
//!
//! Behind a proxy every connection comes from the proxy's address, so anonymous callers would
//! all be one caller (one set of streams, sessions and tasks for everyone). A proxy listed in
//! [`HttpOptions::trusted_proxies`](super::HttpOptions::trusted_proxies) says who its client was
//! in `X-Forwarded-For` or, when configured, `Forwarded` (RFC 7239); that header is read only
//! on connections from such a proxy (anyone else could write it), walking its list from the
//! nearest hop back and skipping other trusted proxies: the first address not trusted is the
//! client. Only one header is read, the one the proxy writes: a header it passes through as the
//! client sent it would let the client name any address. The
//! same proxy may vouch for an authenticated caller in an identity header
//! ([`HttpOptions::identity_header`](super::HttpOptions::identity_header)).

use std::net::IpAddr;

use ::http::{HeaderMap, HeaderName, header};
use ipnet::IpNet;

/// Which header a trusted proxy names its client in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, …`, as nginx (`$proxy_add_x_forwarded_for`), HAProxy
    /// and the cloud load balancers write it.
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

/// The most hops of a forwarding header looked at, from the nearest back: a chain longer than
/// any real deployment's is not walked further (its farthest trusted hop is the client).
const MAX_HOPS: usize = 32;

/// The longest identity an identity header may carry, in bytes.
const MAX_IDENTITY_LEN: usize = 512;

/// The resolved proxy settings of one endpoint.
#[derive(Debug, Clone, Default)]
pub(super) struct Proxies {
    nets: Vec<IpNet>,
    header: ForwardedHeader,
    identity_header: Option<HeaderName>,
}

/// Where a request came from, once the proxies have been heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Origin {
    /// The client's address: the connection's, or the one a trusted proxy forwarded.
    pub client: Option<IpAddr>,
    /// Whether the connection came from a trusted proxy.
    pub via_trusted_proxy: bool,
}

impl Proxies {
    /// Parse `proxies` (addresses or CIDR networks) and the identity header's name; an error
    /// names the entry and the fix.
    pub fn new(proxies: &[String], header: ForwardedHeader, identity_header: Option<&str>) -> Result<Self, String> {
        let nets = proxies
            .iter()
            .map(|entry| {
                let entry = entry.trim();
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| {
                        format!(
                            "trusted proxy `{entry}` is neither an IP address nor a network; write it like \
                             127.0.0.1, 10.0.0.0/8 or fd00::/8"
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let identity_header = match identity_header {
            None => None,
            Some(name) => {
                if nets.is_empty() {
                    return Err(format!(
                        "the identity header `{name}` is read only from trusted proxies, and none is set: list the \
                         proxies that set it (HttpOptions::trusted_proxies, --trusted-proxy, \
                         ROUNDTRIP_TRUSTED_PROXIES), or anyone could claim any identity"
                    ));
                }
                Some(HeaderName::try_from(name.trim()).map_err(|_| format!("`{name}` is not a header name"))?)
            }
        };
        Ok(Self { nets, header, identity_header })
    }

    fn trusted(&self, addr: IpAddr) -> bool {
        let addr = canonical(addr);
        self.nets.iter().any(|net| net.contains(&addr))
    }

    /// Where a request on a connection from `peer` came from.
    pub fn origin(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Origin {
        let Some(peer) = peer.filter(|p| !self.nets.is_empty() && self.trusted(*p)) else {
            return Origin { client: peer, via_trusted_proxy: false };
        };
        let forwarded = match self.header {
            ForwardedHeader::XForwardedFor => self.walk(peer, x_forwarded_for(headers)),
            ForwardedHeader::Forwarded => self.walk(peer, forwarded_for(headers)),
        };
        Origin { client: Some(forwarded), via_trusted_proxy: true }
    }

    /// The client of a chain of hops, nearest first: the first hop not trusted, or the
    /// farthest trusted one when every hop is (or a hop cannot be read).
    fn walk(&self, peer: IpAddr, hops: impl Iterator<Item = Option<IpAddr>>) -> IpAddr {
        let mut client = peer;
        for hop in hops.take(MAX_HOPS) {
            let Some(hop) = hop else { break };
            client = canonical(hop);
            if !self.trusted(hop) {
                break;
            }
        }
        client
    }

    /// The identity a trusted proxy vouches for in the identity header, if it is configured,
    /// the request came through such a proxy, and the header holds one value of visible ASCII.
    pub fn identity<'h>(&self, origin: Origin, headers: &'h HeaderMap) -> Option<(&str, &'h str)> {
        let name = self.identity_header.as_ref().filter(|_| origin.via_trusted_proxy)?;
        let mut values = headers.get_all(name).iter();
        let value = values.next()?;
        if values.next().is_some() {
            tracing::warn!(target: "roundtrip::http", header = %name, "identity header repeated: the caller is anonymous");
            return None;
        }
        let value = value.to_str().ok().map(str::trim_ascii).filter(|v| !v.is_empty() && v.len() <= MAX_IDENTITY_LEN);
        if value.is_none() {
            tracing::warn!(target: "roundtrip::http", header = %name, "identity header unreadable: the caller is anonymous");
        }
        Some((name.as_str(), value?))
    }
}

/// An IPv4-mapped IPv6 address as its IPv4 address (a dual-stack socket reports IPv4 clients
/// that way).
fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        v4 => v4,
    }
}

/// The hops of `X-Forwarded-For` (every copy, in order), nearest first.
fn x_forwarded_for(headers: &HeaderMap) -> impl Iterator<Item = Option<IpAddr>> + '_ {
    let values: Vec<&str> = headers.get_all("x-forwarded-for").iter().map(|v| v.to_str().unwrap_or("")).collect();
    values.into_iter().rev().flat_map(|v| v.rsplit(',')).map(|hop| address(hop.trim()))
}

/// The `for=` hops of `Forwarded` (RFC 7239), nearest first; an element without `for` is an
/// unreadable hop.
fn forwarded_for(headers: &HeaderMap) -> impl Iterator<Item = Option<IpAddr>> + '_ {
    let values: Vec<&str> = headers.get_all(header::FORWARDED).iter().map(|v| v.to_str().unwrap_or("")).collect();
    values.into_iter().rev().flat_map(|v| v.rsplit(',')).map(|element| {
        element.split(';').find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            key.trim().eq_ignore_ascii_case("for").then(|| address(value.trim().trim_matches('"')))?
        })
    })
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]` or `[2001:db8::1]:4711`.
fn address(hop: &str) -> Option<IpAddr> {
    if let Ok(addr) = hop.parse::<IpAddr>() {
        return Some(addr);
    }
    if let Some(rest) = hop.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    let (host, port) = hop.rsplit_once(':')?;
    port.bytes().all(|b| b.is_ascii_digit()).then(|| host.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(list: &[&str]) -> Proxies {
        with(list, ForwardedHeader::XForwardedFor)
    }

    fn with(list: &[&str], header: ForwardedHeader) -> Proxies {
        let list = list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        Proxies::new(&list, header, Some("x-user")).expect("valid")
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(*name, value.parse().expect("a value"));
        }
        h
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().expect("an address"))
    }

    #[test]
    fn forwarding_headers_count_only_from_a_trusted_proxy() {
        let p = proxies(&["127.0.0.1", "10.0.0.0/8"]);
        let h = headers(&[("x-forwarded-for", "203.0.113.9"), ("x-user", "alice")]);
        let direct = p.origin(ip("198.51.100.4"), &h);
        assert_eq!(direct, Origin { client: ip("198.51.100.4"), via_trusted_proxy: false });
        assert_eq!(p.identity(direct, &h), None, "a direct caller cannot claim an identity");
        let proxied = p.origin(ip("127.0.0.1"), &h);
        assert_eq!(proxied, Origin { client: ip("203.0.113.9"), via_trusted_proxy: true });
        assert_eq!(p.identity(proxied, &h), Some(("x-user", "alice")));
    }

    #[test]
    fn the_client_is_the_first_untrusted_hop_from_the_nearest() {
        let p = proxies(&["127.0.0.1", "10.0.0.0/8"]);
        // A client that writes its own X-Forwarded-For gets it kept on the left: ignored.
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.9"), ("x-forwarded-for", "10.1.2.3")]);
        assert_eq!(p.origin(ip("127.0.0.1"), &h).client, ip("203.0.113.9"));
        // Every hop trusted: the farthest.
        let h = headers(&[("x-forwarded-for", "10.9.9.9, 10.1.2.3")]);
        assert_eq!(p.origin(ip("127.0.0.1"), &h).client, ip("10.9.9.9"));
        // No header: the proxy itself.
        assert_eq!(p.origin(ip("127.0.0.1"), &HeaderMap::new()).client, ip("127.0.0.1"));
        // An unreadable hop stops the walk at the last hop read.
        let h = headers(&[("x-forwarded-for", "203.0.113.9, unknown, 10.1.2.3")]);
        assert_eq!(p.origin(ip("127.0.0.1"), &h).client, ip("10.1.2.3"));
    }

    #[test]
    fn forwarded_is_read_as_rfc_7239_writes_it() {
        let p = with(&["127.0.0.1"], ForwardedHeader::Forwarded);
        let h = headers(&[
            ("forwarded", "for=198.51.100.1, for=\"[2001:db8:cafe::17]:4711\";proto=https"),
            ("x-forwarded-for", "203.0.113.9"),
        ]);
        assert_eq!(p.origin(ip("127.0.0.1"), &h).client, ip("2001:db8:cafe::17"), "the one configured");
        // The header the proxy does not write is not read: a client could have sent it.
        assert_eq!(proxies(&["127.0.0.1"]).origin(ip("127.0.0.1"), &h).client, ip("203.0.113.9"));
        let h = headers(&[("forwarded", "proto=https;for=192.0.2.60:8080")]);
        assert_eq!(p.origin(ip("::ffff:127.0.0.1"), &h).client, ip("192.0.2.60"));
    }

    #[test]
    fn a_long_chain_is_walked_no_further_than_its_bound() {
        let p = proxies(&["10.0.0.0/8"]);
        let chain = std::iter::repeat_n("10.0.0.1", 10_000).collect::<Vec<_>>().join(",");
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", chain.parse().expect("a value"));
        assert_eq!(p.origin(ip("10.0.0.2"), &h).client, ip("10.0.0.1"));
    }

    #[test]
    fn mistakes_name_the_fix() {
        let e = Proxies::new(&["localhost".into()], ForwardedHeader::default(), None).expect_err("not an address");
        assert!(e.contains("127.0.0.1, 10.0.0.0/8"), "{e}");
        let e = Proxies::new(&[], ForwardedHeader::default(), Some("x-user")).expect_err("no proxies");
        assert!(e.contains("--trusted-proxy"), "{e}");
        let h = headers(&[("x-user", "alice"), ("x-user", "bob")]);
        let p = proxies(&["127.0.0.1"]);
        assert_eq!(p.identity(p.origin(ip("127.0.0.1"), &h), &h), None, "a repeated identity is none");
    }
}
