//! The token endpoint: exchanging an authorization code, refreshing (RFC 6749 §4.1.3, §6),
//! with the `resource` parameter (RFC 8707) and the client authentication the server allows.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::discovery::{AuthorizationServerMetadata, split_scopes};
use super::registration::ClientInfo;
use crate::error::ClientError;

/// The tokens a client holds for one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The access token, sent as `Authorization: Bearer …`.
    pub access_token: String,
    /// The refresh token, if the server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch), if the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (the server's `scope`, else those requested).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The authorization server that issued them.
    pub issuer: String,
    /// The resource (RFC 8707) they were issued for.
    pub resource: String,
    /// The access token is bound to this client's DPoP key (`token_type` `DPoP`): it is sent
    /// as `Authorization: DPoP …` with a proof on every request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop: bool,
}

impl Tokens {
    /// Whether the access token has expired, or will within `margin_secs`.
    pub fn expires_within(&self, margin_secs: u64) -> bool {
        self.expires_at.is_some_and(|at| now() + margin_secs >= at)
    }
}

pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

/// A grant to exchange at the token endpoint.
#[derive(Debug, Clone)]
pub(crate) enum Grant<'a> {
    AuthorizationCode {
        code: &'a str,
        redirect_uri: &'a str,
        verifier: &'a str,
    },
    Refresh {
        refresh_token: &'a str,
    },
    ClientCredentials {
        scope: Option<&'a str>,
    },
    /// RFC 7523 §2.1: a JWT (a workload's identity token, an identity assertion grant) in
    /// exchange for an access token.
    JwtBearer {
        assertion: &'a str,
        scope: Option<&'a str>,
    },
}

/// `grant_type` of the JWT bearer grant (RFC 7523).
pub(crate) const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Ask the token endpoint for tokens.
pub(crate) async fn request(
    http: &reqwest::Client,
    server: &AuthorizationServerMetadata,
    client: &ClientInfo,
    grant: Grant<'_>,
    resource: &str,
    requested_scopes: &[String],
    proofs: super::Proofs<'_>,
) -> Result<Tokens, ClientError> {
    let key = proofs.key;
    let mut form: Vec<(&str, &str)> = Vec::new();
    let old_refresh = match &grant {
        Grant::AuthorizationCode { code, redirect_uri, verifier } => {
            form.extend([
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", redirect_uri),
                ("code_verifier", verifier),
            ]);
            None
        }
        Grant::Refresh { refresh_token } => {
            form.extend([("grant_type", "refresh_token"), ("refresh_token", refresh_token)]);
            Some(refresh_token.to_string())
        }
        Grant::ClientCredentials { scope } => {
            form.push(("grant_type", "client_credentials"));
            if let Some(scope) = scope {
                form.push(("scope", scope));
            }
            None
        }
        Grant::JwtBearer { assertion, scope } => {
            form.extend([("grant_type", JWT_BEARER_GRANT), ("assertion", assertion)]);
            if let Some(scope) = scope {
                form.push(("scope", scope));
            }
            None
        }
    };
    form.push(("resource", resource));
    // A client with a private key authenticates with it, unless told otherwise.
    let method = match key {
        Some(_) if client.token_endpoint_auth_method.is_none() => "private_key_jwt".to_owned(),
        _ => client.auth_method(server),
    };
    let client_assertion;
    let mut rb = http.post(&server.token_endpoint).header("accept", "application/json");
    match method.as_str() {
        "client_secret_basic" => {
            // RFC 6749 §2.3.1: both parts form-encoded, then joined and base64-encoded.
            let pair = format!(
                "{}:{}",
                form_encode(&client.client_id),
                form_encode(client.client_secret.as_deref().unwrap_or_default())
            );
            rb =
                rb.header("authorization", format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair)));
        }
        "client_secret_post" => {
            form.push(("client_id", &client.client_id));
            form.push(("client_secret", client.client_secret.as_deref().unwrap_or_default()));
        }
        "private_key_jwt" => {
            let key = key.ok_or_else(|| {
                ClientError::Auth(format!(
                    "the client `{}` authenticates with private_key_jwt, and no private key was given",
                    client.client_id
                ))
            })?;
            // `aud` is the authorization server's issuer identifier (RFC 7523bis), not its
            // token endpoint.
            client_assertion = key.assertion(&client.client_id, &server.issuer)?;
            form.extend([
                ("client_id", client.client_id.as_str()),
                ("client_assertion_type", super::JWT_ASSERTION_TYPE),
                ("client_assertion", client_assertion.as_str()),
            ]);
        }
        // A client without an identifier (a workload whose assertion says who it is).
        _ if client.client_id.is_empty() => {}
        _ => form.push(("client_id", &client.client_id)),
    }
    // With DPoP, a server that wants a nonce says so once (`use_dpop_nonce`): send again
    // with it, once.
    let mut attempt = 0;
    let (status, body) = loop {
        attempt += 1;
        let mut request = rb.try_clone().ok_or_else(|| ClientError::Auth("the token request cannot be sent".into()))?;
        if let Some(dpop) = proofs.dpop {
            let proof = dpop.proof(super::Audience::AuthorizationServer, "POST", &server.token_endpoint, None)?;
            request = request.header("dpop", proof);
        }
        let response = request.form(&form).send().await.map_err(|e| {
            let why = roundtrip_tls::error_chain(&e);
            ClientError::Auth(format!("the token request to {} failed: {why}", server.token_endpoint))
        })?;
        let status = response.status();
        let new_nonce =
            proofs.dpop.is_some_and(|d| d.remember_nonce(super::Audience::AuthorizationServer, response.headers()));
        let body: Value = response
            .json()
            .await
            .map_err(|e| ClientError::Auth(format!("the token endpoint answered HTTP {status}: {e}")))?;
        if status.as_u16() == 400
            && body.get("error").and_then(Value::as_str) == Some("use_dpop_nonce")
            && new_nonce
            && attempt == 1
        {
            continue;
        }
        break (status, body);
    };
    if !status.is_success() {
        return Err(ClientError::Auth(format!("the token endpoint refused: HTTP {status}, {body}")));
    }
    let answer: TokenResponse = serde_json::from_value(body)
        .map_err(|e| ClientError::Auth(format!("the token endpoint's answer has no access token: {e}")))?;
    let dpop_bound =
        proofs.dpop.is_some() && answer.token_type.as_deref().is_some_and(|k| k.eq_ignore_ascii_case("dpop"));
    if let Some(kind) = &answer.token_type
        && !kind.eq_ignore_ascii_case("bearer")
        && !dpop_bound
    {
        return Err(ClientError::Auth(format!("the token endpoint issued a `{kind}` token, not a bearer token")));
    }
    Ok(Tokens {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token.or(old_refresh),
        expires_at: answer.expires_in.map(|s| now() + s),
        scopes: answer.scope.as_deref().map(split_scopes).unwrap_or_else(|| requested_scopes.to_vec()),
        issuer: server.issuer.clone(),
        resource: resource.to_owned(),
        dpop: dpop_bound,
    })
}

/// `application/x-www-form-urlencoded` encoding of one value.
pub(crate) fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_of_credentials() {
        assert_eq!(form_encode("client-1_a.b"), "client-1_a.b");
        assert_eq!(form_encode("a:b c/é"), "a%3Ab+c%2F%C3%A9");
    }

    #[test]
    fn expiry_with_a_margin() {
        let t = Tokens {
            access_token: "a".into(),
            refresh_token: None,
            expires_at: Some(now() + 10),
            scopes: vec![],
            issuer: "i".into(),
            resource: "r".into(),
            dpop: false,
        };
        assert!(!t.expires_within(0));
        assert!(t.expires_within(30));
        assert!(!Tokens { expires_at: None, ..t }.expires_within(30));
    }
}
