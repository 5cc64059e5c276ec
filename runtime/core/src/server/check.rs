//! What a server checks before it serves: what the declarations need that only the whole
//! registry can tell (state that was registered, views that tools link to).

use std::fmt;

use super::Server;
use super::StateNeed;
use crate::protocol::{UiToolMeta, VIEW_MIME_TYPE};

/// Why a server refuses to start: a declaration needs something the server does not have.
/// [`Server::check`] reports the first one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} `{name}` {problem}")]
pub struct CheckError {
    /// `tool`, `prompt`, `resource` or `resource template`.
    pub kind: &'static str,
    /// Its name (a resource's URI).
    pub name: String,
    /// What it needs.
    pub problem: Problem,
}

/// What a declaration needs that the server does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// It takes `State<T>`, and no value of `T` is registered.
    MissingState {
        /// The state's type.
        type_name: &'static str,
    },
    /// A tool links to a view (`_meta.ui.resourceUri`) that no registered resource has.
    MissingView {
        /// The view's URI.
        uri: String,
    },
    /// A tool links to a resource that is not a view: its URI is not `ui://…`, or its MIME
    /// type is not `text/html;profile=mcp-app`.
    NotAView {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        mime_type: Option<String>,
    },
    /// A tool's schema cannot be written in the strict profile
    /// ([`Server::strict_schemas`](super::Server::strict_schemas)).
    NotStrict {
        /// `inputSchema` or `outputSchema`.
        schema: &'static str,
        /// Where in it (a JSON pointer; empty for the whole schema).
        at: String,
        /// What the profile does not allow there.
        why: &'static str,
    },
    /// A tool may run as a task, on a platform whose instance stops once it has answered
    /// (a Cloudflare Worker): the task's body could not run on.
    NoTasksOn {
        /// The platform.
        platform: &'static str,
    },
    /// A mounted part's tool, prompt, resource or template would take a name or URI this
    /// server already has ([`Server::mount`](super::Server::mount)).
    Taken,
    /// A mounted part registers a value of a state type this server has another value of.
    StateTwice {
        /// The state's type.
        type_name: &'static str,
    },
    /// A namespace is not up to 64 letters, digits, `_` or `-`.
    BadNamespace,
    /// A mounted part's skills and this server's do not make one tree (both have a file at
    /// one path, or together they pass a limit of the tree).
    SkillsRefused {
        /// Why.
        reason: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingState { type_name } => write!(
                f,
                "takes State<{type_name}>, but the server has no such state: register it with \
                 `.state(Arc::new(value))` before serving"
            ),
            Self::MissingView { uri } => write!(
                f,
                "links to the view `{uri}`, which is not registered: declare it with #[view(\"{uri}\")] and \
                 register it with `.resources(resources![…])`, or link the view by name: #[tool(ui = VIEW)]"
            ),
            Self::NotAView { uri, mime_type } => write!(
                f,
                "links to `{uri}`, which is not a view (a `ui://` resource of MIME type {VIEW_MIME_TYPE}, not {}): \
                 declare it with #[view(\"ui://…\")]",
                mime_type.as_deref().unwrap_or("none")
            ),
            Self::NoTasksOn { platform } => write!(
                f,
                "may run as a task, which {platform} cannot run (a task's body runs on after its call is \
                 answered, and {platform} stops with the answer): declare it without `task` to serve it there"
            ),
            Self::Taken => {
                write!(f, "is taken: the server has one of that name already; mount the part under another namespace")
            }
            Self::StateTwice { type_name } => write!(
                f,
                "registers State<{type_name}>, and the server has another value of that type: register \
                 one value, on the server or on the part"
            ),
            Self::BadNamespace => {
                write!(
                    f,
                    "is not a namespace: use up to 64 letters, digits, `_` or `-` (tool names are prefixed with it)"
                )
            }
            Self::SkillsRefused { reason } => {
                write!(f, "cannot join the server's skills: {reason}")
            }
            Self::NotStrict { schema, at, why } => write!(
                f,
                "has an {schema} that the strict schema profile cannot take: at `{}` it {why}. \
                 Give the value a type that is not recursive and has one JSON type, or serve \
                 the server without `.strict_schemas()`",
                if at.is_empty() { "/" } else { at }
            ),
        }
    }
}

pub(super) fn check(server: &Server) -> Result<(), CheckError> {
    check_catalog(server, &server.shared())
}

/// [`check`] of the definitions `catalog` holds (the shared one, or a tenant's).
pub(super) fn check_catalog(server: &Server, catalog: &super::Catalog) -> Result<(), CheckError> {
    let inner = &server.inner;
    let state = |kind, name: &str, needs: &[StateNeed]| {
        needs.iter().find(|n| !inner.states.has(n)).map(|n| CheckError {
            kind,
            name: name.to_owned(),
            problem: Problem::MissingState { type_name: n.type_name() },
        })
    };
    let missing = catalog
        .tools
        .iter()
        .find_map(|d| state("tool", &d.tool.name, &d.needs))
        .or_else(|| catalog.prompts.iter().find_map(|d| state("prompt", &d.prompt.name, &d.needs)))
        .or_else(|| catalog.resources.iter().find_map(|d| state("resource", &d.resource.uri, &d.needs)))
        .or_else(|| {
            catalog.templates.iter().find_map(|d| state("resource template", &d.template.uri_template, &d.needs))
        })
        .or_else(|| catalog.tools.iter().find_map(|d| view(catalog, &d.tool.name, d.tool.meta.as_ref())))
        .or_else(|| {
            catalog.tools.iter().filter(|_| inner.strict_schemas).find_map(|d| {
                let (schema, at, why) = super::strict_schema::tool_violation(&d.tool)?;
                Some(CheckError {
                    kind: "tool",
                    name: d.tool.name.clone(),
                    problem: Problem::NotStrict { schema, at, why },
                })
            })
        });
    match missing {
        Some(m) => Err(m),
        None => Ok(()),
    }
}

/// A tool's link to a view that is not there.
fn view(catalog: &super::Catalog, tool: &str, meta: Option<&crate::protocol::JsonObject>) -> Option<CheckError> {
    let uri = UiToolMeta::of(meta)?.resource_uri?;
    let problem = match catalog.resources.iter().find(|r| r.resource.uri == uri) {
        None => Problem::MissingView { uri },
        Some(r) if !r.is_view() || !uri.starts_with("ui://") => {
            Problem::NotAView { uri, mime_type: r.resource.mime_type.clone() }
        }
        Some(_) => return None,
    };
    Some(CheckError { kind: "tool", name: tool.to_owned(), problem })
}
