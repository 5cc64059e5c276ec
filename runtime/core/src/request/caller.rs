//! Who is calling: [`AuthPrincipal`], the one identity of an authenticated caller, and the key
//! every feature that counts or keeps something per caller reads ([`caller_key`]).
//!
//! An authenticated caller is an `AuthPrincipal`, set in one of three ways: by the resource
//! server of [`roundtrip::auth`](https://docs.rs/roundtrip/latest/roundtrip/auth/index.html) from a bearer token, by the application's own layer in front of
//! [`Server::router`](https://docs.rs/roundtrip/latest/roundtrip/transport/http/trait.ServeHttp.html#tymethod.router) (it inserts an `AuthPrincipal` into the request's
//! extensions), or from a configured identity header sent by a trusted proxy
//! ([`HttpOptions::identity_header`](https://docs.rs/roundtrip/latest/roundtrip/transport/http/struct.HttpOptions.html#method.identity_header)).
//! Anyone else is anonymous and keyed by their address (an IPv6 address by its /64), or, over
//! stdio and in memory, is the one local client.

use std::net::IpAddr;

use serde_json::{Map, Value};

/// The caller a verified access token speaks for: its subject, the client it was issued to,
/// and the scopes it grants.
///
/// The HTTP endpoint of a server protected by a
/// [`ResourceServer`](https://docs.rs/roundtrip/latest/roundtrip/auth/struct.ResourceServer.html) (feature `auth`) puts one in the request's
/// extensions; a handler reads it with
/// [`RequestContext::auth`](crate::server::RequestContext::auth). Sealed `requestState` and tasks are
/// bound to its [`identity`](Self::identity): the issuer and the subject, which stay the same
/// across tokens of the same user (a refreshed token, a token with more scopes).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthPrincipal {
    /// The authorization server that issued the token (`iss`), when known.
    pub issuer: Option<String>,
    /// The resource owner (`sub`). A verifier told to fall back on another claim for tokens
    /// without `sub` gives that claim's value prefixed with its name (`client_id:svc-7`).
    pub subject: String,
    /// The OAuth client the token was issued to (`client_id`), when known.
    pub client_id: Option<String>,
    /// The scopes the token grants.
    pub scopes: Vec<String>,
    /// The audiences the token names (`aud`).
    pub audience: Vec<String>,
    /// When the token expires, in seconds since the Unix epoch (`exp`).
    pub expires_at: Option<u64>,
    /// Every claim of the token (a JWT's payload, or the introspection response).
    pub claims: Map<String, Value>,
}

impl AuthPrincipal {
    /// A principal for `subject` with no issuer, client or scopes (set the public fields, or
    /// use the builder methods).
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            issuer: None,
            subject: subject.into(),
            client_id: None,
            scopes: Vec::new(),
            audience: Vec::new(),
            expires_at: None,
            claims: Map::new(),
        }
    }

    /// Set the issuer.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Set the client.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Set the granted scopes.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// The scopes of `required` the token does not grant.
    pub fn missing_scopes<'a, S: AsRef<str>>(&self, required: &'a [S]) -> Vec<&'a str> {
        required.iter().map(AsRef::as_ref).filter(|s| !self.has_scope(s)).collect()
    }

    /// The identity state and tasks are bound to: the issuer and the subject, encoded without
    /// ambiguity (a JSON pair). The client and the scopes are left out on purpose: a user who
    /// steps up to more scopes, or whose token is refreshed, still finishes their flows and
    /// sees their tasks. Two principals with the same issuer and subject are one caller.
    pub fn identity(&self) -> String {
        let pair = (self.issuer.as_deref().unwrap_or(""), self.subject.as_str());
        serde_json::to_string(&pair).unwrap_or_else(|_| format!("{}\u{0}{}", pair.0, pair.1))
    }
}

/// Whom per-caller state ([`PerCaller`](crate::server::PerCaller)) and the limits per caller (tasks,
/// streams, sessions) count a request against: `principal:` and the identity of an
/// authenticated caller; else `address:` and the client's address, an IPv6 address cut to its
/// /64 (one host usually holds a whole /64, so its other addresses are the same caller); `None`
/// when neither is known (the one client of a stdio or in-memory server).
pub fn caller_key(auth: Option<&AuthPrincipal>, addr: Option<IpAddr>) -> Option<String> {
    match CallerId::new(auth, addr) {
        CallerId::Principal(identity) => Some(format!("principal:{identity}")),
        CallerId::Address(IpAddr::V6(network)) => Some(format!("address:{network}/64")),
        CallerId::Address(v4) => Some(format!("address:{v4}")),
        CallerId::Local => None,
    }
}

/// The caller of [`caller_key`], as a value to compare and hash rather than text (what the
/// rate limits key their buckets on: writing the key costs more than counting the call).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum CallerId {
    /// An authenticated caller's [`identity`](AuthPrincipal::identity).
    Principal(String),
    /// An anonymous caller's address: IPv4 as it is, an IPv4-mapped IPv6 address as its IPv4
    /// address, any other IPv6 address as its /64 network.
    Address(IpAddr),
    /// Neither is known: the one client of stdio or of a server in memory.
    Local,
}

impl CallerId {
    pub(crate) fn new(auth: Option<&AuthPrincipal>, addr: Option<IpAddr>) -> Self {
        match (auth, addr) {
            (Some(auth), _) => Self::Principal(auth.identity()),
            (None, Some(IpAddr::V4(v4))) => Self::Address(IpAddr::V4(v4)),
            (None, Some(IpAddr::V6(v6))) => Self::Address(match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
            }),
            (None, None) => Self::Local,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_ipv6_callers_are_keyed_by_their_64() {
        let key = |a: &str| caller_key(None, Some(a.parse().expect("an address")));
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb::2"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("2001:db8:1:2::1").as_deref(), Some("address:2001:db8:1:2::/64"));
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
    }

    #[test]
    fn an_authenticated_caller_is_its_identity_wherever_it_calls_from() {
        let alice = AuthPrincipal::new("alice").issuer("https://id.example");
        let at = |a: &str| caller_key(Some(&alice), Some(a.parse().expect("an address")));
        assert_eq!(at("192.0.2.7"), at("198.51.100.1"));
        assert_ne!(at("192.0.2.7"), caller_key(Some(&AuthPrincipal::new("bob")), None));
        assert_eq!(caller_key(None, None), None);
    }
}
