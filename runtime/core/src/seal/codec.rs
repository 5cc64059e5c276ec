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
///
/// Either method's error (with its sources) goes to the log only.
///
/// ```
/// use roundtrip::seal::Codec;
///
/// /// A stand-in for a KMS client (a real codec encrypts and authenticates).
/// struct Kms;
///
/// impl Codec for Kms {
///     fn seal(&self, bytes: &[u8]) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
///         Ok(format!("kms:{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()))
///     }
///     fn unseal(&self, token: &str) -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
///         let hex = token.strip_prefix("kms:").ok_or("not a token of this codec")?;
///         (0..hex.len()).step_by(2).map(|i| Ok(u8::from_str_radix(hex.get(i..i + 2).ok_or("odd length")?, 16)?)).collect()
///     }
/// }
/// let kms = Kms;
/// assert_eq!(kms.unseal(&kms.seal(b"state").unwrap()).unwrap(), b"state");
/// assert!(kms.unseal("forged").is_err());
/// ```
pub trait Codec: Send + Sync {
    /// Seal `bytes` into a token.
    fn seal(&self, bytes: &[u8]) -> Result<String, Box<dyn std::error::Error + Send + Sync>>;
    /// Open a token produced by [`seal`](Self::seal); refuse anything else.
    fn unseal(&self, token: &str) -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>>;
}
