//! The Redis task store and replay cache over TLS (`rediss://`, feature `redis`), against a real
//! `redis-server` started here with a TLS port only (`--port 0 --tls-port …`) and a certificate
//! of a CA made here (the test command installs Debian's redis-server, which is built with TLS).
//!
//! The CA is trusted only through `SSL_CERT_FILE`, as a deployment would trust its own: that
//! part runs in a child process (this test binary again, for one ignored test), so the variable
//! reaches no other test. In this process, which does not trust the CA, connecting is refused
//! with a certificate error.

#![allow(clippy::unwrap_used)] // a test fails loudly

mod tls;

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::wait_for;
use roundtrip::client::{Client, ClientError, Step};
use roundtrip::prelude::*;
use roundtrip::protocol::{JsonObject, TaskStatus};
use roundtrip::redis::RedisReplayCache;
use roundtrip::redis::RedisStore;
use serde_json::json;

/// Where the child finds the server; set only for the child.
const URL_VAR: &str = "ROUNDTRIP_TEST_REDISS_URL";

/// A `redis-server` speaking only TLS on a free loopback port, stopped when dropped.
struct TlsRedis {
    child: Child,
    url: String,
    _dir: tls::TempDir,
    ca: std::path::PathBuf,
}

impl TlsRedis {
    fn start(ca: &tls::TestCa) -> Self {
        let dir = tls::TempDir::new("rediss");
        let (ca_file, cert, key) = ca.write_to(&dir.0);
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let path = |p: &std::path::Path| p.to_str().unwrap().to_owned();
        let child = Command::new("redis-server")
            .args(["--port", "0", "--tls-port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--tls-cert-file", &path(&cert), "--tls-key-file", &path(&key)])
            .args(["--tls-ca-cert-file", &path(&ca_file), "--tls-auth-clients", "no"])
            .args(["--save", "", "--appendonly", "no", "--dir", &path(&dir.0)])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server must be installed (the test command installs Debian's redis-server)");
        // Owned from here on: dropped (killed and waited for) on every path.
        let mut server = Self { child, url: format!("rediss://127.0.0.1:{port}/"), _dir: dir, ca: ca_file };
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("redis-server exited with {status} (is it built with TLS?)");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("redis-server did not listen on TLS port {port}");
    }
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn rediss_shares_tasks_and_used_states_when_the_ca_is_trusted_and_is_refused_when_not() {
    let ca = tls::TestCa::new();
    let redis = TlsRedis::start(&ca);

    // This process trusts the system's roots (or whatever SSL_CERT_FILE says here), not the CA.
    // redis retries a failed connection a few times (about 6 s of backoff) before giving up.
    let started = Instant::now();
    let (store, cache) = tokio::join!(RedisStore::connect(&redis.url), RedisReplayCache::connect(&redis.url));
    let took = started.elapsed();
    for refused in [store.map(|_| ()).unwrap_err().to_string(), cache.map(|_| ()).unwrap_err()] {
        assert!(refused.contains("invalid peer certificate: UnknownIssuer"), "{refused}");
        assert!(refused.contains("SSL_CERT_FILE"), "the error says where trusted roots come from: {refused}");
    }
    assert!(took < Duration::from_secs(30), "refused, not hung: {took:?}");

    // A child that trusts the CA through SSL_CERT_FILE alone (SSL_CERT_DIR removed).
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "over_rediss_in_a_child_that_trusts_the_ca", "--ignored", "--nocapture"])
        .env(URL_VAR, &redis.url)
        .env("SSL_CERT_FILE", &redis.ca)
        .env_remove("SSL_CERT_DIR")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&child.stdout), String::from_utf8_lossy(&child.stderr));
    assert!(child.status.success(), "the child failed:\n{stdout}\n{stderr}");
    for done in ["rediss: a task was answered on another server", "rediss: a used state was refused on another replica"]
    {
        assert!(stdout.contains(done), "the child did not report `{done}`:\n{stdout}\n{stderr}");
    }
}

/// Waits, while running, for one answer.
#[tool(task)]
async fn approve(task: TaskContext) -> Result<String, Error> {
    let ok = task.ask_as::<bool>(Question::confirm("Approve?", "approve")).await?;
    Ok(format!("approved: {:?}", ok.accepted()))
}

/// Transfers money: each sealed state is accepted once.
#[tool(single_use)]
async fn transfer(amount: u32, #[resolve(elicit = "Transfer {amount}?")] ok: bool) -> String {
    format!("transferred: {}", if ok { amount } else { 0 })
}

/// A replica: its own connections to the store and the replay cache, keys shared with the other.
async fn replica(url: &str) -> Client {
    let keys = roundtrip::RequestStateSecurity::new().keys([*b"roundtrip test key 9: not secret"]);
    let server = Server::new("rediss", "1")
        .security(keys)
        .unwrap()
        .task_store(RedisStore::connect(url).await.unwrap())
        .replay_cache(RedisReplayCache::connect(url).await.unwrap())
        .tools(tools![approve, transfer]);
    Client::builder("rediss-test", "1")
        .on_elicit(|_| async { Err(ClientError::Callback("driven by hand".into())) })
        .connect_in_memory(server)
        .await
        .unwrap()
}

/// Run by the test above in a child process whose `SSL_CERT_FILE` is the test CA.
#[tokio::test]
#[ignore = "run by the rediss test in a child process that trusts the test CA through SSL_CERT_FILE"]
async fn over_rediss_in_a_child_that_trusts_the_ca() {
    let Ok(url) = std::env::var(URL_VAR) else {
        eprintln!("{URL_VAR} is not set: this runs in the child of the rediss test only");
        return;
    };
    let (a, b) = (replica(&url).await, replica(&url).await);

    // A task started on A is answered on B; A's body resumes.
    let Step::Task(task) = a.call_tool_step("approve", json!({}), None, None).await.unwrap() else {
        panic!("approve did not become a task")
    };
    wait_for(&b, &task.task_id, |s| s == TaskStatus::InputRequired).await;
    let mut answer = JsonObject::new();
    answer.insert("approve".into(), json!({"action": "accept", "content": {"approve": true}}));
    b.update_task(&task.task_id, answer).await.unwrap();
    assert_eq!(wait_for(&b, &task.task_id, |s| s.is_terminal()).await, TaskStatus::Completed);
    let done = a.get_task(&task.task_id).await.unwrap().task;
    assert_eq!(done.result.unwrap()["content"][0]["text"], "approved: Some(true)");
    println!("rediss: a task was answered on another server");

    // A single-use state accepted on A is refused on B.
    let args = json!({"amount": 100});
    let Step::InputRequired(first) = a.call_tool_step("transfer", args.clone(), None, None).await.unwrap() else {
        panic!("transfer asks first")
    };
    let mut answer = JsonObject::new();
    answer.insert("ok".into(), json!({"action": "accept", "content": {"ok": true}}));
    let state = first.request_state.clone();
    let done = a.call_tool_step("transfer", args.clone(), Some(answer.clone()), state.clone()).await.unwrap();
    assert!(matches!(done, Step::Complete(ref r) if r.content[0].as_text() == Some("transferred: 100")), "{done:?}");
    let err = b.call_tool_step("transfer", args, Some(answer), state).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602), "{err:?}");
    println!("rediss: a used state was refused on another replica");
}
