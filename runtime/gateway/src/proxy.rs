//! An upstream server as a mounted part: its lists read once, a definition for each item that
//! relays to it, and its list changes followed while the gateway serves.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use roundtrip_client::{Client, ClientError};
use roundtrip_core::server::{PromptDef, ResourceDef, ResourceEntry, ResourceTemplateDef, Server, ToolDef};
use roundtrip_wire::{
    Implementation, JsonObject, Notification, Prompt, ProtocolVersion, Resource, ResourceTemplate, Tool,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::GatewayError;
use crate::hold::Holds;
use crate::pool::Pool;
use crate::relay::Relay;
use crate::route::Route;
use crate::skills::{self, SkillFiles};
use crate::upstream::Upstream;

/// A connected upstream, ready to mount into a gateway's [`Server`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use roundtrip::prelude::*;
/// use roundtrip_gateway::{Proxy, Upstream};
///
/// /// Open an issue, after the user confirms.
/// #[tool]
/// async fn open(title: String, #[resolve(elicit = "Open `{title}`?")] ok: bool) -> String {
///     if ok { format!("opened {title}") } else { "kept closed".into() }
/// }
///
/// // Any MCP server will do: here one in this process, elsewhere `Upstream::stdio` or `http`.
/// let issues = Proxy::connect(Upstream::in_memory(Server::new("issues", "1.0.0").tools(tools![open]))).await?;
/// let gateway = issues.mount(Server::new("gateway", "1.0.0"), "issues")?;
/// let names: Vec<String> = gateway.tool_defs().into_iter().map(|d| d.tool.name).collect();
/// assert_eq!(names, ["issues_open"]);
/// # Ok(()) }
/// ```
pub struct Proxy {
    client: Client,
    relay: Arc<Relay>,
    listed: Listed,
    following: Arc<OnceLock<Following>>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("upstream", &self.client.server_info())
            .field("version", &self.client.protocol_version())
            .field("tools", &self.listed.tools.len())
            .finish_non_exhaustive()
    }
}

/// What the upstream lists, and whether it completes arguments.
#[derive(Default)]
struct Listed {
    completes: bool,
    /// The files of its skills, copied.
    skills: SkillFiles,
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
}

/// Where the upstream's list changes go once it is mounted.
struct Following {
    /// The connection that lists.
    client: Client,
    server: Server,
    namespace: String,
    relay: std::sync::Weak<Relay>,
    /// The names (mounted) and URIs the gateway serves for this upstream now.
    known: Arc<tokio::sync::Mutex<Known>>,
}

#[derive(Default)]
struct Known {
    tools: HashSet<String>,
    prompts: HashSet<String>,
    resources: HashSet<String>,
}

impl Proxy {
    /// Connect to `upstream` and read what it offers.
    pub async fn connect(upstream: Upstream) -> Result<Self, GatewayError> {
        let following: Arc<OnceLock<Following>> = Arc::new(OnceLock::new());
        let heard = following.clone();
        // This connection lists, and hears of list changes; the legs run on others (`Pool`),
        // but for a stdio upstream's, which share it.
        let route = Route::default();
        route.listen(Arc::new(move |n: Notification| {
            if let Some(following) = heard.get() {
                following.hear(n);
            }
        }));
        let client = upstream.connect(route.clone()).await.map_err(GatewayError::Connect)?;
        let modern = client.protocol_version().is_modern();
        let listed = list(&client).await.map_err(GatewayError::List)?;
        let forward_authorization = upstream.forwards_authorization();
        let pool = Arc::new(Pool::new(upstream, &client, &route));
        let relay = Arc::new(Relay { holds: Holds::new(pool.clone()), pool, modern, forward_authorization });
        Ok(Self { client, relay, listed, following })
    }

    /// Who the upstream said it is.
    pub fn server_info(&self) -> Option<&Implementation> {
        self.client.server_info()
    }

    /// The revision the gateway speaks with the upstream.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.client.protocol_version()
    }

    /// Serve the upstream's items as part of `server` ([`Server::mount`]): its tools and prompts
    /// named `{namespace}_{name}`, its resources and templates at their URIs, each relayed to
    /// it; and from then on, the items it announces as changed.
    pub fn mount(mut self, server: Server, namespace: &str) -> Result<Server, GatewayError> {
        let mut part = self.listed.defs(&self.relay, |name| name.to_owned()).into_server();
        if let Some(skills) = skills::tree(std::mem::take(&mut self.listed.skills)).map_err(GatewayError::Skills)? {
            part = part.skills(skills);
        }
        let server = server.mount(namespace, part).map_err(GatewayError::Mount)?;
        let named = |name: &String| Server::mounted_name(namespace, name);
        let known = Known {
            tools: self.listed.tools.iter().map(|t| named(&t.name)).collect(),
            prompts: self.listed.prompts.iter().map(|p| named(&p.name)).collect(),
            resources: self.listed.resources.iter().map(|r| r.uri.clone()).collect(),
        };
        let following = Following {
            client: self.client.clone(),
            server: server.clone(),
            namespace: namespace.to_owned(),
            relay: Arc::downgrade(&self.relay),
            known: Arc::new(tokio::sync::Mutex::new(known)),
        };
        let _ = self.following.set(following);
        if self.relay.modern {
            listen(self.client.clone());
        }
        Ok(server)
    }
}

/// Everything the upstream lists, every page.
async fn list(client: &Client) -> Result<Listed, ClientError> {
    let offers = client.server_capabilities().clone();
    let mut listed = Listed { completes: offers.completions.is_some(), ..Listed::default() };
    if offers.tools.is_some() {
        listed.tools = client.list_all_tools().await?;
    }
    if offers.prompts.is_some() {
        listed.prompts = pages(client, "prompts/list", "prompts").await?;
    }
    if offers.resources.is_some() {
        listed.resources = pages(client, "resources/list", "resources").await?;
        listed.templates = pages(client, "resources/templates/list", "resourceTemplates").await?;
    }
    if offers.extensions.as_ref().is_some_and(|e| e.contains_key(roundtrip_wire::SKILLS_EXTENSION)) {
        listed.skills = skills::copy(client).await?;
    }
    Ok(listed)
}

/// The items of a paged list, following `nextCursor` (at most 100 pages).
async fn pages<T: DeserializeOwned>(client: &Client, method: &str, field: &str) -> Result<Vec<T>, ClientError> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut params = JsonObject::new();
        if let Some(c) = cursor.take() {
            params.insert("cursor".into(), json!(c));
        }
        let mut page = client.request(method, params).await?;
        let found: Vec<T> = serde_json::from_value(page.get_mut(field).map(Value::take).unwrap_or(json!([])))
            .map_err(|e| ClientError::Protocol(format!("{method}: {e}")))?;
        items.extend(found);
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(c) if !c.is_empty() => cursor = Some(c.to_owned()),
            _ => return Ok(items),
        }
    }
    Ok(items)
}

/// Keep one `subscriptions/listen` open to a 2026-07-28 upstream, for its list changes
/// (opened again a second after it ends).
fn listen(client: Client) {
    tokio::spawn(async move {
        loop {
            let mut params = JsonObject::new();
            params.insert(
                "notifications".into(),
                json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true}),
            );
            if let Err(e) = client.request("subscriptions/listen", params).await {
                tracing::debug!(target: "roundtrip::gateway", "the upstream's subscriptions/listen ended: {e}");
            }
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
    });
}

/// The definitions that relay the listed items.
struct Defs {
    tools: Vec<ToolDef>,
    prompts: Vec<PromptDef>,
    resources: Vec<ResourceEntry>,
    templates: Vec<ResourceTemplateDef>,
}

impl Listed {
    /// A definition for each item, named by `named` (tools and prompts), relaying to the
    /// upstream under its own name.
    fn defs(&self, relay: &Arc<Relay>, named: impl Fn(&str) -> String) -> Defs {
        let tools = self.tools.iter().map(|tool| {
            let (relay, upstream_name) = (relay.clone(), tool.name.clone());
            let mut tool = tool.clone();
            tool.name = named(&tool.name);
            ToolDef::new(tool, move |cx| relay.clone().tool(upstream_name.clone(), cx))
        });
        let prompts = self.prompts.iter().map(|prompt| {
            let (relay, upstream_name) = (relay.clone(), prompt.name.clone());
            let mut prompt = prompt.clone();
            prompt.name = named(&prompt.name);
            let def = PromptDef::new(prompt, {
                let (relay, upstream_name) = (relay.clone(), upstream_name.clone());
                move |cx| relay.clone().prompt(upstream_name.clone(), cx)
            });
            if !self.completes {
                return def;
            }
            def.with_async_completer(move |params| relay.clone().complete(Some(upstream_name.clone()), params))
        });
        let resources = self.resources.iter().map(|resource| {
            let relay = relay.clone();
            ResourceEntry::Static(ResourceDef::new(resource.clone(), move |cx| relay.clone().resource(cx)))
        });
        let templates = self.templates.iter().filter_map(|template| {
            let reader = relay.clone();
            let def = ResourceTemplateDef::new(template.clone(), move |cx| reader.clone().resource(cx))
                .inspect_err(|e| tracing::warn!(target: "roundtrip::gateway", "leaving out the upstream's template `{}`: {e}", template.uri_template))
                .ok()?;
            if !self.completes {
                return Some(def);
            }
            let relay = relay.clone();
            Some(def.with_async_completer(move |params| relay.clone().complete(None, params)))
        });
        Defs {
            tools: tools.collect(),
            prompts: prompts.collect(),
            resources: resources.collect(),
            templates: templates.collect(),
        }
    }
}

impl Defs {
    fn into_server(self) -> Server {
        let mut part = Server::new("upstream", "0").tools(self.tools).prompts(self.prompts).resources(self.resources);
        for template in self.templates {
            part = part.resource_template(template);
        }
        part
    }
}

/// Which list an upstream said changed.
#[derive(Debug, Clone, Copy)]
enum Changed {
    Tools,
    Prompts,
    Resources,
}

impl Following {
    /// An upstream's notification: a list change is followed, a resource update passed on.
    fn hear(&self, n: Notification) {
        let changed = match n.method.as_str() {
            "notifications/tools/list_changed" => Changed::Tools,
            "notifications/prompts/list_changed" => Changed::Prompts,
            "notifications/resources/list_changed" => Changed::Resources,
            "notifications/resources/updated" => {
                if let Some(uri) = n.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str) {
                    self.server.notify_resource_updated(uri);
                }
                return;
            }
            _ => return,
        };
        let Some(relay) = self.relay.upgrade() else { return };
        let client = self.client.clone();
        let (server, namespace, known) = (self.server.clone(), self.namespace.clone(), self.known.clone());
        // Listed on a task of its own (this runs on the connection's reader), one change at
        // a time.
        tokio::spawn(async move {
            let mut known = known.lock().await;
            if let Err(e) = refresh(changed, &client, &relay, &server, &namespace, &mut known).await {
                tracing::warn!(target: "roundtrip::gateway", "could not list the upstream's {changed:?} again: {e}");
            }
        });
    }
}

/// List `changed` again and serve what the upstream lists now: the items it no longer lists
/// removed, the others added or replaced.
async fn refresh(
    changed: Changed,
    client: &Client,
    relay: &Arc<Relay>,
    server: &Server,
    namespace: &str,
    known: &mut Known,
) -> Result<(), ClientError> {
    let mut listed = Listed { completes: client.server_capabilities().completions.is_some(), ..Listed::default() };
    match changed {
        Changed::Tools => {
            listed.tools = client.list_all_tools().await?;
            relay.pool.tools_changed();
        }
        Changed::Prompts => listed.prompts = pages(client, "prompts/list", "prompts").await?,
        Changed::Resources => listed.resources = pages(client, "resources/list", "resources").await?,
    }
    let defs = listed.defs(relay, |name| Server::mounted_name(namespace, name));
    let added = match changed {
        Changed::Tools => {
            let now = defs.tools.iter().map(|d| d.tool.name.clone()).collect();
            known.tools.difference(&now).for_each(|gone| {
                server.remove_tool(gone);
            });
            known.tools = now;
            server.add_tools(defs.tools)
        }
        Changed::Prompts => {
            let now = defs.prompts.iter().map(|d| d.prompt.name.clone()).collect();
            known.prompts.difference(&now).for_each(|gone| {
                server.remove_prompt(gone);
            });
            known.prompts = now;
            server.add_prompts(defs.prompts)
        }
        Changed::Resources => {
            let uri = |entry: &ResourceEntry| match entry {
                ResourceEntry::Static(def) => Some(def.resource.uri.clone()),
                _ => None,
            };
            let now = defs.resources.iter().filter_map(uri).collect();
            known.resources.difference(&now).for_each(|gone| {
                server.remove_resource(gone);
            });
            known.resources = now;
            server.add_resources(defs.resources)
        }
    };
    if let Err(e) = added {
        tracing::warn!(target: "roundtrip::gateway", "the upstream's changed {changed:?} were not served: {e}");
    }
    Ok(())
}
