//! The built-in token: `rt1.` followed by unpadded base64url of
//! `key id (4) ‖ nonce (12) ‖ AES-256-GCM ciphertext ‖ tag (16)`,
//! with the associated data `rt1.` ‖ key id.

use aes_gcm::aead::AeadInPlace;
use aes_gcm::{Nonce, Tag};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;

use super::keys::{DerivedKey, KEY_ID_LEN};
use super::reject::Reject;

/// Version prefix of the built-in format.
pub(crate) const PREFIX: &str = "rt1.";
/// The longest token accepted (checked before anything is decoded) or produced.
pub(crate) const MAX_TOKEN_LEN: usize = 64 * 1024;

/// Why [`seal`] refused a state that would make a token over [`MAX_TOKEN_LEN`].
pub(crate) const TOO_LARGE: &str = "the state is too large (a sealed state may be at most 64 KiB)";

const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
/// Key id and nonce: the clear head of the decoded token.
const HEAD_LEN: usize = KEY_ID_LEN + NONCE_LEN;

/// The associated data: the version and the key id.
fn aad(id: &[u8; KEY_ID_LEN]) -> [u8; 4 + KEY_ID_LEN] {
    let mut aad = [0u8; 4 + KEY_ID_LEN];
    aad[..4].copy_from_slice(PREFIX.as_bytes());
    aad[4..].copy_from_slice(id);
    aad
}

/// Seal the plaintext that `write` appends (about `plaintext_len` bytes) under `key` with a
/// fresh random nonce. Encrypts in place: one buffer, one encoding pass.
pub(crate) fn seal(
    key: &DerivedKey,
    plaintext_len: usize,
    write: impl FnOnce(&mut Vec<u8>),
) -> Result<String, &'static str> {
    let mut buf = Vec::with_capacity(HEAD_LEN + plaintext_len + TAG_LEN);
    buf.extend_from_slice(&key.id);
    let mut nonce = [0u8; NONCE_LEN];
    rand::thread_rng().try_fill_bytes(&mut nonce).map_err(|_| "the random number generator failed")?;
    buf.extend_from_slice(&nonce);
    write(&mut buf);
    let tag = key
        .cipher
        .encrypt_in_place_detached(Nonce::from_slice(&nonce), &aad(&key.id), &mut buf[HEAD_LEN..])
        .map_err(|_| "AES-256-GCM refused to encrypt")?;
    buf.extend_from_slice(&tag);
    let len = base64::encoded_len(buf.len(), false).map(|n| n + PREFIX.len()).unwrap_or(usize::MAX);
    if len > MAX_TOKEN_LEN {
        return Err(TOO_LARGE);
    }
    let mut out = vec![0u8; len];
    out[..PREFIX.len()].copy_from_slice(PREFIX.as_bytes());
    URL_SAFE_NO_PAD.encode_slice(&buf, &mut out[PREFIX.len()..]).map_err(|_| "base64 encoding failed")?;
    let token = String::from_utf8(out).map_err(|_| "base64 produced non-ASCII")?;
    Ok(token)
}

/// A decrypted token: the plaintext is `buf[start..]`.
pub(crate) struct Opened<'k> {
    pub buf: Vec<u8>,
    pub start: usize,
    pub key: &'k DerivedKey,
}

/// Decode and decrypt `token` with whichever of `keys` it names. The caller bounds its length.
pub(crate) fn open<'k>(keys: &'k [DerivedKey], token: &str, process_local: bool) -> Result<Opened<'k>, Reject> {
    let body = token.strip_prefix(PREFIX).ok_or(Reject::BadPrefix)?;
    let mut buf = Vec::with_capacity(base64::decoded_len_estimate(body.len()));
    // Strict: no padding, no non-zero trailing bits, so every token has one spelling.
    URL_SAFE_NO_PAD.decode_vec(body, &mut buf).map_err(|_| Reject::BadEncoding)?;
    if buf.len() < HEAD_LEN + TAG_LEN {
        return Err(Reject::TooShort);
    }
    let key = keys.iter().find(|k| k.id[..] == buf[..KEY_ID_LEN]).ok_or(Reject::UnknownKey { process_local })?;
    let tag_at = buf.len() - TAG_LEN;
    let (head, rest) = buf.split_at_mut(HEAD_LEN);
    let (ciphertext, tag) = rest.split_at_mut(tag_at - HEAD_LEN);
    key.cipher
        .decrypt_in_place_detached(
            Nonce::from_slice(&head[KEY_ID_LEN..]),
            &aad(&key.id),
            ciphertext,
            Tag::from_slice(tag),
        )
        .map_err(|_| Reject::Forged)?;
    buf.truncate(tag_at);
    Ok(Opened { buf, start: HEAD_LEN, key })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<DerivedKey> {
        vec![DerivedKey::derive(&[1u8; 32]).expect("derives"), DerivedKey::derive(&[2u8; 32]).expect("derives")]
    }

    #[test]
    fn round_trip_and_fresh_nonces() {
        let ks = keys();
        let a = seal(&ks[1], 5, |b| b.extend_from_slice(b"hello")).expect("seals");
        let b = seal(&ks[1], 5, |b| b.extend_from_slice(b"hello")).expect("seals");
        assert!(a.starts_with(PREFIX));
        assert_ne!(a, b);
        let opened = open(&ks, &a, false).expect("opens");
        assert_eq!(&opened.buf[opened.start..], b"hello");
        assert_eq!(opened.key.id, ks[1].id);
    }

    #[test]
    fn associated_data_is_version_and_key_id() {
        use aes_gcm::aead::Aead;
        use aes_gcm::aead::Payload;
        let ks = keys();
        let t = seal(&ks[0], 3, |b| b.extend_from_slice(b"abc")).expect("seals");
        let raw = URL_SAFE_NO_PAD.decode(&t[PREFIX.len()..]).expect("decodes");
        assert_eq!(raw[..KEY_ID_LEN], ks[0].id);
        let nonce = Nonce::from_slice(&raw[KEY_ID_LEN..HEAD_LEN]);
        let open_with = |aad: &[u8]| ks[0].cipher.decrypt(nonce, Payload { msg: &raw[HEAD_LEN..], aad }).ok();
        assert_eq!(open_with(&aad(&ks[0].id)).as_deref(), Some(&b"abc"[..]));
        assert_eq!(open_with(b"rt1."), None);
        assert_eq!(open_with(&aad(&ks[1].id)), None);
    }

    #[test]
    fn refusals() {
        let ks = keys();
        let t = seal(&ks[0], 3, |b| b.extend_from_slice(b"abc")).expect("seals");
        assert_eq!(open(&ks[1..], &t, true).err(), Some(Reject::UnknownKey { process_local: true }));
        assert_eq!(open(&ks, "rt2.AAAA", false).err(), Some(Reject::BadPrefix));
        assert_eq!(open(&ks, "rt1.AA==", false).err(), Some(Reject::BadEncoding));
        assert_eq!(open(&ks, "rt1.AAAA", false).err(), Some(Reject::TooShort));
        let mut raw = URL_SAFE_NO_PAD.decode(&t[PREFIX.len()..]).expect("decodes");
        raw.pop();
        let truncated = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(&raw));
        assert_eq!(open(&ks, &truncated, false).err(), Some(Reject::Forged));
        assert!(seal(&ks[0], 0, |b| b.resize(b.len() + MAX_TOKEN_LEN, 0)).is_err());
    }
}
