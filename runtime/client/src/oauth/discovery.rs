//! Finding the authorization server: the `WWW-Authenticate` challenge of a 401 or 403, the
//! protected resource metadata (RFC 9728) and the authorization server metadata (RFC 8414 and
//! OpenID Connect Discovery), in the order the MCP authorization spec gives, with its checks
//! (the metadata's `resource` must cover the server's URL; the metadata's `issuer` must be
//! the issuer its well-known URL was built from).

use reqwest::Url;
use serde::Deserialize;

use crate::error::ClientError;
use roundtrip_wire::PROTECTED_RESOURCE_WELL_KNOWN;
pub use roundtrip_wire::ProtectedResourceMetadata;

/// One challenge of a `WWW-Authenticate` header: its scheme and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    /// The scheme (`Bearer`), as sent.
    pub scheme: String,
    /// The parameters, names in lower case, values unquoted, in header order.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// A parameter's value (the name in lower case).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// `resource_metadata`: where the protected resource metadata is (RFC 9728 §5.1).
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// `scope`, split on spaces: what the request needs.
    pub fn scopes(&self) -> Option<Vec<String>> {
        self.param("scope").map(split_scopes).filter(|s| !s.is_empty())
    }

    /// `error` (`invalid_token`, `insufficient_scope`, …).
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }
}

/// The `Bearer` challenge of a `WWW-Authenticate` header value, if it has one.
pub fn bearer_challenge(header: &str) -> Option<Challenge> {
    parse_www_authenticate(header).into_iter().find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
}

/// Every challenge of a `WWW-Authenticate` header value (RFC 9110 §11.6.1): a scheme, then
/// `name=token` or `name="quoted string"` parameters separated by commas; a token that is
/// not followed by `=` starts the next challenge.
pub fn parse_www_authenticate(header: &str) -> Vec<Challenge> {
    let chars: Vec<char> = header.chars().collect();
    let mut i = 0;
    let mut out: Vec<Challenge> = Vec::new();
    let is_delim = |c: char| c == ',' || c == '=' || c.is_whitespace();
    loop {
        while i < chars.len() && (chars[i] == ',' || chars[i].is_whitespace()) {
            i += 1;
        }
        if i >= chars.len() {
            return out;
        }
        let start = i;
        while i < chars.len() && !is_delim(chars[i]) {
            i += 1;
        }
        let token: String = chars[start..i].iter().collect();
        let mut j = i;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        let is_param = j < chars.len() && chars[j] == '=' && !out.is_empty();
        if !is_param {
            if token.is_empty() {
                // A stray `=` (token68 padding): skip it.
                i += 1;
            } else {
                out.push(Challenge { scheme: token, params: Vec::new() });
            }
            continue;
        }
        i = j + 1;
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if i < chars.len() && chars[i] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                }
                value.push(chars[i]);
                i += 1;
            }
            i += 1;
        } else {
            while i < chars.len() && chars[i] != ',' && !chars[i].is_whitespace() {
                value.push(chars[i]);
                i += 1;
            }
        }
        if let Some(current) = out.last_mut() {
            current.params.push((token.to_ascii_lowercase(), value));
        }
    }
}

pub(crate) fn split_scopes(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

/// Authorization server metadata (RFC 8414 §2, and the MCP additions), the fields a client uses.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; must equal the one the metadata was looked up for.
    pub issuer: String,
    /// Where the user agent goes to authorize (empty when a server for machine clients only
    /// names none).
    #[serde(default)]
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic client registration (RFC 7591), if the server offers it.
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// The scopes the server knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// PKCE methods; absent means no PKCE, and an MCP client must not proceed.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// How clients may authenticate at the token endpoint (RFC 8414 default: `client_secret_basic`).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Whether a URL may serve as the client id (client ID metadata documents).
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether the authorization response carries `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// The grants the server issues tokens for.
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// The JWS algorithms of DPoP proofs the server takes (RFC 9449 §5.1).
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl AuthorizationServerMetadata {
    /// The endpoints a 2025-03-26 server without metadata has: `/authorize`, `/token` and
    /// `/register` at `origin`, with PKCE (which that revision required).
    pub fn defaults_at(origin: &str) -> Self {
        let origin = origin.trim_end_matches('/');
        Self {
            issuer: origin.to_owned(),
            authorization_endpoint: format!("{origin}/authorize"),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            scopes_supported: None,
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            token_endpoint_auth_methods_supported: None,
            client_id_metadata_document_supported: None,
            authorization_response_iss_parameter_supported: None,
            grant_types_supported: None,
            dpop_signing_alg_values_supported: None,
        }
    }
}

/// Where to look for the protected resource metadata of `server`: the URL the challenge
/// named, else the path-based well-known URL (`/.well-known/oauth-protected-resource/<path>`),
/// then the root one (RFC 9728 §3.1).
pub fn protected_resource_metadata_urls(server: &Url, from_challenge: Option<&str>) -> Vec<String> {
    let mut urls = Vec::new();
    if let Some(url) = from_challenge {
        urls.push(url.to_owned());
        return urls;
    }
    let origin = origin(server);
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        urls.push(format!("{origin}{PROTECTED_RESOURCE_WELL_KNOWN}{path}"));
    }
    urls.push(format!("{origin}{PROTECTED_RESOURCE_WELL_KNOWN}"));
    urls
}

/// Where to look for the metadata of the authorization server `issuer`, in the MCP spec's
/// order. With a path (`https://as/tenant1`): OAuth with the path inserted
/// (`/.well-known/oauth-authorization-server/tenant1`), OpenID Connect with the path inserted
/// (`/.well-known/openid-configuration/tenant1`), OpenID Connect with the path appended
/// (`/tenant1/.well-known/openid-configuration`). Without one: the OAuth and then the OpenID
/// Connect well-known URL at the root.
pub fn authorization_server_metadata_urls(issuer: &str) -> Result<Vec<String>, ClientError> {
    let url = Url::parse(issuer)
        .map_err(|e| ClientError::Auth(format!("the authorization server `{issuer}` is not a URL: {e}")))?;
    let origin = origin(&url);
    let path = url.path().trim_end_matches('/');
    Ok(if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    })
}

/// `scheme://host[:port]` of a URL.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The resource identifier of an MCP server URL (RFC 8707 §2): the URL without its fragment.
pub fn canonical_resource(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    url.to_string()
}

/// Whether the metadata's `resource` covers the server URL: same origin, and the server's
/// path is the resource's path or below it.
pub fn resource_covers(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else { return false };
    if resource.origin() != server.origin() {
        return false;
    }
    let prefix = resource.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    path == prefix || path.starts_with(&format!("{prefix}/"))
}

/// GET a JSON document: `Ok(None)` on a 4xx (try the next place), an error otherwise.
async fn get_json<T: serde::de::DeserializeOwned>(http: &reqwest::Client, url: &str) -> Result<Option<T>, ClientError> {
    let response = http
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| ClientError::Auth(format!("could not fetch {url}: {}", roundtrip_tls::error_chain(&e))))?;
    let status = response.status();
    if status.is_client_error() {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(ClientError::Auth(format!("{url} answered HTTP {status}")));
    }
    response.json::<T>().await.map(Some).map_err(|e| ClientError::Auth(format!("{url} is not valid metadata: {e}")))
}

/// The protected resource metadata of `server`, checked against it.
pub(crate) async fn protected_resource_metadata(
    http: &reqwest::Client,
    server: &Url,
    from_challenge: Option<&str>,
) -> Result<Option<ProtectedResourceMetadata>, ClientError> {
    for url in protected_resource_metadata_urls(server, from_challenge) {
        let Some(prm) = get_json::<ProtectedResourceMetadata>(http, &url).await? else { continue };
        if !resource_covers(&prm.resource, server) {
            return Err(ClientError::Auth(format!(
                "the protected resource metadata at {url} is for `{}`, not for {server}",
                prm.resource
            )));
        }
        return Ok(Some(prm));
    }
    Ok(None)
}

/// The metadata of the authorization server `issuer`: the first well-known URL that answers
/// (`None` when none does). A document whose `issuer` is not exactly `issuer` is refused
/// (RFC 8414 §3.3).
pub(crate) async fn find_authorization_server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<Option<AuthorizationServerMetadata>, ClientError> {
    for url in authorization_server_metadata_urls(issuer)? {
        let Some(metadata) = get_json::<AuthorizationServerMetadata>(http, &url).await? else { continue };
        if metadata.issuer != issuer {
            return Err(ClientError::Auth(format!(
                "the authorization server metadata at {url} names the issuer `{}`, not `{issuer}`",
                metadata.issuer
            )));
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// The metadata of the authorization server `issuer`, which must have some.
pub(crate) async fn authorization_server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<AuthorizationServerMetadata, ClientError> {
    find_authorization_server_metadata(http, issuer)
        .await?
        .ok_or_else(|| ClientError::Auth(format!("no authorization server metadata found for `{issuer}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_challenges_with_quoted_and_plain_values() {
        let c = bearer_challenge(
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://h:1/.well-known/oauth-protected-resource/mcp", error_description="a, \"quoted\" text""#,
        )
        .unwrap();
        assert_eq!(c.error(), Some("insufficient_scope"));
        assert_eq!(c.scopes(), Some(vec!["mcp:basic".to_owned(), "mcp:write".to_owned()]));
        assert_eq!(c.resource_metadata(), Some("http://h:1/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c.param("error_description"), Some(r#"a, "quoted" text"#));

        let c = bearer_challenge("Bearer realm=example,error=invalid_token").unwrap();
        assert_eq!(c.param("realm"), Some("example"));
        assert_eq!(c.error(), Some("invalid_token"));
        assert_eq!(c.scopes(), None);
    }

    #[test]
    fn the_bearer_challenge_among_others() {
        let all = parse_www_authenticate(r#"Basic realm="x", Bearer scope="a", DPoP algs="ES256""#);
        assert_eq!(all.iter().map(|c| c.scheme.as_str()).collect::<Vec<_>>(), ["Basic", "Bearer", "DPoP"]);
        assert_eq!(bearer_challenge(r#"Basic realm="x", bearer scope="a""#).unwrap().param("scope"), Some("a"));
        assert_eq!(bearer_challenge("Basic abc=="), None);
        assert_eq!(bearer_challenge("Bearer").unwrap().params, Vec::new());
    }

    #[test]
    fn protected_resource_metadata_order() {
        let server = Url::parse("http://h:1/mcp").unwrap();
        assert_eq!(
            protected_resource_metadata_urls(&server, None),
            ["http://h:1/.well-known/oauth-protected-resource/mcp", "http://h:1/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            protected_resource_metadata_urls(&server, Some("http://h:1/custom.json")),
            ["http://h:1/custom.json"]
        );
        let root = Url::parse("http://h:1/").unwrap();
        assert_eq!(protected_resource_metadata_urls(&root, None), ["http://h:1/.well-known/oauth-protected-resource"]);
    }

    #[test]
    fn authorization_server_metadata_order() {
        assert_eq!(
            authorization_server_metadata_urls("https://as.example").unwrap(),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://as.example/tenant1").unwrap(),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration",
            ]
        );
        assert!(authorization_server_metadata_urls("not a url").is_err());
    }

    #[test]
    fn a_resource_covers_its_own_url_and_below() {
        let server = Url::parse("http://h:1/mcp").unwrap();
        assert!(resource_covers("http://h:1/mcp", &server));
        assert!(resource_covers("http://h:1", &server));
        assert!(resource_covers("http://h:1/", &server));
        assert!(!resource_covers("https://evil.example.com/mcp", &server));
        assert!(!resource_covers("http://h:2/mcp", &server));
        assert!(!resource_covers("http://h:1/mc", &server));
        assert!(!resource_covers("http://h:1/mcp/deeper", &server));
        assert_eq!(canonical_resource(&Url::parse("http://h:1/mcp#frag").unwrap()), "http://h:1/mcp");
    }
}
