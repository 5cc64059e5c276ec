//! The resource server on the HTTP endpoint: bearer tokens in, `401`/`403`/`503` challenges
//! out (RFC 6750 §3, MCP authorization), and the metadata documents (RFC 9728).

use axum::Router;
use axum::body::Body;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::{Value, json};

use super::{AuthPrincipal, ResourceServer, VerifyError};
use roundtrip_wire::PROTECTED_RESOURCE_WELL_KNOWN as WELL_KNOWN;

/// Why a request is refused, and how to say it.
#[derive(Debug)]
pub enum Refusal {
    /// No bearer token: `401` with the challenge and no error code (RFC 6750 §3.1).
    Missing,
    /// A malformed `Authorization` header: `400 invalid_request`.
    Malformed,
    /// A token that did not verify: `401 invalid_token`.
    Invalid,
    /// The token could not be checked now: `503`, with `Retry-After` in seconds (5 when
    /// unknown).
    Unavailable(Option<u64>),
    /// The token lacks scopes: `403 insufficient_scope`, naming every scope the call needs.
    InsufficientScope(Vec<String>),
}

/// A quoted-string of an auth-param (RFC 9110 §5.6.4).
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        if !c.is_control() {
            out.push(c);
        }
    }
    out.push('"');
    out
}

impl ResourceServer {
    /// Whether `tools/list` leaves out the tools the caller's token lacks the scopes for
    /// ([`ResourceServer::hide_tools_out_of_scope`]).
    #[doc(hidden)]
    pub fn hides_tools_out_of_scope(&self) -> bool {
        self.hide_tools_out_of_scope
    }

    /// The `WWW-Authenticate` value: `Bearer` with the error (if any), the scopes, and where
    /// the metadata is.
    fn challenge(&self, error: Option<(&str, &str)>, scopes: &[String]) -> HeaderValue {
        let mut params = Vec::new();
        if let Some((code, description)) = error {
            params.push(format!("error={}", quoted(code)));
            if code == "insufficient_scope" && !scopes.is_empty() {
                params.push(format!("scope={}", quoted(&scopes.join(" "))));
            }
            params.push(format!("resource_metadata={}", quoted(&self.metadata_url())));
            params.push(format!("error_description={}", quoted(description)));
        } else {
            params.push(format!("resource_metadata={}", quoted(&self.metadata_url())));
        }
        if error.is_none_or(|(code, _)| code != "insufficient_scope") && !scopes.is_empty() {
            params.push(format!("scope={}", quoted(&scopes.join(" "))));
        }
        let value = format!("Bearer {}", params.join(", "));
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    /// The answer to a refused request.
    #[doc(hidden)]
    pub fn refuse(&self, refusal: Refusal) -> Response {
        let (status, code, description, scopes) = match refusal {
            Refusal::Missing => (StatusCode::UNAUTHORIZED, None, "Missing bearer token", self.required_scopes.clone()),
            Refusal::Malformed => (
                StatusCode::BAD_REQUEST,
                Some("invalid_request"),
                "Malformed Authorization header",
                self.required_scopes.clone(),
            ),
            Refusal::Invalid => (
                StatusCode::UNAUTHORIZED,
                Some("invalid_token"),
                "The access token is invalid or expired",
                self.required_scopes.clone(),
            ),
            Refusal::Unavailable(retry_after) => {
                let body = json!({
                    "error": "temporarily_unavailable",
                    "error_description": "The access token cannot be verified now; retry shortly"
                });
                let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, &body);
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after.unwrap_or(5)));
                return response;
            }
            Refusal::InsufficientScope(scopes) => (
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                "The access token lacks a scope this request needs",
                scopes,
            ),
        };
        let body = match code {
            Some(code) => json!({ "error": code, "error_description": description }),
            None => json!({ "error": "invalid_token", "error_description": description }),
        };
        let mut response = json_response(status, &body);
        let challenge = self.challenge(code.map(|c| (c, description)), &scopes);
        response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
        response
    }

    /// The principal of the request's bearer token, which must hold the
    /// [required scopes](ResourceServer::required_scopes).
    #[doc(hidden)]
    pub async fn authenticate(&self, headers: &HeaderMap) -> Result<AuthPrincipal, Refusal> {
        let token = bearer_token(headers)?;
        let principal = self.verifier.verify(token).await.map_err(|e| {
            match &e {
                VerifyError::Invalid(why) => tracing::info!(target: "roundtrip::auth", %why, "bearer token refused"),
                VerifyError::Unavailable(why) => {
                    tracing::warn!(target: "roundtrip::auth", %why, "bearer token could not be verified");
                }
                VerifyError::UnavailableFor { why, retry_after } => {
                    tracing::info!(target: "roundtrip::auth", %why, ?retry_after, "bearer token cannot be verified yet");
                }
            }
            match e {
                VerifyError::Invalid(_) => Refusal::Invalid,
                VerifyError::Unavailable(_) => Refusal::Unavailable(None),
                // Whole seconds, rounded up: never an answer that invites a retry too early.
                VerifyError::UnavailableFor { retry_after, .. } => {
                    Refusal::Unavailable(Some(retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0)))
                }
            }
        })?;
        if !principal.missing_scopes(&self.required_scopes).is_empty() {
            return Err(Refusal::InsufficientScope(self.required_scopes.clone()));
        }
        Ok(principal)
    }

    /// Whether `principal` may call a tool that needs `tool_scopes`; the refusal names every
    /// scope the call needs (the server's and the tool's), so that a client stepping up asks
    /// for all of them at once.
    #[doc(hidden)]
    pub fn check_scopes(&self, principal: &AuthPrincipal, tool_scopes: &[String]) -> Result<(), Refusal> {
        if principal.missing_scopes(tool_scopes).is_empty() {
            return Ok(());
        }
        let mut needed = self.required_scopes.clone();
        for s in tool_scopes {
            if !needed.contains(s) {
                needed.push(s.clone());
            }
        }
        Err(Refusal::InsufficientScope(needed))
    }

    /// The routes of the metadata document: the root form and the form suffixed with the
    /// resource's path (and with the endpoint's path, when it differs, e.g. behind a proxy
    /// that strips a prefix). Not behind the bearer check: a client reads it to learn where to
    /// get a token.
    #[doc(hidden)]
    pub fn metadata_routes<S: Clone + Send + Sync + 'static>(
        &self,
        endpoint_path: &str,
        tool_scopes: &[&str],
    ) -> Router<S> {
        let body = serde_json::to_vec(&self.metadata(tool_scopes.iter().copied())).unwrap_or_default();
        let body = bytes::Bytes::from(body);
        let serve = move || {
            let body = body.clone();
            async move {
                let mut response = Response::new(Body::from(body));
                let headers = response.headers_mut();
                headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                // Browser-based clients read it from another origin.
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
                headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
                response
            }
        };
        let mut paths = vec![WELL_KNOWN.to_owned()];
        for suffix in [self.resource_path(), endpoint_path] {
            let suffix = suffix.trim_end_matches('/');
            let path = format!("{WELL_KNOWN}{suffix}");
            if !suffix.is_empty() && !paths.contains(&path) {
                paths.push(path);
            }
        }
        paths.iter().fold(Router::new(), |router, path| router.route(path, get(serve.clone())))
    }
}

/// The token of `Authorization: Bearer <token>` (the scheme is case-insensitive; a token in
/// the query string or the body is never read).
fn bearer_token(headers: &HeaderMap) -> Result<&str, Refusal> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else { return Err(Refusal::Missing) };
    if values.next().is_some() {
        return Err(Refusal::Malformed);
    }
    let value = value.to_str().map_err(|_| Refusal::Malformed)?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Refusal::Missing);
    }
    let token = token.trim();
    if token.is_empty() || token.contains(' ') {
        return Err(Refusal::Malformed);
    }
    Ok(token)
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = (status, serde_json::to_vec(body).unwrap_or_default()).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use futures::future::BoxFuture;

    use super::super::TokenVerifier;
    use super::*;

    struct Never;
    impl TokenVerifier for Never {
        fn verify<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<AuthPrincipal, VerifyError>> {
            Box::pin(async { Err(VerifyError::Invalid("never".into())) })
        }
    }

    fn rs() -> ResourceServer {
        ResourceServer::new("https://mcp.example.com/mcp", Never).required_scopes(["mcp"])
    }

    fn challenge(response: &Response) -> &str {
        response.headers()[header::WWW_AUTHENTICATE].to_str().unwrap_or_default()
    }

    #[test]
    fn challenges_have_the_specified_shape() {
        let meta = "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"";
        let missing = rs().refuse(Refusal::Missing);
        assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(challenge(&missing), format!("Bearer {meta}, scope=\"mcp\""));
        let invalid = rs().refuse(Refusal::Invalid);
        assert_eq!(
            challenge(&invalid),
            format!(
                "Bearer error=\"invalid_token\", {meta}, error_description=\"The access token is invalid or expired\", scope=\"mcp\""
            )
        );
        let forbidden = rs().refuse(Refusal::InsufficientScope(vec!["mcp".into(), "deploy:write".into()]));
        assert_eq!(forbidden.status(), StatusCode::FORBIDDEN);
        assert!(
            challenge(&forbidden)
                .starts_with(&format!("Bearer error=\"insufficient_scope\", scope=\"mcp deploy:write\", {meta}"))
        );
        let unavailable = rs().refuse(Refusal::Unavailable(None));
        assert_eq!(unavailable.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(unavailable.headers()[header::RETRY_AFTER], "5");
        assert_eq!(rs().refuse(Refusal::Unavailable(Some(37))).headers()[header::RETRY_AFTER], "37");
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c\"");
    }

    #[test]
    fn only_one_bearer_header_is_read() {
        let headers = |values: &[&str]| {
            let mut h = HeaderMap::new();
            for v in values {
                h.append(header::AUTHORIZATION, HeaderValue::from_str(v).expect("ascii"));
            }
            h
        };
        assert_eq!(bearer_token(&headers(&["Bearer abc"])).ok(), Some("abc"));
        assert_eq!(bearer_token(&headers(&["bearer  abc "])).ok(), Some("abc"));
        assert!(matches!(bearer_token(&headers(&[])), Err(Refusal::Missing)));
        assert!(matches!(bearer_token(&headers(&["Basic abc"])), Err(Refusal::Missing)));
        assert!(matches!(bearer_token(&headers(&["Bearer"])), Err(Refusal::Malformed)));
        assert!(matches!(bearer_token(&headers(&["Bearer a b"])), Err(Refusal::Malformed)));
        assert!(matches!(bearer_token(&headers(&["Bearer a", "Bearer b"])), Err(Refusal::Malformed)));
    }

    #[test]
    fn tool_scopes_add_to_the_server_scopes() {
        let alice = AuthPrincipal::new("alice").scopes(["mcp"]);
        assert!(rs().check_scopes(&alice, &[]).is_ok());
        let Err(Refusal::InsufficientScope(needed)) = rs().check_scopes(&alice, &["deploy:write".into()]) else {
            panic!("refused");
        };
        assert_eq!(needed, vec!["mcp", "deploy:write"]);
    }
}
