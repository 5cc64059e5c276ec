//! The server: a registry of tools, prompts and resources, and the dispatch of JSON-RPC
//! requests for both protocol eras.
//!
//! ```
//! use roundtrip::Server;
//! use roundtrip::server::{Outcome, ToolDef};
//! use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
//!
//! let server = Server::new("hello-server", "1.0.0").tool(ToolDef::new(
//!     Tool::new("hello", empty_input_schema()),
//!     |_cx| async { Ok(Outcome::Complete(CallToolResult::text("Hello!"))) },
//! ));
//! assert_eq!(server.name(), "hello-server");
//! ```

mod bus;
mod carrier;
mod catalog;
mod check;
mod dispatch;
mod handler;
mod intercept;
mod legacy;
mod lists;
#[cfg(feature = "http")]
#[doc(hidden)]
pub mod marks;
mod mount;
mod peer;
mod per_caller;
mod rate;
mod result_json;
mod state;
mod strict_schema;
pub(crate) use strict_schema::optional_as_value;
mod subscriptions;
pub use roundtrip_wire::uri_template;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

pub use crate::request::{InputRequired, NullPeer, Peer, RequestContext, Session, Transport};
#[doc(hidden)]
pub use bus::{Bus, Inbox};
pub use catalog::Catalog;
pub use check::{CheckError, Problem};
#[doc(hidden)]
pub use dispatch::STORE_RETRY_AFTER_SECS;
// What a transport hands the server and gets back: plumbing of roundtrip's own transports.
#[doc(hidden)]
pub use dispatch::{Reply, ReplyMessage, Settled};
pub(crate) use handler::Handler;
pub use handler::{HandlerResult, Outcome, PromptDef, ResourceDef, ResourceEntry, ResourceTemplateDef, ToolDef};
pub use intercept::{Call, Interceptor};
#[cfg(feature = "http")]
#[doc(hidden)]
pub use marks::HeaderMark;
#[doc(hidden)]
pub use peer::Inbound;
pub use per_caller::PerCaller;
#[doc(hidden)]
pub use result_json::ResultJson;
#[doc(hidden)]
pub use state::StateNeed;
pub(crate) use state::States;
pub use subscriptions::ListChange;
use tokio::sync::broadcast;

use crate::protocol::{CacheScope, CompleteParams, Completion, Implementation};
use crate::seal::{MemoryReplayCache, ReplayCache, RequestStateSecurity, SealConfigError, Sealer};
use crate::task::{MemoryStore, TaskOptions, TaskStore, Tasks};

type ServerCompleter = Arc<dyn Fn(&CompleteParams) -> Completion + Send + Sync>;

/// An MCP server. Cheap to clone; clones share one registry.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

/// Where each registered name is, by name. For speed, hashed with FxHash (`rustc-hash`): every
/// call looks its name up, and SipHash costs several times more on a short name. Callers only
/// look names up; the keys are the server's own, so no caller can flood the table.
pub(crate) type NameIndex = HashMap<Arc<str>, usize, rustc_hash::FxBuildHasher>;

#[derive(Clone)]
struct Inner {
    info: Implementation,
    instructions: Option<String>,
    /// The tools, prompts, resources and templates, for every caller and per tenant; changed
    /// in place while the server serves ([`Server::add_tools`]).
    catalog: catalog::Live,
    completer: Option<ServerCompleter>,
    sealer: Arc<Sealer>,
    caching: Caching,
    changes: broadcast::Sender<ListChange>,
    legacy_max_rounds: usize,
    states: States,
    tasks: Tasks,
    replay: Arc<dyn ReplayCache>,
    #[cfg(feature = "skills")]
    skills: Option<crate::skills::Skills>,
    /// The `_meta` of every list result.
    list_meta: Option<crate::protocol::JsonObject>,
    /// Capabilities the application said the server does not offer.
    withheld: Vec<Capability>,
    /// The tools' schemas are written in the strict profile ([`Server::strict_schemas`]).
    strict_schemas: bool,
    /// How fast a caller may call each tool ([`Server::rate_limit`]).
    rates: rate::RateLimits,
    /// The application's interceptors, in order ([`Server::intercept`]).
    interceptors: intercept::Interceptors,
    /// What the server shares its changes with the fleet through ([`Server::bus`]).
    bus: Option<Arc<bus::Link>>,
}

/// A capability a server may decline to announce, whatever it registered
/// ([`Server::without`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Capability {
    /// `logging` (announced when some handler may log).
    Logging,
    /// `completions` (announced when some prompt or template completes its arguments).
    Completions,
    /// `resources.subscribe` (legacy sessions; announced when there are resources).
    ResourceSubscriptions,
    /// `listChanged` of tools, prompts and resources.
    ListChanged,
}

/// The items of a `#[toolset]` impl block, registered with [`Server::toolset`]. The
/// attribute implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a toolset",
    label = "not a toolset",
    note = "mark the impl block of its #[tool] methods `#[roundtrip::toolset]`: that impl registers them"
)]
pub trait Toolset: Send + Sync + 'static {
    /// Register the block's tools, prompts and resources (bound to this value) and the value
    /// as state.
    fn register(self: Arc<Self>, server: Server) -> Server;
}

/// A definition `Server::tools`, `prompts` or `resources` accepts (hidden: the lists'
/// plumbing; a definition is itself one).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a definition the server can register",
    label = "not a definition",
    note = "list declared fns with tools![f, g], prompts![p] or resources![r]; the fns themselves are not definitions"
)]
pub trait IntoDef<D> {
    /// The definition.
    fn into_def(self) -> D;
}

impl<D> IntoDef<D> for D {
    fn into_def(self) -> D {
        self
    }
}

/// Cache hints (2026-07-28) the server puts on list results and resource reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caching {
    /// `ttlMs` of `server/discover` and the list results.
    pub list_ttl_ms: u64,
    /// `cacheScope` of `server/discover` and the list results.
    pub list_scope: CacheScope,
    /// `ttlMs` of `resources/read` results.
    pub read_ttl_ms: u64,
    /// `cacheScope` of `resources/read` results.
    pub read_scope: CacheScope,
}

impl Default for Caching {
    fn default() -> Self {
        Self { list_ttl_ms: 60_000, list_scope: CacheScope::Public, read_ttl_ms: 0, read_scope: CacheScope::Private }
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("tools", &self.shared().tools.len())
            .field("prompts", &self.shared().prompts.len())
            .field("resources", &self.shared().resources.len())
            .field("templates", &self.shared().templates.len())
            .field("skills", &self.skill_count())
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    /// The server answering, e.g. to announce list changes (a clone: servers share one
    /// registry).
    pub fn server(&self) -> Server {
        self.server.clone()
    }
}

impl Server {
    /// A server with a name and version and nothing registered.
    ///
    /// `requestState` is sealed with a random key of this process until
    /// [`security`](Self::security) sets a policy.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        let name = name.into();
        let sealer = match Sealer::new(None, &name) {
            Ok(s) => s,
            // The default policy has no configuration that could be wrong.
            Err(e) => unreachable!("default sealing policy refused: {e}"),
        };
        let (changes, _) = broadcast::channel(64);
        let tasks = Tasks::new(Arc::new(MemoryStore::new()), TaskOptions::default(), &name);
        Self {
            inner: Arc::new(Inner {
                info: Implementation::new(name, version),
                instructions: None,
                catalog: catalog::Live::default(),
                completer: None,
                sealer: Arc::new(sealer),
                caching: Caching::default(),
                changes,
                legacy_max_rounds: 10,
                states: States::default(),
                tasks,
                replay: Arc::new(MemoryReplayCache::new()),
                #[cfg(feature = "skills")]
                skills: None,
                list_meta: None,
                withheld: Vec::new(),
                strict_schemas: false,
                rates: rate::RateLimits::default(),
                interceptors: intercept::Interceptors::default(),
                bus: None,
            }),
        }
    }

    fn inner_mut(&mut self) -> &mut Inner {
        Arc::make_mut(&mut self.inner)
    }

    /// The catalog every caller sees (a tenant's callers see more: [`Server::catalog`]).
    pub(crate) fn shared(&self) -> Arc<Catalog> {
        self.inner.catalog.shared()
    }

    /// A tool as the server keeps it: its header marks found afresh (the schema may have
    /// changed since: `tool` is a public field), its schemas in the strict profile when the
    /// server writes them so.
    fn prepared(&self, def: ToolDef) -> ToolDef {
        #[cfg(feature = "http")]
        let mut def = ToolDef { header_marks: std::sync::OnceLock::new(), ..def };
        #[cfg(not(feature = "http"))]
        let mut def = def;
        if self.inner.strict_schemas {
            strict_schema::apply(&mut def.tool);
        }
        def
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.inner.info.name
    }

    /// The server's self-description.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// A display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.inner_mut().info.title = Some(title.into());
        self
    }

    /// Instructions for the client's model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.inner_mut().instructions = Some(instructions.into());
        self
    }

    /// Register a tool; a later tool with the same name replaces the earlier one. A view the
    /// tool brings (`#[tool(ui = VIEW)]`) is registered with it, unless a resource with its
    /// URI already is.
    pub fn tool(mut self, def: ToolDef) -> Self {
        let def = self.prepared(def);
        self.inner_mut().catalog.edit_mut(|catalog| catalog.put_tool_and_view(def));
        self
    }

    /// Register several tools, e.g. from `tools![…]` or a `#[toolset]`'s `tools()`.
    pub fn tools<D: IntoDef<ToolDef>>(self, defs: impl IntoIterator<Item = D>) -> Self {
        defs.into_iter().map(IntoDef::into_def).fold(self, Self::tool)
    }

    /// Register everything a `#[toolset]` impl block declares (tools, prompts, resources),
    /// each bound to `value`, and `value` itself as [`State`](crate::declare::State).
    pub fn toolset<T: Toolset>(self, value: Arc<T>) -> Self {
        value.register(self)
    }

    /// Register a prompt; a later prompt with the same name replaces the earlier one.
    pub fn prompt(mut self, def: PromptDef) -> Self {
        self.inner_mut().catalog.edit_mut(|catalog| catalog.put_prompt(def));
        self
    }

    /// Register several prompts, e.g. from `prompts![…]`.
    pub fn prompts<D: IntoDef<PromptDef>>(self, defs: impl IntoIterator<Item = D>) -> Self {
        defs.into_iter().map(IntoDef::into_def).fold(self, Self::prompt)
    }

    /// Register a static resource; a later resource with the same URI replaces the earlier
    /// one.
    pub fn resource(mut self, def: ResourceDef) -> Self {
        self.inner_mut().catalog.edit_mut(|catalog| catalog.put_resource(def));
        self
    }

    /// Register static resources and templates, e.g. from `resources![…]`.
    pub fn resources<D: IntoDef<ResourceEntry>>(self, entries: impl IntoIterator<Item = D>) -> Self {
        entries.into_iter().map(IntoDef::into_def).fold(self, |server, entry| match entry {
            ResourceEntry::Static(def) => server.resource(def),
            ResourceEntry::Template(def) => server.resource_template(def),
        })
    }

    /// Serve these skills (the `io.modelcontextprotocol/skills` extension, cargo feature
    /// `skills`): `skills/list`, `skills/get`, `resources/directory/read`, and every file by
    /// `resources/read`; each `SKILL.md` is also listed by `resources/list`. A later call
    /// replaces the set. See [`crate::skills`].
    #[cfg(feature = "skills")]
    pub fn skills(mut self, skills: crate::skills::Skills) -> Self {
        self.inner_mut().skills = Some(skills);
        self
    }

    /// The skills this server serves.
    #[cfg(feature = "skills")]
    pub fn skill_set(&self) -> Option<&crate::skills::Skills> {
        self.inner.skills.as_ref().filter(|s| !s.is_empty())
    }

    /// Register a resource template.
    pub fn resource_template(mut self, def: ResourceTemplateDef) -> Self {
        self.inner_mut().catalog.edit_mut(|catalog| catalog.templates.push(def));
        self
    }

    /// Answer `completion/complete` with `completer` (without one, no suggestions).
    pub fn completer(mut self, completer: impl Fn(&CompleteParams) -> Completion + Send + Sync + 'static) -> Self {
        self.inner_mut().completer = Some(Arc::new(completer));
        self
    }

    /// Write the tools' input and output schemas in the strict profile, for hosts whose model
    /// API refuses `$ref`, `type` lists or `anyOf` for an optional value: those registered
    /// already and those registered later. An optional value is written as its value's schema
    /// (whether it may be left out is the object's `required`), a local reference as its
    /// definition; a schema that cannot be written so (a recursive type, a value of two JSON
    /// types) stops the server at [`check`](Self::check), naming the tool and the place.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    /// use serde_json::json;
    ///
    /// /// Open a ticket.
    /// #[tool]
    /// async fn open(title: String, note: Option<String>) -> String {
    ///     format!("{title}: {}", note.unwrap_or_default())
    /// }
    ///
    /// let server = Server::new("tickets", "1.0.0").tools(tools![open]).strict_schemas();
    /// assert_eq!(server.tool_defs()[0].tool.input_schema["properties"]["note"]["type"], "string");
    /// assert!(server.check().is_ok());
    /// ```
    pub fn strict_schemas(mut self) -> Self {
        let inner = self.inner_mut();
        inner.strict_schemas = true;
        inner.catalog.edit_mut(|catalog| catalog.tools.iter_mut().for_each(|def| strict_schema::apply(&mut def.tool)));
        self
    }

    /// Let each caller call each tool at most `calls` times per `per` (a token bucket per
    /// caller and tool: up to `calls` at once, then one per `per / calls`). A call over it is
    /// refused with `-32000`, `data.limit` `"tool_rate"` and `data.retryAfterMs` saying when
    /// the caller's next call will be taken, and counted in the `limit` metric. The caller is
    /// [`RequestContext::caller`]'s: the authenticated principal, else the client's address;
    /// the one client of stdio is one caller. Every leg of a multi-round flow is a call: allow
    /// for the longest flow's legs in `calls`. Counted in each replica apart (behind a
    /// balancer over `n` replicas, up to `n` times the rate). A tool's own rate
    /// ([`tool_rate_limit`](Self::tool_rate_limit)) replaces this one for it. `calls` of `0`
    /// is taken as `1`; a `per` of zero sets no limit.
    ///
    /// ```
    /// use std::time::Duration;
    /// use roundtrip::prelude::*;
    ///
    /// /// Run an expensive report.
    /// #[tool(read_only)]
    /// async fn report() -> &'static str {
    ///     "done"
    /// }
    ///
    /// let server = Server::new("reports", "1.0.0")
    ///     .tools(tools![report])
    ///     .rate_limit(60, Duration::from_secs(60))
    ///     .tool_rate_limit("report", 2, Duration::from_secs(60));
    /// ```
    pub fn rate_limit(mut self, calls: u32, per: std::time::Duration) -> Self {
        self.inner_mut().rates.every_tool = rate::Rate::new(calls, per);
        self
    }

    /// Run `interceptor` around every request, on every transport, after the ones registered
    /// before it: it sees each request with its caller, method, target and (for a leg of a
    /// multi-round flow) the flow and round, may refuse or annotate it, and sees how it ended.
    /// See [`Interceptor`] for an example.
    ///
    /// A server with no interceptor pays nothing for them. With one, each request allocates
    /// its [`Call`] and each leg of a multi-round flow carries its flow in its sealed
    /// `requestState` (also a round whose handler kept no state: it gets one that carries the
    /// flow alone).
    pub fn intercept(mut self, interceptor: impl Interceptor) -> Self {
        self.inner_mut().interceptors.push(interceptor);
        self
    }

    /// The request's way past the interceptors, when there are any.
    pub(crate) fn gate(&self, request: &crate::protocol::Request, inbound: &Inbound) -> Option<Arc<intercept::Gate>> {
        let interceptors = &self.inner.interceptors;
        if interceptors.is_empty() {
            return None;
        }
        // `name` may have been taken out of `params` by the transport: `Taken::param` looks in both.
        let named = |key| inbound.taken.param(request.params.as_ref(), key).and_then(serde_json::Value::as_str);
        let target = named("name").or_else(|| named("uri")).or_else(|| named("taskId"));
        Some(intercept::Gate::new(
            interceptors.clone(),
            intercept::Arrival {
                method: &request.method,
                target,
                caller: inbound.auth.clone(),
                client_addr: inbound.client_addr,
                transport: inbound.transport,
            },
        ))
    }

    /// Let each caller call the tool `name` at most `calls` times per `per`, in place of
    /// [`rate_limit`](Self::rate_limit)'s rate (see there).
    pub fn tool_rate_limit(mut self, name: impl Into<String>, calls: u32, per: std::time::Duration) -> Self {
        let name = name.into();
        match rate::Rate::new(calls, per) {
            Some(rate) => self.inner_mut().rates.by_tool.insert(name, rate),
            None => self.inner_mut().rates.by_tool.remove(&name),
        };
        self
    }

    /// Set the cache hints.
    pub fn caching(mut self, caching: Caching) -> Self {
        self.inner_mut().caching = caching;
        self
    }

    /// Seal `requestState` with this policy (shared keys, TTL, audience, principal binding).
    ///
    /// Fails when the policy cannot be used with this server, e.g. when the server has no
    /// real name and the policy sets no audience.
    pub fn security(mut self, policy: RequestStateSecurity) -> Result<Self, SealConfigError> {
        let sealer = Sealer::new(Some(policy), &self.inner.info.name)?;
        self.inner_mut().sealer = Arc::new(sealer);
        Ok(self)
    }

    /// Remember used states of `#[tool(single_use)]` tools in `cache` (default: in memory,
    /// this process only). Replicas that share one (Redis) refuse a state replayed on any of
    /// them.
    pub fn replay_cache(mut self, cache: impl ReplayCache) -> Self {
        self.inner_mut().replay = Arc::new(cache);
        self
    }

    pub(crate) fn replay(&self) -> &dyn ReplayCache {
        &*self.inner.replay
    }

    /// Keep tasks in `store` (default: in memory, this process only). Replicas that share a
    /// store answer `tasks/get`, `tasks/update` and `tasks/cancel` for each other's tasks.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        let tasks = self.inner.tasks.with_store(Arc::new(store));
        self.inner_mut().tasks = tasks;
        self
    }

    /// Read the time, in Unix milliseconds, from `now_ms` instead of the system clock: task
    /// records, leases and the expiry given to the replay cache (tests only: a deterministic
    /// simulation's clock, skewed per replica; the sealed state's clock is
    /// `RequestStateSecurity::clock`).
    #[doc(hidden)]
    pub fn clock(mut self, now_ms: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.inner_mut().tasks.set_clock(Arc::new(now_ms));
        self
    }

    /// Once `halt` is cancelled, every task body, runner and watcher of this server is dropped
    /// at its current await and nothing more is written, as if its process died (tests only: a
    /// simulated crash; the requests in flight are the caller's to drop).
    #[doc(hidden)]
    pub fn halt_on(mut self, halt: tokio_util::sync::CancellationToken) -> Self {
        self.inner_mut().tasks.set_halt(halt);
        self
    }

    /// How long tasks live and how often clients should poll.
    pub fn task_options(mut self, options: TaskOptions) -> Self {
        self.inner_mut().tasks.options = options;
        self
    }

    #[doc(hidden)]
    pub fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// Wait until the task bodies running in this process end, or `within` passed (for a
    /// graceful shutdown: stop taking requests first); how many still run. A task left
    /// running reads `failed` once its lease runs out.
    pub async fn drain_tasks(&self, within: std::time::Duration) -> usize {
        self.inner.tasks.drain(within).await
    }

    /// Put `meta` in the `_meta` of every list result (`tools/list`, `prompts/list`,
    /// `resources/list`, `resources/templates/list`).
    pub fn list_meta(mut self, meta: crate::protocol::JsonObject) -> Self {
        self.inner_mut().list_meta = Some(meta);
        self
    }

    /// Do not announce `capability`, whatever is registered: the server's capabilities are
    /// otherwise derived from what it has (tools, prompts, resources, completers, handlers
    /// that may log, the tasks extension).
    pub fn without(mut self, capability: Capability) -> Self {
        self.inner_mut().withheld.push(capability);
        self
    }

    pub(crate) fn withholds(&self, capability: Capability) -> bool {
        self.inner.withheld.contains(&capability)
    }

    /// Whether some handler may send log notifications: a manual one, or a declared fn that
    /// takes the request context.
    pub(crate) fn may_log(&self) -> bool {
        let catalog = self.shared();
        catalog.tools.iter().any(|d| d.logs)
            || catalog.prompts.iter().any(|d| d.logs)
            || catalog.resources.iter().any(|d| d.logs)
            || catalog.templates.iter().any(|d| d.logs)
    }

    pub(crate) fn list_meta_value(&self) -> Option<crate::protocol::JsonObject> {
        self.inner.list_meta.clone()
    }

    /// Whether the server is ready to serve all it offers: its task store answers now
    /// ([`TaskStore::ready`]; the in-memory default always does, `RedisStore` answers a `PING`
    /// within a second), within [`TaskOptions::store_timeout`], and its [`bus`](Self::bus), if
    /// it has one, delivers. For readiness probes: a replica whose store is away still serves
    /// what needs none (its multi-round flows), but answers `503` to what does, and one whose
    /// bus is down misses the fleet's changes, so a balancer that can should send its traffic
    /// elsewhere meanwhile.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let server = roundtrip::Server::new("demo", "1.0.0");
    /// assert!(server.ready().await.is_ok());
    /// # }
    /// ```
    pub async fn ready(&self) -> Result<(), crate::task::StoreError> {
        self.attach_bus();
        if let Some(link) = &self.inner.bus
            && !link.is_up()
        {
            return Err(crate::task::StoreError::new("the fleet's bus delivers no events"));
        }
        self.inner.tasks.ready().await
    }

    /// Whether any tool may run as a task (the server then offers the tasks extension).
    pub(crate) fn offers_tasks(&self) -> bool {
        self.shared().tools.iter().any(|t| t.tool.task_support() != crate::protocol::TaskSupport::Forbidden)
    }

    /// The caller's identity, when it has one: what sealed state and tasks are bound to.
    pub(crate) fn owner(&self, inbound: &Inbound) -> Option<String> {
        inbound.identity()
    }

    /// The most rounds a legacy session's back-channel runs for one request (default 10).
    pub fn legacy_max_rounds(mut self, rounds: usize) -> Self {
        self.inner_mut().legacy_max_rounds = rounds.max(1);
        self
    }

    /// Register server-wide state: every declared fn, check or `with` fn that takes a
    /// [`State<T>`](crate::declare::State) parameter receives this value. One value per type; a later
    /// one replaces it.
    pub fn state<T: std::any::Any + Send + Sync>(mut self, value: Arc<T>) -> Self {
        self.inner_mut().states.insert(value);
        self
    }

    /// The registered state of type `T`.
    pub fn state_of<T: std::any::Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.inner.states.get::<T>()
    }

    /// Check what can only be checked once everything is registered: every `State<T>` a
    /// declaration takes is registered, and every view a tool links to (MCP Apps
    /// `_meta.ui.resourceUri`) is a registered view. The serving entry points (`serve_stdio`,
    /// `serve_http`, `bind_http`, `router`, the in-memory transport) run this check once and
    /// refuse to start on the first problem, which the error names.
    pub fn check(&self) -> Result<(), CheckError> {
        check::check(self)
    }

    /// [`check`](Self::check) as an I/O error, for the entry points that return one.
    #[doc(hidden)]
    pub fn check_io(&self) -> std::io::Result<()> {
        self.check().map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))
    }

    /// Tell `subscriptions/listen` streams (and legacy sessions) that a list changed, on
    /// every replica when the server has a [`bus`](Self::bus).
    pub fn notify_list_changed(&self, change: ListChange) {
        self.announce_here(change.clone());
        self.publish_change(&change);
    }

    /// Tell the legacy sessions that subscribed to `uri` (`resources/subscribe`) that the
    /// resource changed (`notifications/resources/updated`, over stdio and on the standalone
    /// GET stream of HTTP sessions), on every replica when the server has a
    /// [`bus`](Self::bus).
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.notify_list_changed(ListChange::ResourceUpdated(uri.into()));
    }

    /// Tell this replica's streams and sessions of a change.
    pub(crate) fn announce_here(&self, change: ListChange) {
        // No receiver is not an error: nobody is listening.
        let _ = self.inner.changes.send(change);
    }

    /// Receive list changes, e.g. to forward them to a legacy session.
    pub fn subscribe_changes(&self) -> broadcast::Receiver<ListChange> {
        self.inner.changes.subscribe()
    }

    /// How many skills the server serves.
    pub(crate) fn skill_count(&self) -> usize {
        #[cfg(feature = "skills")]
        return self.skill_set().map_or(0, crate::skills::Skills::len);
        #[cfg(not(feature = "skills"))]
        0
    }

    /// The tools registered for every caller, now.
    pub fn tool_defs(&self) -> Vec<ToolDef> {
        self.shared().tools.clone()
    }

    /// The tool `name`, as every caller sees it.
    #[doc(hidden)]
    pub fn tool_def(&self, name: &str) -> Option<ToolDef> {
        self.shared().tool(name).cloned()
    }

    /// The prompts registered for every caller, now.
    pub fn prompt_defs(&self) -> Vec<PromptDef> {
        self.shared().prompts.clone()
    }

    /// The static resources registered for every caller, now.
    pub fn resource_defs(&self) -> Vec<ResourceDef> {
        self.shared().resources.clone()
    }

    /// Whether the server has a view (MCP Apps): it then declares the extension, and serves
    /// the tools' links to their views to clients that host views.
    pub fn offers_apps(&self) -> bool {
        let catalog = self.shared();
        *catalog.lists.apps.get_or_init(|| catalog.resources.iter().any(ResourceDef::is_view))
    }

    /// The resource templates registered for every caller, now.
    pub fn resource_template_defs(&self) -> Vec<ResourceTemplateDef> {
        self.shared().templates.clone()
    }
}
