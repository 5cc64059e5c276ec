//! The runner as an operator meets it: the `provision` binary on an open address, with and
//! without the names it answers to, and a limit set by name.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

fn provision(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_provision"));
    command.args(args).env_remove("ROUNDTRIP_ALLOW_ANY_HOST").env_remove("ROUNDTRIP_ALLOWED_HOSTS");
    command
}

#[test]
fn an_open_bind_without_allowed_hosts_stops_naming_the_flags() {
    let out = provision(&["--http", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for names in ["--allowed-host", "ROUNDTRIP_ALLOWED_HOSTS", "--allow-any-host", "ROUNDTRIP_ALLOW_ANY_HOST"] {
        assert!(stderr.contains(names), "{stderr}");
    }
}

#[test]
fn a_bad_limit_stops_naming_it() {
    let out = provision(&["--http", "127.0.0.1:0", "--limit", "max_streams_per_caller=lots"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--limit max_streams_per_caller"), "{out:?}");
}

#[tokio::test]
async fn a_dns_rebinding_page_cannot_run_a_tool_on_an_open_bind() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("0.0.0.0:{port}");
    let mut child = provision(&["--http", &addr, "--allowed-host", "mcp.example.com"])
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for "serving MCP at".
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("serving MCP at") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30)).expect("the server starts");
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "provision", "arguments": {"name": "orders", "region": "eu-west-1"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let send = |host: &'static str, origin: Option<&'static str>| {
        let mut request = reqwest::Client::new()
            .post(format!("http://127.0.0.1:{port}/mcp"))
            .header("host", host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "provision")
            .body(body.to_string());
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    let rebinding = send("attacker.test", Some("http://attacker.test")).await.unwrap();
    assert_eq!(rebinding.status(), 403);
    let named = send("mcp.example.com", None).await.unwrap();
    assert_ne!(named.status(), 403, "a client of the named host is served");
    child.kill().unwrap();
    child.wait().unwrap();
}
