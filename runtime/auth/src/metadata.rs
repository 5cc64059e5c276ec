//! The OAuth 2.0 Protected Resource Metadata document (RFC 9728).

use serde::{Deserialize, Serialize};

/// The well-known path of the metadata (RFC 9728 §3).
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What `/.well-known/oauth-protected-resource` answers (RFC 9728 §2): which resource this is,
/// where its tokens come from, which scopes it knows, and how tokens are sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier (the canonical URI of the MCP endpoint).
    pub resource: String,
    /// The issuer identifiers of the authorization servers.
    pub authorization_servers: Vec<String>,
    /// The scopes this resource understands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How a bearer token may be sent: only in the `Authorization` header.
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A page documenting the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
}
