//! The public policy: [`RequestStateSecurity`], and what can be wrong with it.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::codec::Codec;
use super::keys::{MIN_KEY_LEN, parse_secrets};
use crate::clock::Clock;

/// A policy that cannot be used. Reported by [`Server::security`](crate::server::Server::security) (or
/// [`RequestStateSecurity::check`]), or by the key loaders when a key source cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SealConfigError(pub String);

impl SealConfigError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// The default time-to-live of a sealed state.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(600);

/// How `requestState` is sealed: keys, lifetime, audience, principal binding, or a custom codec.
///
/// Every `requestState` a handler returns is sealed with AES-256-GCM under a key derived
/// (HKDF-SHA256) from `keys[0]`, and stamped with claims the server checks when the client
/// echoes it: issued-at and expiry ([`ttl`](Self::ttl)), the method, the target (tool or prompt
/// name, resource URI), a digest of the canonical arguments, the [`audience`](Self::audience)
/// and a salted digest of the caller's identity, when the request has one (an
/// [`AuthPrincipal`](crate::request::AuthPrincipal): see the guide's chapter on who is calling).
///
/// # Keys
///
/// Each key is at least 32 random bytes. Generate one with `openssl rand -hex 32` (or
/// `head -c32 /dev/urandom | base64`) and give every instance of the server the same list,
/// e.g. through [`keys_from_env`](Self::keys_from_env). The first key seals; every key
/// verifies. To rotate without breaking flows in flight, deploy in three phases, letting each
/// reach every instance before the next: `[old]` → `[old, new]` (everyone verifies `new`) →
/// `[new, old]` (seal with `new`) → after the TTL, `[new]`. Random 96-bit nonces bound the
/// safe use of one key to about 2^32 seals: rotate well before that.
///
/// Without keys (the default, or a policy that sets none), the server uses a random key of its
/// process: a retry that reaches another instance or a restarted server is then refused (and
/// the log says so).
///
/// # Where errors surface
///
/// The builder methods never fail; the policy is validated as a whole when it is applied by
/// [`Server::security`](crate::server::Server::security) (or earlier, by [`check`](Self::check)).
/// Refused: a key shorter than 32 bytes, two equal keys, both keys and a codec, a TTL under one
/// second, an empty audience, and (at `Server::security`) no audience on a server with an
/// empty name. The loaders ([`keys_from_env`](Self::keys_from_env),
/// [`keys_from_file`](Self::keys_from_file)) fail at once when the source cannot be read or
/// parsed.
///
/// ```
/// use std::time::Duration;
/// use roundtrip::{RequestStateSecurity, Server};
///
/// let policy = RequestStateSecurity::new()
///     .keys([*b"roundtrip test key 7: not secret"])
///     .ttl(Duration::from_secs(300))
///     .audience("weather.example");
/// let server = Server::new("weather", "1.0.0").security(policy)?;
/// # let _ = server;
/// # Ok::<(), roundtrip::seal::SealConfigError>(())
/// ```
#[derive(Clone, Default)]
pub struct RequestStateSecurity {
    /// The secrets, wiped from memory when the policy is dropped.
    pub(crate) keys: Vec<zeroize::Zeroizing<Vec<u8>>>,
    pub(crate) ttl: Option<Duration>,
    pub(crate) audience: Option<String>,
    pub(crate) codec: Option<Arc<dyn Codec>>,
    pub(crate) clock: Option<Clock>,
}

impl fmt::Debug for RequestStateSecurity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateSecurity")
            .field("keys", &format_args!("[{} redacted]", self.keys.len()))
            .field("ttl", &self.ttl)
            .field("audience", &self.audience)
            .field("codec", &self.codec.as_ref().map(|_| "custom"))
            .finish_non_exhaustive()
    }
}

impl RequestStateSecurity {
    /// The default policy: a process-local random key, a TTL of 600 s, the server name as
    /// audience, and the caller's identity bound when it has one.
    pub fn new() -> Self {
        Self::default()
    }

    /// Seal with `keys[0]`, verify with every key. Each key must be at least 32 bytes, and no
    /// two alike. Replaces any keys set before.
    pub fn keys<I, K>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        self.keys = keys.into_iter().map(|k| zeroize::Zeroizing::new(k.as_ref().to_vec())).collect();
        self
    }

    /// A policy with the keys in environment variable `var`: comma-separated (the first seals),
    /// each hex (`openssl rand -hex 32`) or base64 (`head -c32 /dev/urandom | base64`), optionally
    /// prefixed `hex:` or `base64:`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // ROUNDTRIP_STATE_KEYS=<new hex key>,<old hex key>
    /// let policy = roundtrip::RequestStateSecurity::keys_from_env("ROUNDTRIP_STATE_KEYS")?;
    /// let server = roundtrip::Server::new("weather", "1.0.0").security(policy)?;
    /// # let _ = server; Ok(()) }
    /// ```
    pub fn keys_from_env(var: &str) -> Result<Self, SealConfigError> {
        let text = std::env::var(var)
            .map_err(|e| SealConfigError(format!("cannot read requestState keys from ${var}: {e}")))?;
        Self::parse_keys(&text, &format!("${var}"))
    }

    /// A policy with the keys in `text`, written as for [`keys_from_env`](Self::keys_from_env):
    /// for a secret a platform hands over as a string (a Cloudflare Worker's, a secrets
    /// manager's).
    pub fn keys_from_text(text: &str) -> Result<Self, SealConfigError> {
        Self::parse_keys(text, "the text given")
    }

    /// A policy with the keys in the file at `path`: one per line (the first seals), hex or
    /// base64 as for [`keys_from_env`](Self::keys_from_env); blank lines and lines starting with
    /// `#` are skipped.
    pub fn keys_from_file(path: impl AsRef<Path>) -> Result<Self, SealConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| SealConfigError(format!("cannot read requestState keys from {}: {e}", path.display())))?;
        Self::parse_keys(&text, &path.display().to_string())
    }

    fn parse_keys(text: &str, source: &str) -> Result<Self, SealConfigError> {
        let keys = parse_secrets(text).map_err(|e| SealConfigError(format!("requestState keys in {source}: {e}")))?;
        if keys.is_empty() {
            return Err(SealConfigError(format!("requestState keys in {source}: there are none")));
        }
        Ok(Self::new().keys(keys))
    }

    /// How long a sealed state stays valid (default 600 s, at least 1 s, whole seconds). Every
    /// round is sealed afresh, so the clock restarts at each round.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The audience stamped into every state (default: the server name). Servers that share
    /// keys but must not accept each other's states need different audiences.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Seal with `codec` instead of the built-in AES-256-GCM (then set no keys). The claims are
    /// still stamped and checked by the framework.
    pub fn codec(mut self, codec: impl Codec + 'static) -> Self {
        self.codec = Some(Arc::new(codec));
        self
    }

    /// The clock, in Unix seconds (tests only).
    #[doc(hidden)]
    pub fn clock(mut self, now: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(now));
        self
    }

    /// Check what can be checked without the server: key lengths, duplicates, keys vs codec,
    /// TTL and audience.
    pub fn check(&self) -> Result<(), SealConfigError> {
        for (i, key) in self.keys.iter().enumerate() {
            if key.len() < MIN_KEY_LEN {
                return Err(SealConfigError(format!(
                    "requestState key #{} is {} bytes long; keys must be at least {MIN_KEY_LEN} random bytes \
                     (generate one with `openssl rand -hex 32`)",
                    i + 1,
                    key.len()
                )));
            }
            if weak(key) {
                return Err(SealConfigError(format!(
                    "requestState key #{} repeats a few byte values (all zero, or a pattern): it is no secret; \
                     use random bytes (generate one with `openssl rand -hex 32`)",
                    i + 1
                )));
            }
            if let Some(j) = self.keys[..i].iter().position(|earlier| earlier == key) {
                return Err(SealConfigError(format!(
                    "requestState keys #{} and #{} are the same key; each key may be listed once",
                    j + 1,
                    i + 1
                )));
            }
        }
        if self.codec.is_some() && !self.keys.is_empty() {
            return Err(SealConfigError::new(
                "a requestState policy has both keys and a custom codec; the codec replaces the keys, set one or the other",
            ));
        }
        if let Some(ttl) = self.ttl
            && ttl < Duration::from_secs(1)
        {
            return Err(SealConfigError(format!("the requestState TTL must be at least one second, not {ttl:?}")));
        }
        if let Some(audience) = &self.audience
            && audience.trim().is_empty()
        {
            return Err(SealConfigError::new("the requestState audience must not be empty"));
        }
        Ok(())
    }
}

/// A key with fewer than 8 distinct byte values (all zero, one byte repeated, a short pattern)
/// is refused: 32 random bytes have about 30, and a hex or base64 string taken as bytes 16 or
/// more; such a key was typed or left as a placeholder.
fn weak(key: &[u8]) -> bool {
    let mut seen = [false; 256];
    let mut distinct = 0;
    for &b in key {
        if !std::mem::replace(&mut seen[usize::from(b)], true) {
            distinct += 1;
        }
    }
    distinct < 8
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: [u8; 32] = *b"roundtrip test key 1: not secret";
    const K2: [u8; 32] = *b"roundtrip test key 2: not secret";

    #[test]
    fn checks() {
        assert!(RequestStateSecurity::new().check().is_ok());
        assert!(RequestStateSecurity::new().keys([K1, K2]).check().is_ok());
        let weak = RequestStateSecurity::new().keys([K1, [0u8; 32]]).check();
        assert!(weak.is_err_and(|e| e.0.contains("#2 repeats")));
        assert!(RequestStateSecurity::new().keys([*b"abababababababababababababababab"]).check().is_err());
        let short = RequestStateSecurity::new().keys([vec![1u8; 31]]).check();
        assert!(short.is_err_and(|e| e.0.contains("#1 is 31 bytes")));
        let dup = RequestStateSecurity::new().keys([K1, K2, K1]).check();
        assert!(dup.is_err_and(|e| e.0.contains("#1 and #3")));
        assert!(RequestStateSecurity::new().ttl(Duration::from_millis(999)).check().is_err());
        assert!(RequestStateSecurity::new().audience(" ").check().is_err());
    }

    #[test]
    fn debug_redacts_keys() {
        let policy = RequestStateSecurity::new().keys([[0xab_u8; 32]]);
        let shown = format!("{policy:?}");
        assert!(shown.contains("1 redacted"));
        assert!(!shown.contains("171"));
    }

    #[test]
    fn loaders() {
        let dir = std::env::temp_dir().join(format!("roundtrip-seal-keys-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join("keys");
        let a = "aa".repeat(32);
        let b = "bb".repeat(32);
        std::fs::write(&file, format!("# current first\n{a}\n{b}\n")).expect("writes");
        let policy = RequestStateSecurity::keys_from_file(&file).expect("loads");
        let keys: Vec<Vec<u8>> = policy.keys.iter().map(|k| k.to_vec()).collect();
        assert_eq!(keys, vec![vec![0xaa_u8; 32], vec![0xbb_u8; 32]]);
        std::fs::write(&file, "\n# nothing\n").expect("writes");
        assert!(RequestStateSecurity::keys_from_file(&file).is_err_and(|e| e.0.contains("none")));
        assert!(RequestStateSecurity::keys_from_file(dir.join("missing")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
        assert!(RequestStateSecurity::keys_from_env("ROUNDTRIP_TEST_SURELY_UNSET_VARIABLE").is_err());
    }
}
