//! Declared resources, resource templates and MCP Apps views: their definitions from the
//! expansion's parts.

use std::future::Future;
use std::sync::Arc;

use super::declared::{LegFuture, declared, refused_error};
use super::graph;
use crate::error::Error;
use crate::protocol::{
    JsonObject, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, UiCsp, UiPermissions, UiResourceMeta,
};
use crate::resolve::{Check, Graph, Values, evaluate};
use crate::server::{Handler, Outcome, RequestContext, ResourceDef, ResourceEntry, ResourceTemplateDef};

/// The description of a declared resource or template.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct ResourceSpec {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub mime_type: Option<&'static str>,
}

/// Build the definition of a declared resource template.
#[doc(hidden)]
pub fn resource_template<A, P, F, Fut>(spec: ResourceSpec, graph: Graph, parse: P, body: F) -> ResourceEntry
where
    A: Send + 'static,
    P: Fn(&JsonObject) -> Result<A, Error> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    let mut template = ResourceTemplate::new(spec.uri, spec.name);
    template.title = spec.title.map(Into::into);
    template.description = spec.description.map(Into::into);
    template.mime_type = spec.mime_type.map(Into::into);
    let graph = Arc::new(graph);
    match ResourceTemplateDef::with_handler(
        template,
        Handler::boxed(declared(graph.clone(), parse, body, refused_error)),
    ) {
        Ok(def) => ResourceEntry::Template(def.with_graph(graph)),
        // The macro parsed the same template at compile time.
        Err(e) => panic!("roundtrip: `{}` is not a valid URI template: {e}", spec.uri),
    }
}

/// Build the definition of a declared static resource (its checks, if any, run first).
#[doc(hidden)]
pub fn resource<F, Fut>(spec: ResourceSpec, checks: Vec<Check>, body: F) -> ResourceEntry
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    let mut resource = Resource::new(spec.uri, spec.name);
    resource.title = spec.title.map(Into::into);
    resource.description = spec.description.map(Into::into);
    resource.mime_type = spec.mime_type.map(Into::into);
    ResourceEntry::Static(ResourceDef::new(resource, static_reader(checks, body)))
}

/// The reader of a declared static resource or view: its checks, then its body.
fn static_reader<F, Fut>(checks: Vec<Check>, body: F) -> impl Fn(RequestContext) -> LegFuture<ReadResourceResult>
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    let checks = Arc::new(graph(Vec::new(), Vec::new(), checks));
    let body = Arc::new(body);
    move |cx: RequestContext| {
        let (checks, body) = (checks.clone(), body.clone());
        Box::pin(async move {
            if !checks.checks().is_empty() {
                evaluate(&checks, &cx).await?;
            }
            body(cx).await
        })
    }
}

/// The description of a declared view.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct ViewSpec {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub connect_domains: &'static [&'static str],
    pub resource_domains: &'static [&'static str],
    pub frame_domains: &'static [&'static str],
    pub base_uri_domains: &'static [&'static str],
    /// `camera`, `microphone`, `geolocation`, `clipboardWrite`.
    pub permissions: &'static [&'static str],
    pub domain: Option<&'static str>,
    pub prefers_border: Option<bool>,
}

impl ViewSpec {
    fn resource(&self) -> Resource {
        let mut resource = Resource::new(self.uri, self.name);
        resource.title = self.title.map(Into::into);
        resource.description = self.description.map(Into::into);
        resource
    }

    fn ui(&self) -> UiResourceMeta {
        let list = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let mut csp = UiCsp::default();
        csp.connect_domains = list(self.connect_domains);
        csp.resource_domains = list(self.resource_domains);
        csp.frame_domains = list(self.frame_domains);
        csp.base_uri_domains = list(self.base_uri_domains);
        let asked = |p: &str| self.permissions.contains(&p).then(JsonObject::new);
        let mut permissions = UiPermissions::default();
        permissions.camera = asked("camera");
        permissions.microphone = asked("microphone");
        permissions.geolocation = asked("geolocation");
        permissions.clipboard_write = asked("clipboardWrite");
        let mut ui = UiResourceMeta::default();
        ui.csp = (!csp.is_empty()).then_some(csp);
        ui.permissions = (!permissions.is_empty()).then_some(permissions);
        ui.domain = self.domain.map(Into::into);
        ui.prefers_border = self.prefers_border;
        ui
    }
}

/// Build the definition of a view declared on a fn (its checks, if any, run first).
#[doc(hidden)]
pub fn view<F, Fut>(spec: ViewSpec, checks: Vec<Check>, body: F) -> ResourceDef
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    ResourceDef::view(spec.resource(), spec.ui(), static_reader(checks, body))
}

/// Build the definition of a view declared on a const holding its HTML.
#[doc(hidden)]
pub fn view_text(spec: ViewSpec, html: &'static str) -> ResourceDef {
    let uri = spec.uri;
    ResourceDef::view(spec.resource(), spec.ui(), move |_cx| async move {
        let contents = ResourceContents::text(uri, None, html);
        Ok(Outcome::Complete(ReadResourceResult::new(vec![contents])))
    })
}
