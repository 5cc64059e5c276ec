//! [`JwtVerifier`]: JWT access tokens (RFC 9068) checked against the issuer's JWKS.

use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use jsonwebtoken::jwk::{JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Header, Validation, errors::ErrorKind};
use serde_json::{Map, Value};

use super::{AuthPrincipal, TokenVerifier, VerifyError, scopes_of, split_origin};

/// The largest metadata or JWKS document read (1 MiB).
pub(crate) const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// Verifies JWT access tokens: the signature with a key of the issuer's JWKS, then `iss`, `aud`
/// (this resource), `exp` and `nbf` (with a leeway for clock skew).
///
/// The JWKS is found through the issuer's metadata (RFC 8414
/// `/.well-known/oauth-authorization-server`, then OpenID Connect discovery), unless
/// [`jwks_uri`](Self::jwks_uri) names it. It is cached: refreshed when it is older than
/// [`max_age`](Self::max_age) (default 1 hour) and when a token names a key (`kid`) it does not
/// hold (the issuer rotated its keys). Such refreshes are at least
/// [`refresh_interval`](Self::refresh_interval) apart (default 2 s) and at most
/// [`refresh_budget`](Self::refresh_budget) a minute (default 10), so tokens with made-up key
/// ids can neither make the server hammer the issuer nor, by spending a refresh just before a
/// real rotation, keep the new key out for long: a token signed with it waits for the next
/// refresh the budget allows. Until then a token naming a key not in hand is answered `503`
/// with `Retry-After` (the seconds until the keys may be fetched again), not `401`: the client
/// retries with the same token instead of discarding it.
///
/// Only asymmetric algorithms are accepted (RS*, PS*, ES256, ES384, EdDSA by default), and a
/// key whose JWK names an `alg` is used for that algorithm only. The header's `typ`, when
/// present, must be `at+jwt` (RFC 9068), `application/at+jwt` or `JWT`; a header with `crit`
/// (extensions the verifier would have to understand) is refused.
///
/// The subject is `sub`: a token without one is refused unless
/// [`subject_fallback`](Self::subject_fallback) names another claim. The client is `client_id`
/// (or `azp`); the scopes are the space-separated `scope` claim (or an `scp` array).
///
/// Fetches go over `http` or `https` with a `reqwest` client (a 10 s timeout) whose TLS (rustls)
/// trusts the system's roots: `SSL_CERT_FILE` and `SSL_CERT_DIR` when set, else the operating
/// system's store. An issuer whose certificate they do not vouch for cannot be reached, and its
/// tokens are answered `503`. For other roots, proxies or timeouts, give a client with
/// [`http_client`](Self::http_client).
#[derive(Clone)]
pub struct JwtVerifier {
    issuer: String,
    audience: Vec<String>,
    jwks_uri: Option<String>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    refresh_interval: Duration,
    refresh_budget: u32,
    max_age: Duration,
    subject_fallbacks: Vec<String>,
    http: reqwest::Client,
    cache: Arc<Cache>,
}

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_uri", &self.jwks_uri)
            .field("algorithms", &self.algorithms)
            .field("leeway", &self.leeway)
            .finish_non_exhaustive()
    }
}

/// The keys in hand, shared by the clones of one verifier.
#[derive(Default)]
struct Cache {
    keys: RwLock<Option<Keys>>,
    /// Held while fetching, so that a burst of unknown `kid`s makes one fetch; holds when the
    /// recent fetches started.
    fetch: tokio::sync::Mutex<Fetches>,
    /// The JWKS URI found by discovery.
    discovered: tokio::sync::OnceCell<String>,
}

/// When the JWKS was fetched in the last minute.
#[derive(Default)]
struct Fetches(std::collections::VecDeque<Instant>);

impl Fetches {
    /// Whether a fetch may start now: `interval` since the last one, and fewer than `budget`
    /// in the last minute.
    fn allowed(&mut self, interval: Duration, budget: u32) -> bool {
        while self.0.front().is_some_and(|t| t.elapsed() >= Duration::from_secs(60)) {
            self.0.pop_front();
        }
        let spaced = self.0.back().is_none_or(|t| t.elapsed() >= interval);
        spaced && self.0.len() < budget.max(1) as usize
    }

    fn started(&mut self) {
        self.0.push_back(Instant::now());
    }

    /// How long until [`allowed`](Self::allowed) holds again (zero when it holds now).
    fn wait(&self, interval: Duration, budget: u32) -> Duration {
        let minute = Duration::from_secs(60);
        let spacing = self.0.back().map_or(Duration::ZERO, |t| interval.saturating_sub(t.elapsed()));
        // The budget frees a slot when the oldest of the last minute's fetches is a minute old.
        let over = (self.0.len() + 1).saturating_sub(budget.max(1) as usize);
        let budgeted = match over {
            0 => Duration::ZERO,
            n => self.0.get(n - 1).map_or(Duration::ZERO, |t| minute.saturating_sub(t.elapsed())),
        };
        spacing.max(budgeted)
    }
}

#[derive(Clone)]
struct Keys {
    keys: Vec<Key>,
    fetched: Instant,
}

#[derive(Clone)]
struct Key {
    kid: Option<String>,
    alg: Option<Algorithm>,
    key: DecodingKey,
}

impl Keys {
    fn candidates(&self, header: &Header) -> Vec<Key> {
        self.keys
            .iter()
            .filter(|k| k.alg.is_none_or(|a| a == header.alg))
            .filter(|k| match &header.kid {
                Some(kid) => k.kid.as_deref() == Some(kid),
                None => true,
            })
            .cloned()
            .collect()
    }
}

fn http_client() -> reqwest::Client {
    roundtrip_tls::http_client(|builder| builder.timeout(Duration::from_secs(10)))
}

impl JwtVerifier {
    /// Tokens issued by `issuer` (the authorization server's issuer identifier, exactly as
    /// its tokens' `iss`) for `audience` (this server's resource identifier, as its tokens'
    /// `aud`).
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: vec![audience.into()],
            jwks_uri: None,
            algorithms: vec![
                Algorithm::RS256,
                Algorithm::RS384,
                Algorithm::RS512,
                Algorithm::PS256,
                Algorithm::PS384,
                Algorithm::PS512,
                Algorithm::ES256,
                Algorithm::ES384,
                Algorithm::EdDSA,
            ],
            leeway: Duration::from_secs(60),
            refresh_interval: Duration::from_secs(2),
            refresh_budget: 10,
            max_age: Duration::from_secs(3600),
            subject_fallbacks: Vec::new(),
            http: http_client(),
            cache: Arc::default(),
        }
    }

    /// Accept this audience too (e.g. the resource's other URL during a move).
    pub fn also_audience(mut self, audience: impl Into<String>) -> Self {
        self.audience.push(audience.into());
        self
    }

    /// Fetch the keys from `uri` instead of discovering it from the issuer's metadata.
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(uri.into());
        self
    }

    /// Accept only these signature algorithms (symmetric ones are never accepted).
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms
            .into_iter()
            .filter(|a| !matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
            .collect();
        self
    }

    /// How far clocks may disagree when `exp` and `nbf` are checked (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the JWKS (default 2 s).
    pub fn refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    /// The most fetches of the JWKS in a minute (default 10, at least 1).
    pub fn refresh_budget(mut self, per_minute: u32) -> Self {
        self.refresh_budget = per_minute;
        self
    }

    /// For a token without `sub`, take the subject from `claim` (e.g. `client_id`, for an
    /// authorization server whose client-credentials tokens omit `sub`), prefixed with the
    /// claim's name (`client_id:svc-7`) so that it never equals a user's `sub`. Without this,
    /// a token without `sub` is refused. May be given several times, tried in order.
    pub fn subject_fallback(mut self, claim: impl Into<String>) -> Self {
        self.subject_fallbacks.push(claim.into());
        self
    }

    /// How long fetched keys are used before they are fetched again (default 1 hour).
    pub fn max_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }

    /// Fetch with this client (for TLS settings such as another root certificate, proxies,
    /// timeouts).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = client;
        self
    }

    async fn check(&self, token: &str) -> Result<AuthPrincipal, VerifyError> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|e| VerifyError::Invalid(format!("not a JWT ({e})")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(VerifyError::Invalid(format!("algorithm {:?} is not accepted", header.alg)));
        }
        check_header(&header)?;
        let candidates = self.keys_for(&header).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&self.audience);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        let mut last = VerifyError::Invalid("no key of the issuer fits the token".into());
        for key in candidates {
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation) {
                Ok(data) => return principal_of(data.claims, &self.subject_fallbacks),
                Err(e) => {
                    let why = match e.kind() {
                        ErrorKind::InvalidSignature => "bad signature".to_owned(),
                        ErrorKind::ExpiredSignature => "expired".to_owned(),
                        ErrorKind::ImmatureSignature => "not valid yet (nbf)".to_owned(),
                        ErrorKind::InvalidAudience => "issued for another resource (aud)".to_owned(),
                        ErrorKind::InvalidIssuer => "issued by another authorization server (iss)".to_owned(),
                        other => format!("{other:?}"),
                    };
                    last = VerifyError::Invalid(why);
                    // Only a signature that does not match may fit another key.
                    if !matches!(e.kind(), ErrorKind::InvalidSignature | ErrorKind::InvalidAlgorithm) {
                        break;
                    }
                }
            }
        }
        Err(last)
    }

    /// The keys that may have signed a token with `header`, fetching the JWKS when none is in
    /// hand, when it is stale, or when it lacks the token's key (at most once per
    /// refresh interval).
    async fn keys_for(&self, header: &Header) -> Result<Vec<Key>, VerifyError> {
        let cached = self.cache.keys.read().ok().and_then(|k| k.clone());
        if let Some(keys) = &cached {
            let candidates = keys.candidates(header);
            if !candidates.is_empty() && keys.fetched.elapsed() < self.max_age {
                return Ok(candidates);
            }
        }
        let mut last_fetch = self.cache.fetch.lock().await;
        // Another request may have fetched while this one waited.
        let cached = self.cache.keys.read().ok().and_then(|k| k.clone());
        let candidates = cached.as_ref().map(|k| k.candidates(header)).unwrap_or_default();
        let fresh = cached.as_ref().is_some_and(|k| k.fetched.elapsed() < self.max_age);
        if !candidates.is_empty() && fresh {
            return Ok(candidates);
        }
        // Fetches are spaced and budgeted, also while the issuer is down (requests would
        // otherwise queue here behind one slow fetch after another). A token whose key is not
        // in hand is then not refused as invalid: the issuer may have just rotated it in, and
        // the client is told when the keys can be fetched again (`503` with `Retry-After`),
        // not to throw a good token away (`401`).
        if !last_fetch.allowed(self.refresh_interval, self.refresh_budget) {
            if !candidates.is_empty() {
                return Ok(candidates);
            }
            let retry_after = last_fetch.wait(self.refresh_interval, self.refresh_budget);
            let why = match cached {
                Some(_) => format!("unknown key {:?}, and the JWKS may not be fetched again yet", header.kid),
                None => "the issuer's keys could not be fetched".to_owned(),
            };
            return Err(VerifyError::UnavailableFor { why, retry_after });
        }
        last_fetch.started();
        match self.fetch().await {
            Ok(keys) => {
                let candidates = keys.candidates(header);
                if let Ok(mut slot) = self.cache.keys.write() {
                    *slot = Some(keys);
                }
                if candidates.is_empty() {
                    Err(VerifyError::Invalid(format!("unknown key {:?}", header.kid)))
                } else {
                    Ok(candidates)
                }
            }
            Err(e) => {
                // Keys already in hand still verify while the issuer cannot be reached.
                if candidates.is_empty() {
                    Err(e)
                } else {
                    tracing::warn!(target: "roundtrip::auth", "{e}; verifying with the cached keys");
                    Ok(candidates)
                }
            }
        }
    }

    async fn fetch(&self) -> Result<Keys, VerifyError> {
        let uri = match &self.jwks_uri {
            Some(uri) => uri.clone(),
            None => self.cache.discovered.get_or_try_init(|| self.discover()).await?.clone(),
        };
        let set: JwkSet = serde_json::from_value(get_json(&self.http, &uri).await?)
            .map_err(|e| VerifyError::Unavailable(format!("the JWKS at {uri} is malformed: {e}")))?;
        let keys = set
            .keys
            .iter()
            .filter(|jwk| jwk.common.public_key_use.as_ref().is_none_or(|u| *u == PublicKeyUse::Signature))
            .filter_map(|jwk| {
                let key = DecodingKey::from_jwk(jwk).ok()?;
                let alg = match jwk.common.key_algorithm {
                    None => None,
                    Some(a) => Some(Algorithm::try_from(a).ok()?),
                };
                Some(Key { kid: jwk.common.key_id.clone(), alg, key })
            })
            .collect();
        tracing::debug!(target: "roundtrip::auth", %uri, "fetched the JWKS");
        Ok(Keys { keys, fetched: Instant::now() })
    }

    /// The `jwks_uri` of the issuer's metadata: RFC 8414, then OpenID Connect discovery. The
    /// metadata must name the same issuer (RFC 8414 §3.3).
    async fn discover(&self) -> Result<String, VerifyError> {
        let mut why = String::new();
        for url in metadata_urls(&self.issuer) {
            match get_json(&self.http, &url).await {
                Ok(doc) => {
                    if doc.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
                        why = format!("the metadata at {url} names another issuer");
                        continue;
                    }
                    if let Some(uri) = doc.get("jwks_uri").and_then(Value::as_str) {
                        return Ok(uri.to_owned());
                    }
                    why = format!("the metadata at {url} has no jwks_uri");
                }
                Err(VerifyError::Unavailable(e) | VerifyError::Invalid(e)) => why = e,
                Err(VerifyError::UnavailableFor { why: e, .. }) => why = e,
            }
        }
        Err(VerifyError::Unavailable(format!("no JWKS found for issuer {}: {why}", self.issuer)))
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthPrincipal, VerifyError>> {
        Box::pin(self.check(token))
    }
}

/// Where an issuer's metadata may be (RFC 8414 §3.1, OpenID Connect Discovery §4).
fn metadata_urls(issuer: &str) -> Vec<String> {
    let (origin, path) = split_origin(issuer);
    let path = path.trim_end_matches('/');
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls
}

/// GET a JSON document of at most [`MAX_DOCUMENT_BYTES`].
async fn get_json(http: &reqwest::Client, url: &str) -> Result<Value, VerifyError> {
    let unavailable = |e: &dyn fmt::Display| VerifyError::Unavailable(format!("GET {url}: {e}"));
    // With the error's sources: a refused certificate is said there, not in reqwest's message.
    let response = http
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| unavailable(&roundtrip_tls::error_chain(&e)))?;
    if !response.status().is_success() {
        return Err(unavailable(&response.status()));
    }
    read_json(response).await.map_err(|e| unavailable(&e))
}

/// The body of `response` as JSON, refusing more than [`MAX_DOCUMENT_BYTES`].
pub(crate) async fn read_json(mut response: reqwest::Response) -> Result<Value, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err("the document is too large".into());
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| e.to_string())
}

/// The header's `typ` and `crit`: an access token (RFC 9068 §2.1 `at+jwt`, or the `JWT` many
/// authorization servers write), never another kind of JWT (an ID token, a DPoP proof, a
/// logout token), and no critical extension, none being understood here (RFC 7515 §4.1.11).
fn check_header(header: &Header) -> Result<(), VerifyError> {
    if let Some(typ) = &header.typ {
        let typ = typ.to_ascii_lowercase();
        if !matches!(typ.as_str(), "at+jwt" | "application/at+jwt" | "jwt") {
            return Err(VerifyError::Invalid(format!("not an access token (typ {typ})")));
        }
    }
    if let Some(crit) = &header.crit {
        return Err(VerifyError::Invalid(format!("critical header extensions {crit:?} are not understood")));
    }
    Ok(())
}

/// The principal of verified claims.
fn principal_of(claims: Map<String, Value>, fallbacks: &[String]) -> Result<AuthPrincipal, VerifyError> {
    let str_claim = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let client_id = str_claim("client_id").or_else(|| str_claim("azp"));
    let subject = super::principal::subject_of(&claims, fallbacks).map_err(VerifyError::Invalid)?;
    let scopes = match claims.get("scope") {
        Some(scope) => scopes_of(Some(scope)),
        None => scopes_of(claims.get("scp")),
    };
    let audience = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.clone()],
        other => scopes_of(other.filter(|v| v.is_array())),
    };
    let mut principal = AuthPrincipal::new(subject);
    principal.issuer = str_claim("iss");
    principal.client_id = client_id;
    principal.scopes = scopes;
    principal.audience = audience;
    principal.expires_at = claims.get("exp").and_then(Value::as_u64);
    principal.claims = claims;
    Ok(principal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_insert_the_well_known_path() {
        assert_eq!(
            metadata_urls("https://as.example.com"),
            vec![
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://as.example.com/tenant1/"),
            vec![
                "https://as.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://as.example.com/.well-known/openid-configuration/tenant1",
                "https://as.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn claims_become_a_principal() {
        let claims =
            serde_json::json!({"iss": "i", "sub": "alice", "azp": "c", "scp": ["a", "b"], "aud": "r", "exp": 5});
        let Value::Object(claims) = claims else { unreachable!() };
        let p = principal_of(claims, &[]).expect("valid");
        assert_eq!((p.subject.as_str(), p.client_id.as_deref(), p.issuer.as_deref()), ("alice", Some("c"), Some("i")));
        assert_eq!((p.scopes, p.audience, p.expires_at), (vec!["a".into(), "b".into()], vec!["r".into()], Some(5)));
        let Value::Object(no_sub) = serde_json::json!({"iss": "i", "scope": "x"}) else { unreachable!() };
        assert!(matches!(principal_of(no_sub, &[]), Err(VerifyError::Invalid(_))));
    }

    #[test]
    fn only_access_tokens_without_critical_extensions() {
        let header = |typ: Option<&str>, crit: Option<Vec<String>>| {
            let mut h = Header::new(Algorithm::ES256);
            h.typ = typ.map(str::to_owned);
            h.crit = crit;
            h
        };
        for ok in [None, Some("at+jwt"), Some("application/at+jwt"), Some("JWT"), Some("AT+JWT")] {
            assert!(check_header(&header(ok, None)).is_ok(), "{ok:?}");
        }
        for refused in ["dpop+jwt", "secevent+jwt", "logout+jwt", "JOSE"] {
            assert!(check_header(&header(Some(refused), None)).is_err(), "{refused}");
        }
        assert!(check_header(&header(Some("at+jwt"), Some(vec!["exp".into()]))).is_err());
    }

    #[test]
    fn fetches_are_spaced_and_budgeted() {
        let mut f = Fetches::default();
        assert!(f.allowed(Duration::ZERO, 3));
        f.started();
        assert!(!f.allowed(Duration::from_secs(5), 3), "too soon after the last");
        assert!(f.allowed(Duration::ZERO, 3));
        f.started();
        f.started();
        assert!(!f.allowed(Duration::ZERO, 3), "the minute's budget is spent");
    }

    #[test]
    fn the_wait_is_until_the_next_fetch_is_allowed() {
        let mut f = Fetches::default();
        assert_eq!(f.wait(Duration::from_secs(2), 3), Duration::ZERO);
        f.started();
        let spaced = f.wait(Duration::from_secs(2), 3);
        assert!(spaced > Duration::from_millis(1900) && spaced <= Duration::from_secs(2), "{spaced:?}");
        assert_eq!(f.wait(Duration::ZERO, 3), Duration::ZERO);
        f.started();
        f.started();
        let budgeted = f.wait(Duration::ZERO, 3);
        assert!(budgeted > Duration::from_secs(59) && budgeted <= Duration::from_secs(60), "{budgeted:?}");
        assert!(f.wait(Duration::ZERO, 4) == Duration::ZERO, "a slot is left");
    }
}
