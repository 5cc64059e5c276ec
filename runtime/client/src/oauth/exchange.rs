//! Grants without a user: where the client's assertion comes from, and the token exchange of
//! enterprise-managed authorization (an identity provider turns the user's ID token into an
//! identity assertion grant for one authorization server).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

use super::token::form_encode;
use crate::error::ClientError;

/// Where a JWT comes from when it is needed: a workload's identity token (read from a file the
/// platform keeps fresh, an environment variable, a metadata service), or a user's ID token
/// from the enterprise's identity provider. Called for each token request, so it may return a
/// fresh one each time.
#[derive(Clone)]
pub struct AssertionSource(Arc<dyn Fn() -> BoxFuture<'static, Result<String, ClientError>> + Send + Sync>);

impl fmt::Debug for AssertionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AssertionSource")
    }
}

impl AssertionSource {
    /// Call `f` for each assertion.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, ClientError>> + Send + 'static,
    {
        Self(Arc::new(move || Box::pin(f())))
    }

    /// Always this JWT (e.g. one handed over at start).
    pub fn fixed(jwt: impl Into<String>) -> Self {
        let jwt: Arc<str> = jwt.into().into();
        Self::new(move || {
            let jwt = jwt.clone();
            async move { Ok(jwt.to_string()) }
        })
    }

    /// Read the JWT from `path` for each request (trimmed), as a projected service account
    /// token or a workload identity file is read.
    pub fn file(path: impl Into<std::path::PathBuf>) -> Self {
        let path: Arc<std::path::Path> = path.into().into();
        Self::new(move || {
            let path = path.clone();
            async move {
                let text = tokio::fs::read_to_string(&*path)
                    .await
                    .map_err(|e| ClientError::Auth(format!("reading the assertion from {}: {e}", path.display())))?;
                Ok(text.trim().to_owned())
            }
        })
    }

    pub(crate) async fn get(&self) -> Result<String, ClientError> {
        let jwt = (self.0)().await?;
        if jwt.is_empty() || jwt.len() > MAX_ASSERTION || jwt.split('.').count() != 3 {
            return Err(ClientError::Auth("the assertion is not a JWT".into()));
        }
        Ok(jwt)
    }
}

/// The longest assertion sent (64 KiB).
const MAX_ASSERTION: usize = 64 * 1024;

/// The enterprise identity provider of enterprise-managed authorization
/// (`io.modelcontextprotocol/enterprise-managed-authorization`): where the client exchanges the
/// user's ID token for an identity assertion grant (ID-JAG, RFC 8693 token exchange), which it
/// then presents to the MCP server's authorization server (RFC 7523 JWT bearer grant). The user
/// signs in once, at the identity provider; no authorization endpoint is visited.
#[derive(Debug, Clone)]
pub struct EnterpriseIdp {
    pub(crate) token_endpoint: String,
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<String>,
    pub(crate) id_token: AssertionSource,
}

impl EnterpriseIdp {
    /// The identity provider's token endpoint, this client's id there, and where the user's ID
    /// token comes from (the app's own sign-in at the identity provider).
    pub fn new(token_endpoint: impl Into<String>, client_id: impl Into<String>, id_token: AssertionSource) -> Self {
        Self { token_endpoint: token_endpoint.into(), client_id: client_id.into(), client_secret: None, id_token }
    }

    /// The client's secret at the identity provider (sent with HTTP Basic).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }
}

/// `grant_type` of a token exchange (RFC 8693).
const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The token type of an ID token.
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The token type of an identity assertion grant.
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

#[derive(Deserialize)]
struct ExchangeResponse {
    access_token: String,
    #[serde(default)]
    issued_token_type: Option<String>,
}

/// Exchange the user's ID token at the identity provider for an identity assertion grant
/// naming the authorization server `audience` and the protected `resource`.
pub(crate) async fn identity_assertion(
    http: &reqwest::Client,
    idp: &EnterpriseIdp,
    audience: &str,
    resource: &str,
    scope: Option<&str>,
) -> Result<String, ClientError> {
    let id_token = idp.id_token.get().await?;
    let mut form: Vec<(&str, &str)> = vec![
        ("grant_type", TOKEN_EXCHANGE_GRANT),
        ("requested_token_type", ID_JAG_TYPE),
        ("subject_token", &id_token),
        ("subject_token_type", ID_TOKEN_TYPE),
        ("audience", audience),
        ("resource", resource),
    ];
    if let Some(scope) = scope {
        form.push(("scope", scope));
    }
    let mut rb = http.post(&idp.token_endpoint).header("accept", "application/json");
    match &idp.client_secret {
        Some(secret) => {
            use base64::Engine as _;
            let pair = format!("{}:{}", form_encode(&idp.client_id), form_encode(secret));
            rb =
                rb.header("authorization", format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair)));
        }
        None => form.push(("client_id", &idp.client_id)),
    }
    let endpoint = &idp.token_endpoint;
    let response = rb.form(&form).send().await.map_err(|e| {
        ClientError::Auth(format!("the token exchange at {endpoint} failed: {}", roundtrip_tls::error_chain(&e)))
    })?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|e| ClientError::Auth(format!("the identity provider answered HTTP {status}: {e}")))?;
    if !status.is_success() {
        return Err(ClientError::Auth(format!(
            "the identity provider refused the token exchange: HTTP {status}, {body}"
        )));
    }
    let answer: ExchangeResponse = serde_json::from_value(body)
        .map_err(|e| ClientError::Auth(format!("the identity provider's answer has no token: {e}")))?;
    if let Some(kind) = answer.issued_token_type.as_deref().filter(|k| *k != ID_JAG_TYPE) {
        return Err(ClientError::Auth(format!(
            "the identity provider issued a `{kind}`, not an identity assertion grant"
        )));
    }
    Ok(answer.access_token)
}
