//! The OAuth 2.0 Protected Resource Metadata document (RFC 9728), which MCP's authorization
//! specification has every protected server publish and every client read.

use serde::{Deserialize, Serialize};

/// The well-known path prefix of the document (RFC 9728 §3): a resource at
/// `https://h/mcp` publishes it at `https://h/.well-known/oauth-protected-resource/mcp`.
pub const PROTECTED_RESOURCE_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What `/.well-known/oauth-protected-resource` answers (RFC 9728 §2): which resource this is,
/// where its tokens come from, which scopes it knows, and how tokens are sent. A server
/// writes it; a client reads it, leniently: every field but `resource` may be missing.
///
/// ```
/// use roundtrip_wire::ProtectedResourceMetadata;
/// let doc = ProtectedResourceMetadata::new("https://mcp.example.com/mcp", ["https://id.example.com"])
///     .with_scopes_supported(vec!["mcp:read".to_owned()]);
/// let json = serde_json::to_value(&doc).unwrap();
/// assert_eq!(json["bearer_methods_supported"], serde_json::json!(["header"]));
///
/// let read: ProtectedResourceMetadata =
///     serde_json::from_str(r#"{"resource": "https://mcp.example.com/mcp"}"#).unwrap();
/// assert!(read.authorization_servers.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier (the canonical URI of the MCP endpoint).
    pub resource: String,
    /// The issuer identifiers of the authorization servers.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes this resource understands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How a bearer token may be sent (`["header"]`: only in the `Authorization` header).
    #[serde(default)]
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A page documenting the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
}

impl ProtectedResourceMetadata {
    /// The document of `resource`, protected by `authorization_servers`, taking bearer tokens
    /// in the `Authorization` header only (MCP's rule).
    pub fn new(
        resource: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: authorization_servers.into_iter().map(Into::into).collect(),
            scopes_supported: None,
            bearer_methods_supported: vec!["header".into()],
            resource_name: None,
            resource_documentation: None,
        }
    }
}

setters!(ProtectedResourceMetadata {
    with_scopes_supported => scopes_supported: Vec<String>,
    with_resource_name => resource_name: String,
    with_resource_documentation => resource_documentation: String,
});
