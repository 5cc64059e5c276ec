//! One server made of several ([`Server::mount`]): each part's tools and prompts under a
//! namespace, its resources, templates and state beside the server's own.

use super::Server;
use super::catalog::Catalog;
use super::check::{CheckError, Problem};

/// The longest namespace: a prefix, not a name.
const MAX_NAMESPACE: usize = 64;

impl Server {
    /// Serve what `part` offers beside what this server offers: its tools and prompts named
    /// `{namespace}_{name}`, its resources and templates at their URIs (a view stays linked
    /// to its tool), and the state it registered (`State<T>`). Its declarations work as they
    /// do on their own: their questions, tasks and views; the legs of a flow are sealed and
    /// checked by this server, with its keys.
    ///
    /// Its skills join the server's (feature `skills`; a file at a path both have is an
    /// error). What `part` was configured with besides (its keys, stores, limits,
    /// interceptors, tenants, its name) is not taken: this server's apply. Its run-time
    /// changes after mounting are its own.
    ///
    /// `_` joins the namespace to a name (tool names go into model APIs that take only
    /// letters, digits, `_` and `-`); an empty namespace keeps the part's names. A name or URI
    /// the server already has, a state type both register different values of, or a namespace
    /// longer than 64 or of other characters than letters, digits, `_` and `-`, is an error,
    /// and nothing is mounted.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    ///
    /// /// Read a file.
    /// #[tool(read_only)]
    /// async fn read(path: String) -> String {
    ///     format!("contents of {path}")
    /// }
    ///
    /// /// Open an issue, after the user confirms.
    /// #[tool]
    /// async fn open(title: String, #[resolve(elicit = "Open `{title}`?")] ok: bool) -> String {
    ///     if ok { format!("opened {title}") } else { "kept closed".into() }
    /// }
    ///
    /// let files = Server::new("files", "1.0.0").tools(tools![read]);
    /// let issues = Server::new("issues", "1.0.0").tools(tools![open]);
    /// let gateway = Server::new("gateway", "1.0.0").mount("files", files)?.mount("issues", issues)?;
    /// let names: Vec<String> = gateway.tool_defs().into_iter().map(|d| d.tool.name).collect();
    /// assert_eq!(names, ["files_read", "issues_open"]);
    /// # Ok::<(), roundtrip::server::CheckError>(())
    /// ```
    pub fn mount(mut self, namespace: &str, part: Server) -> Result<Self, CheckError> {
        let error = |kind, name: String, problem| CheckError { kind, name, problem };
        let valid = namespace.len() <= MAX_NAMESPACE
            && namespace.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(error("namespace", namespace.to_owned(), Problem::BadNamespace));
        }
        let named = |name: &str| Self::mounted_name(namespace, name);
        let theirs = part.shared();
        let mut states = self.inner.states.clone();
        states
            .merge(&part.inner.states)
            .map_err(|type_name| error("part", namespace.to_owned(), Problem::StateTwice { type_name }))?;
        if let Some((kind, name)) = taken(&self.shared(), &theirs, named) {
            return Err(error(kind, name, Problem::Taken));
        }
        let tools: Vec<_> = theirs
            .tools
            .iter()
            .map(|def| {
                let mut def = def.clone();
                def.tool.name = named(&def.tool.name);
                self.prepared(def)
            })
            .collect();
        #[cfg(feature = "skills")]
        let skills = match (self.skill_set(), part.skill_set()) {
            (Some(ours), Some(theirs)) => Some(ours.merge(theirs).map_err(|e| {
                error("skill file", e.path.clone(), Problem::SkillsRefused { reason: e.reason.clone() })
            })?),
            (None, Some(theirs)) => Some(theirs.clone()),
            _ => None,
        };
        let inner = self.inner_mut();
        inner.states = states;
        #[cfg(feature = "skills")]
        if let Some(skills) = skills {
            inner.skills = Some(skills);
        }
        inner.catalog.edit_mut(|catalog| {
            tools.into_iter().for_each(|def| catalog.put_tool(def));
            for def in &theirs.prompts {
                let mut def = def.clone();
                def.prompt.name = named(&def.prompt.name);
                catalog.put_prompt(def);
            }
            theirs.resources.iter().cloned().for_each(|def| catalog.put_resource(def));
            catalog.templates.extend(theirs.templates.iter().cloned());
        });
        Ok(self)
    }

    /// The name a part's tool or prompt `name` is served under when mounted under
    /// `namespace` ([`mount`](Self::mount)): `{namespace}_{name}`, or `name` itself under
    /// the empty namespace. For code that adds items to a mounted namespace later.
    ///
    /// ```
    /// use roundtrip::Server;
    ///
    /// assert_eq!(Server::mounted_name("issues", "open"), "issues_open");
    /// assert_eq!(Server::mounted_name("", "open"), "open");
    /// ```
    pub fn mounted_name(namespace: &str, name: &str) -> String {
        if namespace.is_empty() { name.to_owned() } else { format!("{namespace}_{name}") }
    }
}

/// The first of `theirs` that would take a name or URI of `ours` (tools and prompts named
/// by `named`): its kind and name.
fn taken(ours: &Catalog, theirs: &Catalog, named: impl Fn(&str) -> String) -> Option<(&'static str, String)> {
    let tool = theirs.tools.iter().map(|d| named(&d.tool.name)).find(|n| ours.tool(n).is_some());
    let prompt = || theirs.prompts.iter().map(|d| named(&d.prompt.name)).find(|n| ours.prompt(n).is_some());
    let resource = || theirs.resources.iter().map(|d| &d.resource.uri).find(|u| ours.has_resource(u)).cloned();
    let template = || theirs.templates.iter().map(|d| &d.template.uri_template).find(|t| ours.has_template(t)).cloned();
    tool.map(|n| ("tool", n))
        .or_else(|| prompt().map(|n| ("prompt", n)))
        .or_else(|| resource().map(|u| ("resource", u)))
        .or_else(|| template().map(|t| ("resource template", t)))
}
