//! PKCE (RFC 7636) with the S256 method, and the random `state` of an authorization request.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A code verifier and its S256 challenge.
#[derive(Debug, Clone)]
pub(crate) struct Pkce {
    /// Sent with the token request.
    pub verifier: String,
    /// Sent with the authorization request (`code_challenge_method=S256`).
    pub challenge: String,
}

impl Pkce {
    /// A fresh verifier: 32 random bytes, base64url (43 characters, within RFC 7636's 43..=128).
    pub fn new() -> Self {
        let verifier = random_token();
        let challenge = challenge(&verifier);
        Self { verifier, challenge }
    }
}

/// `BASE64URL(SHA256(verifier))` without padding.
pub(crate) fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// 32 random bytes as base64url: a PKCE verifier or an unguessable `state`.
pub(crate) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_of_rfc_7636_appendix_b() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_well_formed() {
        let (a, b) = (Pkce::new(), Pkce::new());
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.len(), 43);
        assert!(a.verifier.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(a.challenge, challenge(&a.verifier));
    }
}
