//! Why a requestState was refused. Only ever logged: the client always sees the same error.

use std::fmt;

/// The cause of a refused requestState (for the log, never for the wire).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reject {
    NotAString,
    TooLong(usize),
    BadPrefix,
    BadEncoding,
    TooShort,
    UnknownKey { process_local: bool },
    Forged,
    Codec(String),
    BadClaims(&'static str),
    WrongAudience,
    WrongMethod,
    WrongTarget,
    WrongArguments,
    WrongPrincipal,
    PrincipalMissing,
    PrincipalUnexpected,
    Expired { expired_secs_ago: u64 },
    FromTheFuture { secs_ahead: u64 },
}

impl Reject {
    /// The reason in a word, for telemetry (`roundtrip.state.rejected`): `malformed`,
    /// `unknown_key`, `tampered`, `wrong_binding`, `expired`, `from_the_future`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Self::NotAString | Self::TooLong(_) | Self::BadPrefix | Self::BadEncoding | Self::TooShort => "malformed",
            Self::UnknownKey { .. } => "unknown_key",
            Self::Forged | Self::Codec(_) | Self::BadClaims(_) => "tampered",
            Self::WrongAudience
            | Self::WrongMethod
            | Self::WrongTarget
            | Self::WrongArguments
            | Self::WrongPrincipal
            | Self::PrincipalMissing
            | Self::PrincipalUnexpected => "wrong_binding",
            Self::Expired { .. } => "expired",
            Self::FromTheFuture { .. } => "from_the_future",
        }
    }
}

impl fmt::Display for Reject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAString => f.write_str("it is not a string"),
            Self::TooLong(len) => write!(f, "it is {len} bytes long, over the limit"),
            Self::BadPrefix => f.write_str("it does not start with a known version prefix"),
            Self::BadEncoding => f.write_str("it is not canonical unpadded base64url"),
            Self::TooShort => f.write_str("it is too short to be a sealed state"),
            Self::UnknownKey { process_local: true } => f.write_str(
                "it was sealed with a key this server does not have; this server seals with a random key of its \
                 own process, so a retry that reaches another instance or a restarted server is refused: configure \
                 shared keys with RequestStateSecurity::keys (or keys_from_env / keys_from_file)",
            ),
            Self::UnknownKey { process_local: false } => f.write_str(
                "it was sealed with a key this server does not have (retired by rotation, or another deployment's)",
            ),
            Self::Forged => f.write_str("authentication failed (tampered, truncated or forged)"),
            Self::Codec(reason) => write!(f, "the custom codec refused it: {reason}"),
            Self::BadClaims(what) => write!(f, "its claims are malformed ({what})"),
            Self::WrongAudience => f.write_str("it was minted for another audience (server)"),
            Self::WrongMethod => f.write_str("it was minted for another method"),
            Self::WrongTarget => f.write_str("it was minted for another tool, prompt or resource"),
            Self::WrongArguments => f.write_str("it was minted for other arguments"),
            Self::WrongPrincipal => f.write_str("it was minted for another principal"),
            Self::PrincipalMissing => {
                f.write_str("it was minted for an authenticated principal, and this request has none")
            }
            Self::PrincipalUnexpected => f.write_str("it was minted without a principal, and this request carries one"),
            Self::Expired { expired_secs_ago } => write!(f, "it expired {expired_secs_ago} s ago"),
            Self::FromTheFuture { secs_ahead } => {
                write!(f, "it was issued {secs_ahead} s in the future (beyond the allowed clock skew)")
            }
        }
    }
}
