//! Bring-your-own crypto: a [`Codec`] replaces the built-in AES-256-GCM token format.

/// Seals and opens the bytes of a state (the framework's claims followed by the handler's
/// bytes) into an opaque token string, e.g. with a KMS or an HSM.
///
/// The framework still stamps every binding (method, target, arguments, audience, principal,
/// issued-at and expiry) into the bytes it hands to [`seal`](Self::seal) and checks them on
/// what [`unseal`](Self::unseal) returns, so the codec only has to provide confidentiality and
/// integrity: `unseal` must refuse any token that `seal` did not produce. Tokens longer than
/// 64 KiB are refused before `unseal` sees them, and `seal` must not produce longer ones.
///
/// A failure of either method fails closed: sealing answers the request with an internal
/// error; unsealing answers with the usual "Invalid or expired requestState".
pub trait Codec: Send + Sync {
    /// Seal `bytes` into a token.
    fn seal(&self, bytes: &[u8]) -> Result<String, CodecError>;
    /// Open a token produced by [`seal`](Self::seal); refuse anything else.
    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState>;
}

/// A [`Codec`] could not seal a state; the reason is logged, the client sees an internal error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the requestState codec could not seal: {0}")]
pub struct CodecError(pub String);

/// A [`Codec`] refused a token; the reason is logged, the client sees the usual
/// "Invalid or expired requestState".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid requestState: {0}")]
pub struct InvalidRequestState(pub String);
