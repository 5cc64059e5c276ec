//! Documentation from the code: every tool, prompt, resource and template with its schemas
//! and the questions it may ask, as JSON and as Markdown.
//!
//! ```
//! use roundtrip::Server;
//! let doc = Server::new("empty", "1.0.0").describe();
//! assert_eq!(doc.to_json()["server"]["name"], "empty");
//! assert!(doc.to_markdown().starts_with("# empty 1.0.0"));
//! ```

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::Server;
use crate::resolve::{Graph, Node, Resolver};

/// A server's self-description.
#[derive(Debug, Clone)]
pub struct Description {
    json: Value,
}

impl Server {
    /// Describe every tool, prompt, resource and template with its schemas and questions.
    pub fn describe(&self) -> Description {
        let tools: Vec<Value> = self
            .tool_defs()
            .iter()
            .map(|def| {
                let mut tool = serde_json::to_value(&def.tool).unwrap_or(Value::Null);
                tool["questions"] = def.graph.as_deref().map(questions).unwrap_or_else(|| json!([]));
                tool
            })
            .collect();
        let with_questions = |mut item: Value, graph: Option<&Graph>| {
            item["questions"] = graph.map(questions).unwrap_or_else(|| json!([]));
            item
        };
        let prompts: Vec<Value> =
            self.prompt_defs().iter().map(|d| with_questions(json!(d.prompt), d.graph.as_deref())).collect();
        let resources: Vec<Value> = self.resource_defs().iter().map(|d| json!(d.resource)).collect();
        let templates: Vec<Value> = self
            .resource_template_defs()
            .iter()
            .map(|d| with_questions(json!(d.template), d.graph.as_deref()))
            .collect();
        let info = self.info();
        Description {
            json: json!({
                "server": {"name": info.name, "version": info.version, "title": info.title},
                "tools": tools,
                "prompts": prompts,
                "resources": resources,
                "resourceTemplates": templates,
            }),
        }
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
                match &n.resolver {
                    Resolver::Elicit { message, schema, .. } => {
                        q["message"] = json!(message.source());
                        q["requestedSchema"] = json!(schema);
                    }
                    Resolver::ElicitUrl { url, message } => {
                        q["url"] = json!(url.source());
                        q["message"] = json!(message.source());
                    }
                    Resolver::Sample { prompt, max_tokens, .. } => {
                        q["prompt"] = json!(prompt.source());
                        q["maxTokens"] = json!(max_tokens);
                    }
                    Resolver::Roots | Resolver::With { .. } => {}
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

    /// As Markdown: a section per tool with its arguments and its questions in round order.
    pub fn to_markdown(&self) -> String {
        let j = &self.json;
        let mut md = String::new();
        let _ = writeln!(md, "# {} {}\n", str_of(&j["server"]["name"]), str_of(&j["server"]["version"]));
        let tools = j["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
        if !tools.is_empty() {
            md.push_str("## Tools\n");
        }
        for tool in tools {
            let _ = writeln!(md, "\n### `{}`\n", str_of(&tool["name"]));
            if let Some(d) = tool["description"].as_str() {
                let _ = writeln!(md, "{d}\n");
            }
            arguments(&mut md, &tool["inputSchema"]);
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
            questions_md(&mut md, &prompt["questions"]);
        }
        let resources = j["resources"].as_array().map(Vec::as_slice).unwrap_or_default();
        let templates = j["resourceTemplates"].as_array().map(Vec::as_slice).unwrap_or_default();
        if !resources.is_empty() || !templates.is_empty() {
            md.push_str("\n## Resources\n");
        }
        for r in resources.iter().chain(templates) {
            let uri = r["uri"].as_str().or_else(|| r["uriTemplate"].as_str()).unwrap_or("");
            let _ = writeln!(md, "\n### `{uri}` ({})\n", str_of(&r["name"]));
            if let Some(d) = r["description"].as_str() {
                let _ = writeln!(md, "{d}\n");
            }
            if let Some(m) = r["mimeType"].as_str() {
                let _ = writeln!(md, "MIME type: `{m}`\n");
            }
            questions_md(&mut md, &r["questions"]);
        }
        md
    }
}

fn questions_md(md: &mut String, questions: &Value) {
    let questions = questions.as_array().map(Vec::as_slice).unwrap_or_default();
    if !questions.is_empty() {
        md.push_str("**Questions**\n\n");
        for q in questions {
            question(md, q);
        }
        md.push('\n');
    }
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
            format!("asks the client's model: \"{}\" (at most {} tokens)", str_of(&q["prompt"]), q["maxTokens"])
        }
        "roots" => "asks for the client's roots".to_owned(),
        _ => "computed by a function (it may ask one question)".to_owned(),
    };
    let _ = writeln!(md, "- round {round}: `{key}` {what}{after}");
    if let Some(schema) = q.get("requestedSchema") {
        let _ = writeln!(md, "\n  ```json\n  {}\n  ```", pretty(schema).replace('\n', "\n  "));
    }
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
