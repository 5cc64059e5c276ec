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

mod carrier;
mod context;
mod dispatch;
mod handler;
mod legacy;
mod peer;
mod subscriptions;
pub mod uri_template;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

pub use context::RequestContext;
pub use dispatch::Reply;
pub use handler::{
    Completer, Handler, HandlerResult, InputRequired, Outcome, PromptDef, ResourceDef, ResourceEntry,
    ResourceTemplateDef, ToolDef,
};
pub use peer::{Inbound, NullPeer, Peer, Principal, Session};
pub use subscriptions::ListChange;
use tokio::sync::broadcast;

use crate::protocol::{CacheScope, CompleteParams, Completion, Implementation};
use crate::seal::{RequestStateSecurity, SealConfigError, Sealer};

type ServerCompleter = Arc<dyn Fn(&CompleteParams) -> Completion + Send + Sync>;

/// An MCP server. Cheap to clone; clones share one registry.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolDef>,
    tool_index: HashMap<String, usize>,
    prompts: Vec<PromptDef>,
    prompt_index: HashMap<String, usize>,
    resources: Vec<ResourceDef>,
    templates: Vec<ResourceTemplateDef>,
    completer: Option<ServerCompleter>,
    sealer: Arc<Sealer>,
    caching: Caching,
    changes: broadcast::Sender<ListChange>,
    legacy_max_rounds: usize,
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
            .field("tools", &self.inner.tools.len())
            .field("prompts", &self.inner.prompts.len())
            .field("resources", &self.inner.resources.len())
            .field("templates", &self.inner.templates.len())
            .finish_non_exhaustive()
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
        Self {
            inner: Arc::new(Inner {
                info: Implementation { name, version: version.into(), title: None },
                instructions: None,
                tools: Vec::new(),
                tool_index: HashMap::new(),
                prompts: Vec::new(),
                prompt_index: HashMap::new(),
                resources: Vec::new(),
                templates: Vec::new(),
                completer: None,
                sealer: Arc::new(sealer),
                caching: Caching::default(),
                changes,
                legacy_max_rounds: 10,
            }),
        }
    }

    fn inner_mut(&mut self) -> &mut Inner {
        Arc::make_mut(&mut self.inner)
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

    /// Register a tool; a later tool with the same name replaces the earlier one.
    pub fn tool(mut self, def: ToolDef) -> Self {
        let inner = self.inner_mut();
        match inner.tool_index.get(&def.tool.name) {
            Some(&i) => inner.tools[i] = def,
            None => {
                inner.tool_index.insert(def.tool.name.clone(), inner.tools.len());
                inner.tools.push(def);
            }
        }
        self
    }

    /// Register several tools.
    pub fn tools(self, defs: impl IntoIterator<Item = ToolDef>) -> Self {
        defs.into_iter().fold(self, Self::tool)
    }

    /// Register a prompt; a later prompt with the same name replaces the earlier one.
    pub fn prompt(mut self, def: PromptDef) -> Self {
        let inner = self.inner_mut();
        match inner.prompt_index.get(&def.prompt.name) {
            Some(&i) => inner.prompts[i] = def,
            None => {
                inner.prompt_index.insert(def.prompt.name.clone(), inner.prompts.len());
                inner.prompts.push(def);
            }
        }
        self
    }

    /// Register several prompts.
    pub fn prompts(self, defs: impl IntoIterator<Item = PromptDef>) -> Self {
        defs.into_iter().fold(self, Self::prompt)
    }

    /// Register a static resource.
    pub fn resource(mut self, def: ResourceDef) -> Self {
        self.inner_mut().resources.push(def);
        self
    }

    /// Register static resources and templates, e.g. from `resources![…]`.
    pub fn resources(self, entries: impl IntoIterator<Item = ResourceEntry>) -> Self {
        entries.into_iter().fold(self, |server, entry| match entry {
            ResourceEntry::Static(def) => server.resource(def),
            ResourceEntry::Template(def) => server.resource_template(def),
        })
    }

    /// Register a resource template.
    pub fn resource_template(mut self, def: ResourceTemplateDef) -> Self {
        self.inner_mut().templates.push(def);
        self
    }

    /// Answer `completion/complete` with `completer` (without one, no suggestions).
    pub fn completer(mut self, completer: impl Fn(&CompleteParams) -> Completion + Send + Sync + 'static) -> Self {
        self.inner_mut().completer = Some(Arc::new(completer));
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

    /// The most rounds a legacy session's back-channel runs for one request (default 10).
    pub fn legacy_max_rounds(mut self, rounds: usize) -> Self {
        self.inner_mut().legacy_max_rounds = rounds.max(1);
        self
    }

    /// Tell `subscriptions/listen` streams (and legacy sessions) that a list changed.
    pub fn notify_list_changed(&self, change: ListChange) {
        // No receiver is not an error: nobody is listening.
        let _ = self.inner.changes.send(change);
    }

    /// Receive list changes, e.g. to forward them to a legacy session.
    pub fn subscribe_changes(&self) -> broadcast::Receiver<ListChange> {
        self.inner.changes.subscribe()
    }

    /// The registered tools.
    pub fn tool_defs(&self) -> &[ToolDef] {
        &self.inner.tools
    }

    /// The registered prompts.
    pub fn prompt_defs(&self) -> &[PromptDef] {
        &self.inner.prompts
    }

    /// The registered static resources.
    pub fn resource_defs(&self) -> &[ResourceDef] {
        &self.inner.resources
    }

    /// The registered resource templates.
    pub fn resource_template_defs(&self) -> &[ResourceTemplateDef] {
        &self.inner.templates
    }
}
