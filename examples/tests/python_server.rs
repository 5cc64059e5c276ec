//! The Rust `Client` against a real server of the official Python SDK (`mcp` 2.3.0,
//! `tests/interop/servers/two_rounds.py`): its `greet` tool asks the user's name, then (in a
//! second round) their favourite colour. Over streamable HTTP and over stdio, in the
//! 2026-07-28 mode (two `InputRequiredResult` rounds) and in the legacy mode (two
//! `elicitation/create` requests during the call).
//!
//! Needs `.venv/bin/python` with `mcp` installed, which `scripts/setup-tools.sh` (run by
//! `scripts/test.sh`) creates; without it the tests fail, saying so (a test that passes
//! without its server would claim interop it never checked).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use roundtrip::client::{Client, ClientBuilder, Mode};
use roundtrip::protocol::{ElicitAction, ElicitResult, ProtocolVersion};
use serde_json::json;
use tokio::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The venv's python; a test without it fails, naming what to run.
fn python() -> PathBuf {
    let python = repo().join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup-tools.sh (scripts/test.sh does) to test against the Python SDK server",
        python.display()
    );
    python
}

fn script() -> PathBuf {
    repo().join("tests/interop/servers/two_rounds.py")
}

/// A client that answers the name and colour questions and records every question asked.
fn builder(asked: Arc<Mutex<Vec<String>>>) -> ClientBuilder {
    Client::builder("rust-interop", "1.0.0").on_elicit(move |params| {
        let asked = asked.clone();
        async move {
            let message = params.message().to_owned();
            asked.lock().unwrap().push(message.clone());
            let content = if message.contains("name") { json!({ "name": "Ada" }) } else { json!({ "color": "green" }) };
            Ok(ElicitResult::new(ElicitAction::Accept, content.as_object().cloned()))
        }
    })
}

async fn greet(client: &Client, asked: &Arc<Mutex<Vec<String>>>) {
    let tools = client.list_tools().await.unwrap();
    assert!(tools.tools.iter().any(|t| t.name == "greet"), "{tools:?}");
    let result = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Hello Ada, you like green."));
    assert_eq!(*asked.lock().unwrap(), ["What is your name?", "What is your favourite colour, Ada?"]);
}

fn stdio_command(python: &PathBuf) -> Command {
    let mut command = Command::new(python);
    command.arg(script()).arg("stdio").stderr(Stdio::null());
    command
}

#[tokio::test]
async fn two_rounds_over_stdio_in_the_2026_mode() {
    let python = python();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = builder(asked.clone()).connect_stdio(stdio_command(&python)).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("two-rounds"));
    greet(&client, &asked).await;
}

#[tokio::test]
async fn two_questions_over_stdio_in_the_legacy_mode() {
    let python = python();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = builder(asked.clone()).mode(Mode::Legacy).connect_stdio(stdio_command(&python)).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    greet(&client, &asked).await;
}

/// Kills the server process when the test ends, however it ends.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn two_rounds_over_streamable_http() {
    let python = python();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = KillOnDrop(
        std::process::Command::new(&python)
            .arg(script())
            .args(["http", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(server.0.try_wait().unwrap().is_none(), "the Python server exited before listening");
        assert!(Instant::now() < deadline, "the Python server did not listen on {port} within 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let url = format!("http://127.0.0.1:{port}/mcp");

    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = builder(asked.clone()).connect_http(&url).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    greet(&client, &asked).await;

    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = builder(asked.clone()).mode(Mode::Legacy).connect_http(&url).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    greet(&client, &asked).await;
}
