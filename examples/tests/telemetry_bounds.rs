//! Telemetry that callers cannot blow up (issue 39), against the `provision` example run as a
//! separate process with `--http` and `--metrics`:
//!
//! - tool names a caller makes up are one label value, `_OTHER`: forty 1 MB names leave the
//!   scrape small and the process's memory where it was, and 2,500 junk names do not push a
//!   declared tool's calls into the overflow series;
//! - the metrics listener has the endpoint's connection limits: 1,100 idle connections to it,
//!   in a process that may open 1,024 files, leave the MCP endpoint answering.
#![cfg(feature = "otel")]
#![allow(clippy::unwrap_used)] // a test fails loudly

use std::net::{SocketAddr, TcpListener};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::process::{Child, Command};

/// A free loopback port.
fn free_addr() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

/// The `provision` example serving MCP at `http` and metrics at `metrics`, started through
/// `sh` so that its open-file limit can be set (`ulimit -n`).
async fn provision(http: SocketAddr, metrics: SocketAddr, open_files: Option<u32>) -> Child {
    let ulimit = open_files.map(|n| format!("ulimit -n {n} && ")).unwrap_or_default();
    let mut server = Command::new("sh")
        .arg("-c")
        .arg(format!("{ulimit}exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_provision"))
        .args(["--http", &http.to_string(), "--metrics", &metrics.to_string()])
        .env("RUST_LOG", "error")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    for addr in [http, metrics] {
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            assert!(Instant::now() < deadline, "provision did not listen on {addr}");
            assert!(server.try_wait().unwrap().is_none(), "provision exited");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    server
}

/// A legacy (2025-11-25) session on the endpoint: no header has to repeat what the body says,
/// so any name reaches the server as it was sent.
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

impl Session {
    async fn open(addr: SocketAddr) -> Self {
        let http = reqwest::Client::new();
        let url = format!("http://{addr}/mcp");
        let response = http
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bounds-test", "version": "1.0.0"},
            }}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let id = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let session = Self { http, url, id };
        session.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        session
    }

    /// POST `message` in the session; the whole answer's body.
    async fn post(&self, message: Value) -> String {
        let response = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", "2025-11-25")
            .json(&message)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        response.text().await.unwrap()
    }

    async fn call(&self, id: usize, tool: &str) -> String {
        let params = json!({"name": tool, "arguments": {}});
        self.post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).await
    }
}

async fn scrape(metrics: SocketAddr) -> String {
    let response = reqwest::get(format!("http://{metrics}/metrics")).await.unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// The resident memory of process `pid`, in bytes (`VmRSS` of `/proc/PID/status`).
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_one_megabyte_tool_names_leave_the_scrape_and_the_memory_small() {
    let (http, metrics) = (free_addr(), free_addr());
    let server = provision(http, metrics, None).await;
    let pid = server.id().unwrap();
    let session = Session::open(http).await;
    // Warm up: a few calls, a scrape, so that what is measured is what the names cost.
    for id in 0..5 {
        session.call(id, &format!("warm-{id}")).await;
    }
    scrape(metrics).await;
    let before = rss(pid);
    for id in 0..40 {
        let name = format!("{id:02}{}", "x".repeat(1 << 20));
        session.call(100 + id, &name).await;
    }
    let text = scrape(metrics).await;
    let grown = rss(pid).saturating_sub(before);
    // Before: every name was a label value, a scrape of 713 MB, and the process grew by
    // hundreds of megabytes.
    let figures = format!("the scrape is {} bytes, the process grew by {} KB", text.len(), grown >> 10);
    eprintln!("{figures}");
    assert!(text.len() < 1 << 20, "{figures}");
    assert!(text.contains("gen_ai_tool_name=\"_OTHER\""), "{text}");
    // The names themselves are 40 MB: were any kept, the process would grow by more than that.
    // What it grows by otherwise varies from run to run (7 to 21 MB measured): glibc keeps
    // freed blocks of a megabyte in its arenas once its mmap threshold has risen.
    assert!(grown < 32 << 20, "{figures}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_tool_keeps_its_series_after_2500_junk_names() {
    let (http, metrics) = (free_addr(), free_addr());
    let _server = provision(http, metrics, None).await;
    let session = std::sync::Arc::new(Session::open(http).await);
    // Four at a time: 2,500 names more than fill the SDK's 2,000 series per instrument.
    let mut callers = Vec::new();
    for lane in 0..4 {
        let session = session.clone();
        callers.push(tokio::spawn(async move {
            for i in (lane..2500).step_by(4) {
                session.call(i, &format!("junk-{i}")).await;
            }
        }));
    }
    for caller in callers {
        caller.await.unwrap();
    }
    session.call(9999, "slow_sum").await;
    let text = scrape(metrics).await;
    let duration = |line: &&str| line.starts_with("mcp_server_operation_duration_seconds_count");
    let series: Vec<&str> = text.lines().filter(duration).collect();
    assert!(
        series.iter().any(|l| l.contains("gen_ai_tool_name=\"slow_sum\"")),
        "the declared tool's own series: {series:#?}"
    );
    assert!(!text.contains("junk-"), "no junk name is a label");
    assert!(series.len() < 20, "{} series", series.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_to_the_metrics_listener_leave_the_endpoint_answering() {
    // This process holds the client ends: 1,100 of them, past the usual soft limit of 1,024.
    let needed = 1_400;
    let got = rlimit::increase_nofile_limit(needed).unwrap_or(0);
    assert!(got >= needed, "this test needs {needed} open files; the limit could only be raised to {got}");
    let (http, metrics) = (free_addr(), free_addr());
    let _server = provision(http, metrics, Some(1024)).await;
    let mut idle = Vec::new();
    for _ in 0..1_100 {
        // Past what the server accepts the kernel's backlog fills, and connecting waits.
        if let Ok(Ok(stream)) =
            tokio::time::timeout(Duration::from_millis(200), tokio::net::TcpStream::connect(metrics)).await
        {
            idle.push(stream);
        }
    }
    assert!(idle.len() > 1_024, "only {} connections opened", idle.len());
    // Let the server accept what it will.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let answered = tokio::time::timeout(Duration::from_secs(10), Session::open(http)).await;
    assert!(answered.is_ok(), "the MCP endpoint did not answer with 1,100 connections open to the metrics listener");
    drop(idle);
}
