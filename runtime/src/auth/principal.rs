//! [`AuthPrincipal`]: who a verified bearer token speaks for.

use serde_json::{Map, Value};

/// The caller a verified access token speaks for: its subject, the client it was issued to,
/// and the scopes it grants.
///
/// The HTTP endpoint of a server protected by a
/// [`ResourceServer`](crate::auth::ResourceServer) (feature `auth`) puts one in the request's
/// extensions; a handler reads it with
/// [`RequestContext::auth`](crate::RequestContext::auth). Sealed `requestState` and tasks are
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
    /// sees their tasks. The protected endpoint inserts it as the request's
    /// [`Principal`](crate::server::Principal); a layer of your own does the same with
    /// `Principal(auth.identity())`.
    pub fn identity(&self) -> String {
        let pair = (self.issuer.as_deref().unwrap_or(""), self.subject.as_str());
        serde_json::to_string(&pair).unwrap_or_else(|_| format!("{}\u{0}{}", pair.0, pair.1))
    }
}

/// The subject of verified claims: `sub`; a token without it has none, unless the
/// application named other claims to fall back on (`fallbacks`, e.g. `client_id` for
/// client-credentials tokens of an authorization server that omits `sub`). A subject taken
/// from another claim is prefixed with that claim's name (`client_id:svc-7`), so that a token
/// can never take the identity of a user whose `sub` is that value.
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(crate) fn subject_of(claims: &Map<String, Value>, fallbacks: &[String]) -> Result<String, String> {
    if let Some(sub) = claims.get("sub").and_then(Value::as_str) {
        return Ok(sub.to_owned());
    }
    for claim in fallbacks {
        if let Some(value) = claims.get(claim).and_then(Value::as_str) {
            return Ok(format!("{claim}:{value}"));
        }
    }
    Err(if fallbacks.is_empty() {
        "the token names no subject (sub)".to_owned()
    } else {
        format!("the token names no subject (sub, or {})", fallbacks.join(", "))
    })
}

/// The scopes of a space-separated `scope` claim (RFC 6749 §3.3), or of an array (`scp`, as
/// some authorization servers issue it).
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(crate) fn scopes_of(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => s.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binding_is_issuer_and_subject_only() {
        let a = AuthPrincipal::new("alice").issuer("https://as.example").client_id("c1").scopes(["read"]);
        let b = AuthPrincipal::new("alice").issuer("https://as.example").client_id("c2").scopes(["read", "write"]);
        assert_eq!(a.identity(), b.identity());
        assert_ne!(a.identity(), AuthPrincipal::new("alice").issuer("https://other.example").identity());
        // No separator trick makes two different pairs collide.
        let tricky = AuthPrincipal::new("b").issuer("a\",\"");
        assert_ne!(tricky.identity(), AuthPrincipal::new("\",\"b").issuer("a").identity());
    }

    #[test]
    fn the_subject_is_sub_and_a_fallback_can_never_pass_for_one() {
        let claims = |v: Value| match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let with_sub = claims(serde_json::json!({"sub": "alice", "client_id": "bob"}));
        assert_eq!(subject_of(&with_sub, &[]).as_deref(), Ok("alice"));
        let without = claims(serde_json::json!({"client_id": "alice", "azp": "alice"}));
        assert!(subject_of(&without, &[]).is_err(), "client_id is no subject unless asked for");
        let fallback = subject_of(&without, &["client_id".to_owned()]).expect("opted in");
        assert_eq!(fallback, "client_id:alice");
        assert_ne!(
            AuthPrincipal::new(fallback).issuer("i").identity(),
            AuthPrincipal::new("alice").issuer("i").identity()
        );
    }

    #[test]
    fn scopes_and_what_is_missing() {
        let p = AuthPrincipal::new("alice").scopes(["read", "deploy:write"]);
        assert!(p.has_scope("read") && !p.has_scope("admin"));
        assert_eq!(p.missing_scopes(&["read", "admin", "x"]), vec!["admin", "x"]);
        assert_eq!(scopes_of(Some(&Value::String(" a  b ".into()))), vec!["a", "b"]);
        assert_eq!(scopes_of(Some(&serde_json::json!(["a", 1, "b"]))), vec!["a", "b"]);
        assert!(scopes_of(None).is_empty());
    }
}
