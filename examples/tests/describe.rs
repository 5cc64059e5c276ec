//! The provision and ops examples document themselves: each tool's arguments, its questions in round
//! order, and their schemas. Review a changed snapshot with `cargo insta review`.

#[test]
fn provision_markdown() {
    insta::assert_snapshot!(roundtrip_examples::provision::server().describe().to_markdown());
}

#[test]
fn provision_json() {
    insta::assert_json_snapshot!(roundtrip_examples::provision::server().describe().to_json());
}

#[test]
fn ops_markdown() {
    insta::assert_snapshot!(roundtrip_examples::ops::server().describe().to_markdown());
}

/// Every tool that asks something has exactly one Mermaid graph in its section, and a tool
/// that asks nothing has none.
#[test]
fn a_mermaid_graph_per_tool_that_asks() {
    for server in [roundtrip_examples::provision::server(), roundtrip_examples::ops::server()] {
        let doc = server.describe();
        let markdown = doc.to_markdown();
        let tools = markdown.split("\n## Prompts").next().unwrap_or_default();
        for tool in doc.to_json()["tools"].as_array().into_iter().flatten() {
            let name = tool["name"].as_str().unwrap_or_default();
            let section = tools.split(&format!("\n### `{name}`\n")).nth(1).unwrap_or_default();
            let section = section.split("\n### ").next().unwrap_or_default();
            let asks = tool["questions"].as_array().is_some_and(|q| !q.is_empty());
            assert_eq!(section.matches("```mermaid\ngraph LR\n").count(), usize::from(asks), "tool `{name}`");
        }
    }
}
