//! DPoP (RFC 9449; cargo feature `oauth-jwt`): sender-constrained access tokens. The client
//! makes a P-256 key of its own; every token request and every request to the MCP server
//! carries a fresh proof signed with it (`DPoP` header), so a token that leaks is of no use
//! without the key. A server's nonce (`use_dpop_nonce` with a `DPoP-Nonce` header) is put in
//! the next proofs.

use std::sync::Mutex;

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey};
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use p256::pkcs8::EncodePrivateKey as _;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::pkce::random_token;
use super::token::now;
use crate::error::ClientError;

/// The key and the nonces of one client's DPoP.
pub(crate) struct Dpop {
    key: EncodingKey,
    jwk: Value,
    /// The latest nonce of the authorization server, and of the resource server.
    as_nonce: Mutex<Option<String>>,
    rs_nonce: Mutex<Option<String>>,
}

impl std::fmt::Debug for Dpop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dpop").field("jwk", &self.jwk).finish_non_exhaustive()
    }
}

/// Which server a proof is for (each has its own nonce).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audience {
    AuthorizationServer,
    ResourceServer,
}

/// The longest nonce kept.
const MAX_NONCE: usize = 1024;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

impl Dpop {
    /// A fresh ES256 key.
    pub(crate) fn generate() -> Result<Self, ClientError> {
        let secret = p256::SecretKey::random(&mut rand::rngs::OsRng);
        let der = secret.to_pkcs8_der().map_err(|e| ClientError::Auth(format!("could not make a DPoP key: {e}")))?;
        let point = secret.public_key().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err(ClientError::Auth("could not make a DPoP key: no public point".into()));
        };
        let jwk = json!({ "kty": "EC", "crv": "P-256", "x": b64(x), "y": b64(y) });
        Ok(Self {
            key: EncodingKey::from_ec_der(der.as_bytes()),
            jwk,
            as_nonce: Mutex::new(None),
            rs_nonce: Mutex::new(None),
        })
    }

    /// A proof for one request: `htm` and `htu` (the URL without query or fragment), the
    /// access token's hash for a resource request, and the server's nonce when it gave one.
    pub(crate) fn proof(
        &self,
        audience: Audience,
        htm: &str,
        htu: &str,
        access_token: Option<&str>,
    ) -> Result<String, ClientError> {
        let htu = htu.split(['?', '#']).next().unwrap_or(htu);
        let header = json!({ "typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk });
        let mut claims = json!({ "jti": random_token(), "htm": htm, "htu": htu, "iat": now() });
        if let Some(token) = access_token {
            claims["ath"] = json!(b64(&Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = self.nonce(audience) {
            claims["nonce"] = json!(nonce);
        }
        let input = format!("{}.{}", b64(header.to_string().as_bytes()), b64(claims.to_string().as_bytes()));
        let signature = jsonwebtoken::crypto::sign(input.as_bytes(), &self.key, Algorithm::ES256)
            .map_err(|e| ClientError::Auth(format!("could not sign a DPoP proof: {e}")))?;
        Ok(format!("{input}.{signature}"))
    }

    fn cell(&self, audience: Audience) -> &Mutex<Option<String>> {
        match audience {
            Audience::AuthorizationServer => &self.as_nonce,
            Audience::ResourceServer => &self.rs_nonce,
        }
    }

    fn nonce(&self, audience: Audience) -> Option<String> {
        self.cell(audience).lock().ok().and_then(|n| n.clone())
    }

    /// Keep the nonce a server sent (`DPoP-Nonce`); whether it is a new one.
    pub(crate) fn remember_nonce(&self, audience: Audience, headers: &reqwest::header::HeaderMap) -> bool {
        let Some(nonce) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()).map(str::trim) else {
            return false;
        };
        if nonce.is_empty() || nonce.len() > MAX_NONCE {
            return false;
        }
        let Ok(mut held) = self.cell(audience).lock() else { return false };
        let new = held.as_deref() != Some(nonce);
        *held = Some(nonce.to_owned());
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_carries_the_request_the_key_and_the_token_hash() {
        let dpop = Dpop::generate().expect("key");
        let proof = dpop.proof(Audience::ResourceServer, "POST", "http://h/mcp?x=1#f", Some("tok")).expect("proof");
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |s: &str| -> Value {
            serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(s).expect("b64"))
                .expect("json")
        };
        let (header, claims) = (decode(parts[0]), decode(parts[1]));
        assert_eq!(header["typ"], "dpop+jwt");
        assert!(header["jwk"]["x"].is_string() && header["jwk"].get("d").is_none());
        assert_eq!((claims["htm"].as_str(), claims["htu"].as_str()), (Some("POST"), Some("http://h/mcp")));
        assert_eq!(claims["ath"], b64(&Sha256::digest(b"tok")));
        assert!(claims.get("nonce").is_none());
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("dpop-nonce", reqwest::header::HeaderValue::from_static("n-1"));
        assert!(dpop.remember_nonce(Audience::ResourceServer, &headers));
        assert!(!dpop.remember_nonce(Audience::ResourceServer, &headers), "the same nonce again is not new");
        let proof = dpop.proof(Audience::ResourceServer, "POST", "http://h/mcp", None).expect("proof");
        assert_eq!(decode(proof.split('.').nth(1).expect("claims"))["nonce"], "n-1");
        let other = dpop.proof(Audience::AuthorizationServer, "POST", "http://as/token", None).expect("proof");
        assert!(decode(other.split('.').nth(1).expect("claims")).get("nonce").is_none());
    }
}
