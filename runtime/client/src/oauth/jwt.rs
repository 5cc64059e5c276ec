//! The client's own JWTs (cargo feature `oauth-jwt`): the assertion of `private_key_jwt`
//! client authentication (RFC 7523 §2.2, OpenID Connect Core §9), signed with a key issued to
//! the client out of band.

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;

use super::pkce::random_token;
use super::token::now;
use crate::error::ClientError;

/// `client_assertion_type` of a JWT client assertion.
pub(crate) const JWT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long a client assertion is valid: long enough for the request, no longer.
const ASSERTION_LIFETIME_SECS: u64 = 60;

/// A private key the client authenticates with at token endpoints (`private_key_jwt`): each
/// token request carries a fresh JWT signed with it, naming the client (`iss`, `sub`) and the
/// authorization server (`aud`: its issuer identifier).
///
/// ```
/// use roundtrip::client::oauth::{ClientAssertionKey, ClientInfo, OAuth};
///
/// # fn demo(pem: &str) -> Result<(), roundtrip::client::ClientError> {
/// // The PEM of a PKCS#8 EC P-256 key (ES256) registered with the authorization server.
/// let key = ClientAssertionKey::from_pem(pem, "ES256")?;
/// let oauth = OAuth::client_credentials(ClientInfo::public("svc-reporting")).private_key_jwt(key);
/// # let _ = oauth; Ok(()) }
/// ```
#[derive(Clone)]
pub struct ClientAssertionKey {
    key: EncodingKey,
    algorithm: Algorithm,
    key_id: Option<String>,
}

impl std::fmt::Debug for ClientAssertionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientAssertionKey").field("algorithm", &self.algorithm).finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct AssertionClaims<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    iat: u64,
    exp: u64,
    jti: String,
}

impl ClientAssertionKey {
    /// A key from its PEM (PKCS#8 for EC and EdDSA keys, PKCS#1 or PKCS#8 for RSA) and the JWS
    /// algorithm to sign with: `ES256`, `ES384`, `RS256`, `RS384`, `RS512`, `PS256`, `PS384`,
    /// `PS512` or `EdDSA`.
    pub fn from_pem(pem: &str, algorithm: &str) -> Result<Self, ClientError> {
        let bad = |e: jsonwebtoken::errors::Error| ClientError::Auth(format!("the client's private key: {e}"));
        let algorithm: Algorithm = algorithm
            .parse()
            .map_err(|_| ClientError::Auth(format!("`{algorithm}` is not a JWS algorithm this client signs with")))?;
        let key = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()).map_err(bad)?,
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(bad)?,
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()).map_err(bad)?,
            _ => {
                return Err(ClientError::Auth(format!(
                    "{algorithm:?} is symmetric: private_key_jwt needs a private key"
                )));
            }
        };
        Ok(Self { key, algorithm, key_id: None })
    }

    /// Name the key in the JWT header (`kid`), for an authorization server that holds several
    /// of the client's keys.
    pub fn key_id(mut self, kid: impl Into<String>) -> Self {
        self.key_id = Some(kid.into());
        self
    }

    /// A fresh client assertion: `client_id` as issuer and subject, `audience` (the
    /// authorization server's issuer identifier) as audience, valid for a minute.
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<String, ClientError> {
        let mut header = Header::new(self.algorithm);
        header.kid.clone_from(&self.key_id);
        let iat = now();
        let claims = AssertionClaims {
            iss: client_id,
            sub: client_id,
            aud: audience,
            iat,
            exp: iat + ASSERTION_LIFETIME_SECS,
            jti: random_token(),
        };
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| ClientError::Auth(format!("could not sign the client assertion: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{DecodingKey, Validation};
    use p256::pkcs8::{EncodePrivateKey as _, EncodePublicKey as _, LineEnding};
    use serde_json::Value;

    use super::*;

    #[test]
    fn the_assertion_names_the_client_and_the_issuer_and_expires_soon() {
        let secret = p256::SecretKey::random(&mut rand::rngs::OsRng);
        let pem = secret.to_pkcs8_pem(LineEnding::LF).unwrap();
        let key = ClientAssertionKey::from_pem(&pem, "ES256").unwrap().key_id("k1");
        let jwt = key.assertion("client-1", "https://as.example").unwrap();
        let public = secret.public_key().to_public_key_pem(LineEnding::LF).unwrap();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_audience(&["https://as.example"]);
        validation.set_issuer(&["client-1"]);
        let data =
            jsonwebtoken::decode::<Value>(&jwt, &DecodingKey::from_ec_pem(public.as_bytes()).unwrap(), &validation)
                .expect("verifies with the public key");
        assert_eq!(data.header.kid.as_deref(), Some("k1"));
        assert_eq!(data.claims["sub"], "client-1");
        assert_eq!(
            data.claims["exp"].as_u64().unwrap() - data.claims["iat"].as_u64().unwrap(),
            ASSERTION_LIFETIME_SECS
        );
        assert!(data.claims["jti"].as_str().is_some_and(|j| !j.is_empty()));
        assert!(ClientAssertionKey::from_pem(&pem, "HS256").is_err(), "a symmetric algorithm is refused");
        assert!(ClientAssertionKey::from_pem("not a key", "ES256").is_err());
    }
}
