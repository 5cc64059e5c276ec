//! The list results (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`), serialized once per protocol version and answered from then on
//! as they are: the definitions do not change while a server serves.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use serde_json::value::RawValue;

use serde_json::json;

use super::Server;
use super::dispatch::{Failure, to_json};
use crate::protocol::{
    CacheScope, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, ProtocolVersion,
    ResultType, Tool,
};

/// The serialized lists, by method and version. A server whose definitions change (a builder
/// method) starts with an empty cache.
#[derive(Default)]
pub(crate) struct ListCache(Mutex<HashMap<(&'static str, ProtocolVersion), Box<RawValue>>>);

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

/// The list methods, as the cache's keys.
pub(crate) const LIST_METHODS: [&str; 4] = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];

impl Server {
    /// The result of a list method at `version`, serialized the first time it is asked for.
    pub(crate) fn list(&self, method: &str, version: ProtocolVersion) -> Result<Box<RawValue>, Failure> {
        let Some(&method) = LIST_METHODS.iter().find(|m| **m == method) else {
            return Err(Failure::rejected(crate::protocol::ErrorObject::method_not_found(method)));
        };
        let cache = &self.inner.lists.0;
        if let Some(json) = cache.lock().ok().and_then(|c| c.get(&(method, version)).cloned()) {
            return Ok(json);
        }
        let json = match method {
            "tools/list" => to_json(&self.list_tools(version))?,
            "prompts/list" => to_json(&self.list_prompts(version))?,
            "resources/list" => to_json(&self.list_resources(version))?,
            _ => to_json(&self.list_templates(version))?,
        };
        if let Ok(mut c) = cache.lock() {
            c.insert((method, version), json.clone());
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
        inbound: &super::Inbound,
        version: ProtocolVersion,
    ) -> Result<Option<Box<RawValue>>, Failure> {
        let Some(auth) = inbound.auth.as_deref().filter(|_| inbound.tools_by_scope) else { return Ok(None) };
        if self.inner.tools.iter().all(|d| d.scopes.is_empty()) {
            return Ok(None);
        }
        let (result_type, ttl_ms, cache_scope) = self.cache_hints(version);
        let tools = self
            .inner
            .tools
            .iter()
            .filter(|d| auth.missing_scopes(&d.scopes).is_empty())
            .map(|d| tool_for(&d.tool, version))
            .collect();
        let cache_scope = cache_scope.map(|_| CacheScope::Private);
        let meta = self.list_meta_value();
        Ok(Some(to_json(&ListToolsResult { result_type, tools, next_cursor: None, ttl_ms, cache_scope, meta })?))
    }

    fn cache_hints(&self, version: ProtocolVersion) -> (Option<ResultType>, Option<u64>, Option<CacheScope>) {
        if version.is_modern() {
            (Some(ResultType::Complete), Some(self.inner.caching.list_ttl_ms), Some(self.inner.caching.list_scope))
        } else {
            (None, None, None)
        }
    }

    fn list_tools(&self, version: ProtocolVersion) -> ListToolsResult {
        let (result_type, ttl_ms, cache_scope) = self.cache_hints(version);
        let tools = self.inner.tools.iter().map(|d| tool_for(&d.tool, version)).collect();
        ListToolsResult { result_type, tools, next_cursor: None, ttl_ms, cache_scope, meta: self.list_meta_value() }
    }

    fn list_prompts(&self, version: ProtocolVersion) -> ListPromptsResult {
        let (result_type, ttl_ms, cache_scope) = self.cache_hints(version);
        let prompts = self.inner.prompts.iter().map(|d| d.prompt.clone()).collect();
        ListPromptsResult { result_type, prompts, next_cursor: None, ttl_ms, cache_scope, meta: self.list_meta_value() }
    }

    fn list_resources(&self, version: ProtocolVersion) -> ListResourcesResult {
        let (result_type, ttl_ms, cache_scope) = self.cache_hints(version);
        #[allow(unused_mut)]
        let mut resources: Vec<_> = self.inner.resources.iter().map(|d| d.resource.clone()).collect();
        #[cfg(feature = "skills")]
        if let Some(skills) = self.skill_set() {
            resources.extend(skills.resources().cloned());
        }
        ListResourcesResult {
            result_type,
            resources,
            next_cursor: None,
            ttl_ms,
            cache_scope,
            meta: self.list_meta_value(),
        }
    }

    fn list_templates(&self, version: ProtocolVersion) -> ListResourceTemplatesResult {
        let (result_type, ttl_ms, cache_scope) = self.cache_hints(version);
        let resource_templates = self.inner.templates.iter().map(|d| d.template.clone()).collect();
        ListResourceTemplatesResult {
            result_type,
            resource_templates,
            next_cursor: None,
            ttl_ms,
            cache_scope,
            meta: self.list_meta_value(),
        }
    }
}

/// A tool as a client of `version` may see it.
fn tool_for(tool: &Tool, version: ProtocolVersion) -> Tool {
    let mut tool = tool.clone();
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
