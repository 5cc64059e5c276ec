//! Documentation from the code: every tool, prompt, resource and template with its schemas
//! and the questions it may ask, as JSON and as Markdown.
//!
//! In the Markdown, every tool, prompt and template that asks something gets its question
//! graph as a Mermaid flowchart (rounds left to right, an edge per `{placeholder}` or `with`
//! input) above the list of its questions; one that asks nothing gets no graph (its call is a
//! single leg, and its arguments are in the table). The playground draws the same graph from
//! the JSON (`questions[].round` and `dependsOn`).
//!
//! ```
//! use roundtrip::Server;
//! let doc = Server::new("empty", "1.0.0").describe();
//! assert_eq!(doc.to_json()["server"]["name"], "empty");
//! assert!(doc.to_markdown().starts_with("# empty 1.0.0"));
//! ```

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::protocol::{META_UI, UiToolMeta, VIEW_MIME_TYPE};
use crate::resolve::{Graph, Node, Resolver};
use crate::server::Server;

/// A server's self-description.
#[derive(Debug, Clone)]
pub struct Description {
    json: Value,
}

impl Server {
    /// Describe every tool, prompt, resource and template with its schemas and questions, and
    /// (under `skills`, when the server serves any) every skill with its files.
    pub fn describe(&self) -> Description {
        let with_questions = |mut item: Value, graph: Option<&Graph>| {
            item["questions"] = graph.map(questions).unwrap_or_else(|| json!([]));
            item["checks"] =
                json!(graph.map(|g| g.checks().iter().map(|c| c.call).collect::<Vec<_>>()).unwrap_or_default());
            item
        };
        // One snapshot of the catalog: it may change while the server serves.
        let catalog = self.shared();
        let tools: Vec<Value> = catalog
            .tools
            .iter()
            .map(|d| {
                let mut item = with_questions(json!(d.tool), d.graph.as_deref());
                if !d.required_scopes().is_empty() {
                    item["scopes"] = json!(d.required_scopes());
                }
                item
            })
            .collect();
        let prompts: Vec<Value> =
            catalog.prompts.iter().map(|d| with_questions(json!(d.prompt), d.graph.as_deref())).collect();
        let resources: Vec<Value> = catalog.resources.iter().map(|d| json!(d.resource)).collect();
        let views: Vec<Value> = catalog
            .resources
            .iter()
            .filter(|d| d.is_view())
            .map(|d| {
                let r = &d.resource;
                let users: Vec<&str> = catalog
                    .tools
                    .iter()
                    .filter(|t| {
                        UiToolMeta::of(t.tool.meta.as_ref()).and_then(|ui| ui.resource_uri).as_deref()
                            == Some(r.uri.as_str())
                    })
                    .map(|t| t.tool.name.as_str())
                    .collect();
                let ui = r.meta.as_ref().and_then(|m| m.get(META_UI)).cloned().unwrap_or_else(|| json!({}));
                json!({"uri": r.uri, "name": r.name, "title": r.title, "description": r.description, "ui": ui, "tools": users})
            })
            .collect();
        let templates: Vec<Value> =
            catalog.templates.iter().map(|d| with_questions(json!(d.template), d.graph.as_deref())).collect();
        let info = self.info();
        #[cfg_attr(not(feature = "skills"), allow(unused_mut))]
        let mut json = json!({
            "server": {"name": info.name, "version": info.version, "title": info.title},
            "tools": tools,
            "prompts": prompts,
            "resources": resources,
            "resourceTemplates": templates,
            "views": views,
        });
        #[cfg(feature = "skills")]
        if let Some(skills) = self.skill_set() {
            json["skills"] = skills
                .entries()
                .map(|e| {
                    let files = match &e.resources {
                        crate::protocol::SkillResources::Listed(files) => json!(files),
                        _ => json!("dynamic"),
                    };
                    json!({
                        "uri": e.uri,
                        "name": e.name(),
                        "description": e.description(),
                        "frontmatter": e.frontmatter,
                        "files": files,
                    })
                })
                .collect();
        }
        Description { json }
    }
}

/// The questions of a graph, in the round each is asked when every answer is accepted.
fn questions(graph: &Graph) -> Value {
    let mut nodes: Vec<&Node> = graph.nodes().iter().collect();
    nodes.sort_by_key(|n| graph.depth_of(n.name));
    Value::Array(
        nodes
            .into_iter()
            .map(|n| {
                let mut q = json!({
                    "key": n.name,
                    "kind": n.resolver.kind(),
                    "round": graph.depth_of(n.name),
                    "dependsOn": n.resolver.deps(),
                    "refusable": n.refusable,
                });
                if !n.fallback.is_none() {
                    let mut fallback = json!({ "argument": n.fallback.argument });
                    if n.fallback.form {
                        fallback["form"] = json!(true);
                    }
                    if let Some(default) = n.fallback.default {
                        fallback["default"] = default();
                    }
                    q["fallback"] = fallback;
                }
                match &n.resolver {
                    Resolver::Elicit { message, schema, .. } => {
                        q["message"] = json!(message.source());
                        q["requestedSchema"] = json!(**schema);
                    }
                    Resolver::ElicitUrl { url, message } => {
                        q["url"] = json!(url.source());
                        q["message"] = json!(message.source());
                    }
                    Resolver::Sample { prompt, max_tokens, options, .. } => {
                        q["prompt"] = json!(prompt.source());
                        q["maxTokens"] = json!(max_tokens);
                        if let Some(system) = options.system_prompt {
                            q["systemPrompt"] = json!(system);
                        }
                        if let Some(t) = options.temperature {
                            q["temperature"] = json!(t);
                        }
                    }
                    Resolver::With { call, value_schema, .. } => {
                        q["call"] = json!(call);
                        if let Some(schema) = value_schema {
                            q["valueSchema"] = schema.clone();
                        }
                    }
                    Resolver::Roots => {}
                }
                q
            })
            .collect(),
    )
}

impl Description {
    /// As JSON.
    pub fn to_json(&self) -> &Value {
        &self.json
    }

    /// As Markdown: a section per tool with its arguments, its question graph (Mermaid) and
    /// its questions in round order.
    pub fn to_markdown(&self) -> String {
        let j = &self.json;
        let mut md = String::new();
        let _ = writeln!(md, "# {} {}\n", str_of(&j["server"]["name"]), str_of(&j["server"]["version"]));
        if let Some(title) = j["server"]["title"].as_str() {
            let _ = writeln!(md, "{title}\n");
        }
        let tools = j["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
        if !tools.is_empty() {
            md.push_str("## Tools\n");
        }
        for tool in tools {
            let _ = writeln!(md, "\n### `{}`\n", str_of(&tool["name"]));
            if let Some(t) = tool["title"].as_str() {
                let _ = writeln!(md, "**{t}**\n");
            }
            if let Some(d) = tool["description"].as_str() {
                let _ = writeln!(md, "{d}\n");
            }
            annotations(&mut md, &tool["annotations"]);
            match tool["execution"]["taskSupport"].as_str() {
                Some("optional") => md.push_str(
                    "Runs as a task (tasks extension) when the client declares the extension; otherwise synchronously.\n\n",
                ),
                Some("required") => md.push_str("Runs only as a task: a client must declare the tasks extension.\n\n"),
                _ => {}
            }
            apps_md(&mut md, tool);
            if let Some(scopes) = tool["scopes"].as_array() {
                let list: Vec<String> = scopes.iter().map(|s| format!("`{}`", str_of(s))).collect();
                let _ = writeln!(
                    md,
                    "Needs the OAuth scopes {} (a bearer token on a protected HTTP endpoint).\n",
                    list.join(", ")
                );
            }
            arguments(&mut md, &tool["inputSchema"]);
            checks_md(&mut md, &tool["checks"]);
            questions_md(&mut md, &tool["questions"]);
            if let Some(output) = tool.get("outputSchema") {
                let _ = writeln!(md, "**Output schema**\n\n```json\n{}\n```\n", pretty(output));
            }
        }
        let prompts = j["prompts"].as_array().map(Vec::as_slice).unwrap_or_default();
        if !prompts.is_empty() {
            md.push_str("\n## Prompts\n");
        }
        for prompt in prompts {
            let _ = writeln!(md, "\n### `{}`\n", str_of(&prompt["name"]));
            if let Some(d) = prompt["description"].as_str() {
                let _ = writeln!(md, "{d}\n");
            }
            match prompt["arguments"].as_array().filter(|a| !a.is_empty()) {
                None => md.push_str("No arguments.\n\n"),
                Some(args) => {
                    md.push_str("| argument | required | description |\n|---|---|---|\n");
                    for a in args {
                        let required = if a["required"] == json!(true) { "yes" } else { "no" };
                        let _ =
                            writeln!(md, "| `{}` | {required} | {} |", str_of(&a["name"]), str_of(&a["description"]));
                    }
                    md.push('\n');
                }
            }
            checks_md(&mut md, &prompt["checks"]);
            questions_md(&mut md, &prompt["questions"]);
        }
        let views = j["views"].as_array().map(Vec::as_slice).unwrap_or_default();
        if !views.is_empty() {
            md.push_str("\n## Views\n\nHTML that hosts supporting MCP Apps render next to the tools' results.\n");
        }
        for view in views {
            view_md(&mut md, view);
        }
        // Views are resources too; they have their section above.
        let resources: Vec<&Value> = j["resources"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|r| r["mimeType"] != VIEW_MIME_TYPE)
            .collect();
        let templates = j["resourceTemplates"].as_array().map(Vec::as_slice).unwrap_or_default();
        if !resources.is_empty() || !templates.is_empty() {
            md.push_str("\n## Resources\n");
        }
        for r in resources.into_iter().chain(templates) {
            let uri = r["uri"].as_str().or_else(|| r["uriTemplate"].as_str()).unwrap_or("");
            let _ = writeln!(md, "\n### `{uri}` ({})\n", str_of(&r["name"]));
            if let Some(d) = r["description"].as_str() {
                let _ = writeln!(md, "{d}\n");
            }
            if let Some(m) = r["mimeType"].as_str() {
                let _ = writeln!(md, "MIME type: `{m}`\n");
            }
            checks_md(&mut md, &r["checks"]);
            questions_md(&mut md, &r["questions"]);
        }
        let skills = j["skills"].as_array().map(Vec::as_slice).unwrap_or_default();
        if !skills.is_empty() {
            md.push_str("\n## Skills\n");
        }
        for skill in skills {
            let _ = writeln!(md, "\n### `{}`\n", str_of(&skill["name"]));
            let _ = writeln!(md, "{}\n", str_of(&skill["description"]));
            let _ = writeln!(md, "`{}`\n", str_of(&skill["uri"]));
            if let Some(files) = skill["files"].as_array() {
                md.push_str("| file | bytes |\n|---|---|\n");
                for f in files {
                    let _ = writeln!(md, "| `{}` | {} |", str_of(&f["uri"]), f["size"]);
                }
                md.push('\n');
            }
        }
        md
    }
}

/// A tool's view and visibility (MCP Apps).
fn apps_md(md: &mut String, tool: &Value) {
    let ui = &tool["_meta"]["ui"];
    let uri = ui["resourceUri"].as_str().or_else(|| tool["_meta"]["ui/resourceUri"].as_str());
    if let Some(uri) = uri {
        let _ = writeln!(md, "Rendered in the view `{uri}` by hosts that support MCP Apps.\n");
    }
    let visibility: Vec<&str> = ui["visibility"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    match visibility.as_slice() {
        ["app"] => md.push_str("Visible to views only: hosts keep it from their model.\n\n"),
        ["model"] => md.push_str("Visible to the model only: views cannot call it.\n\n"),
        _ => {}
    }
}

/// A view: what its sandbox may allow, and the tools it renders.
fn view_md(md: &mut String, view: &Value) {
    let _ = writeln!(md, "\n### `{}` ({})\n", str_of(&view["uri"]), str_of(&view["name"]));
    if let Some(t) = view["title"].as_str() {
        let _ = writeln!(md, "**{t}**\n");
    }
    if let Some(d) = view["description"].as_str() {
        let _ = writeln!(md, "{d}\n");
    }
    let tools: Vec<String> =
        view["tools"].as_array().into_iter().flatten().map(|t| format!("`{}`", str_of(t))).collect();
    if !tools.is_empty() {
        let _ = writeln!(md, "Renders the results of {}.\n", tools.join(", "));
    }
    let ui = &view["ui"];
    let lists = [
        ("connectDomains", "connects to (`connect-src`)"),
        ("resourceDomains", "loads scripts, styles, images, fonts and media from"),
        ("frameDomains", "frames"),
        ("baseUriDomains", "takes a `<base>` from"),
    ];
    let mut any = false;
    for (key, what) in lists {
        let origins: Vec<String> =
            ui["csp"][key].as_array().into_iter().flatten().map(|o| format!("`{}`", str_of(o))).collect();
        if !origins.is_empty() {
            let _ = writeln!(md, "- {what} {}", origins.join(", "));
            any = true;
        }
    }
    if !any {
        md.push_str("- no origin beyond its own HTML (the restrictive default policy)\n");
    }
    let permissions: Vec<String> =
        ui["permissions"].as_object().into_iter().flatten().map(|(k, _)| format!("`{k}`")).collect();
    if !permissions.is_empty() {
        let _ = writeln!(md, "- asks for {}", permissions.join(", "));
    }
    if let Some(domain) = ui["domain"].as_str() {
        let _ = writeln!(md, "- a dedicated sandbox domain: `{domain}`");
    }
    match ui["prefersBorder"].as_bool() {
        Some(true) => md.push_str("- prefers a border\n"),
        Some(false) => md.push_str("- prefers no border\n"),
        None => {}
    }
    md.push('\n');
}

/// The behaviour hints a tool declares.
fn annotations(md: &mut String, annotations: &Value) {
    let hints = [
        ("readOnlyHint", "read-only"),
        ("destructiveHint", "destructive"),
        ("idempotentHint", "idempotent"),
        ("openWorldHint", "open world"),
    ];
    let set: Vec<&str> = hints.iter().filter(|(k, _)| annotations[*k] == json!(true)).map(|(_, w)| *w).collect();
    if !set.is_empty() {
        let _ = writeln!(md, "Annotations: {}\n", set.join(", "));
    }
}

fn checks_md(md: &mut String, checks: &Value) {
    let checks = checks.as_array().map(Vec::as_slice).unwrap_or_default();
    if !checks.is_empty() {
        let calls: Vec<String> = checks.iter().map(|c| format!("`{}`", str_of(c))).collect();
        let _ = writeln!(md, "Checked before any question: {}\n", calls.join(", "));
    }
}

fn questions_md(md: &mut String, questions: &Value) {
    let questions = questions.as_array().map(Vec::as_slice).unwrap_or_default();
    if !questions.is_empty() {
        md.push_str("**Questions**\n\n");
        mermaid(md, questions);
        for q in questions {
            question(md, q);
        }
        md.push('\n');
    }
}

/// The question graph as a Mermaid flowchart, rounds left to right: the arguments the
/// questions use, then one subgraph per round with a node per question (its key and kind),
/// and an edge per dependency: `-->` for a `{placeholder}`, `-.->` for an input of a `with`
/// fn. Node ids are positional (`a0`, `q0`, …), so no name can break the syntax.
fn mermaid(md: &mut String, questions: &[Value]) {
    let keys: Vec<&str> = questions.iter().map(|q| str_of(&q["key"])).collect();
    let mut args: Vec<&str> = Vec::new();
    for q in questions {
        for d in deps(q) {
            if !keys.contains(&d) && !args.contains(&d) {
                args.push(d);
            }
        }
    }
    let id = |name: &str| match keys.iter().position(|k| *k == name) {
        Some(i) => format!("q{i}"),
        None => format!("a{}", args.iter().position(|a| *a == name).unwrap_or(0)),
    };
    md.push_str("```mermaid\ngraph LR\n");
    if !args.is_empty() {
        md.push_str("  subgraph arguments\n");
        for (i, a) in args.iter().enumerate() {
            let _ = writeln!(md, "    a{i}([\"{}\"])", mermaid_text(a));
        }
        md.push_str("  end\n");
    }
    let rounds = questions.iter().filter_map(|q| q["round"].as_u64()).max().unwrap_or(1);
    for round in 1..=rounds {
        let _ = writeln!(md, "  subgraph round{round} [\"round {round}\"]");
        for (i, q) in questions.iter().enumerate().filter(|(_, q)| q["round"].as_u64() == Some(round)) {
            let _ = writeln!(md, "    q{i}[\"{}: {}\"]", mermaid_text(keys[i]), kind_word(str_of(&q["kind"])));
        }
        md.push_str("  end\n");
    }
    for (i, q) in questions.iter().enumerate() {
        let arrow = if str_of(&q["kind"]) == "with" { "-.->" } else { "-->" };
        for d in deps(q) {
            let _ = writeln!(md, "  {} {arrow} q{i}", id(d));
        }
    }
    md.push_str("```\n\n");
}

/// The names a question depends on.
fn deps(q: &Value) -> Vec<&str> {
    q["dependsOn"].as_array().map(|d| d.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

/// What a question's kind is called in a graph (the playground says the same).
fn kind_word(kind: &str) -> &str {
    match kind {
        "elicit" => "form",
        "elicit_url" => "URL",
        "sample" => "sampling",
        "with" => "with fn",
        other => other,
    }
}

/// Text inside a quoted Mermaid label: quotes and markup characters as entities.
fn mermaid_text(s: &str) -> String {
    s.replace('&', "#amp;").replace('"', "#quot;").replace('<', "#lt;").replace('>', "#gt;")
}

fn arguments(md: &mut String, schema: &Value) {
    let Some(properties) = schema["properties"].as_object().filter(|p| !p.is_empty()) else {
        md.push_str("No arguments.\n\n");
        return;
    };
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    md.push_str("| argument | type | required | description |\n|---|---|---|---|\n");
    for (name, prop) in properties {
        let ty = prop["type"].as_str().map(str::to_owned).unwrap_or_else(|| prop["type"].to_string());
        let _ = writeln!(
            md,
            "| `{name}` | {ty} | {} | {} |",
            if required.contains(&name.as_str()) { "yes" } else { "no" },
            str_of(&prop["description"]).replace('|', "\\|")
        );
    }
    md.push('\n');
}

fn question(md: &mut String, q: &Value) {
    let key = str_of(&q["key"]);
    let round = &q["round"];
    let after = match q["dependsOn"].as_array().map(Vec::as_slice).unwrap_or_default() {
        [] => String::new(),
        deps => format!(" (uses {})", deps.iter().map(|d| format!("`{}`", str_of(d))).collect::<Vec<_>>().join(", ")),
    };
    let what = match str_of(&q["kind"]) {
        "elicit" => format!("asks the user: \"{}\"", str_of(&q["message"])),
        "elicit_url" => format!("sends the user to `{}`: \"{}\"", str_of(&q["url"]), str_of(&q["message"])),
        "sample" => {
            let mut how = format!("at most {} tokens", q["maxTokens"]);
            if let Some(system) = q["systemPrompt"].as_str() {
                let _ = write!(how, ", system prompt \"{system}\"");
            }
            if let Some(t) = q["temperature"].as_f64() {
                let _ = write!(how, ", temperature {t}");
            }
            format!("asks the client's model: \"{}\" ({how})", str_of(&q["prompt"]))
        }
        "roots" => "asks for the client's roots".to_owned(),
        _ => format!(
            "comes from `{}`, which gives it or asks one question built at run time (once per flow)",
            str_of(&q["call"])
        ),
    };
    let _ = writeln!(md, "- round {round}: `{key}` {what}{after}");
    if let Some(fallback) = q.get("fallback") {
        let argument = fallback["argument"] == true;
        let given = if argument { "Also an argument: given, nothing is asked. " } else { "" };
        let form = if fallback["form"] == true {
            "A client without URL mode is asked with a form carrying the link. "
        } else {
            ""
        };
        let otherwise = match fallback.get("default") {
            Some(default) => Some(format!("gets `{default}`")),
            None if argument => Some("is told to pass it".to_owned()),
            None => None,
        };
        let otherwise = otherwise.map(|o| format!("A client that cannot answer {o}.")).unwrap_or_default();
        let note = format!("{given}{form}{otherwise}");
        let _ = writeln!(md, "  ({})", note.trim_end());
    }
    if let Some(schema) = q.get("requestedSchema") {
        let _ = writeln!(md, "\n  ```json\n  {}\n  ```", pretty(schema).replace('\n', "\n  "));
    }
    if let Some(schema) = q.get("valueSchema") {
        let _ = writeln!(
            md,
            "\n  The answer is a value of this schema:\n\n  ```json\n  {}\n  ```",
            pretty(schema).replace('\n', "\n  ")
        );
    }
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mermaid_graph_has_a_node_per_question_and_an_edge_per_dependency() {
        let questions = json!([
            {"key": "env", "kind": "elicit", "round": 1, "dependsOn": ["service"]},
            {"key": "ok", "kind": "with", "round": 2, "dependsOn": ["service", "env"]},
        ]);
        let mut md = String::new();
        mermaid(&mut md, questions.as_array().map(Vec::as_slice).unwrap_or_default());
        assert_eq!(
            md,
            "```mermaid\ngraph LR\n  subgraph arguments\n    a0([\"service\"])\n  end\n  \
             subgraph round1 [\"round 1\"]\n    q0[\"env: form\"]\n  end\n  \
             subgraph round2 [\"round 2\"]\n    q1[\"ok: with fn\"]\n  end\n  \
             a0 --> q0\n  a0 -.-> q1\n  q0 -.-> q1\n```\n\n"
        );
    }

    #[test]
    fn labels_cannot_break_the_syntax() {
        assert_eq!(mermaid_text(r#"a"b<c>&"#), "a#quot;b#lt;c#gt;#amp;");
    }
}
