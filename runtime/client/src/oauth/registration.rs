//! Who the client is to an authorization server: pre-registered credentials, a client ID
//! metadata document URL, or a dynamic registration (RFC 7591), and how it authenticates at
//! the token endpoint.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::discovery::AuthorizationServerMetadata;
use crate::error::ClientError;

/// A client's identity at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientInfo {
    /// The client id (a URL for a client ID metadata document).
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How it authenticates at the token endpoint: `none`, `client_secret_basic` or
    /// `client_secret_post`; chosen from the server's metadata when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The redirect URIs registered (empty: not known). A registration whose list lacks the
    /// handler's current `redirect_uri` is not reused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirect_uris: Vec<String>,
}

impl ClientInfo {
    /// A public client (no secret).
    pub fn public(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: None,
            redirect_uris: vec![],
        }
    }

    /// A confidential client.
    pub fn confidential(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: Some(secret.into()),
            token_endpoint_auth_method: None,
            redirect_uris: vec![],
        }
    }

    /// The token endpoint authentication method this client uses with `server`.
    pub(crate) fn auth_method(&self, server: &AuthorizationServerMetadata) -> String {
        if let Some(m) = &self.token_endpoint_auth_method {
            return m.clone();
        }
        if self.client_secret.is_none() {
            return "none".into();
        }
        let supported = server.token_endpoint_auth_methods_supported.as_deref();
        match supported {
            None => "client_secret_basic".into(),
            Some(s) if s.iter().any(|m| m == "client_secret_basic") => "client_secret_basic".into(),
            Some(s) if s.iter().any(|m| m == "client_secret_post") => "client_secret_post".into(),
            Some(_) => "none".into(),
        }
    }
}

/// The method to ask for in a dynamic registration: none (a public client) when the server
/// takes it, else a secret sent with HTTP Basic, else in the form.
pub(crate) fn method_to_register(server: &AuthorizationServerMetadata) -> &'static str {
    match server.token_endpoint_auth_methods_supported.as_deref() {
        None => "client_secret_basic",
        Some(s) if s.iter().any(|m| m == "none") => "none",
        Some(s) if s.iter().any(|m| m == "client_secret_basic") => "client_secret_basic",
        Some(s) if s.iter().any(|m| m == "client_secret_post") => "client_secret_post",
        Some(_) => "none",
    }
}

/// Whether `url` may serve as a client id (a client ID metadata document): https with a path.
pub(crate) fn is_metadata_document_url(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| u.scheme() == "https" && u.path() != "/" && !u.path().is_empty())
}

/// What a dynamic registration says about the client.
#[derive(Debug, Clone)]
pub(crate) struct RegistrationRequest<'a> {
    pub client_name: &'a str,
    pub redirect_uri: &'a str,
    pub application_type: &'a str,
    pub refresh: bool,
}

/// Register with the server (RFC 7591 §3).
pub(crate) async fn register(
    http: &reqwest::Client,
    endpoint: &str,
    server: &AuthorizationServerMetadata,
    request: &RegistrationRequest<'_>,
) -> Result<ClientInfo, ClientError> {
    let method = method_to_register(server);
    let mut grant_types = vec!["authorization_code"];
    if request.refresh {
        grant_types.push("refresh_token");
    }
    let body = json!({
        "client_name": request.client_name,
        "redirect_uris": [request.redirect_uri],
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": request.application_type,
    });
    let response = http.post(endpoint).header("accept", "application/json").json(&body).send().await.map_err(|e| {
        ClientError::Auth(format!("client registration at {endpoint} failed: {}", roundtrip_tls::error_chain(&e)))
    })?;
    let status = response.status();
    let answer: Value = response
        .json()
        .await
        .map_err(|e| ClientError::Auth(format!("client registration at {endpoint}: HTTP {status}, {e}")))?;
    if !status.is_success() {
        return Err(ClientError::Auth(format!("client registration at {endpoint} refused: HTTP {status}, {answer}")));
    }
    let mut info: ClientInfo = serde_json::from_value(answer)
        .map_err(|e| ClientError::Auth(format!("client registration at {endpoint}: unexpected answer: {e}")))?;
    if info.redirect_uris.is_empty() {
        info.redirect_uris.push(request.redirect_uri.to_owned());
    }
    if info.token_endpoint_auth_method.is_none() {
        info.token_endpoint_auth_method = Some(if info.client_secret.is_some() { method } else { "none" }.to_owned());
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(methods: Option<&[&str]>) -> AuthorizationServerMetadata {
        serde_json::from_value(json!({
            "issuer": "https://as", "authorization_endpoint": "https://as/a", "token_endpoint": "https://as/t",
            "token_endpoint_auth_methods_supported": methods,
        }))
        .unwrap()
    }

    #[test]
    fn token_endpoint_methods_follow_the_metadata() {
        let confidential = ClientInfo::confidential("id", "secret");
        assert_eq!(confidential.auth_method(&server(None)), "client_secret_basic");
        assert_eq!(confidential.auth_method(&server(Some(&["client_secret_post"]))), "client_secret_post");
        assert_eq!(
            confidential.auth_method(&server(Some(&["client_secret_post", "client_secret_basic"]))),
            "client_secret_basic"
        );
        assert_eq!(ClientInfo::public("id").auth_method(&server(Some(&["client_secret_basic"]))), "none");
        let registered = ClientInfo { token_endpoint_auth_method: Some("client_secret_post".into()), ..confidential };
        assert_eq!(registered.auth_method(&server(None)), "client_secret_post");
        assert_eq!(method_to_register(&server(Some(&["none", "client_secret_basic"]))), "none");
        assert_eq!(method_to_register(&server(Some(&["client_secret_post"]))), "client_secret_post");
    }

    #[test]
    fn metadata_document_urls_are_https_with_a_path() {
        assert!(is_metadata_document_url("https://app.example/client.json"));
        assert!(!is_metadata_document_url("https://app.example/"));
        assert!(!is_metadata_document_url("http://app.example/client.json"));
        assert!(!is_metadata_document_url("client"));
    }
}
