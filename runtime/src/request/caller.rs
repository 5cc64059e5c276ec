//! [`AuthPrincipal`]: who a verified bearer token speaks for, as a handler sees it.
//! Defined with the request (a handler reads it from its context); the resource server of
//! [`crate::auth`] makes it.

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
