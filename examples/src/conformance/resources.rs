//! The resource fixtures of the `resources-*` scenarios, declared with `#[resource]` and
//! `#[resource_template]`.

use base64::Engine as _;
use roundtrip::prelude::*;
use roundtrip::server::ResourceEntry;
use serde_json::json;

use super::PNG_BASE64;

/// Every resource and template of this module.
pub fn all() -> Vec<ResourceEntry> {
    resources![static_text, static_binary, watched, template].into()
}

#[resource(
    "test://static-text",
    name = "Static Text Resource",
    description = "Static Text Resource",
    mime_type = "text/plain"
)]
async fn static_text() -> String {
    "This is the content of the static text resource.".into()
}

#[resource("test://static-binary", name = "Static Binary Resource", description = "A 1x1 PNG", mime_type = "image/png")]
async fn static_binary() -> Result<Blob, base64::DecodeError> {
    base64::engine::general_purpose::STANDARD.decode(PNG_BASE64).map(Blob)
}

// Subscribed to by `resources-subscribe`/`-unsubscribe` (legacy); never changes.
#[resource(
    "test://watched-resource",
    name = "Watched Resource",
    description = "Watched Resource",
    mime_type = "text/plain"
)]
async fn watched() -> String {
    "Watched resource content".into()
}

#[resource_template(
    "test://template/{id}/data",
    name = "Template Resource",
    description = "A resource per id",
    mime_type = "application/json"
)]
async fn template(id: String) -> String {
    json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string()
}
