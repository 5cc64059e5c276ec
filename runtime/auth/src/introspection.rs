//! [`IntrospectionVerifier`]: opaque tokens checked at the authorization server (RFC 7662).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::jwt::read_json;
use super::{AuthPrincipal, TokenVerifier, VerifyError, scopes_of};

/// The most answers kept in the cache.
const MAX_CACHED: usize = 10_000;

/// Accepted answers by the SHA-256 of their token, with when they stop being reused.
type AnswerCache = Mutex<HashMap<[u8; 32], (AuthPrincipal, Instant)>>;

/// Verifies tokens by asking the authorization server's introspection endpoint (RFC 7662),
/// authenticated with the resource server's client credentials (HTTP Basic).
///
/// A token is accepted when the answer says `active: true`, its `exp` and `nbf` (when present)
/// hold, its `iss` (when present, and when an [`issuer`](Self::issuer) is set) is that issuer,
/// and its `aud` names this resource. An answer without `aud` is refused unless
/// [`allow_missing_audience`](Self::allow_missing_audience) says the authorization server only
/// issues tokens for this resource: the MCP authorization specification requires the audience
/// to be checked.
///
/// Accepted answers are cached by a digest of the token for
/// [`cache_ttl`](Self::cache_ttl) (default 30 s, never past the token's `exp`), so a flow of
/// several legs asks once; a revoked token is therefore accepted for at most that long.
/// Refusals are not cached.
#[derive(Clone)]
pub struct IntrospectionVerifier {
    endpoint: String,
    credentials: Option<(String, String)>,
    audience: Vec<String>,
    issuer: Option<String>,
    allow_missing_audience: bool,
    subject_fallbacks: Vec<String>,
    cache_ttl: Duration,
    http: reqwest::Client,
    cache: Arc<AnswerCache>,
}

impl fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.credentials.as_ref().map(|(id, _)| id))
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .field("cache_ttl", &self.cache_ttl)
            .finish_non_exhaustive()
    }
}

impl IntrospectionVerifier {
    /// Ask `endpoint` about each token; accept tokens whose audience is `audience` (this
    /// server's resource identifier).
    pub fn new(endpoint: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            credentials: None,
            audience: vec![audience.into()],
            issuer: None,
            allow_missing_audience: false,
            subject_fallbacks: Vec::new(),
            cache_ttl: Duration::from_secs(30),
            // https trusts the system's roots (SSL_CERT_FILE, SSL_CERT_DIR, else the OS store).
            http: roundtrip_tls::http_client(|builder| builder.timeout(Duration::from_secs(10))),
            cache: Arc::default(),
        }
    }

    /// Authenticate to the endpoint as this client (`client_secret_basic`).
    pub fn client_credentials(mut self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        self.credentials = Some((client_id.into(), client_secret.into()));
        self
    }

    /// The issuer of the tokens: an answer naming another `iss` is refused, and an answer
    /// without one is taken as this issuer's (the principal's issuer).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Accept answers without `aud` (only when the authorization server issues tokens for
    /// this resource alone).
    pub fn allow_missing_audience(mut self) -> Self {
        self.allow_missing_audience = true;
        self
    }

    /// For an answer without `sub`, take the subject from `claim` (e.g. `client_id`), prefixed
    /// with the claim's name so that it never equals a user's `sub`. Without this, an answer
    /// without `sub` is refused. May be given several times, tried in order.
    pub fn subject_fallback(mut self, claim: impl Into<String>) -> Self {
        self.subject_fallbacks.push(claim.into());
        self
    }

    /// How long an accepted answer is reused (default 30 s; zero asks every time).
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Ask with this client (for TLS settings such as another root certificate, proxies,
    /// timeouts). The default one (a 10 s timeout) trusts the system's roots: `SSL_CERT_FILE`
    /// and `SSL_CERT_DIR` when set, else the operating system's store.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = client;
        self
    }

    fn cached(&self, digest: &[u8; 32]) -> Option<AuthPrincipal> {
        let mut cache = self.cache.lock().ok()?;
        match cache.get(digest) {
            Some((principal, until)) if *until > Instant::now() => Some(principal.clone()),
            Some(_) => {
                cache.remove(digest);
                None
            }
            None => None,
        }
    }

    fn remember(&self, digest: [u8; 32], principal: &AuthPrincipal) {
        let mut ttl = self.cache_ttl;
        if let Some(exp) = principal.expires_at {
            ttl = ttl.min(Duration::from_secs(exp.saturating_sub(now_secs())));
        }
        if ttl.is_zero() {
            return;
        }
        let Ok(mut cache) = self.cache.lock() else { return };
        if cache.len() >= MAX_CACHED {
            let now = Instant::now();
            cache.retain(|_, (_, until)| *until > now);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        cache.insert(digest, (principal.clone(), Instant::now() + ttl));
    }

    async fn check(&self, token: &str) -> Result<AuthPrincipal, VerifyError> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(principal) = self.cached(&digest) {
            return Ok(principal);
        }
        let unavailable = |e: &dyn fmt::Display| VerifyError::Unavailable(format!("introspection: {e}"));
        let mut request = self
            .http
            .post(&self.endpoint)
            .header("accept", "application/json")
            .form(&[("token", token), ("token_type_hint", "access_token")]);
        if let Some((id, secret)) = &self.credentials {
            request = request.basic_auth(form_encode(id), Some(form_encode(secret)));
        }
        let response = request.send().await.map_err(|e| unavailable(&roundtrip_tls::error_chain(&e)))?;
        if !response.status().is_success() {
            return Err(unavailable(&response.status()));
        }
        let answer = read_json(response).await.map_err(|e| unavailable(&e))?;
        let principal = self.principal_of(answer)?;
        self.remember(digest, &principal);
        Ok(principal)
    }

    fn principal_of(&self, answer: Value) -> Result<AuthPrincipal, VerifyError> {
        let Value::Object(claims) = answer else {
            return Err(VerifyError::Unavailable("introspection: the answer is not a JSON object".into()));
        };
        let invalid = |why: &str| Err(VerifyError::Invalid(why.to_owned()));
        if claims.get("active") != Some(&Value::Bool(true)) {
            return invalid("inactive (introspection)");
        }
        let now = now_secs();
        let exp = claims.get("exp").and_then(Value::as_u64);
        if exp.is_some_and(|exp| exp <= now) {
            return invalid("expired");
        }
        if claims.get("nbf").and_then(Value::as_u64).is_some_and(|nbf| nbf > now) {
            return invalid("not valid yet (nbf)");
        }
        let str_claim = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let issuer = match (str_claim("iss"), &self.issuer) {
            (Some(got), Some(want)) if got != *want => return invalid("issued by another authorization server (iss)"),
            (Some(got), _) => Some(got),
            (None, want) => want.clone(),
        };
        let audience = match claims.get("aud") {
            Some(Value::String(a)) => vec![a.clone()],
            Some(Value::Array(_)) => scopes_of(claims.get("aud")),
            _ => Vec::new(),
        };
        if audience.is_empty() {
            if !self.allow_missing_audience {
                return invalid("the introspection answer names no audience (aud)");
            }
        } else if !audience.iter().any(|a| self.audience.contains(a)) {
            return invalid("issued for another resource (aud)");
        }
        let client_id = str_claim("client_id");
        let subject = match super::principal::subject_of(&claims, &self.subject_fallbacks) {
            Ok(subject) => subject,
            Err(why) => return invalid(&why),
        };
        let mut principal = AuthPrincipal::new(subject);
        principal.issuer = issuer;
        principal.client_id = client_id;
        principal.scopes = scopes_of(claims.get("scope"));
        principal.audience = audience;
        principal.expires_at = exp;
        principal.claims = claims;
        Ok(principal)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthPrincipal, VerifyError>> {
        Box::pin(self.check(token))
    }
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// `client_secret_basic` form-encodes the id and the secret before Basic encoding
/// (RFC 6749 §2.3.1).
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => out.push(char::from(b)),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn verifier() -> IntrospectionVerifier {
        IntrospectionVerifier::new("http://127.0.0.1:9/introspect", "https://mcp.example/mcp")
            .issuer("https://as.example")
    }

    #[test]
    fn answers_become_principals_or_refusals() {
        let v = verifier();
        let future = now_secs() + 600;
        let ok = json!({"active": true, "sub": "alice", "client_id": "c", "scope": "a b", "aud": ["https://mcp.example/mcp"], "exp": future});
        let p = v.principal_of(ok.clone()).expect("active");
        assert_eq!((p.subject.as_str(), p.issuer.as_deref()), ("alice", Some("https://as.example")));
        assert_eq!(p.scopes, vec!["a", "b"]);
        let refused = |patch: Value| {
            let mut answer = ok.clone();
            for (k, v) in patch.as_object().into_iter().flatten() {
                answer[k] = v.clone();
            }
            matches!(v.principal_of(answer), Err(VerifyError::Invalid(_)))
        };
        assert!(refused(json!({"active": false})));
        assert!(refused(json!({"active": "true"})));
        assert!(refused(json!({"exp": 1})));
        assert!(refused(json!({"aud": "https://other.example/mcp"})));
        assert!(refused(json!({"aud": null})));
        assert!(refused(json!({"iss": "https://evil.example"})));
        assert!(refused(json!({"sub": null, "client_id": null})));
        assert!(v.allow_missing_audience().principal_of(json!({"active": true, "sub": "s"})).is_ok());
    }

    #[test]
    fn credentials_are_form_encoded() {
        assert_eq!(form_encode("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    }
}
