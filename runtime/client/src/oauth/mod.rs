//! OAuth 2.1 for the HTTP client, as the MCP authorization spec describes it.
//!
//! Give [`ClientBuilder::oauth`](crate::ClientBuilder::oauth) an [`OAuth`] and the
//! client signs in when a server answers `401`: it finds the authorization server (the
//! `resource_metadata` of the challenge or the well-known URLs of RFC 9728, then RFC 8414 or
//! OpenID Connect metadata, checking that the resource covers the server's URL and that the
//! issuer is the one asked for), identifies itself (pre-registered credentials, a client ID
//! metadata document URL, or dynamic registration), sends the user agent to the authorization
//! endpoint with PKCE (S256), a `state` and the `resource` (RFC 8707) through an
//! [`AuthorizationHandler`], checks the redirect (`state`, and `iss` per RFC 9207), exchanges
//! the code, and sends the request again with the token. A `403` with `insufficient_scope`
//! re-authorizes once with the union of the scopes asked before and those challenged; an
//! expired token is refreshed first when a refresh token is held.
//!
//! Scopes: the challenge's `scope`, else the resource metadata's `scopes_supported`, else
//! none; plus `offline_access` when the authorization server lists it and the client wants
//! refresh tokens.
//!
//! A client without a user takes the same discovery steps but gets its token another way:
//! with the `client_credentials` grant ([`OAuth::client_credentials`]; a secret, or a private
//! key with [`OAuth::private_key_jwt`], cargo feature `oauth-jwt`), with a workload's identity
//! token in the JWT bearer grant ([`OAuth::jwt_bearer`]), or, for enterprise-managed
//! authorization, with the user's ID token exchanged at the enterprise's identity provider
//! for an identity assertion grant ([`OAuth::enterprise`]). After a failed token request it
//! neither retries nor tries another grant: the error ends the request.

mod discovery;
#[cfg(feature = "oauth-jwt")]
mod dpop;
mod exchange;
#[cfg(feature = "oauth-jwt")]
mod jwt;
mod loopback;
mod pkce;
mod registration;
mod token;

use std::fmt;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use reqwest::Url;

pub use discovery::{AuthorizationServerMetadata, Challenge, ProtectedResourceMetadata};
// RFC 9728 and RFC 8414 discovery as the client does it, shared with the resource server and
// the tests. Not a public API.
#[doc(hidden)]
pub use discovery::{
    authorization_server_metadata_urls, bearer_challenge, canonical_resource, parse_www_authenticate,
    protected_resource_metadata_urls, resource_covers,
};
pub use exchange::{AssertionSource, EnterpriseIdp};
#[cfg(feature = "oauth-jwt")]
pub use jwt::ClientAssertionKey;
pub use loopback::LoopbackHandler;
pub use registration::ClientInfo;
pub use token::Tokens;

use self::discovery::{authorization_server_metadata, find_authorization_server_metadata, protected_resource_metadata};
use self::pkce::{Pkce, random_token};
use self::registration::{RegistrationRequest, is_metadata_document_url, register};
use self::token::{Grant, request};
use super::ClientError;

/// The key of `private_key_jwt` client authentication (none without the feature).
#[cfg(feature = "oauth-jwt")]
pub(crate) type AssertionKey = jwt::ClientAssertionKey;
#[cfg(feature = "oauth-jwt")]
pub(crate) use jwt::JWT_ASSERTION_TYPE;

/// Without the `oauth-jwt` feature there is no key (an uninhabited type).
#[cfg(not(feature = "oauth-jwt"))]
#[derive(Debug, Clone)]
pub(crate) enum AssertionKey {}

#[cfg(not(feature = "oauth-jwt"))]
impl AssertionKey {
    pub(crate) fn assertion(&self, _: &str, _: &str) -> Result<String, ClientError> {
        match *self {}
    }
}

#[cfg(not(feature = "oauth-jwt"))]
pub(crate) const JWT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

#[cfg(feature = "oauth-jwt")]
pub(crate) use dpop::{Audience, Dpop};

/// Without the `oauth-jwt` feature there is no DPoP (an uninhabited type).
#[cfg(not(feature = "oauth-jwt"))]
#[derive(Debug)]
pub(crate) enum Dpop {}

#[cfg(not(feature = "oauth-jwt"))]
#[derive(Debug, Clone, Copy)]
pub(crate) enum Audience {
    AuthorizationServer,
    ResourceServer,
}

#[cfg(not(feature = "oauth-jwt"))]
impl Dpop {
    pub(crate) fn proof(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Result<String, ClientError> {
        match *self {}
    }

    pub(crate) fn remember_nonce(&self, _: Audience, _: &reqwest::header::HeaderMap) -> bool {
        match *self {}
    }
}

/// What a token request proves besides the grant: the client's key (`private_key_jwt`) and
/// its DPoP key.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Proofs<'a> {
    pub key: Option<&'a AssertionKey>,
    pub dpop: Option<&'a Dpop>,
}

/// The credentials of one request to the MCP server: the `Authorization` value, and the
/// `DPoP` proof of a DPoP-bound token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub authorization: String,
    pub dpop: Option<String>,
}

/// How a client without a user gets its token.
#[derive(Debug, Clone)]
enum MachineGrant {
    /// `client_credentials`.
    ClientCredentials,
    /// The JWT bearer grant with this assertion (a workload's identity token).
    JwtBearer(AssertionSource),
    /// A token exchange at the identity provider, then the JWT bearer grant with its result.
    Enterprise(Box<EnterpriseIdp>),
}

/// Takes the user agent through the authorization endpoint: given the authorization URL,
/// it returns the URL the authorization server redirected to (the `redirect_uri` with `code`,
/// `state` and perhaps `iss`). An interactive app opens a browser and listens on a loopback
/// port ([`LoopbackHandler`]); a test follows the redirect itself.
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// The `redirect_uri` the authorization server sends the user agent back to.
    fn redirect_uri(&self) -> String;
    /// Send the user to `authorization_url`; resolve with the redirect's full URL.
    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String, ClientError>>;
}

/// Where a client keeps its tokens and its registrations (one per authorization server).
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens held, if any.
    fn tokens(&self) -> Option<Tokens>;
    /// Keep these tokens (`None` forgets them).
    fn save_tokens(&self, tokens: Option<Tokens>);
    /// The registration made with the authorization server `issuer`.
    fn client(&self, issuer: &str) -> Option<ClientInfo>;
    /// Keep the registration made with `issuer`.
    fn save_client(&self, issuer: &str, client: ClientInfo);
}

/// A [`TokenStore`] in memory: the default, forgotten when the process ends.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<Option<Tokens>>,
    clients: Mutex<Vec<(String, ClientInfo)>>,
}

impl TokenStore for MemoryTokenStore {
    fn tokens(&self) -> Option<Tokens> {
        self.tokens.lock().ok().and_then(|t| t.clone())
    }

    fn save_tokens(&self, tokens: Option<Tokens>) {
        if let Ok(mut t) = self.tokens.lock() {
            *t = tokens;
        }
    }

    fn client(&self, issuer: &str) -> Option<ClientInfo> {
        self.clients.lock().ok()?.iter().find(|(i, _)| i == issuer).map(|(_, c)| c.clone())
    }

    fn save_client(&self, issuer: &str, client: ClientInfo) {
        if let Ok(mut clients) = self.clients.lock() {
            clients.retain(|(i, _)| i != issuer);
            clients.push((issuer.to_owned(), client));
        }
    }
}

/// How a client signs in to OAuth-protected MCP servers.
///
/// ```
/// use roundtrip::client::Client;
/// use roundtrip::client::oauth::{LoopbackHandler, OAuth};
///
/// # async fn sign_in() -> Result<(), Box<dyn std::error::Error>> {
/// // Prints the authorization URL; takes the redirect on http://127.0.0.1:<port>/callback.
/// let handler = LoopbackHandler::bind("127.0.0.1:0").await?;
/// let client = Client::builder("my-app", "1.0.0")
///     .oauth(OAuth::new(handler).client_metadata_url("https://my-app.example/oauth/client.json"))
///     .connect_http("http://127.0.0.1:8080/mcp")
///     .await?;
/// # drop(client); Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuth {
    /// The user agent of the authorization code flow; `None` for client credentials.
    handler: Option<Arc<dyn AuthorizationHandler>>,
    store: Arc<dyn TokenStore>,
    pre_registered: Option<(ClientInfo, Option<String>)>,
    metadata_url: Option<String>,
    client_name: Option<String>,
    application_type: String,
    refresh: bool,
    machine: MachineGrant,
    key: Option<AssertionKey>,
    dpop: bool,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("redirect_uri", &self.handler.as_ref().map(|h| h.redirect_uri()))
            .field("pre_registered", &self.pre_registered.as_ref().map(|(c, i)| (&c.client_id, i)))
            .field("metadata_url", &self.metadata_url)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// What every constructor starts from: tokens in memory, no user agent, no refresh,
    /// `machine` for machine sign-in, and the client's credentials when pre-registered.
    fn defaults(machine: MachineGrant, client: Option<ClientInfo>) -> Self {
        Self {
            handler: None,
            store: Arc::new(MemoryTokenStore::default()),
            pre_registered: client.map(|c| (c, None)),
            metadata_url: None,
            client_name: None,
            application_type: "native".into(),
            refresh: false,
            machine,
            key: None,
            dpop: true,
        }
    }

    /// Sign in through `handler`, keeping tokens in memory, registering dynamically unless
    /// told otherwise.
    pub fn new(handler: impl AuthorizationHandler) -> Self {
        Self {
            handler: Some(Arc::new(handler)),
            refresh: true,
            ..Self::defaults(MachineGrant::ClientCredentials, None)
        }
    }

    /// Machine to machine: no user, the `client_credentials` grant (the
    /// `io.modelcontextprotocol/oauth-client-credentials` extension) with these credentials,
    /// issued out of band. Scopes and `resource` are chosen as for a user's sign-in.
    pub fn client_credentials(client: ClientInfo) -> Self {
        Self::defaults(MachineGrant::ClientCredentials, Some(client))
    }

    /// Machine to machine with a workload's identity (the `io.modelcontextprotocol/auth/wif`
    /// extension): the JWT bearer grant (RFC 7523) with the JWT `assertion` gives, which the
    /// authorization server trusts through its issuer (a cloud platform, a CI system, a
    /// service mesh). No registration, no secret. Add a client id with
    /// [`pre_registered`](Self::pre_registered) where the authorization server wants one.
    pub fn jwt_bearer(assertion: AssertionSource) -> Self {
        Self::defaults(MachineGrant::JwtBearer(assertion), None)
    }

    /// Enterprise-managed authorization (the
    /// `io.modelcontextprotocol/enterprise-managed-authorization` extension): the user's ID
    /// token from the enterprise's identity provider is exchanged there for an identity
    /// assertion grant naming the MCP server's authorization server and resource (RFC 8693),
    /// which `client` (its credentials at that authorization server) presents in the JWT bearer
    /// grant (RFC 7523). No authorization endpoint, no registration.
    pub fn enterprise(idp: EnterpriseIdp, client: ClientInfo) -> Self {
        Self::defaults(MachineGrant::Enterprise(Box::new(idp)), Some(client))
    }

    /// Authenticate at token endpoints with this private key (`private_key_jwt`, RFC 7523
    /// §2.2; cargo feature `oauth-jwt`) instead of a secret: each token request carries a
    /// fresh signed assertion. With [`client_credentials`](Self::client_credentials) this is
    /// the client credentials extension's JWT form.
    #[cfg(feature = "oauth-jwt")]
    pub fn private_key_jwt(mut self, key: ClientAssertionKey) -> Self {
        self.key = Some(key);
        self
    }

    /// Whether to ask for DPoP-bound tokens (RFC 9449; cargo feature `oauth-jwt`) where the
    /// authorization server offers them (`dpop_signing_alg_values_supported` lists `ES256`).
    /// On by default: the client makes a key of its own per connection, proves it on every
    /// token request and every request to the MCP server, and a token that leaks is of no use
    /// without it. Tokens bound to a key die with the connection's key: a [`TokenStore`] that
    /// outlives the process gets a new sign-in where it held one.
    pub fn dpop(mut self, on: bool) -> Self {
        self.dpop = on;
        self
    }

    /// Keep tokens and registrations in `store`.
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Use these credentials (issued out of band) with any authorization server, or only with
    /// `issuer` when it is given. They come first; a metadata document URL and dynamic
    /// registration are the fallbacks.
    pub fn pre_registered(mut self, client: ClientInfo, issuer: Option<String>) -> Self {
        self.pre_registered = Some((client, issuer));
        self
    }

    /// The URL of this client's metadata document (an https URL with a path), used as the
    /// client id where the authorization server says `client_id_metadata_document_supported`.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// The `client_name` of a dynamic registration (default: the client's name).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// The `application_type` of a dynamic registration: `native` (the default: a redirect to
    /// a loopback address or a custom scheme) or `web`.
    pub fn application_type(mut self, kind: impl Into<String>) -> Self {
        self.application_type = kind.into();
        self
    }

    /// Whether to ask for refresh tokens (`refresh_token` among the registered grant types,
    /// `offline_access` when the authorization server lists it). On by default.
    pub fn refresh_tokens(mut self, on: bool) -> Self {
        self.refresh = on;
        self
    }

    /// The tokens held now.
    pub fn tokens(&self) -> Option<Tokens> {
        self.store.tokens()
    }
}

/// The signing-in state of one HTTP connection.
pub(crate) struct Authorizer {
    config: OAuth,
    http: reqwest::Client,
    server: Url,
    client_name: String,
    /// One flow at a time; holds the scopes asked for last (for step-up unions).
    flow: tokio::sync::Mutex<Option<Vec<String>>>,
    /// This connection's DPoP key, when DPoP is on.
    dpop: Option<Dpop>,
}

impl fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorizer").field("server", &self.server.as_str()).finish_non_exhaustive()
    }
}

/// How [`Authorizer::recover`] got a new token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recovery {
    /// With the refresh token: if the server still says 401, authorize.
    Refreshed,
    /// By authorizing (or another request did).
    Authorized,
}

/// Why a request came back unauthorized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Denial {
    /// 401: no token, or one the server no longer takes.
    Unauthorized,
    /// 403 `insufficient_scope`: a token with too few scopes.
    InsufficientScope,
}

impl Authorizer {
    pub fn new(config: OAuth, server: &str, client_name: &str) -> Result<Self, ClientError> {
        let server = Url::parse(server).map_err(|e| ClientError::Transport(format!("bad server URL {server}: {e}")))?;
        let http = roundtrip_tls::http_client(|builder| builder.redirect(reqwest::redirect::Policy::limited(5)));
        #[cfg(feature = "oauth-jwt")]
        let dpop = if config.dpop { Some(Dpop::generate()?) } else { None };
        #[cfg(not(feature = "oauth-jwt"))]
        let dpop = None;
        Ok(Self {
            config,
            http,
            server,
            client_name: client_name.to_owned(),
            flow: tokio::sync::Mutex::new(None),
            dpop,
        })
    }

    /// The `Authorization` header value for the next request, if a token is held for a
    /// resource that covers this server (a store shared between servers never hands one
    /// server's token to another).
    pub fn header(&self) -> Option<String> {
        self.config
            .store
            .tokens()
            .filter(|t| resource_covers(&t.resource, &self.server))
            .map(|t| format!("{} {}", if t.dpop { "DPoP" } else { "Bearer" }, t.access_token))
    }

    /// The credentials of the next request (`htm` POST to this server's URL): the
    /// `Authorization` value, and for a DPoP-bound token a fresh proof.
    pub fn credentials(&self) -> Option<Credentials> {
        let tokens = self.config.store.tokens().filter(|t| resource_covers(&t.resource, &self.server))?;
        if !tokens.dpop {
            return Some(Credentials { authorization: format!("Bearer {}", tokens.access_token), dpop: None });
        }
        let dpop = self.dpop.as_ref()?;
        match dpop.proof(Audience::ResourceServer, "POST", self.server.as_str(), Some(&tokens.access_token)) {
            Ok(proof) => {
                Some(Credentials { authorization: format!("DPoP {}", tokens.access_token), dpop: Some(proof) })
            }
            Err(e) => {
                tracing::warn!(target: "roundtrip::client", "no DPoP proof: {e}");
                None
            }
        }
    }

    /// A `DPoP-Nonce` the MCP server sent with a `use_dpop_nonce` challenge: keep it for the
    /// next proofs; whether it is new (then the request goes again, once).
    pub fn resource_nonce(&self, headers: &reqwest::header::HeaderMap) -> bool {
        self.dpop.as_ref().is_some_and(|d| d.remember_nonce(Audience::ResourceServer, headers))
    }

    /// What a token request to `server` proves: the client's key, and its DPoP key when the
    /// server takes DPoP proofs signed with ES256.
    fn proofs(&self, server: &AuthorizationServerMetadata) -> Proofs<'_> {
        let dpop_offered =
            server.dpop_signing_alg_values_supported.as_ref().is_some_and(|a| a.iter().any(|a| a == "ES256"));
        Proofs { key: self.config.key.as_ref(), dpop: self.dpop.as_ref().filter(|_| dpop_offered) }
    }

    /// Before a request: refresh a token that has expired (or is about to) when a refresh
    /// token is held. A failed refresh forgets the tokens; the server's 401 then starts a flow.
    pub async fn before_request(&self) {
        let Some(tokens) = self.config.store.tokens() else { return };
        if !tokens.expires_within(30) || tokens.refresh_token.is_none() {
            return;
        }
        let _flow = self.flow.lock().await;
        let Some(tokens) = self.config.store.tokens().filter(|t| t.expires_within(30)) else { return };
        let refreshed = self.refresh(&tokens).await;
        if let Err(e) = &refreshed {
            tracing::debug!(target: "roundtrip::client", "refreshing the access token failed: {e}");
        }
        self.config.store.save_tokens(refreshed.ok());
    }

    async fn refresh(&self, tokens: &Tokens) -> Result<Tokens, ClientError> {
        let refresh_token =
            tokens.refresh_token.as_deref().ok_or_else(|| ClientError::Auth("no refresh token".into()))?;
        let server = authorization_server_metadata(&self.http, &tokens.issuer).await?;
        let client = self.identity(&server).await?;
        let grant = Grant::Refresh { refresh_token };
        request(&self.http, &server, &client, grant, &tokens.resource, &tokens.scopes, self.proofs(&server)).await
    }

    /// After a 401 or a 403 `insufficient_scope` for a request sent with `sent` (the header
    /// value, if any): get a token that may do better, by a refresh when one is held and
    /// `may_refresh`, else by authorizing. `Ok` says which; either way, send the request again.
    pub async fn recover(
        &self,
        denial: Denial,
        challenge: Option<&Challenge>,
        sent: Option<&str>,
        may_refresh: bool,
    ) -> Result<Recovery, ClientError> {
        let mut asked = self.flow.lock().await;
        // Another request already got a new token while this one waited.
        let current = self.header();
        if current.is_some() && current.as_deref() != sent {
            return Ok(Recovery::Authorized);
        }
        let prm = protected_resource_metadata(&self.http, &self.server, challenge.and_then(|c| c.resource_metadata()))
            .await?;
        let (issuer, resource) = match &prm {
            Some(prm) => {
                let issuer = prm.authorization_servers.first().cloned().ok_or_else(|| {
                    ClientError::Auth(format!(
                        "the protected resource metadata of {} names no authorization server",
                        self.server
                    ))
                })?;
                (issuer, prm.resource.clone())
            }
            // No resource metadata (a 2025-03-26 server): the server's origin is the
            // authorization server.
            None => (discovery::origin(&self.server), canonical_resource(&self.server)),
        };
        let server = match (find_authorization_server_metadata(&self.http, &issuer).await?, &prm) {
            (Some(server), _) => server,
            // Neither kind of metadata: a 2025-03-26 server, whose authorization endpoints
            // are the default paths at its origin.
            (None, None) => AuthorizationServerMetadata::defaults_at(&issuer),
            (None, Some(_)) => {
                return Err(ClientError::Auth(format!("no authorization server metadata found for `{issuer}`")));
            }
        };

        let held = self.config.store.tokens().filter(|t| resource_covers(&t.resource, &self.server));
        if denial == Denial::Unauthorized
            && may_refresh
            && let Some(tokens) = held.as_ref().filter(|t| t.refresh_token.is_some() && t.issuer == server.issuer)
        {
            match self.refresh(tokens).await {
                Ok(fresh) => {
                    self.config.store.save_tokens(Some(fresh));
                    return Ok(Recovery::Refreshed);
                }
                Err(e) => tracing::debug!(target: "roundtrip::client", "refresh failed, authorizing again: {e}"),
            }
        }
        if denial == Denial::Unauthorized {
            // Refused: forget it. (A token short of scopes still serves other requests until
            // the step-up replaces it.)
            self.config.store.save_tokens(None);
        }

        let mut scopes: Vec<String> = match (challenge.and_then(Challenge::scopes), &prm) {
            (Some(challenged), _) => challenged,
            (None, Some(prm)) => prm.scopes_supported.clone().unwrap_or_default(),
            (None, None) => Vec::new(),
        };
        if denial == Denial::InsufficientScope {
            // Keep what was asked before: the challenge may name only what is missing.
            let mut union = asked.clone().unwrap_or_default();
            union.extend(held.map(|t| t.scopes).unwrap_or_default());
            for s in scopes.drain(..) {
                union.push(s);
            }
            scopes = union;
        }
        if self.config.refresh
            && server.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == "offline_access"))
        {
            scopes.push("offline_access".into());
        }
        let mut seen = std::collections::HashSet::new();
        scopes.retain(|s| seen.insert(s.clone()));

        let tokens = self.authorize(&server, &resource, &scopes).await?;
        *asked = Some(scopes);
        self.config.store.save_tokens(Some(tokens));
        Ok(Recovery::Authorized)
    }

    /// Who this client is to `server`: pre-registered credentials, a metadata document URL,
    /// a registration made before, or a new dynamic registration.
    async fn identity(&self, server: &AuthorizationServerMetadata) -> Result<ClientInfo, ClientError> {
        if let Some((client, only)) = &self.config.pre_registered
            && only.as_ref().is_none_or(|i| *i == server.issuer)
        {
            return Ok(client.clone());
        }
        if let Some(url) = &self.config.metadata_url
            && server.client_id_metadata_document_supported == Some(true)
            && is_metadata_document_url(url)
        {
            return Ok(ClientInfo {
                token_endpoint_auth_method: Some("none".into()),
                ..ClientInfo::public(url.clone())
            });
        }
        let Some(handler) = &self.config.handler else {
            return Err(ClientError::Auth(format!("no client credentials for `{}`", server.issuer)));
        };
        let redirect_uri = handler.redirect_uri();
        if let Some(client) = self
            .config
            .store
            .client(&server.issuer)
            .filter(|c| c.redirect_uris.is_empty() || c.redirect_uris.contains(&redirect_uri))
        {
            return Ok(client);
        }
        let Some(endpoint) = &server.registration_endpoint else {
            return Err(ClientError::Auth(format!(
                "the authorization server `{}` offers no registration, and this client has no credentials for it",
                server.issuer
            )));
        };
        let request = RegistrationRequest {
            client_name: self.config.client_name.as_deref().unwrap_or(&self.client_name),
            redirect_uri: &redirect_uri,
            application_type: &self.config.application_type,
            refresh: self.config.refresh,
        };
        let client = register(&self.http, endpoint, server, &request).await?;
        self.config.store.save_client(&server.issuer, client.clone());
        Ok(client)
    }

    /// The authorization code flow with PKCE, through the handler (or, without one, the
    /// client credentials grant).
    async fn authorize(
        &self,
        server: &AuthorizationServerMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<Tokens, ClientError> {
        let Some(handler) = &self.config.handler else {
            let scope = scopes.join(" ");
            let scope = Some(scope.as_str()).filter(|s| !s.is_empty());
            let key = self.proofs(server);
            return match &self.config.machine {
                MachineGrant::ClientCredentials => {
                    let client = self.identity(server).await?;
                    let grant = Grant::ClientCredentials { scope };
                    request(&self.http, server, &client, grant, resource, scopes, key).await
                }
                MachineGrant::JwtBearer(source) => {
                    // The assertion says who the workload is; a client id only where one was given.
                    let client = match &self.config.pre_registered {
                        Some((client, only)) if only.as_ref().is_none_or(|i| *i == server.issuer) => client.clone(),
                        _ => ClientInfo { token_endpoint_auth_method: Some("none".into()), ..ClientInfo::public("") },
                    };
                    let assertion = source.get().await?;
                    let grant = Grant::JwtBearer { assertion: &assertion, scope };
                    request(&self.http, server, &client, grant, resource, scopes, key).await
                }
                MachineGrant::Enterprise(idp) => {
                    let client = self.identity(server).await?;
                    let grant = exchange::identity_assertion(&self.http, idp, &server.issuer, resource, scope).await?;
                    let grant = Grant::JwtBearer { assertion: &grant, scope };
                    request(&self.http, server, &client, grant, resource, scopes, key).await
                }
            };
        };
        if !server.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256")) {
            return Err(ClientError::Auth(format!(
                "the authorization server `{}` does not advertise PKCE with S256; refusing to authorize",
                server.issuer
            )));
        }
        let client = self.identity(server).await?;
        let pkce = Pkce::new();
        let state = random_token();
        let redirect_uri = handler.redirect_uri();
        let mut url = Url::parse(&server.authorization_endpoint)
            .map_err(|e| ClientError::Auth(format!("bad authorization endpoint: {e}")))?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", resource);
            if !scopes.is_empty() {
                q.append_pair("scope", &scopes.join(" "));
            }
        }
        let redirect = handler.authorize(url.to_string()).await?;
        let code = check_redirect(&redirect, &state, server)?;
        let grant = Grant::AuthorizationCode { code: &code, redirect_uri: &redirect_uri, verifier: &pkce.verifier };
        request(&self.http, server, &client, grant, resource, scopes, self.proofs(server)).await
    }
}

/// Read the code from the authorization response, after checking `state` and `iss`
/// (RFC 9207: a present `iss` must equal the issuer exactly; an absent one is refused when the
/// server said it sends one).
pub(crate) fn check_redirect(
    redirect: &str,
    state: &str,
    server: &AuthorizationServerMetadata,
) -> Result<String, ClientError> {
    let url = Url::parse(redirect).map_err(|e| ClientError::Auth(format!("bad redirect URL: {e}")))?;
    let get = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    match get("iss") {
        Some(iss) if iss != server.issuer => {
            return Err(ClientError::Auth(format!(
                "the authorization response came from `{iss}`, not from `{}`",
                server.issuer
            )));
        }
        None if server.authorization_response_iss_parameter_supported == Some(true) => {
            return Err(ClientError::Auth("the authorization response lacks the `iss` its server promised".into()));
        }
        _ => {}
    }
    if get("state").as_deref() != Some(state) {
        return Err(ClientError::Auth("the authorization response's `state` is not the one sent".into()));
    }
    if let Some(error) = get("error") {
        let detail = get("error_description").unwrap_or_default();
        return Err(ClientError::Auth(format!("authorization refused: {error} {detail}").trim_end().to_owned()));
    }
    get("code").ok_or_else(|| ClientError::Auth("the authorization response has no code".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(iss_supported: Option<bool>) -> AuthorizationServerMetadata {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://as:1", "authorization_endpoint": "http://as:1/a", "token_endpoint": "http://as:1/t",
            "authorization_response_iss_parameter_supported": iss_supported,
        }))
        .unwrap()
    }

    #[test]
    fn redirects_are_checked_for_state_and_issuer() {
        let ok = "http://127.0.0.1:9/cb?code=c1&state=s1&iss=http%3A%2F%2Fas%3A1";
        assert_eq!(check_redirect(ok, "s1", &server(Some(true))).unwrap(), "c1");
        assert!(check_redirect(ok, "s2", &server(Some(true))).is_err());
        let no_iss = "http://127.0.0.1:9/cb?code=c1&state=s1";
        assert!(check_redirect(no_iss, "s1", &server(Some(true))).is_err());
        assert_eq!(check_redirect(no_iss, "s1", &server(None)).unwrap(), "c1");
        let wrong = "http://127.0.0.1:9/cb?code=c1&state=s1&iss=https%3A%2F%2Fevil.example.com";
        assert!(check_redirect(wrong, "s1", &server(None)).is_err());
        // Simple string comparison: a trailing slash is another issuer.
        let slash = "http://127.0.0.1:9/cb?code=c1&state=s1&iss=http%3A%2F%2Fas%3A1%2F";
        assert!(check_redirect(slash, "s1", &server(Some(true))).is_err());
        let refused = "http://127.0.0.1:9/cb?error=access_denied&state=s1";
        assert!(
            matches!(check_redirect(refused, "s1", &server(None)), Err(ClientError::Auth(m)) if m.contains("access_denied"))
        );
    }

    #[test]
    fn the_memory_store_keeps_one_registration_per_issuer() {
        let store = MemoryTokenStore::default();
        store.save_client("a", ClientInfo::public("1"));
        store.save_client("b", ClientInfo::public("2"));
        store.save_client("a", ClientInfo::public("3"));
        assert_eq!(store.client("a").map(|c| c.client_id), Some("3".into()));
        assert_eq!(store.client("b").map(|c| c.client_id), Some("2".into()));
        assert_eq!(store.client("c"), None);
    }
}
