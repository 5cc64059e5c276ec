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
use serde::{Deserialize, Serialize};

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

    fn remove_tool(&mut self, name: &str) -> Option<ToolDef> {
        remove(&mut self.tools, &mut self.tool_index, name, |d| &d.tool.name)
    }

    /// Add `def`, or replace the prompt of its name.
    pub(crate) fn put_prompt(&mut self, def: PromptDef) {
        put(&mut self.prompts, &mut self.prompt_index, def, |d| &d.prompt.name);
    }

    fn remove_prompt(&mut self, name: &str) -> Option<PromptDef> {
        remove(&mut self.prompts, &mut self.prompt_index, name, |d| &d.prompt.name)
    }

    /// Add `def`, or replace the resource of its URI.
    pub(crate) fn put_resource(&mut self, def: ResourceDef) {
        match self.resources.iter_mut().find(|r| r.resource.uri == def.resource.uri) {
            Some(earlier) => *earlier = def,
            None => self.resources.push(def),
        }
    }

    /// Remove the resource of `uri`, or else the template written `uri`.
    fn remove_resource(&mut self, uri: &str) -> Option<ResourceEntry> {
        if let Some(i) = self.resources.iter().position(|d| d.resource.uri == uri) {
            return Some(ResourceEntry::Static(self.resources.remove(i)));
        }
        let i = self.templates.iter().position(|d| d.template.uri_template == uri)?;
        Some(ResourceEntry::Template(self.templates.remove(i)))
    }

    /// Whether the catalog has the `kind` of definition `name` (a resource or template by
    /// its URI).
    fn has(&self, kind: Kind, name: &str) -> bool {
        match kind {
            Kind::Tool => self.tool(name).is_some(),
            Kind::Prompt => self.prompt(name).is_some(),
            Kind::Resource => self.has_resource(name) || self.has_template(name),
        }
    }

    /// Whether a static resource is at `uri`.
    pub(crate) fn has_resource(&self, uri: &str) -> bool {
        self.resources.iter().any(|r| r.resource.uri == uri)
    }

    /// Whether a template is written `uri_template`.
    pub(crate) fn has_template(&self, uri_template: &str) -> bool {
        self.templates.iter().any(|t| t.template.uri_template == uri_template)
    }

    /// Add a tool and the view it brings, unless a resource of that URI is there already.
    pub(crate) fn put_tool_and_view(&mut self, mut def: ToolDef) {
        if let Some(view) = def.bundled_view.take()
            && !self.has_resource(&view.resource.uri)
        {
            self.put_resource(*view);
        }
        self.put_tool(def);
    }

    fn put_entry(&mut self, entry: ResourceEntry) {
        match entry {
            ResourceEntry::Static(def) => self.put_resource(def),
            ResourceEntry::Template(def) => self.templates.push(def),
        }
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

/// Remove the definition named `gone` from `defs`, and index what is left again.
fn remove<D>(defs: &mut Vec<D>, index: &mut NameIndex, gone: &str, name: impl Fn(&D) -> &String) -> Option<D> {
    let removed = defs.remove(*index.get(gone)?);
    *index = defs.iter().enumerate().map(|(i, d)| (Arc::from(name(d).as_str()), i)).collect();
    Some(removed)
}

/// What a run-time registration adds or removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    /// The kind whose list `change` says changed (none for a resource's update).
    pub(crate) fn listed_in(change: &ListChange) -> Option<Self> {
        match change {
            ListChange::Tools => Some(Self::Tool),
            ListChange::Prompts => Some(Self::Prompt),
            ListChange::Resources => Some(Self::Resource),
            ListChange::ResourceUpdated(_) => None,
        }
    }

    /// The list it changes.
    pub(crate) fn list(self) -> ListChange {
        match self {
            Self::Tool => ListChange::Tools,
            Self::Prompt => ListChange::Prompts,
            Self::Resource => ListChange::Resources,
        }
    }
}

/// A run-time registration as replicas tell each other of it: which definition, by name (a
/// resource's URI), was added or removed, for every caller or for one tenant.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Registration {
    kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tenant: Option<String>,
    name: String,
    /// Added (`true`) or removed.
    on: bool,
}

impl Registration {
    /// Whose latest registration this is: the definition's, for one tenant or for all.
    pub(crate) fn key(&self) -> String {
        serde_json::json!([self.kind, self.tenant, self.name]).to_string()
    }
}

/// The definitions a replica can put back when another replica registers one by name: those
/// it was built to hold ([`Server::standby_tools`]…), and each it added or removed while
/// serving.
#[derive(Clone, Default)]
pub(crate) struct Standby {
    tools: HashMap<String, ToolDef>,
    prompts: HashMap<String, PromptDef>,
    resources: HashMap<String, ResourceEntry>,
}

impl Standby {
    fn keep_tool(&mut self, def: &ToolDef) {
        self.tools.insert(def.tool.name.clone(), def.clone());
    }

    fn keep_prompt(&mut self, def: &PromptDef) {
        self.prompts.insert(def.prompt.name.clone(), def.clone());
    }

    fn keep_entry(&mut self, entry: &ResourceEntry) {
        self.resources.insert(entry_key(entry).to_owned(), entry.clone());
    }

    /// Remove `kind` `name` from `catalog`, keeping it here; whether there was one.
    fn take(&mut self, catalog: &mut Catalog, kind: Kind, name: &str) -> bool {
        match kind {
            Kind::Tool => catalog.remove_tool(name).map(|d| self.keep_tool(&d)).is_some(),
            Kind::Prompt => catalog.remove_prompt(name).map(|d| self.keep_prompt(&d)).is_some(),
            Kind::Resource => catalog.remove_resource(name).map(|e| self.keep_entry(&e)).is_some(),
        }
    }

    /// Put `kind` `name` back into `catalog` (`prepare` readies a tool); whether it was put
    /// back: not when the catalog has it already, nor when none is held here (logged).
    fn put_back(
        &self,
        catalog: &mut Catalog,
        kind: Kind,
        name: &str,
        prepare: impl FnOnce(ToolDef) -> ToolDef,
    ) -> bool {
        if catalog.has(kind, name) {
            return false;
        }
        let held = match kind {
            Kind::Tool => self.tools.get(name).map(|d| catalog.put_tool_and_view(prepare(d.clone()))),
            Kind::Prompt => self.prompts.get(name).map(|d| catalog.put_prompt(d.clone())),
            Kind::Resource => self.resources.get(name).map(|e| catalog.put_entry(e.clone())),
        };
        if held.is_none() {
            crate::observe::bus("unheld");
            tracing::warn!(
                target: "roundtrip::bus",
                "another replica registered the {kind:?} `{name}`, which this one does not hold: build every \
                 replica with what may be registered at run time (Server::standby_tools, standby_prompts, \
                 standby_resources)"
            );
        }
        held.is_some()
    }
}

/// The name a resource entry is registered by: its URI, or its template's.
fn entry_key(entry: &ResourceEntry) -> &str {
    match entry {
        ResourceEntry::Static(def) => &def.resource.uri,
        ResourceEntry::Template(def) => &def.template.uri_template,
    }
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
    /// it), with the definitions this replica can put back; requests never take it.
    writer: Mutex<Standby>,
}

impl Default for Live {
    fn default() -> Self {
        Self { registry: ArcSwap::from_pointee(Registry::default()), tenant_of: None, writer: Mutex::default() }
    }
}

impl Clone for Live {
    /// A server being built is copied with what it has at that moment.
    fn clone(&self) -> Self {
        Self {
            registry: ArcSwap::new(self.registry.load_full()),
            tenant_of: self.tenant_of.clone(),
            writer: Mutex::new(self.writer.lock().map(|s| s.clone()).unwrap_or_default()),
        }
    }
}

impl Live {
    /// The shared catalog, now.
    pub(crate) fn shared(&self) -> Arc<Catalog> {
        Arc::clone(&self.registry.load().shared)
    }

    /// Whether the server holds definitions of `kind` it may put back while serving: it may
    /// offer them then ([`Server::standby_tools`]).
    pub(crate) fn holds(&self, kind: Kind) -> bool {
        let standby = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match kind {
            Kind::Tool => !standby.tools.is_empty(),
            Kind::Prompt => !standby.prompts.is_empty(),
            Kind::Resource => !standby.resources.is_empty(),
        }
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

    /// The definitions of a server being built that it can put back.
    pub(crate) fn standby_mut(&mut self) -> &mut Standby {
        self.writer.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Change the catalog of `tenant` (`None`: the shared one) while serving: a copy is
    /// changed, then `check`ed as each tenant's callers will see it, then stored, unless
    /// either fails. Whether the change changed anything.
    fn edit<E>(
        &self,
        tenant: Option<&str>,
        change: impl FnOnce(&mut Catalog, &mut Standby) -> bool,
        check: impl Fn(&Catalog) -> Result<(), E>,
    ) -> Result<bool, E> {
        let mut standby = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut registry = Registry::clone(&self.registry.load());
        let mut next = standby.clone();
        let changed = match tenant {
            None => change(Arc::make_mut(&mut registry.shared), &mut next),
            Some(tenant) => change(registry.own.entry(tenant.to_owned()).or_default(), &mut next),
        };
        if !changed {
            return Ok(false);
        }
        registry.merge();
        check(&registry.shared)?;
        registry.merged.values().try_for_each(|c| check(c))?;
        self.registry.store(Arc::new(registry));
        *standby = next;
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
        let defs = defs.into_iter().map(|d| self.prepared(d.into_def())).collect();
        self.add(
            tenant,
            Kind::Tool,
            defs,
            |d| &d.tool.name,
            |catalog, standby, def| {
                standby.keep_tool(&def);
                catalog.put_tool_and_view(def);
            },
        )
    }

    /// Remove the tool `name` while serving; `false` if there was none. A call of it from
    /// then on, also the next leg of a flow it began (whose state is refused with it), is
    /// answered `Unknown tool`.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove(None, Kind::Tool, name)
    }

    /// Remove the tool `name` of `tenant`'s own; `false` if it had none.
    pub fn remove_tool_for(&self, tenant: &str, name: &str) -> bool {
        self.remove(Some(tenant), Kind::Tool, name)
    }

    /// Add prompts while serving (or replace those of the same names), for every caller;
    /// checked as [`add_tools`](Self::add_tools) checks tools.
    pub fn add_prompts<D: IntoDef<PromptDef>>(&self, defs: impl IntoIterator<Item = D>) -> Result<(), CheckError> {
        self.add_prompts_to(None, defs)
    }

    /// Add prompts for the callers of `tenant` only, as [`add_tools_for`](Self::add_tools_for)
    /// adds tools.
    pub fn add_prompts_for<D: IntoDef<PromptDef>>(
        &self,
        tenant: &str,
        defs: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        self.add_prompts_to(Some(tenant), defs)
    }

    fn add_prompts_to<D: IntoDef<PromptDef>>(
        &self,
        tenant: Option<&str>,
        defs: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        let defs = defs.into_iter().map(IntoDef::into_def).collect();
        self.add(
            tenant,
            Kind::Prompt,
            defs,
            |d| &d.prompt.name,
            |catalog, standby, def| {
                standby.keep_prompt(&def);
                catalog.put_prompt(def);
            },
        )
    }

    /// Remove the prompt `name` while serving; `false` if there was none.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove(None, Kind::Prompt, name)
    }

    /// Remove the prompt `name` of `tenant`'s own; `false` if it had none.
    pub fn remove_prompt_for(&self, tenant: &str, name: &str) -> bool {
        self.remove(Some(tenant), Kind::Prompt, name)
    }

    /// Add resources and templates while serving, for every caller; checked as
    /// [`add_tools`](Self::add_tools) checks tools.
    pub fn add_resources<D: IntoDef<ResourceEntry>>(
        &self,
        entries: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        self.add_resources_to(None, entries)
    }

    /// Add resources and templates for the callers of `tenant` only, as
    /// [`add_tools_for`](Self::add_tools_for) adds tools.
    pub fn add_resources_for<D: IntoDef<ResourceEntry>>(
        &self,
        tenant: &str,
        entries: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        self.add_resources_to(Some(tenant), entries)
    }

    fn add_resources_to<D: IntoDef<ResourceEntry>>(
        &self,
        tenant: Option<&str>,
        entries: impl IntoIterator<Item = D>,
    ) -> Result<(), CheckError> {
        let entries = entries.into_iter().map(IntoDef::into_def).collect();
        self.add(tenant, Kind::Resource, entries, entry_key, |catalog, standby, entry| {
            standby.keep_entry(&entry);
            catalog.put_entry(entry);
        })
    }

    /// Add `defs` of `kind` (named by `name`) to `tenant`'s catalog or the shared one with
    /// `put`, checked as a whole; tell this replica's streams and the fleet.
    fn add<D>(
        &self,
        tenant: Option<&str>,
        kind: Kind,
        defs: Vec<D>,
        name: fn(&D) -> &str,
        put: impl Fn(&mut Catalog, &mut Standby, D),
    ) -> Result<(), CheckError> {
        let names: Vec<String> = defs.iter().map(|d| name(d).to_owned()).collect();
        let add = |catalog: &mut Catalog, standby: &mut Standby| {
            defs.into_iter().for_each(|def| put(catalog, standby, def));
            true
        };
        self.inner.catalog.edit(tenant, add, |catalog| super::check::check_catalog(self, catalog))?;
        self.registered(kind, tenant, names, true);
        Ok(())
    }

    /// Remove the resource of `uri` (or the template written `uri`) while serving; `false` if
    /// there was none.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove(None, Kind::Resource, uri)
    }

    /// Remove the resource of `uri` (or the template written `uri`) of `tenant`'s own; `false`
    /// if it had none.
    pub fn remove_resource_for(&self, tenant: &str, uri: &str) -> bool {
        self.remove(Some(tenant), Kind::Resource, uri)
    }

    /// Hold these tools, unlisted, for when a replica of the fleet registers one of them at
    /// run time ([`bus`](Self::bus)): it is registered by name, and each replica puts back
    /// the definition it holds. A tool added or removed while serving is held too.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    ///
    /// /// The quarterly report, offered while the quarter closes.
    /// #[tool(read_only)]
    /// async fn quarterly() -> &'static str {
    ///     "q3"
    /// }
    ///
    /// // Every replica is built the same way; any of them may then `add_tools(tools![quarterly])`.
    /// let server = Server::new("finance", "1.0.0").standby_tools(tools![quarterly]);
    /// assert!(server.tool_defs().is_empty(), "held, not offered");
    /// ```
    pub fn standby_tools<D: IntoDef<ToolDef>>(mut self, defs: impl IntoIterator<Item = D>) -> Self {
        let standby = self.inner_mut().catalog.standby_mut();
        defs.into_iter().for_each(|d| standby.keep_tool(&d.into_def()));
        self
    }

    /// Hold these prompts for run-time registration by another replica, as
    /// [`standby_tools`](Self::standby_tools) holds tools.
    pub fn standby_prompts<D: IntoDef<PromptDef>>(mut self, defs: impl IntoIterator<Item = D>) -> Self {
        let standby = self.inner_mut().catalog.standby_mut();
        defs.into_iter().for_each(|d| standby.keep_prompt(&d.into_def()));
        self
    }

    /// Hold these resources and templates for run-time registration by another replica, as
    /// [`standby_tools`](Self::standby_tools) holds tools.
    pub fn standby_resources<D: IntoDef<ResourceEntry>>(mut self, entries: impl IntoIterator<Item = D>) -> Self {
        let standby = self.inner_mut().catalog.standby_mut();
        entries.into_iter().for_each(|e| standby.keep_entry(&e.into_def()));
        self
    }

    /// Remove `kind` `name` (of `tenant`'s own, or shared) while serving, and say so when
    /// there was one.
    fn remove(&self, tenant: Option<&str>, kind: Kind, name: &str) -> bool {
        let take = |catalog: &mut Catalog, standby: &mut Standby| standby.take(catalog, kind, name);
        let removed = self.inner.catalog.edit(tenant, take, |_| Ok::<(), std::convert::Infallible>(()));
        let removed = removed.unwrap_or_else(|never| match never {});
        if removed {
            self.registered(kind, tenant, vec![name.to_owned()], false);
        }
        removed
    }

    /// Tell this replica's streams of a registration made here, and the fleet.
    fn registered(&self, kind: Kind, tenant: Option<&str>, names: Vec<String>, on: bool) {
        self.announce_here(kind.list());
        for name in names {
            self.publish_registration(Registration { kind, tenant: tenant.map(str::to_owned), name, on });
        }
    }

    /// Make a registration another replica made (told of it by the fleet's bus), with the
    /// definitions held here; this replica's streams are told when it changed something.
    pub(crate) fn apply(&self, registration: Registration) {
        let Registration { kind, tenant, name, on } = registration;
        let change = |catalog: &mut Catalog, standby: &mut Standby| match on {
            true => standby.put_back(catalog, kind, &name, |def| self.prepared(def)),
            false => standby.take(catalog, kind, &name),
        };
        match self.inner.catalog.edit(tenant.as_deref(), change, |catalog| super::check::check_catalog(self, catalog)) {
            Ok(true) => self.announce_here(kind.list()),
            Ok(false) => {}
            Err(e) => tracing::warn!(target: "roundtrip::bus", "another replica registered what this one refuses: {e}"),
        }
    }
}
