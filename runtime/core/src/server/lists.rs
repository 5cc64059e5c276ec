//! The list results (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`), serialized once per protocol version and answered from then on
//! as they are, until the definitions change (each change makes a new catalog, with its own
//! cache).
//!
//! `tools/list` has two variants (MCP Apps): one for clients that host views, with each tool
//! as declared, and one for the others, without the links to views. Each is serialized once;
//! picking one is a lookup in the client's extensions, which most clients do not declare.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use super::result_json::ResultJson;

use serde_json::json;

use super::dispatch::{Failure, to_json};
use super::{Catalog, Server};
use crate::protocol::{
    CacheScope, ClientCapabilities, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, META_UI, META_UI_RESOURCE_URI, Method, ProtocolVersion, ResultType, Tool, UiToolMeta,
};

/// A list's method, the version, and whether the client hosts views.
type ListKey = (Method, ProtocolVersion, bool);

/// The serialized lists, by method, version and whether the client hosts views (for
/// `tools/list` only). A server whose definitions change (a builder method) starts with an
/// empty cache.
#[derive(Default)]
pub(crate) struct ListCache {
    lists: Mutex<HashMap<ListKey, ResultJson>>,
    /// Whether the server has a view, found once.
    pub(super) apps: OnceLock<bool>,
}

impl Clone for ListCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl fmt::Debug for ListCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ListCache")
    }
}

impl Server {
    /// The result of a list method at `version`, serialized the first time it is asked for.
    /// `capabilities` are the client's (a 2026-07-28 request's, or a legacy session's): a
    /// client that hosts views gets the tools' links to them.
    pub(crate) fn list(
        &self,
        catalog: &Catalog,
        method: Method,
        version: ProtocolVersion,
        capabilities: &ClientCapabilities,
    ) -> Result<ResultJson, Failure> {
        // Only the tools differ between clients that host views and those that do not.
        let hosts_views = method == Method::ToolsList && capabilities.supports_ui();
        let key = (method, version, hosts_views);
        let cache = &catalog.lists.lists;
        if let Some(json) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(json);
        }
        let json = match method {
            Method::ToolsList => to_json(&self.list_tools(catalog, version, hosts_views))?,
            Method::PromptsList => to_json(&self.list_prompts(catalog, version))?,
            Method::ResourcesList => to_json(&self.list_resources(catalog, version))?,
            Method::ResourcesTemplatesList => to_json(&self.list_templates(catalog, version))?,
            _ => return Err(Failure::rejected(roundtrip_wire::ErrorObject::method_not_found(method.as_str()))),
        };
        if let Ok(mut c) = cache.lock() {
            c.insert(key, json.clone());
        }
        Ok(json)
    }
}

impl Server {
    /// `tools/list` for a caller whose token does not grant every tool's scopes, when the
    /// endpoint hides what a caller cannot call: only the tools it may call, serialized for
    /// this request alone (never into the shared cache) and marked `cacheScope: private`.
    /// `None` when the shared list applies (no filtering, no token, or no tool declares
    /// scopes).
    pub(crate) fn tools_in_scope(
        &self,
        catalog: &Catalog,
        inbound: &super::Inbound,
        version: ProtocolVersion,
        capabilities: &ClientCapabilities,
    ) -> Result<Option<ResultJson>, Failure> {
        let Some(auth) = inbound.auth.as_deref().filter(|_| inbound.tools_by_scope) else { return Ok(None) };
        if catalog.tools.iter().all(|d| d.scopes.is_empty()) {
            return Ok(None);
        }
        let hosts_views = capabilities.supports_ui();
        let tools = self.tools_seen(catalog, version, hosts_views, |scopes| auth.missing_scopes(scopes).is_empty());
        let mut result = ListToolsResult::new(tools);
        (result.result_type, result.ttl_ms, result.cache_scope) = self.cache_hints(catalog, version);
        result.cache_scope = result.cache_scope.map(|_| CacheScope::Private);
        result.meta = self.list_meta_value();
        Ok(Some(to_json(&result)?))
    }

    /// The cache hints of a list of `catalog`: a tenant's lists are the tenant's alone
    /// (`private`), whatever the server's lists are.
    fn cache_hints(
        &self,
        catalog: &Catalog,
        version: ProtocolVersion,
    ) -> (Option<ResultType>, Option<u64>, Option<CacheScope>) {
        if version.is_modern() {
            let caching = self.inner.caching;
            let tenants = !std::ptr::eq(catalog, &*self.shared());
            let scope = if tenants { CacheScope::Private } else { caching.list_scope };
            (Some(ResultType::Complete), Some(caching.list_ttl_ms), Some(scope))
        } else {
            (None, None, None)
        }
    }

    /// The tools a client of `version` sees, among those whose scopes `may_call` grants: as
    /// declared for a client that hosts views, else without their links to views (and
    /// without the tools only a view may call).
    fn tools_seen(
        &self,
        catalog: &Catalog,
        version: ProtocolVersion,
        hosts_views: bool,
        may_call: impl Fn(&[String]) -> bool,
    ) -> Vec<Tool> {
        catalog
            .tools
            .iter()
            .filter(|d| may_call(&d.scopes))
            .filter_map(|d| if hosts_views { Some(d.tool.clone()) } else { without_views(&d.tool) })
            .map(|tool| tool_for(tool, version))
            .collect()
    }

    fn list_tools(&self, catalog: &Catalog, version: ProtocolVersion, hosts_views: bool) -> ListToolsResult {
        let mut result = ListToolsResult::new(self.tools_seen(catalog, version, hosts_views, |_| true));
        (result.result_type, result.ttl_ms, result.cache_scope) = self.cache_hints(catalog, version);
        result.meta = self.list_meta_value();
        result
    }

    fn list_prompts(&self, catalog: &Catalog, version: ProtocolVersion) -> ListPromptsResult {
        let mut result = ListPromptsResult::new(catalog.prompts.iter().map(|d| d.prompt.clone()).collect());
        (result.result_type, result.ttl_ms, result.cache_scope) = self.cache_hints(catalog, version);
        result.meta = self.list_meta_value();
        result
    }

    fn list_resources(&self, catalog: &Catalog, version: ProtocolVersion) -> ListResourcesResult {
        #[allow(unused_mut)]
        let mut resources: Vec<_> = catalog.resources.iter().map(|d| d.resource.clone()).collect();
        #[cfg(feature = "skills")]
        if let Some(skills) = self.skill_set() {
            resources.extend(skills.resources().cloned());
        }
        let mut result = ListResourcesResult::new(resources);
        (result.result_type, result.ttl_ms, result.cache_scope) = self.cache_hints(catalog, version);
        result.meta = self.list_meta_value();
        result
    }

    fn list_templates(&self, catalog: &Catalog, version: ProtocolVersion) -> ListResourceTemplatesResult {
        let mut result =
            ListResourceTemplatesResult::new(catalog.templates.iter().map(|d| d.template.clone()).collect());
        (result.result_type, result.ttl_ms, result.cache_scope) = self.cache_hints(catalog, version);
        result.meta = self.list_meta_value();
        result
    }
}

/// A tool as a client that does not host views sees it (MCP Apps): without `_meta.ui` and the
/// flat `ui/resourceUri`, as the extension's specification has servers register "a text-only
/// variant" for such clients; and not at all when only views may see it
/// (`visibility: ["app"]`).
///
/// The specification makes hiding app-only tools from the model the *host's* job ("Host MUST
/// NOT include tools in the agent's tool list when their visibility does not include
/// "model""): a client that hosts views gets every tool, app-only ones included, since its
/// views call them through it. A client that does not host views cannot honour visibility: it
/// would hand the tool to its model, which the declaration forbids, and it has no view that
/// could call it. So the server leaves such tools out for it (the specification lets servers
/// "register different tool variants based on host capabilities"). Visibility is not access
/// control: a call of the tool is still served, since a host's model and its views share one
/// connection and the server cannot tell them apart.
fn without_views(tool: &Tool) -> Option<Tool> {
    let Some(ui) = UiToolMeta::of(tool.meta.as_ref()) else { return Some(tool.clone()) };
    if !ui.model_visible() {
        return None;
    }
    let mut tool = tool.clone();
    if let Some(meta) = &mut tool.meta {
        meta.remove(META_UI);
        meta.remove(META_UI_RESOURCE_URI);
        if meta.is_empty() {
            tool.meta = None;
        }
    }
    Some(tool)
}

/// A tool as a client of `version` may see it.
fn tool_for(mut tool: Tool, version: ProtocolVersion) -> Tool {
    if version < ProtocolVersion::V2025_06_18 {
        tool.title = None;
        tool.output_schema = None;
        tool.meta = None;
    }
    if version < ProtocolVersion::V2025_11_25 {
        tool.icons = None;
    }
    if !version.is_modern() {
        // A legacy session runs task tools synchronously: nothing to announce.
        tool.execution = None;
    }
    if !version.is_modern() && tool.output_schema.as_ref().is_some_and(|s| s.get("type") != Some(&json!("object"))) {
        tool.output_schema = None;
    }
    tool
}
