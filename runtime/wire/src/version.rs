use std::fmt;

use serde::{Deserialize, Serialize};

/// A protocol revision this crate speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2025-03-26: the first streamable HTTP revision (batches, no elicitation).
    #[serde(rename = "2025-03-26")]
    V2025_03_26,
    /// 2025-06-18: elicitation (form), structured content, titles.
    #[serde(rename = "2025-06-18")]
    V2025_06_18,
    /// 2025-11-25: URL elicitation, icons, enum schemas, experimental tasks.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// 2026-07-28: stateless core, per-request `_meta`, multi-round-trip requests.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl ProtocolVersion {
    /// The newest revision.
    pub const LATEST: Self = Self::V2026_07_28;
    /// The newest revision negotiated with the `initialize` handshake.
    pub const LATEST_LEGACY: Self = Self::V2025_11_25;
    /// Revisions a client may name in the per-request `_meta` (no handshake).
    pub const MODERN: &'static [Self] = &[Self::V2026_07_28];
    /// Revisions negotiated with `initialize`, newest first.
    pub const LEGACY: &'static [Self] = &[Self::V2025_11_25, Self::V2025_06_18, Self::V2025_03_26];

    /// Parse a revision string; `None` for one this crate does not speak.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "2025-03-26" => Self::V2025_03_26,
            "2025-06-18" => Self::V2025_06_18,
            "2025-11-25" => Self::V2025_11_25,
            "2026-07-28" => Self::V2026_07_28,
            _ => return None,
        })
    }

    /// The revision's date string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Modern revisions carry version and capabilities on every request and never use
    /// server-to-client requests.
    pub fn is_modern(self) -> bool {
        self >= Self::V2026_07_28
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
