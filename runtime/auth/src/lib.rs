//! The OAuth 2.1 resource server of the MCP authorization specification: bearer tokens become
//! the [`AuthPrincipal`] that sealed `requestState` and tasks are bound to.
//!
//! The crate roundtrip-auth, which applications name `roundtrip::auth` (the feature `auth` of
//! [roundtrip](https://docs.rs/roundtrip)). A [`ResourceServer`] names
//! this server's resource identifier, its authorization servers and a [`TokenVerifier`]
//! ([`JwtVerifier`] for JWT access tokens, checked against the issuer's JWKS;
//! [`IntrospectionVerifier`] for opaque tokens, RFC 7662). Given to the HTTP endpoint with
//! [`HttpOptions::auth`](https://docs.rs/roundtrip/latest/roundtrip/transport/http/struct.HttpOptions.html#method.auth), it
//!
//! - serves the Protected Resource Metadata (RFC 9728) at
//!   `/.well-known/oauth-protected-resource` and at the path-suffixed form
//!   (`/.well-known/oauth-protected-resource/mcp`);
//! - answers a request without a valid token `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (and `error="invalid_token"`
//!   when a token was sent but failed);
//! - answers a token that lacks a required scope, of the server or of the tool called
//!   (`#[tool(scopes = [...])]`), `403` with `error="insufficient_scope"` and the scopes the
//!   call needs, before any check runs or any question is asked (the step-up of the
//!   specification);
//! - hands the handler the [`AuthPrincipal`] ([`RequestContext::auth`](roundtrip_core::request::RequestContext::auth)),
//!   and binds sealed state and task ownership to its issuer and subject.
//!
//! Scopes are a property of a bearer token, so they apply to HTTP-protected servers only: over
//! stdio (a local process the user started) there is no token and nothing is enforced.

mod principal;

pub use principal::AuthPrincipal;
pub(crate) use principal::scopes_of;

#[doc(hidden)]
pub mod http;
mod introspection;
mod jwt;

pub use introspection::IntrospectionVerifier;
pub use jwt::JwtVerifier;
/// The document a [`ResourceServer`] publishes: one type with the client's, in the wire types.
pub use roundtrip_wire::ProtectedResourceMetadata;

pub(crate) use resource_server::split_origin;
pub use resource_server::{ResourceServer, TokenVerifier, VerifyError};

mod resource_server {
    use std::fmt;
    use std::sync::Arc;

    use futures::future::BoxFuture;

    use super::{AuthPrincipal, ProtectedResourceMetadata};

    /// Why a token was not accepted. Non-exhaustive: a verifier of your own builds one of these
    /// variants, and matching on one needs a `_` arm.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    #[non_exhaustive]
    pub enum VerifyError {
        /// The token is not valid here: malformed, badly signed, expired, revoked, issued by
        /// another authorization server or for another resource. Answered `401` with
        /// `error="invalid_token"`; the reason goes to the log only.
        #[error("invalid token: {0}")]
        Invalid(String),
        /// The token could not be checked now (the JWKS or the introspection endpoint did not
        /// answer). Answered `503` with `Retry-After`: the client's token may well be good.
        #[error("token verification unavailable: {0}")]
        Unavailable(String),
        /// The token could not be checked yet, and can be in `retry_after`: it names a key the
        /// verifier does not hold, and the verifier may not fetch the issuer's keys again
        /// before then (its refresh budget is spent). Answered `503` with `Retry-After` (the
        /// seconds, rounded up): the token may be signed with a key the issuer just rotated in.
        #[error("token verification unavailable for {retry_after:?}: {why}")]
        UnavailableFor {
            /// Why, for the log.
            why: String,
            /// When the check can be made.
            retry_after: std::time::Duration,
        },
    }

    /// Turns a bearer token into the principal it speaks for.
    ///
    /// Implemented by [`JwtVerifier`](super::JwtVerifier) and
    /// [`IntrospectionVerifier`](super::IntrospectionVerifier); implement it for any other
    /// kind of token. A verifier must check that the token was issued for this resource (its
    /// audience, RFC 8707): the MCP authorization specification forbids accepting, or passing
    /// on, tokens issued for another.
    pub trait TokenVerifier: Send + Sync + 'static {
        /// Verify `token` (the bearer credential, without the `Bearer ` prefix).
        fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthPrincipal, VerifyError>>;
    }

    impl<T: TokenVerifier + ?Sized> TokenVerifier for Arc<T> {
        fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthPrincipal, VerifyError>> {
            (**self).verify(token)
        }
    }

    /// This server as an OAuth 2.1 protected resource: its identifier, its authorization
    /// servers, the scopes it knows and requires, and how it verifies tokens.
    ///
    /// ```no_run
    /// use roundtrip::ServeHttp;
    /// use roundtrip::auth::{JwtVerifier, ResourceServer};
    /// use roundtrip::transport::http::HttpOptions;
    ///
    /// # async fn demo(server: roundtrip::Server) -> std::io::Result<()> {
    /// let resource = "https://mcp.example.com/mcp";
    /// let auth = ResourceServer::new(resource, JwtVerifier::new("https://auth.example.com", resource))
    ///     .authorization_server("https://auth.example.com")
    ///     .scopes_supported(["mcp:tools", "deploy:write"])
    ///     .required_scopes(["mcp:tools"]);
    /// server.serve_http_with("0.0.0.0:8080", HttpOptions::default().auth(auth)).await
    /// # }
    /// ```
    #[derive(Clone)]
    pub struct ResourceServer {
        pub(crate) resource: String,
        pub(crate) authorization_servers: Vec<String>,
        pub(crate) scopes_supported: Option<Vec<String>>,
        pub(crate) required_scopes: Vec<String>,
        pub(crate) resource_name: Option<String>,
        pub(crate) resource_documentation: Option<String>,
        pub(crate) verifier: Arc<dyn TokenVerifier>,
        pub(crate) hide_tools_out_of_scope: bool,
    }

    impl fmt::Debug for ResourceServer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("ResourceServer")
                .field("resource", &self.resource)
                .field("authorization_servers", &self.authorization_servers)
                .field("scopes_supported", &self.scopes_supported)
                .field("required_scopes", &self.required_scopes)
                .finish_non_exhaustive()
        }
    }

    impl ResourceServer {
        /// The protected resource `resource`: the canonical URI of the MCP endpoint as clients
        /// reach it (e.g. `https://mcp.example.com/mcp`; RFC 8707), which is also the audience
        /// tokens must name. Tokens are checked by `verifier`.
        pub fn new(resource: impl Into<String>, verifier: impl TokenVerifier) -> Self {
            Self {
                resource: resource.into(),
                authorization_servers: Vec::new(),
                scopes_supported: None,
                required_scopes: Vec::new(),
                resource_name: None,
                resource_documentation: None,
                verifier: Arc::new(verifier),
                hide_tools_out_of_scope: true,
            }
        }

        /// Whether `tools/list` leaves out the tools a caller's token lacks a scope for (on by
        /// default). A client then sees only what it can call, and learns nothing of the rest
        /// (their names and descriptions can say more than a caller should know); such a list
        /// differs by caller, so it is marked `cacheScope: private` and is never shared
        /// between callers. Off, every caller sees every tool, and a call without the scope
        /// gets the `403` that lets the client step up: choose it for a client that should
        /// discover what it could ask the user to grant. `describe` lists every tool either way.
        pub fn hide_tools_out_of_scope(mut self, hide: bool) -> Self {
            self.hide_tools_out_of_scope = hide;
            self
        }

        /// An authorization server (its issuer identifier) clients may get tokens from; the
        /// metadata lists each one given (at least one is needed).
        pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
            self.authorization_servers.push(issuer.into());
            self
        }

        /// The scopes listed as `scopes_supported` in the metadata. Without it, the metadata
        /// lists the [required scopes](Self::required_scopes) and every tool's scopes.
        pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
            self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
            self
        }

        /// Scopes every request needs (named in the `scope` of a `401`); a token without them
        /// gets `403 insufficient_scope`.
        pub fn required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
            self.required_scopes = scopes.into_iter().map(Into::into).collect();
            self
        }

        /// A human-readable name (`resource_name` in the metadata).
        pub fn resource_name(mut self, name: impl Into<String>) -> Self {
            self.resource_name = Some(name.into());
            self
        }

        /// A page documenting the resource (`resource_documentation` in the metadata).
        pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
            self.resource_documentation = Some(url.into());
            self
        }

        /// The resource identifier.
        pub fn resource(&self) -> &str {
            &self.resource
        }

        /// The token verifier.
        pub fn verifier(&self) -> &dyn TokenVerifier {
            &*self.verifier
        }

        /// Where the metadata is published: `/.well-known/oauth-protected-resource` inserted
        /// between the resource's host and its path (RFC 9728 §3.1), e.g.
        /// `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`. Named in every
        /// `WWW-Authenticate` challenge.
        pub fn metadata_url(&self) -> String {
            let (origin, path) = split_origin(&self.resource);
            let path = path.trim_end_matches('/');
            format!("{origin}{}{path}", roundtrip_wire::PROTECTED_RESOURCE_WELL_KNOWN)
        }

        /// The Protected Resource Metadata document; `tool_scopes` are added to
        /// `scopes_supported` when it was not set.
        pub fn metadata<'a>(&self, tool_scopes: impl IntoIterator<Item = &'a str>) -> ProtectedResourceMetadata {
            let scopes = match &self.scopes_supported {
                Some(s) => s.clone(),
                None => {
                    let mut all: Vec<String> = self.required_scopes.clone();
                    for s in tool_scopes {
                        if !all.iter().any(|a| a == s) {
                            all.push(s.to_owned());
                        }
                    }
                    all
                }
            };
            let mut doc = ProtectedResourceMetadata::new(self.resource.clone(), self.authorization_servers.clone());
            doc.scopes_supported = (!scopes.is_empty()).then_some(scopes);
            doc.resource_name = self.resource_name.clone();
            doc.resource_documentation = self.resource_documentation.clone();
            doc
        }

        /// The path of the resource identifier (`/mcp` for `https://mcp.example.com/mcp`).
        pub(crate) fn resource_path(&self) -> &str {
            split_origin(&self.resource).1
        }
    }

    /// `https://host:port` and the rest (`/path`, or empty) of an absolute URL.
    pub(crate) fn split_origin(url: &str) -> (&str, &str) {
        let after_scheme = url.find("://").map_or(0, |i| i + 3);
        let end = url[after_scheme..].find(['/', '?', '#']).map_or(url.len(), |i| after_scheme + i);
        let path_end = url[end..].find(['?', '#']).map_or(url.len(), |i| end + i);
        (&url[..end], &url[end..path_end])
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        struct Never;
        impl TokenVerifier for Never {
            fn verify<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<AuthPrincipal, VerifyError>> {
                Box::pin(async { Err(VerifyError::Invalid("never".into())) })
            }
        }

        #[test]
        fn metadata_url_inserts_the_well_known_path() {
            let rs = |r: &str| ResourceServer::new(r, Never);
            assert_eq!(
                rs("https://mcp.example.com/mcp").metadata_url(),
                "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
            );
            assert_eq!(
                rs("https://mcp.example.com").metadata_url(),
                "https://mcp.example.com/.well-known/oauth-protected-resource"
            );
            assert_eq!(
                rs("http://127.0.0.1:8080/a/mcp/").metadata_url(),
                "http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/mcp"
            );
            assert_eq!(rs("https://mcp.example.com/mcp").resource_path(), "/mcp");
        }

        #[test]
        fn scopes_supported_defaults_to_what_is_required() {
            let rs = ResourceServer::new("https://m.example/mcp", Never).required_scopes(["mcp"]);
            let doc = rs.metadata(["deploy:write", "mcp"]);
            assert_eq!(doc.scopes_supported, Some(vec!["mcp".to_owned(), "deploy:write".to_owned()]));
            let doc = rs.clone().scopes_supported(["a"]).metadata(["deploy:write"]);
            assert_eq!(doc.scopes_supported, Some(vec!["a".to_owned()]));
        }
    }
}
