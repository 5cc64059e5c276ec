//! The claims stamped in front of the handler's bytes in every sealed state, and their check.
//!
//! Layout (format 2), all integers big-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | format (`2`) |
//! | 8 | issued-at, Unix seconds |
//! | 8 | expires-at, Unix seconds |
//! | 1 | flags: bit 0 = a principal is bound; bit 1 = no handler bytes follow (the state carries the flow alone) |
//! | 1 + n | method, as a name (below) |
//! | 1 + n | target (tool or prompt name, resource URI), as a name |
//! | 16 | SHA-256 of the audience, truncated |
//! | 32 | SHA-256 of the canonical arguments |
//! | 16 | salted SHA-256 of the principal, truncated (only when flag bit 0 is set) |
//! | 16 | the flow's identity: random, minted at its first leg, the same in every state after |
//! | 2 | the round of the leg the state is for (the first leg is round 0, so never 0 here) |
//!
//! Format 1 (before flows were carried) lacks the last two fields and flag bit 1; it is still
//! read, so that a state issued by a replica of the previous version is accepted by this one
//! during a rolling upgrade.
//!
//! A name of at most 64 bytes is stored as its length and its bytes; a longer one as `0xFF`
//! and its SHA-256 truncated to 16 bytes. The handler's bytes follow the claims.
//!
//! The arguments digest is full length because the caller chooses both argument sets (a
//! collision would be a replay); the audience and long names are not the caller's to choose
//! freely, and matching another caller's principal digest would take a second preimage under a
//! secret salt, so 128 bits are plenty there.

use sha2::{Digest, Sha256};

use super::Binding;
use super::canonical::arguments_digest;
use super::reject::Reject;

/// The claims format written by this version, and the one before it (still read).
const FORMAT: u8 = 2;
const FORMAT_1: u8 = 1;
const FLAG_PRINCIPAL: u8 = 1;
const FLAG_NO_STATE: u8 = 2;

/// Where a leg stands in its multi-round flow: the flow's identity (the same on every leg)
/// and the leg's round (0 for the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flow {
    /// Bytes, not a `u128`: a `u128` is aligned to 16, and would pad every future holding one.
    pub id: [u8; 16],
    pub round: u16,
}

impl Flow {
    /// A new flow, at its first leg.
    pub(crate) fn start() -> Self {
        Self { id: rand::random(), round: 0 }
    }

    /// The flow at its next leg.
    pub(crate) fn next(self) -> Self {
        Self { id: self.id, round: self.round.saturating_add(1) }
    }
}

/// What [`Stamp::verify`] found in good claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verified {
    /// The length of the claims: the handler's bytes start there.
    pub len: usize,
    /// Whether the handler's bytes follow (they may be none: an empty state is a state).
    pub has_state: bool,
    /// The flow (format 1 carried none).
    pub flow: Option<Flow>,
}
/// How far in the future an issued-at may be (clock skew between instances).
pub(crate) const MAX_SKEW_SECS: u64 = 60;

/// A 128-bit name digest (target, audience).
pub(crate) type Digest16 = [u8; 16];

pub(crate) fn digest16(domain: &[u8], bytes: &[u8]) -> Digest16 {
    let full: [u8; 32] = Sha256::new().chain_update(domain).chain_update(bytes).finalize().into();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// The salted digest of a principal: the raw identity never enters a token. (The salt is an
/// HKDF output under its own label, so it also separates this digest from every other.)
fn principal_digest(salt: &[u8; 32], principal: &str) -> Digest16 {
    let full: [u8; 32] = Sha256::new().chain_update(salt).chain_update(principal).finalize().into();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// Names up to this length are stored as they are; longer ones as a digest.
const MAX_RAW_NAME: usize = 64;
const DIGESTED_NAME: u8 = 0xFF;

/// A method or target as the claims store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name<'a> {
    Raw(&'a [u8]),
    Digest(Digest16),
}

impl<'a> Name<'a> {
    fn new(domain: &[u8], name: &'a str) -> Self {
        if name.len() <= MAX_RAW_NAME {
            Self::Raw(name.as_bytes())
        } else {
            Self::Digest(digest16(domain, name.as_bytes()))
        }
    }

    fn encoded_len(&self) -> usize {
        1 + match self {
            Self::Raw(raw) => raw.len(),
            Self::Digest(d) => d.len(),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Self::Raw(raw) => {
                out.push(u8::try_from(raw.len()).unwrap_or(DIGESTED_NAME));
                out.extend_from_slice(raw);
            }
            Self::Digest(d) => {
                out.push(DIGESTED_NAME);
                out.extend_from_slice(d);
            }
        }
    }

    fn read(r: &mut Reader<'a>) -> Result<Self, Reject> {
        match r.byte()? {
            DIGESTED_NAME => Ok(Self::Digest(r.array()?)),
            len if usize::from(len) <= MAX_RAW_NAME => Ok(Self::Raw(r.take(usize::from(len))?)),
            _ => Err(Reject::BadClaims("bad name length")),
        }
    }
}

/// What a state is bound to, in the form its claims store.
#[derive(Debug, Clone)]
pub(crate) struct Stamp<'a> {
    method: Name<'a>,
    target: Name<'a>,
    audience: &'a Digest16,
    arguments: [u8; 32],
    principal: Option<Digest16>,
}

impl<'a> Stamp<'a> {
    pub(crate) fn new(binding: &Binding<'a>, audience: &'a Digest16, principal_salt: &[u8; 32]) -> Self {
        Self {
            method: Name::new(b"roundtrip/method\0", binding.method),
            target: Name::new(b"roundtrip/target\0", binding.target),
            audience,
            arguments: arguments_digest(binding.arguments),
            principal: binding.principal.map(|p| principal_digest(principal_salt, p)),
        }
    }

    /// The length of the claims [`write`](Self::write) produces.
    pub(crate) fn encoded_len(&self) -> usize {
        1 + 8
            + 8
            + 1
            + self.method.encoded_len()
            + self.target.encoded_len()
            + 16
            + 32
            + if self.principal.is_some() { 16 } else { 0 }
            + 16
            + 2
    }

    /// Write the claims for a state issued at `issued_at` and good until `expires_at`, for the
    /// leg `flow`; `has_state` says whether the handler's bytes follow.
    pub(crate) fn write(&self, (issued_at, expires_at): (u64, u64), flow: Flow, has_state: bool, out: &mut Vec<u8>) {
        out.push(FORMAT);
        out.extend_from_slice(&issued_at.to_be_bytes());
        out.extend_from_slice(&expires_at.to_be_bytes());
        let principal = if self.principal.is_some() { FLAG_PRINCIPAL } else { 0 };
        out.push(principal | if has_state { 0 } else { FLAG_NO_STATE });
        self.method.write(out);
        self.target.write(out);
        out.extend_from_slice(self.audience);
        out.extend_from_slice(&self.arguments);
        if let Some(p) = &self.principal {
            out.extend_from_slice(p);
        }
        out.extend_from_slice(&flow.id);
        out.extend_from_slice(&flow.round.to_be_bytes());
    }

    /// Check the claims at the start of `plain` against this binding at `now`.
    pub(crate) fn verify(&self, plain: &[u8], now: u64) -> Result<Verified, Reject> {
        let mut r = Reader(plain);
        let format = r.byte()?;
        let known_flags = match format {
            FORMAT => FLAG_PRINCIPAL | FLAG_NO_STATE,
            FORMAT_1 => FLAG_PRINCIPAL,
            _ => return Err(Reject::BadClaims("unknown format")),
        };
        let issued_at = u64::from_be_bytes(r.array()?);
        let expires_at = u64::from_be_bytes(r.array()?);
        let flags = r.byte()?;
        if flags & !known_flags != 0 {
            return Err(Reject::BadClaims("unknown flags"));
        }
        let method = Name::read(&mut r)?;
        let target = Name::read(&mut r)?;
        let audience: Digest16 = r.array()?;
        let arguments: [u8; 32] = r.array()?;
        let principal: Option<Digest16> = if flags & FLAG_PRINCIPAL != 0 { Some(r.array()?) } else { None };
        let flow = match format {
            FORMAT => Some(Flow { id: r.array()?, round: u16::from_be_bytes(r.array()?) }),
            _ => None,
        };
        let has_state = flags & FLAG_NO_STATE == 0;
        if !has_state && !r.0.is_empty() {
            return Err(Reject::BadClaims("bytes after a state-less claim"));
        }

        if audience != *self.audience {
            return Err(Reject::WrongAudience);
        }
        if method != self.method {
            return Err(Reject::WrongMethod);
        }
        if target != self.target {
            return Err(Reject::WrongTarget);
        }
        if arguments != self.arguments {
            return Err(Reject::WrongArguments);
        }
        match (principal, &self.principal) {
            (None, None) => {}
            (Some(_), None) => return Err(Reject::PrincipalMissing),
            (None, Some(_)) => return Err(Reject::PrincipalUnexpected),
            (Some(got), Some(want)) if got != *want => return Err(Reject::WrongPrincipal),
            (Some(_), Some(_)) => {}
        }
        if expires_at < issued_at {
            return Err(Reject::BadClaims("expires before it was issued"));
        }
        if issued_at > now.saturating_add(MAX_SKEW_SECS) {
            return Err(Reject::FromTheFuture { secs_ahead: issued_at - now });
        }
        if now >= expires_at {
            return Err(Reject::Expired { expired_secs_ago: now - expires_at });
        }
        Ok(Verified { len: plain.len() - r.0.len(), has_state, flow })
    }
}

/// A bounds-checked cursor.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Reject> {
        let (head, rest) = self.0.split_at_checked(n).ok_or(Reject::BadClaims("truncated"))?;
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, Reject> {
        Ok(self.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Reject> {
        self.take(N)?.try_into().map_err(|_| Reject::BadClaims("truncated"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::JsonObject;

    fn args(v: serde_json::Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    const SALT: [u8; 32] = [9; 32];

    fn stamp_for<'a>(binding: &Binding<'a>, aud: &'a Digest16) -> Stamp<'a> {
        Stamp::new(binding, aud, &SALT)
    }

    const FLOW: Flow = Flow { id: *b"0123456789abcdef", round: 2 };

    fn minted(stamp: &Stamp<'_>, iat: u64, exp: u64, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        stamp.write((iat, exp), FLOW, true, &mut out);
        assert_eq!(out.len(), stamp.encoded_len());
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn round_trip_and_every_binding() {
        let a = args(json!({"x": 1}));
        let aud = digest16(b"roundtrip/audience\0", b"srv");
        let base = Binding { method: "tools/call", target: "t", arguments: &a, principal: Some("alice") };
        let plain = minted(&stamp_for(&base, &aud), 1000, 1600, b"payload");
        let verified = stamp_for(&base, &aud).verify(&plain, 1000).expect("valid");
        assert_eq!(&plain[verified.len..], b"payload");
        assert_eq!((verified.flow, verified.has_state), (Some(FLOW), true));

        let other_args = args(json!({"x": 2}));
        let other_aud = digest16(b"roundtrip/audience\0", b"other");
        let cases: Vec<(Binding<'_>, &Digest16, Reject)> = vec![
            (Binding { method: "prompts/get", ..base }, &aud, Reject::WrongMethod),
            (Binding { target: "u", ..base }, &aud, Reject::WrongTarget),
            (Binding { arguments: &other_args, ..base }, &aud, Reject::WrongArguments),
            (Binding { principal: Some("bob"), ..base }, &aud, Reject::WrongPrincipal),
            (Binding { principal: None, ..base }, &aud, Reject::PrincipalMissing),
            (base, &other_aud, Reject::WrongAudience),
        ];
        for (binding, audience, want) in cases {
            assert_eq!(stamp_for(&binding, audience).verify(&plain, 1000), Err(want));
        }
        let anonymous = Binding { principal: None, ..base };
        let plain = minted(&stamp_for(&anonymous, &aud), 1000, 1600, b"");
        assert_eq!(stamp_for(&base, &aud).verify(&plain, 1000), Err(Reject::PrincipalUnexpected));
    }

    #[test]
    fn long_names_are_digested() {
        let a = JsonObject::new();
        let aud = [0u8; 16];
        let long = format!("notes://{}", "x".repeat(100));
        let longer = format!("{long}y");
        let b = Binding { method: "resources/read", target: &long, arguments: &a, principal: None };
        let s = stamp_for(&b, &aud);
        let plain = minted(&s, 1000, 1600, b"p");
        assert!(plain.len() < 120, "a long target is stored as a digest");
        assert_eq!(s.verify(&plain, 1000).map(|v| &plain[v.len..]), Ok(&b"p"[..]));
        let other = Binding { target: &longer, ..b };
        assert_eq!(stamp_for(&other, &aud).verify(&plain, 1000), Err(Reject::WrongTarget));
        let exactly_64 = "t".repeat(64);
        let b64 = Binding { target: &exactly_64, ..b };
        let plain = minted(&stamp_for(&b64, &aud), 1000, 1600, b"");
        assert!(stamp_for(&b64, &aud).verify(&plain, 1000).is_ok());
    }

    #[test]
    fn time_window() {
        let a = JsonObject::new();
        let aud = [0u8; 16];
        let b = Binding { method: "tools/call", target: "t", arguments: &a, principal: None };
        let s = stamp_for(&b, &aud);
        let plain = minted(&s, 1000, 1600, b"");
        assert!(s.verify(&plain, 1599).is_ok());
        assert_eq!(s.verify(&plain, 1600), Err(Reject::Expired { expired_secs_ago: 0 }));
        // Issued in the future: 60 s of skew tolerated, 61 s not.
        assert!(s.verify(&plain, 940).is_ok());
        assert!(s.verify(&plain, 941).is_ok());
        assert_eq!(s.verify(&plain, 939), Err(Reject::FromTheFuture { secs_ahead: 61 }));
        let inverted = minted(&s, 1600, 1000, b"");
        assert!(matches!(s.verify(&inverted, 1000), Err(Reject::BadClaims(_))));
    }

    #[test]
    fn truncated_and_malformed_claims() {
        let a = JsonObject::new();
        let aud = [0u8; 16];
        let b = Binding { method: "tools/call", target: "t", arguments: &a, principal: Some("p") };
        let s = stamp_for(&b, &aud);
        let plain = minted(&s, 1000, 1600, b"");
        for cut in 0..plain.len() {
            assert!(matches!(s.verify(&plain[..cut], 1000), Err(Reject::BadClaims(_))), "cut at {cut}");
        }
        let mut bad_format = plain.clone();
        bad_format[0] = 3;
        assert!(matches!(s.verify(&bad_format, 1000), Err(Reject::BadClaims(_))));
        let mut bad_flags = plain;
        bad_flags[17] |= 0x80;
        assert!(matches!(s.verify(&bad_flags, 1000), Err(Reject::BadClaims(_))));
    }

    #[test]
    fn a_state_without_handler_bytes_carries_its_flow_alone() {
        let a = JsonObject::new();
        let aud = [0u8; 16];
        let b = Binding { method: "tools/call", target: "t", arguments: &a, principal: None };
        let s = stamp_for(&b, &aud);
        let mut plain = Vec::new();
        s.write((1000, 1600), FLOW, false, &mut plain);
        let verified = s.verify(&plain, 1000).expect("valid");
        assert_eq!((verified.len, verified.has_state, verified.flow), (plain.len(), false, Some(FLOW)));
        plain.push(0);
        assert!(matches!(s.verify(&plain, 1000), Err(Reject::BadClaims(_))), "no bytes may follow");
    }

    #[test]
    fn format_1_is_still_read() {
        let a = JsonObject::new();
        let aud = [0u8; 16];
        let b = Binding { method: "tools/call", target: "t", arguments: &a, principal: Some("p") };
        let s = stamp_for(&b, &aud);
        let mut plain = minted(&s, 1000, 1600, b"");
        // Format 1: no flow, and no flag bit 1.
        plain.truncate(plain.len() - 18);
        plain[0] = FORMAT_1;
        plain.extend_from_slice(b"old");
        let verified = s.verify(&plain, 1000).expect("a format 1 state");
        assert_eq!((&plain[verified.len..], verified.flow, verified.has_state), (&b"old"[..], None, true));
        plain[17] |= FLAG_NO_STATE;
        assert!(matches!(s.verify(&plain, 1000), Err(Reject::BadClaims(_))), "format 1 knows no such flag");
    }
}
