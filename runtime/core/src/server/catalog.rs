//! What a server offers (its tools, prompts, resources and templates), to every caller and to
//! each tenant besides, and how that changes while it serves.
//!
//! The definitions are one immutable [`Catalog`] swapped whole on each change (`arc-swap`):
//! a request reads the catalog of its moment without a lock, and a change never waits for
//! the requests in flight. Run-time changes are rare (an administrator adds a tool, a tenant
//! signs up), so each one copies what it changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use super::handler::{PromptDef, ResourceDef, ResourceTemplateDef, ToolDef};
use super::lists::ListCache;
use super::{CheckError, IntoDef, ListChange, NameIndex, ResourceEntry, Server};
use crate::request::AuthPrincipal;

/// The definitions one caller sees, and their lists serialized once.
#[derive(Default)]
#[doc(hidden)]
pub struct Catalog {
    pub(crate) tools: Vec<ToolDef>,
    /// By name; the key is the target of each call (shared, not copied per request).
    pub(crate) tool_index: NameIndex,
    pub(crate) prompts: Vec<PromptDef>,
    pub(crate) prompt_index: NameIndex,
    pub(crate) resources: Vec<ResourceDef>,
    pub(crate) templates: Vec<ResourceTemplateDef>,
    pub(crate) lists: ListCache,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("tools", &self.tools.len())
            .field("prompts", &self.prompts.len())
            .field("resources", &self.resources.len())
            .field("templates", &self.templates.len())
            .finish_non_exhaustive()
    }
}

impl Clone for Catalog {
    /// A copy to change: its lists are serialized again when next asked for.
    fn clone(&self) -> Self {
        Self {
            tools: self.tools.clone(),
            tool_index: self.tool_index.clone(),
            prompts: self.prompts.clone(),
            prompt_index: self.prompt_index.clone(),
            resources: self.resources.clone(),
            templates: self.templates.clone(),
            lists: ListCache::default(),
        }
    }
}

impl Catalog {
    /// The tool `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolDef> {
        self.tool_index.get(name).map(|&i| &self.tools[i])
    }

    /// The prompt `name`.
    pub(crate) fn prompt(&self, name: &str) -> Option<&PromptDef> {
        self.prompt_index.get(name).map(|&i| &self.prompts[i])
    }

    /// Add `def`, or replace the tool of its name.
    pub(crate) fn put_tool(&mut self, def: ToolDef) {
        put(&mut self.tools, &mut self.tool_index, def, |d| &d.tool.name);
    }

    fn remove_tool(&mut self, name: &str) -> bool {
        remove(&mut self.tools, &mut self.tool_index, name, |d| &d.tool.name)
    }

    /// Add `def`, or replace the prompt of its name.
    pub(crate) fn put_prompt(&mut self, def: PromptDef) {
        put(&mut self.prompts, &mut self.prompt_index, def, |d| &d.prompt.name);
    }

    fn remove_prompt(&mut self, name: &str) -> bool {
        remove(&mut self.prompts, &mut self.prompt_index, name, |d| &d.prompt.name)
    }

    /// Add `def`, or replace the resource of its URI.
    pub(crate) fn put_resource(&mut self, def: ResourceDef) {
        match self.resources.iter_mut().find(|r| r.resource.uri == def.resource.uri) {
            Some(earlier) => *earlier = def,
            None => self.resources.push(def),
        }
    }

    /// Remove the resource of `uri`, or the template written `uri`.
    fn remove_resource(&mut self, uri: &str) -> bool {
        let before = self.resources.len() + self.templates.len();
        self.resources.retain(|d| d.resource.uri != uri);
        self.templates.retain(|d| d.template.uri_template != uri);
        self.resources.len() + self.templates.len() != before
    }

    /// This catalog with `own`'s definitions added (a tenant's over the shared ones).
    fn with(&self, own: &Catalog) -> Catalog {
        let mut merged = self.clone();
        own.tools.iter().cloned().for_each(|d| merged.put_tool(d));
        own.prompts.iter().cloned().for_each(|d| merged.put_prompt(d));
        own.resources.iter().cloned().for_each(|d| merged.put_resource(d));
        merged.templates.extend(own.templates.iter().cloned());
        merged
    }
}

/// Add `def` to `defs` and `index`, or replace the definition of its name.
fn put<D>(defs: &mut Vec<D>, index: &mut NameIndex, def: D, name: impl Fn(&D) -> &String) {
    match index.get(name(&def).as_str()) {
        Some(&i) => defs[i] = def,
        None => {
            index.insert(name(&def).as_str().into(), defs.len());
            defs.push(def);
        }
    }
}

/// Remove the definition named `gone` from `defs`, and index what is left again; whether
/// there was one.
fn remove<D>(defs: &mut Vec<D>, index: &mut NameIndex, gone: &str, name: impl Fn(&D) -> &String) -> bool {
    let before = defs.len();
    defs.retain(|d| name(d) != gone);
    *index = defs.iter().enumerate().map(|(i, d)| (Arc::from(name(d).as_str()), i)).collect();
    defs.len() != before
}

/// Everything the server offers: the shared catalog, and each tenant's own definitions with
/// the catalog its callers see (the shared one and theirs).
#[derive(Clone, Default)]
struct Registry {
    shared: Arc<Catalog>,
    own: HashMap<String, Catalog>,
    merged: HashMap<String, Arc<Catalog>>,
}

/// Who a caller's tenant is ([`Server::tenants`]).
type TenantOf = Arc<dyn Fn(&AuthPrincipal) -> Option<String> + Send + Sync>;

/// The server's registry, changed in place while it serves.
pub(crate) struct Live {
    registry: ArcSwap<Registry>,
    tenant_of: Option<TenantOf>,
    /// One change at a time (a change reads the registry, makes the next, checks it, stores
    /// it); requests never take it.
    writer: Mutex<()>,
}

impl Default for Live {
    fn default() -> Self {
        Self { registry: ArcSwap::from_pointee(Registry::default()), tenant_of: None, writer: Mutex::new(()) }
    }
}

impl Clone for Live {
    /// A server being built is copied with what it has at that moment.
    fn clone(&self) -> Self {
        Self {
            registry: ArcSwap::new(self.registry.load_full()),
            tenant_of: self.tenant_of.clone(),
            writer: Mutex::new(()),
        }
    }
}

impl Live {
    /// The shared catalog, now.
    pub(crate) fn shared(&self) -> Arc<Catalog> {
        Arc::clone(&self.registry.load().shared)
    }

    /// Whether the server gives callers tenants ([`Server::tenants`]).
    pub(crate) fn has_tenants(&self) -> bool {
        self.tenant_of.is_some()
    }

    /// Change the shared catalog of a server being built (no request can hold it yet, so
    /// it is changed in place, not copied).
    pub(crate) fn edit_mut(&mut self, change: impl FnOnce(&mut Catalog)) {
        let mut registry = self.registry.swap(Arc::default());
        let registry_mut = Arc::make_mut(&mut registry);
        let shared = Arc::make_mut(&mut registry_mut.shared);
        shared.lists = ListCache::default();
        change(shared);
        registry_mut.merge();
        self.registry.store(registry);
    }

    /// Change the catalog of `tenant` (`None`: the shared one) while serving: a copy is
    /// changed, then `check`ed as each tenant's callers will see it, then stored, unless
    /// either fails. Whether the change changed anything.
    fn edit<E>(
        &self,
        tenant: Option<&str>,
        change: impl FnOnce(&mut Catalog) -> bool,
        check: impl Fn(&Catalog) -> Result<(), E>,
    ) -> Result<bool, E> {
        let _writer = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut registry = Registry::clone(&self.registry.load());
        let changed = match tenant {
            None => change(Arc::make_mut(&mut registry.shared)),
            Some(tenant) => change(registry.own.entry(tenant.to_owned()).or_default()),
        };
        if !changed {
            return Ok(false);
        }
        registry.merge();
        check(&registry.shared)?;
        registry.merged.values().try_for_each(|c| check(c))?;
        self.registry.store(Arc::new(registry));
        Ok(true)
    }
}

impl Registry {
    /// Each tenant's catalog made again from the shared one and its own.
    fn merge(&mut self) {
        let shared = &self.shared;
        self.merged = self.own.iter().map(|(t, own)| (t.clone(), Arc::new(shared.with(own)))).collect();
    }
}

impl Server {
    /// The catalog the caller `auth` sees: its tenant's, when it has one with definitions of
    /// its own, else the shared one.
    #[doc(hidden)]
    pub fn catalog(&self, auth: Option<&AuthPrincipal>) -> Arc<Catalog> {
        let live = &self.inner.catalog;
        let registry = live.registry.load();
        if let (Some(tenant_of), Some(auth)) = (&live.tenant_of, auth)
            && !registry.merged.is_empty()
            && let Some(catalog) = tenant_of(auth).and_then(|t| registry.merged.get(&t).cloned())
        {
            return catalog;
        }
        Arc::clone(&registry.shared)
    }

    /// Give each authenticated caller the tenant `tenant_of` names (`None`: none): a tenant's
    /// callers see the shared tools, prompts and resources and the tenant's own
    /// ([`add_tools_for`](Self::add_tools_for)); other callers see the shared ones only.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    ///
    /// /// The acme-only report.
    /// #[tool(read_only)]
    /// async fn acme_report() -> &'static str {
    ///     "acme's numbers"
    /// }
    ///
    /// let server = Server::new("saas", "1.0.0")
    ///     // The tenant is the token's `org` claim.
    ///     .tenants(|caller| caller.claims.get("org")?.as_str().map(str::to_owned));
    /// server.add_tools_for("acme", tools![acme_report])?;
    /// # Ok::<(), roundtrip::server::CheckError>(())
    /// ```
    pub fn tenants(mut self, tenant_of: impl Fn(&AuthPrincipal) -> Option<String> + Send + Sync + 'static) -> Self {
        self.inner_mut().catalog.tenant_of = Some(Arc::new(tenant_of));
        self
    }

    /// Add tools while serving (or replace those of the same names), for every caller; each
    /// `subscriptions/listen` stream and legacy session is told that the tool list changed. A
    /// declared tool (`tools![…]`) works as it does when registered at build time, and is
    /// checked as [`check`](Self::check) checks it (the state it takes is registered, its
    /// view is); on a problem nothing is added.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    ///
    /// /// Say hello.
    /// #[tool(read_only)]
    /// async fn hello() -> &'static str {
    ///     "hello"
    /// }
    ///
    /// let server = Server::new("growing", "1.0.0");
    /// server.add_tools(tools![hello])?;
    /// assert_eq!(server.tool_defs().len(), 1);
    /// assert!(server.remove_tool("hello"));
    /// assert!(server.tool_defs().is_empty());
    /// # Ok::<(), roundtrip::server::CheckError>(())
    /// ```
    pub fn add_tools<D: IntoDef<ToolDef>>(&self, defs: impl IntoIterator<Item = D>) -> Result<(), CheckError> {
        self.add_tools_to(None, defs)
    }

    /// Add tools for the callers of `tenant` only ([`tenants`](Self::tenants)); a tool of the
    /// same name as a shared one replaces it for them. Checked as
    /// [`add_tools`](Self::add_tools) checks them.
    pub fn add_tools_for<D: IntoDef<ToolDef>>(
        &self,
        tenant: &str,
        defs: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        self.add_tools_to(Some(tenant), defs)
    }

    fn add_tools_to<D: IntoDef<ToolDef>>(
        &self,
        tenant: Option<&str>,
        defs: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        let defs: Vec<ToolDef> = defs.into_iter().map(|d| self.prepared(d.into_def())).collect();
        let add = |catalog: &mut Catalog| {
            for mut def in defs {
                if let Some(view) = def.bundled_view.take()
                    && !catalog.resources.iter().any(|r| r.resource.uri == view.resource.uri)
                {
                    catalog.put_resource(*view);
                }
                catalog.put_tool(def);
            }
            true
        };
        self.inner.catalog.edit(tenant, add, |catalog| super::check::check_catalog(self, catalog))?;
        self.notify_list_changed(ListChange::Tools);
        Ok(())
    }

    /// Remove the tool `name` while serving; `false` if there was none. A call of it from
    /// then on, also the next leg of a flow it began (whose state is refused with it), is
    /// answered `Unknown tool`.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove(None, ListChange::Tools, |catalog| catalog.remove_tool(name))
    }

    /// Remove the tool `name` of `tenant`'s own; `false` if it had none.
    pub fn remove_tool_for(&self, tenant: &str, name: &str) -> bool {
        self.remove(Some(tenant), ListChange::Tools, |catalog| catalog.remove_tool(name))
    }

    /// Add prompts while serving (or replace those of the same names), for every caller;
    /// checked as [`add_tools`](Self::add_tools) checks tools.
    pub fn add_prompts<D: IntoDef<PromptDef>>(&self, defs: impl IntoIterator<Item = D>) -> Result<(), CheckError> {
        let defs: Vec<PromptDef> = defs.into_iter().map(IntoDef::into_def).collect();
        let add = |catalog: &mut Catalog| {
            defs.into_iter().for_each(|d| catalog.put_prompt(d));
            true
        };
        self.inner.catalog.edit(None, add, |catalog| super::check::check_catalog(self, catalog))?;
        self.notify_list_changed(ListChange::Prompts);
        Ok(())
    }

    /// Remove the prompt `name` while serving; `false` if there was none.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove(None, ListChange::Prompts, |catalog| catalog.remove_prompt(name))
    }

    /// Add resources and templates while serving, for every caller; checked as
    /// [`add_tools`](Self::add_tools) checks tools.
    pub fn add_resources<D: IntoDef<ResourceEntry>>(
        &self,
        entries: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        let entries: Vec<ResourceEntry> = entries.into_iter().map(IntoDef::into_def).collect();
        let add = |catalog: &mut Catalog| {
            for entry in entries {
                match entry {
                    ResourceEntry::Static(def) => catalog.put_resource(def),
                    ResourceEntry::Template(def) => catalog.templates.push(def),
                }
            }
            true
        };
        self.inner.catalog.edit(None, add, |catalog| super::check::check_catalog(self, catalog))?;
        self.notify_list_changed(ListChange::Resources);
        Ok(())
    }

    /// Remove the resource of `uri` (or the template written `uri`) while serving; `false` if
    /// there was none.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove(None, ListChange::Resources, |catalog| catalog.remove_resource(uri))
    }

    /// Remove with `change`, and say so when it removed something.
    fn remove(&self, tenant: Option<&str>, list: ListChange, change: impl FnOnce(&mut Catalog) -> bool) -> bool {
        let removed = self.inner.catalog.edit(tenant, change, |_| Ok::<(), std::convert::Infallible>(()));
        let removed = removed.unwrap_or_else(|never| match never {});
        if removed {
            self.notify_list_changed(list);
        }
        removed
    }
}
