//! Reading an access token's claims into an [`AuthPrincipal`]: its subject and scopes.

use serde_json::{Map, Value};

pub use roundtrip_core::request::AuthPrincipal;

/// The subject of verified claims: `sub`; a token without it has none, unless the
/// application named other claims to fall back on (`fallbacks`, e.g. `client_id` for
/// client-credentials tokens of an authorization server that omits `sub`). A subject taken
/// from another claim is prefixed with that claim's name (`client_id:svc-7`), so that a token
/// can never take the identity of a user whose `sub` is that value.
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
