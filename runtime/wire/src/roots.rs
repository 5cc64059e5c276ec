//! `roots/list`.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// A root the client exposes (a `file://` URI).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The URI.
    pub uri: String,
    /// A name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Root {
    /// Whether the URI is a `file://` URI: the only kind of root the specification allows
    /// (2025-11-25 and 2026-07-28: "This *must* start with `file://` for now"). The scheme is
    /// compared without regard to case, as URI schemes are.
    ///
    /// ```
    /// use roundtrip_wire::Root;
    /// assert!(Root::new("file:///home/user/project").is_file_uri());
    /// assert!(!Root::new("javascript:alert(1)").is_file_uri());
    /// assert!(!Root::new("https://example.com/repo").is_file_uri());
    /// ```
    pub fn is_file_uri(&self) -> bool {
        self.uri.get(..7).is_some_and(|scheme| scheme.eq_ignore_ascii_case("file://"))
    }
}

/// The answer to `roots/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

impl ListRootsResult {
    /// Whether every root is a `file://` URI ([`Root::is_file_uri`]); `Err` says, in plain
    /// words for the client, which one is not. The server refuses other answers: a resolver
    /// asks again, and `RequestContext::roots_result` reads none.
    pub fn check(&self) -> Result<(), String> {
        match self.roots.iter().find(|root| !root.is_file_uri()) {
            None => Ok(()),
            Some(root) => {
                let shown: String = root.uri.chars().take(100).collect();
                Err(format!("the root {shown:?} is not a file:// URI, the only kind of root allowed"))
            }
        }
    }
}

impl Root {
    /// A root at `uri` (a `file://` URI).
    pub fn new(uri: impl Into<String>) -> Self {
        Self { uri: uri.into(), name: None, meta: None }
    }
}

setters!(Root { with_name => name: String, with_meta => meta: JsonObject });

impl ListRootsResult {
    /// The client's roots.
    pub fn new(roots: Vec<Root>) -> Self {
        Self { roots }
    }
}
