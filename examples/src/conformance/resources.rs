//! The resource fixtures of the `resources-*` scenarios.

use roundtrip::Server;
use roundtrip::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use roundtrip::server::uri_template::TemplateError;
use roundtrip::server::{Outcome, ResourceDef, ResourceTemplateDef};
use serde_json::json;

use super::PNG_BASE64;

/// Register the resources and the template on `server`.
pub fn register(server: Server) -> Result<Server, TemplateError> {
    Ok(server
        .resource(text(
            "test://static-text",
            "Static Text Resource",
            "text/plain",
            "This is the content of the static text resource.",
        ))
        .resource(static_binary())
        // Subscribed to by `resources-subscribe`/`-unsubscribe` (legacy); never changes.
        .resource(text("test://watched-resource", "Watched Resource", "text/plain", "Watched resource content"))
        .resource_template(template()?))
}

fn resource(uri: &str, name: &str, mime_type: &str, description: &str) -> Resource {
    Resource { mime_type: Some(mime_type.into()), description: Some(description.into()), ..Resource::new(uri, name) }
}

fn text(uri: &'static str, name: &str, mime_type: &'static str, content: &'static str) -> ResourceDef {
    ResourceDef::new(resource(uri, name, mime_type, name), move |_cx| async move {
        Ok(Outcome::Complete(read(ResourceContents::text(uri, Some(mime_type), content))))
    })
}

fn static_binary() -> ResourceDef {
    let uri = "test://static-binary";
    ResourceDef::new(resource(uri, "Static Binary Resource", "image/png", "A 1x1 PNG"), move |_cx| async move {
        Ok(Outcome::Complete(read(ResourceContents::blob(uri, Some("image/png"), PNG_BASE64))))
    })
}

fn template() -> Result<ResourceTemplateDef, TemplateError> {
    let template = ResourceTemplate {
        description: Some("A resource per id".into()),
        mime_type: Some("application/json".into()),
        ..ResourceTemplate::new("test://template/{id}/data", "Template Resource")
    };
    ResourceTemplateDef::new(template, |cx| async move {
        let id = cx.uri_variable("id").unwrap_or_default().to_owned();
        let body = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
        Ok(Outcome::Complete(read(ResourceContents::text(cx.target(), Some("application/json"), body.to_string()))))
    })
}

fn read(contents: ResourceContents) -> ReadResourceResult {
    ReadResourceResult { contents: vec![contents], ..ReadResourceResult::default() }
}
