//! The client's retry rule: a request that never reached a server is sent again; a 502/503 is
//! sent again only when doing so is harmless (a tool marked idempotent, the task methods,
//! reads and lists).

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::Request;
use axum::middleware::{Next, from_fn};
use axum::response::IntoResponse;
use roundtrip::client::{Client, ClientError};
use roundtrip::prelude::*;
use serde_json::json;

/// Reads a setting: running it twice changes nothing.
#[tool(idempotent)]
async fn setting() -> String {
    "on".into()
}

/// Charges a card: not idempotent.
#[tool]
async fn charge() -> String {
    "charged".into()
}

/// Asks for approval while it runs (a task).
#[tool(task)]
async fn approve(task: TaskContext) -> Result<String, Error> {
    let ok = task.ask_as::<bool>(Question::confirm("Approve?", "approve")).await?;
    Ok(format!("approved: {:?}", ok.accepted()))
}

fn server() -> Server {
    Server::new("retry", "1").tools(tools![setting, charge, approve])
}

/// Serve `server` behind a layer that answers 503 to the first `failures` `tools/call`s.
async fn flaky(failures: usize) -> (String, Arc<AtomicUsize>) {
    flaky_with(failures, http::StatusCode::SERVICE_UNAVAILABLE, None).await
}

/// Serve `server` behind a layer that answers `status` (with `Retry-After: retry_after` when
/// given) to the first `failures` `tools/call`s; the counter counts every `tools/call` that
/// reached the layer.
async fn flaky_with(
    failures: usize,
    status: http::StatusCode,
    retry_after: Option<&'static str>,
) -> (String, Arc<AtomicUsize>) {
    flaky_method("tools/call", failures, status, retry_after).await
}

/// [`flaky_with`], for requests of `method`.
async fn flaky_method(
    method: &'static str,
    failures: usize,
    status: http::StatusCode,
    retry_after: Option<&'static str>,
) -> (String, Arc<AtomicUsize>) {
    let refused = Arc::new(AtomicUsize::new(0));
    let counter = refused.clone();
    let router = server().router().layer(from_fn(move |request: Request, next: Next| {
        let counter = counter.clone();
        async move {
            let is_call = request.headers().get("mcp-method").is_some_and(|m| m == method);
            if is_call && counter.fetch_add(1, Ordering::SeqCst) < failures {
                let mut response = (status, "overloaded").into_response();
                if let Some(seconds) = retry_after {
                    response.headers_mut().insert("retry-after", http::HeaderValue::from_static(seconds));
                }
                return response;
            }
            next.run(request).await
        }
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, refused)
}

#[tokio::test]
async fn a_503_is_retried_for_an_idempotent_tool_and_not_for_another() {
    let (url, refused) = flaky(2).await;
    let client = Client::builder("retry-test", "1").connect_http(&url).await.unwrap();
    client.list_tools().await.unwrap();
    let result = client.call_tool("setting", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("on"));
    assert_eq!(refused.load(Ordering::SeqCst), 3, "two refusals, then the retry that went through");

    let (url, refused) = flaky(1).await;
    let client = Client::builder("retry-test", "1").connect_http(&url).await.unwrap();
    client.list_tools().await.unwrap();
    let err = client.call_tool("charge", json!({})).await.unwrap_err();
    assert_eq!(err, ClientError::Unavailable { status: 503, retry_after: None });
    assert_eq!(refused.load(Ordering::SeqCst), 1, "sent once: it may have run");
}

#[tokio::test]
async fn a_request_that_never_reached_a_server_is_sent_again() {
    let first = server().bind_http("127.0.0.1:0").await.unwrap();
    let (addr, url) = (first.local_addr(), first.url());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(first.run_until(async move {
        let _ = stopped.await;
    }));
    let client = Client::builder("retry-test", "1").connect_http(&url).await.unwrap();
    // The server goes away; a new one takes the same address a little later.
    let _ = stop.send(());
    let _ = running.await;
    let restart = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(120)).await;
        server().bind_http(addr).await.unwrap().run().await
    });
    // Not idempotent, yet resent: the refused connection carried nothing.
    let result = client.call_tool("charge", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("charged"));
    restart.abort();
}

#[tokio::test]
async fn a_502_is_retried_after_the_servers_retry_after() {
    let (url, refused) = flaky_with(1, http::StatusCode::BAD_GATEWAY, Some("1")).await;
    let client = Client::builder("retry-test", "1").connect_http(&url).await.unwrap();
    client.list_tools().await.unwrap();
    let started = std::time::Instant::now();
    let result = client.call_tool("setting", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("on"));
    assert_eq!(refused.load(Ordering::SeqCst), 2, "the 502, then the retry");
    // Only a lower bound: the wait the server asked for was kept (a sleep is never short).
    assert!(started.elapsed() >= Duration::from_secs(1), "retried after {:?}", started.elapsed());

    // A tool that may have run is not resent, and the caller learns when to try again.
    let (url, refused) = flaky_with(1, http::StatusCode::BAD_GATEWAY, Some("7")).await;
    let client = Client::builder("retry-test", "1").connect_http(&url).await.unwrap();
    client.list_tools().await.unwrap();
    let err = client.call_tool("charge", json!({})).await.unwrap_err();
    assert_eq!(err, ClientError::Unavailable { status: 502, retry_after: Some(7) });
    assert_eq!(refused.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn retries_end_with_the_last_answer_after_six() {
    // Always unavailable, asking for no wait: the client gives up after its six retries and
    // reports the answer it got, rather than trying forever.
    let (url, refused) = flaky_with(usize::MAX, http::StatusCode::SERVICE_UNAVAILABLE, Some("0")).await;
    let client = Client::builder("retry-test", "1").connect_http(&url).await.unwrap();
    client.list_tools().await.unwrap();
    let err = client.call_tool("setting", json!({})).await.unwrap_err();
    assert_eq!(err, ClientError::Unavailable { status: 503, retry_after: Some(0) });
    assert_eq!(refused.load(Ordering::SeqCst), 7, "the first attempt and six retries");
}

#[tokio::test]
async fn a_tasks_answer_no_server_took_is_sent_again_at_the_next_poll_not_asked_again() {
    // tasks/update answered 503 eight times: more than the client's six retries of one
    // request. The answer is kept and sent again at the next poll, and the user is asked once.
    let (url, refused) = flaky_method("tasks/update", 8, http::StatusCode::SERVICE_UNAVAILABLE, Some("0")).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let client = Client::builder("retry-test", "1")
        .tasks(true)
        .on_elicit(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            async {
                Ok(roundtrip::protocol::ElicitResult::new(
                    roundtrip::protocol::ElicitAction::Accept,
                    serde_json::from_value(json!({"approve": true})).ok(),
                ))
            }
        })
        .connect_http(&url)
        .await
        .unwrap();
    let result = client.call_tool("approve", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("approved: Some(true)"));
    assert_eq!(asked.load(Ordering::SeqCst), 1, "the answer was kept, not asked for again");
    assert!(refused.load(Ordering::SeqCst) >= 9, "eight refused, then one taken: {}", refused.load(Ordering::SeqCst));
}
