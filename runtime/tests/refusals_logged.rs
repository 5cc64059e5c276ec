//! Every call that ends without its result is logged with why (issue 41): a refusal, a
//! JSON-RPC error a handler chose, a capability the client lacks, in both eras.

#![allow(clippy::unwrap_used)] // a test fails loudly
use std::io::Write;
use std::sync::{Arc, Mutex};

use roundtrip::client::{Client, Mode};
use roundtrip::prelude::*;
use roundtrip::testing::TestKit;
use serde_json::json;

/// Refuse.
#[tool]
async fn refuse() -> Result<String, Error> {
    Err(Error::new("not on a Friday"))
}

/// Check an id.
#[tool]
async fn lookup(id: String) -> Result<String, Error> {
    Err(Error::invalid_params(format!("no entry {id}")))
}

/// Ask where.
#[tool]
async fn deploy(#[resolve(elicit = "Where?")] target: String) -> String {
    target
}

/// What the subscriber writes, kept.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn each_refusal_is_logged_with_its_reason() {
    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter("roundtrip::server=info")
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let server = Server::new("logged", "1").tools(tools![refuse, lookup, deploy]);
    let kit = TestKit::new(server.clone()).without_elicitation();
    assert!(kit.call_tool("refuse", json!({})).await.unwrap().is_error());
    assert!(kit.call_tool("lookup", json!({"id": "7"})).await.is_err());
    assert!(kit.call_tool("deploy", json!({})).await.is_err());
    // What a caller sends is capped in the log: a megabyte id makes a line of a few KiB.
    assert!(kit.call_tool("lookup", json!({"id": "x".repeat(1 << 20)})).await.is_err());
    let legacy = Client::builder("legacy", "1").mode(Mode::Legacy).connect_in_memory(server).await.unwrap();
    assert!(legacy.call_tool("deploy", json!({})).await.is_err());
    let log = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    let refused: Vec<&str> = log.lines().filter(|l| l.contains("refused:")).collect();
    assert_eq!(refused.len(), 5, "{log}");
    assert!(refused.iter().all(|line| line.len() < 2 * 2048 + 256), "a line holds what a caller sent, uncapped");
    assert!(refused[0].contains("refused: not on a Friday") && refused[0].contains("target_name=refuse"), "{log}");
    assert!(refused[1].contains("refused: no entry 7") && refused[1].contains("target_name=lookup"), "{log}");
    assert!(refused[2].contains("elicitation") && refused[2].contains("version=2026-07-28"), "{log}");
    assert!(refused[3].contains("refused: no entry xxx") && refused[3].contains("target_name=lookup"), "{log}");
    assert!(refused[4].contains("elicitation") && refused[4].contains("version=2025-11-25"), "{log}");
}
