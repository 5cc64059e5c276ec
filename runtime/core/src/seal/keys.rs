//! Secrets: parsing them from text, and what is derived from each one, once, at construction.

use aes_gcm::{Aes256Gcm, KeyInit};
use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use hkdf::Hkdf;
use sha2::Sha256;

use super::policy::SealConfigError;

/// The shortest secret accepted, in bytes.
pub(crate) const MIN_KEY_LEN: usize = 32;
/// Bytes of the key id carried in every token.
pub(crate) const KEY_ID_LEN: usize = 4;
/// HKDF salt (domain separation for everything derived from a secret).
const HKDF_SALT: &[u8] = b"roundtrip/requestState/v1";

/// Everything derived from one configured secret.
pub(crate) struct DerivedKey {
    /// Names the key in tokens; derived, so it reveals nothing about the secret.
    pub id: [u8; KEY_ID_LEN],
    /// AES-256-GCM with its key schedule expanded once.
    pub cipher: Aes256Gcm,
    /// Salt of the principal digest for tokens sealed under this key.
    pub principal_salt: [u8; 32],
}

impl std::fmt::Debug for DerivedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DerivedKey").field("id", &hex(&self.id)).finish_non_exhaustive()
    }
}

/// The cipher (with aes-gcm's `zeroize` feature) wipes its key schedule when dropped; the
/// principal salt is wiped here.
impl Drop for DerivedKey {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.principal_salt);
    }
}

impl DerivedKey {
    /// HKDF-SHA256 over `secret`: an AEAD key, a key id and a principal salt, each under its own label.
    pub(crate) fn derive(secret: &[u8]) -> Result<Self, SealConfigError> {
        let hk = Hkdf::<Sha256>::new(Some(HKDF_SALT), secret);
        let mut aead_key = zeroize::Zeroizing::new([0u8; 32]);
        let mut id = [0u8; KEY_ID_LEN];
        let mut principal_salt = [0u8; 32];
        expand(&hk, b"aes-256-gcm key", &mut aead_key[..])?;
        expand(&hk, b"key id", &mut id)?;
        expand(&hk, b"principal salt", &mut principal_salt)?;
        let cipher = Aes256Gcm::new_from_slice(&aead_key[..])
            .map_err(|_| SealConfigError::new("could not initialise AES-256-GCM with a derived key"))?;
        Ok(Self { id, cipher, principal_salt })
    }
}

/// A salt for principal digests when a custom codec (no key material) seals: derived from the audience.
pub(crate) fn codec_principal_salt(audience: &str) -> Result<[u8; 32], SealConfigError> {
    let hk = Hkdf::<Sha256>::new(Some(HKDF_SALT), audience.as_bytes());
    let mut salt = [0u8; 32];
    expand(&hk, b"principal salt (custom codec)", &mut salt)?;
    Ok(salt)
}

fn expand(hk: &Hkdf<Sha256>, info: &[u8], out: &mut [u8]) -> Result<(), SealConfigError> {
    hk.expand(info, out).map_err(|_| SealConfigError::new("HKDF could not derive a key"))
}

const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_encode_padding(false).with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);

/// One secret written as text: `hex:…`, `base64:…`, or bare. A bare secret made only of an even
/// number of hex digits is hex; anything else is base64 (standard or URL-safe, padding optional).
pub(crate) fn parse_secret(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix("hex:") {
        return unhex(hex.trim()).ok_or_else(|| "not valid hex".to_owned());
    }
    if let Some(b64) = text.strip_prefix("base64:") {
        return unbase64(b64.trim()).ok_or_else(|| "not valid base64".to_owned());
    }
    if !text.is_empty() && text.len().is_multiple_of(2) && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return unhex(text).ok_or_else(|| "not valid hex".to_owned());
    }
    unbase64(text).ok_or_else(|| "neither hex nor base64".to_owned())
}

/// Secrets separated by commas or newlines; blank entries and `#` comment lines are skipped.
pub(crate) fn parse_secrets(text: &str) -> Result<Vec<Vec<u8>>, String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .flat_map(|line| line.split(','))
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .enumerate()
        .map(|(i, entry)| parse_secret(entry).map_err(|e| format!("key #{} is {e}", i + 1)))
        .collect()
}

fn unbase64(text: &str) -> Option<Vec<u8>> {
    let engine = if text.contains(['-', '_']) { &URL_SAFE } else { &STANDARD };
    engine.decode(text).ok()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.as_bytes()
        .chunks_exact(2)
        .map(|pair| {
            let hi = char::from(pair[0]).to_digit(16)?;
            let lo = char::from(pair[1]).to_digit(16)?;
            u8::try_from(hi * 16 + lo).ok()
        })
        .collect()
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_base64_forms() {
        let key: Vec<u8> = (0u8..32).collect();
        let hex_text = hex(&key);
        assert_eq!(parse_secret(&hex_text).as_deref(), Ok(&key[..]));
        assert_eq!(parse_secret(&format!("hex:{}", hex_text.to_uppercase())).as_deref(), Ok(&key[..]));
        let std = base64::engine::general_purpose::STANDARD.encode(&key);
        assert_eq!(parse_secret(&std).as_deref(), Ok(&key[..]));
        assert_eq!(parse_secret(std.trim_end_matches('=')).as_deref(), Ok(&key[..]));
        let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode([0xfb_u8; 33]);
        assert_eq!(parse_secret(&format!("base64:{url}")).as_deref(), Ok(&[0xfb_u8; 33][..]));
        assert!(parse_secret("hex:abc").is_err());
        assert!(parse_secret("not base64 !").is_err());
    }

    #[test]
    fn lists_of_secrets() {
        let a = hex(&[1u8; 32]);
        let b = hex(&[2u8; 32]);
        let parsed = parse_secrets(&format!("# rotation\n{a}\n\n {b} ,\n")).expect("parses");
        assert_eq!(parsed, vec![vec![1u8; 32], vec![2u8; 32]]);
        assert_eq!(parse_secrets(&format!("{a},{b}")).expect("parses").len(), 2);
        assert!(parse_secrets(&format!("{a},zz")).is_err_and(|e| e.contains("#2")));
    }

    #[test]
    fn derivation_is_deterministic_and_separates_keys() {
        let a = DerivedKey::derive(&[1u8; 32]).expect("derives");
        let a2 = DerivedKey::derive(&[1u8; 32]).expect("derives");
        let b = DerivedKey::derive(&[2u8; 32]).expect("derives");
        assert_eq!(a.id, a2.id);
        assert_eq!(a.principal_salt, a2.principal_salt);
        assert_ne!(a.id, b.id);
        assert_ne!(a.principal_salt, b.principal_salt);
    }
}
