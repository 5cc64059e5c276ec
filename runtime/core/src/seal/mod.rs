//! Sealed `requestState`: the boundary that encrypts and authenticates every outgoing state and
//! verifies every incoming one.
//!
//! A 2026-07-28 server keeps nothing between the legs of a multi-round-trip request: the state
//! a handler carries to the next leg travels through the client and comes back as attacker
//! input. Handlers write and read plaintext bytes
//! ([`InputRequired::state`](crate::server::InputRequired::state),
//! [`RequestContext::state`](crate::server::RequestContext::state)); only the server's boundary seals
//! and unseals, under a [`RequestStateSecurity`] policy.
//!
//! # The token
//!
//! `rt1.` followed by unpadded base64url of `key id (4 bytes) ‖ nonce (12, random) ‖
//! ciphertext ‖ tag (16)`: AES-256-GCM under a key derived by HKDF-SHA256 from a configured
//! secret (once, at construction), with the version and key id as associated data. The
//! plaintext is a compact binary claims header (issued-at, expiry, method, target, digests of
//! the canonical arguments and the audience, a salted digest of the principal when there is
//! one, the flow's identity and round) followed by the handler's bytes. A custom [`Codec`] replaces the AES-256-GCM layer;
//! the claims stay.
//!
//! Any failure to unseal — not a string, longer than 64 KiB, tampered, truncated, unknown key,
//! expired, issued more than 60 s in the future, minted for another method, target,
//! arguments, principal or audience — answers the request with the same error,
//! [`ErrorObject::invalid_request_state`]; the cause is logged (target `roundtrip::seal`) at
//! debug level, or warn when it points at a configuration problem.
//!
//! # Fuzzing
//!
//! `fuzz/` holds a cargo-fuzz target that feeds arbitrary bytes to the unseal path (as a
//! token string, as a JSON value, and as a mutation of a real token). On stable Rust:
//!
//! ```text
//! cargo install cargo-fuzz
//! cd fuzz && cargo fuzz run -s none unseal -- -max_total_time=60
//! ```

mod canonical;
mod claims;
mod codec;
mod keys;
mod policy;
mod reject;
mod replay;
mod token;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::RngCore;
use serde_json::Value;

pub use codec::Codec;
use policy::DEFAULT_TTL;
pub use policy::{RequestStateSecurity, SealConfigError};
pub(crate) use replay::token_digest;
pub use replay::{MemoryReplayCache, ReplayCache};

pub(crate) use claims::Flow;
use claims::{Digest16, Stamp, digest16};
use keys::DerivedKey;
use reject::Reject;
use token::MAX_TOKEN_LEN;

use crate::clock::Clock;
use crate::protocol::{ErrorObject, JsonObject};

/// About how many bytes of answers and state a sealed `requestState` carries: a token of
/// [`MAX_TOKEN_LEN`] characters is base64 of 3/4 as many bytes, less the key id, nonce, tag
/// and claims.
const MAX_PLAINTEXT: usize = (MAX_TOKEN_LEN - 4) / 4 * 3 - 4 - 12 - 16 - 180;

/// What a state is bound to.
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Binding<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub arguments: &'a JsonObject,
    pub principal: Option<&'a str>,
}

/// A state verified and opened.
#[derive(Debug)]
pub(crate) struct Opened {
    /// The handler's bytes; `None` when the state carried the flow alone.
    pub state: Option<Vec<u8>>,
    /// The leg the state was sealed for; `None` for a state of claims format 1.
    pub flow: Option<Flow>,
}

impl Opened {
    fn new(bytes: Vec<u8>, verified: claims::Verified) -> Self {
        Self { state: verified.has_state.then_some(bytes), flow: verified.flow }
    }
}

/// How the bytes are sealed.
enum Engine {
    /// The built-in format; `keys[0]` seals.
    Keys { keys: Vec<DerivedKey>, process_local: bool },
    /// A custom codec; principal digests are salted from the audience.
    Custom { codec: Arc<dyn Codec>, principal_salt: [u8; 32] },
}

/// The configured sealer of one server.
#[doc(hidden)]
pub struct Sealer {
    engine: Engine,
    ttl_secs: u64,
    audience: String,
    audience_digest: Digest16,
    clock: Clock,
    /// When the last warn-level refusal was logged (Unix seconds), to keep warnings rare.
    last_warning: AtomicU64,
}

impl fmt::Debug for Sealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let engine = match &self.engine {
            Engine::Keys { keys, process_local: true } => format!("process-local key {keys:?}"),
            Engine::Keys { keys, process_local: false } => format!("keys {keys:?}"),
            Engine::Custom { .. } => "custom codec".to_owned(),
        };
        f.debug_struct("Sealer")
            .field("engine", &engine)
            .field("ttl_secs", &self.ttl_secs)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

impl Sealer {
    /// A sealer for `policy` (`None`: the default policy) on the server named `server_name`.
    pub fn new(policy: Option<RequestStateSecurity>, server_name: &str) -> Result<Self, SealConfigError> {
        let explicit = policy.is_some();
        let policy = policy.unwrap_or_default();
        policy.check()?;
        let audience = match &policy.audience {
            Some(audience) => audience.clone(),
            None if explicit && server_name.trim().is_empty() => {
                return Err(SealConfigError::new(
                    "the server has no name, so requestState would not be bound to it: give it a name or set \
                     RequestStateSecurity::audience",
                ));
            }
            None => server_name.to_owned(),
        };
        let engine = if let Some(codec) = policy.codec {
            Engine::Custom { codec, principal_salt: keys::codec_principal_salt(&audience)? }
        } else if policy.keys.is_empty() {
            let mut secret = zeroize::Zeroizing::new([0u8; 32]);
            rand::rngs::OsRng
                .try_fill_bytes(&mut secret[..])
                .map_err(|e| SealConfigError(format!("the OS random number generator failed: {e}")))?;
            tracing::debug!(
                target: "roundtrip::seal",
                server = server_name,
                "requestState is sealed with a random key of this process: a retry that reaches another instance \
                 or a restarted server will be refused; configure shared keys with RequestStateSecurity::keys \
                 (or keys_from_env / keys_from_file)"
            );
            Engine::Keys { keys: vec![DerivedKey::derive(&secret[..])?], process_local: true }
        } else {
            let keys = policy.keys.iter().map(|k| DerivedKey::derive(k)).collect::<Result<Vec<_>, _>>()?;
            for (i, key) in keys.iter().enumerate() {
                if let Some(j) = keys[..i].iter().position(|k| k.id == key.id) {
                    return Err(SealConfigError(format!(
                        "requestState keys #{} and #{} derive the same key id; replace one of them",
                        j + 1,
                        i + 1
                    )));
                }
            }
            Engine::Keys { keys, process_local: false }
        };
        Ok(Self {
            engine,
            ttl_secs: policy.ttl.unwrap_or(DEFAULT_TTL).as_secs(),
            audience_digest: digest16(b"roundtrip/audience\0", audience.as_bytes()),
            audience,
            clock: policy.clock.unwrap_or_else(|| Arc::new(crate::clock::now_secs)),
            last_warning: AtomicU64::new(0),
        })
    }

    /// Seal `plaintext` bound to `binding`; an internal error when it cannot be sealed, and
    /// `-32602` saying so when it is too large to carry (the answers of the rounds so far
    /// travel in it: a sealed state is at most 64 KiB, about 47 KiB of answers and state).
    pub fn seal(&self, binding: &Binding<'_>, plaintext: &[u8]) -> Result<String, ErrorObject> {
        self.seal_leg(binding, Flow::start().next(), Some(plaintext))
    }

    /// [`seal`](Self::seal) the state of leg `flow` (the handler's bytes, or none: a state
    /// that carries the flow alone).
    pub(crate) fn seal_leg(
        &self,
        binding: &Binding<'_>,
        flow: Flow,
        state: Option<&[u8]>,
    ) -> Result<String, ErrorObject> {
        let plaintext = state.unwrap_or_default();
        self.try_seal(binding, flow, state).map_err(|reason| {
            if reason == token::TOO_LARGE {
                tracing::info!(
                    target: "roundtrip::seal",
                    method = binding.method,
                    target_name = binding.target,
                    bytes = plaintext.len(),
                    "requestState too large to seal"
                );
                return ErrorObject::invalid_params(format!(
                    "The answers given so far are too large to carry to the next round: they and the state \
                     take {} bytes, and a sealed requestState holds at most {} (64 KiB sealed). Answer with less.",
                    plaintext.len(),
                    MAX_PLAINTEXT
                ))
                .with_data(serde_json::json!({ "limit": "requestState", "max": MAX_TOKEN_LEN }));
            }
            tracing::warn!(
                target: "roundtrip::seal",
                method = binding.method,
                target_name = binding.target,
                %reason,
                "could not seal requestState"
            );
            ErrorObject::internal("could not seal requestState")
        })
    }

    fn try_seal(&self, binding: &Binding<'_>, flow: Flow, state: Option<&[u8]>) -> Result<String, String> {
        let now = (self.clock)();
        let window = (now, now.saturating_add(self.ttl_secs));
        let plaintext = state.unwrap_or_default();
        match &self.engine {
            Engine::Keys { keys, .. } => {
                let key = keys.first().ok_or("no key")?;
                let stamp = Stamp::new(binding, &self.audience_digest, &key.principal_salt);
                token::seal(key, stamp.encoded_len() + plaintext.len(), |buf| {
                    stamp.write(window, flow, state.is_some(), buf);
                    buf.extend_from_slice(plaintext);
                })
                .map_err(str::to_owned)
            }
            Engine::Custom { codec, principal_salt } => {
                let stamp = Stamp::new(binding, &self.audience_digest, principal_salt);
                let mut buf = Vec::with_capacity(stamp.encoded_len() + plaintext.len());
                stamp.write(window, flow, state.is_some(), &mut buf);
                buf.extend_from_slice(plaintext);
                let token = codec.seal(&buf).map_err(|e| crate::protocol::error_chain(&*e))?;
                if token.len() > MAX_TOKEN_LEN {
                    tracing::debug!(target: "roundtrip::seal", "the codec produced a {} byte token", token.len());
                    return Err(token::TOO_LARGE.to_owned());
                }
                Ok(token)
            }
        }
    }

    /// How long a state sealed now stays acceptable, in milliseconds (its TTL and the clock
    /// skew allowed): how long a replay cache must remember it.
    pub fn acceptable_for_ms(&self) -> u64 {
        (self.ttl_secs + 60) * 1000
    }

    /// Verify and open `token` for `binding`: the handler's bytes (none for a state that
    /// carries the flow alone); on any failure, the one frozen error.
    pub fn unseal(&self, binding: &Binding<'_>, token: &Value) -> Result<Vec<u8>, ErrorObject> {
        self.open(binding, token).map(|opened| opened.state.unwrap_or_default())
    }

    /// [`unseal`](Self::unseal), with the flow the state carries.
    pub(crate) fn open(&self, binding: &Binding<'_>, token: &Value) -> Result<Opened, ErrorObject> {
        self.try_unseal(binding, token).map_err(|reject| {
            self.log(binding, &reject);
            crate::observe::state_refused(reject.kind());
            ErrorObject::invalid_request_state()
        })
    }

    fn try_unseal(&self, binding: &Binding<'_>, token: &Value) -> Result<Opened, Reject> {
        let Value::String(token) = token else {
            return Err(Reject::NotAString);
        };
        if token.len() > MAX_TOKEN_LEN {
            return Err(Reject::TooLong(token.len()));
        }
        let now = (self.clock)();
        match &self.engine {
            Engine::Keys { keys, process_local } => {
                let token::Opened { mut buf, start, key } = token::open(keys, token, *process_local)?;
                let stamp = Stamp::new(binding, &self.audience_digest, &key.principal_salt);
                let verified = stamp.verify(&buf[start..], now)?;
                buf.drain(..start + verified.len);
                Ok(Opened::new(buf, verified))
            }
            Engine::Custom { codec, principal_salt } => {
                let mut buf = codec.unseal(token).map_err(|e| Reject::Codec(crate::protocol::error_chain(&*e)))?;
                let stamp = Stamp::new(binding, &self.audience_digest, principal_salt);
                let verified = stamp.verify(&buf, now)?;
                buf.drain(..verified.len);
                Ok(Opened::new(buf, verified))
            }
        }
    }

    fn log(&self, binding: &Binding<'_>, reject: &Reject) {
        // A process-local key that meets a foreign token is most likely a deployment without
        // shared keys: say so at warn, at most once a minute (the caller controls the input).
        let now = crate::clock::now_secs();
        let warn = matches!(reject, Reject::UnknownKey { process_local: true })
            && self
                .last_warning
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| (now >= last + 60).then_some(now))
                .is_ok();
        if warn {
            tracing::warn!(
                target: "roundtrip::seal",
                method = binding.method,
                target_name = binding.target,
                "requestState refused: {reject}"
            );
        } else {
            tracing::debug!(
                target: "roundtrip::seal",
                method = binding.method,
                target_name = binding.target,
                "requestState refused: {reject}"
            );
        }
    }
}

/// Fuzzing entry point (see the module docs): feeds `data` to the unseal path as a token
/// string, as a JSON value, and as a mutation of a real token; panics if any answer other than
/// the frozen error comes back for anything but the real token.
#[doc(hidden)]
pub fn __fuzz_unseal(data: &[u8]) {
    use std::sync::OnceLock;
    static FIXTURE: OnceLock<(Sealer, JsonObject, String)> = OnceLock::new();
    // A fixture that cannot be made is a broken target, not an input to skip: it panics, so the
    // fuzzer reports it at once instead of running without testing anything.
    let (sealer, arguments, real) = FIXTURE.get_or_init(|| {
        let policy = RequestStateSecurity::new().keys([*b"roundtrip test key 7: not secret"]);
        let sealer = Sealer::new(Some(policy), "fuzz").expect("the fuzz target's sealer");
        let mut arguments = JsonObject::new();
        arguments.insert("q".into(), Value::from(1));
        let binding = Binding { method: "tools/call", target: "t", arguments: &arguments, principal: Some("p") };
        let real = sealer.seal(&binding, b"{\"step\":1}").expect("the fuzz target's real token");
        (sealer, arguments, real)
    });
    let binding = Binding { method: "tools/call", target: "t", arguments, principal: Some("p") };
    let frozen = ErrorObject::invalid_request_state();
    let refused = |token: &Value| match sealer.unseal(&binding, token) {
        Err(e) => assert_eq!(e, frozen, "every refusal is the frozen error"),
        Ok(_) => assert_eq!(token.as_str(), Some(real.as_str()), "only the real token opens"),
    };
    refused(&Value::String(String::from_utf8_lossy(data).into_owned()));
    if let Ok(value) = serde_json::from_slice::<Value>(data) {
        refused(&value);
    }
    let mut mutated = real.clone().into_bytes();
    for (i, b) in data.iter().enumerate() {
        let len = mutated.len();
        match b % 4 {
            0 => mutated[i % len] ^= b >> 2,
            1 => mutated.truncate(len.saturating_sub(usize::from(b >> 2)).max(1)),
            2 => mutated.insert(i % len, (b >> 2) | 0x40),
            _ => {
                mutated.remove(i % len);
                if mutated.is_empty() {
                    mutated.push(b'r');
                }
            }
        }
    }
    refused(&Value::String(String::from_utf8_lossy(&mutated).into_owned()));
}

/// Benchmark entry point: the real [`Sealer`] with a fixed binding.
#[doc(hidden)]
#[derive(Debug)]
pub struct SealBench {
    sealer: Sealer,
    arguments: JsonObject,
}

impl SealBench {
    #[doc(hidden)]
    pub fn new(policy: Option<RequestStateSecurity>, arguments: JsonObject) -> Result<Self, SealConfigError> {
        Ok(Self { sealer: Sealer::new(policy, "bench")?, arguments })
    }

    fn binding(&self) -> Binding<'_> {
        Binding { method: "tools/call", target: "book_flight", arguments: &self.arguments, principal: Some("alice") }
    }

    #[doc(hidden)]
    pub fn seal(&self, plaintext: &[u8]) -> Result<String, ErrorObject> {
        self.sealer.seal(&self.binding(), plaintext)
    }

    #[doc(hidden)]
    pub fn unseal(&self, token: &Value) -> Result<Vec<u8>, ErrorObject> {
        self.sealer.unseal(&self.binding(), token)
    }
}

#[cfg(test)]
mod tests;
