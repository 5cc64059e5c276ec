//! `server/discover` (2026) and the legacy `initialize` handshake.

use serde::{Deserialize, Serialize};

use super::{CacheScope, ClientCapabilities, JsonObject, ResultType, ServerCapabilities};

/// A client or server self-description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// An icon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// The image URI.
    pub src: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `48x48`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
}

/// `server/discover` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Always `complete`.
    pub result_type: ResultType,
    /// Versions a client may name per request.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// How to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Cache lifetime.
    pub ttl_ms: u64,
    /// Cache scope.
    pub cache_scope: CacheScope,
    /// Carries the server info (read as empty when a server leaves it out).
    #[serde(rename = "_meta", default)]
    pub meta: JsonObject,
}

/// Legacy `initialize` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The revision the client asks for.
    pub protocol_version: String,
    /// What the client can do (fixed for the session).
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
}

/// Legacy `initialize` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The negotiated revision.
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Log severities (RFC 5424 order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug.
    Debug,
    /// Info.
    Info,
    /// Notice.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Alert.
    Alert,
    /// Emergency.
    Emergency,
}
