//! The client's multi-round loop, rule by rule, against in-memory servers.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use roundtrip::Server;
use roundtrip::client::{Client, ClientBuilder, ClientError, Mode, Step};
use roundtrip::protocol::{
    CallToolResult, CreateMessageResult, ElicitResult, ProtocolVersion, Root, Tool, empty_input_schema,
};
use roundtrip::server::{InputRequired, Outcome, ToolDef};
use serde_json::json;

fn accept(name: &str) -> ElicitResult {
    ElicitResult::accept(common::object(json!({ "name": name })))
}

fn builder() -> ClientBuilder {
    Client::builder("loop-test", "1.0.0").on_elicit(|_| async { Ok(accept("Ada")) })
}

fn tool(
    name: &str,
    f: impl Fn(&roundtrip::RequestContext) -> Outcome<CallToolResult> + Send + Sync + 'static,
) -> ToolDef {
    let f = Arc::new(f);
    ToolDef::new(Tool::new(name, empty_input_schema()), move |cx| {
        let f = f.clone();
        async move { Ok(f(&cx)) }
    })
}

fn ask() -> Outcome<CallToolResult> {
    InputRequired::new().elicit("q", "?", common::object(json!({"type": "object", "properties": {}}))).into()
}

#[tokio::test]
async fn the_loop_hides_rounds_and_returns_the_final_result() {
    let client = builder().connect_in_memory(common::fixture()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let r = client.call_tool("ask_name", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("Hello, Ada!"));
}

#[tokio::test]
async fn the_round_budget_is_ten_by_default_and_configurable() {
    let rounds = Arc::new(AtomicUsize::new(0));
    let seen = rounds.clone();
    let server = Server::new("s", "1").tool(tool("forever", move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        ask()
    }));
    let client = builder().connect_in_memory(server.clone()).await.unwrap();
    let err = client.call_tool("forever", json!({})).await.unwrap_err();
    assert_eq!(err, ClientError::TooManyRounds(10));
    assert!(err.to_string().contains("10 rounds"));
    assert_eq!(rounds.swap(0, Ordering::SeqCst), 10);
    let client = builder().max_rounds(3).connect_in_memory(server).await.unwrap();
    assert_eq!(client.call_tool("forever", json!({})).await.unwrap_err(), ClientError::TooManyRounds(3));
    assert_eq!(rounds.load(Ordering::SeqCst), 3);
}

// On tokio's paused clock: the times are the client's own sleeps, exact whatever the machine's
// load (the in-memory transport does no real I/O, so the clock only moves when all wait).
#[tokio::test(start_paused = true)]
async fn state_only_rounds_back_off_from_50_ms_doubling_to_250_ms_and_reset_after_questions() {
    // Rounds: state, state, state, question, state, complete.
    let times = Arc::new(Mutex::new(Vec::new()));
    let seen = times.clone();
    let server = Server::new("s", "1").tool(tool("paced", move |cx| {
        seen.lock().unwrap().push(tokio::time::Instant::now());
        let n = cx.state::<u32>().unwrap_or(0);
        match n {
            0..=2 | 4 => InputRequired::new().state(&(n + 1)).into(),
            3 => InputRequired::new()
                .elicit("q", "?", common::object(json!({"type": "object", "properties": {}})))
                .state(&(n + 1))
                .into(),
            _ => Outcome::Complete(CallToolResult::text("done")),
        }
    }));
    let client = builder().connect_in_memory(server).await.unwrap();
    client.call_tool("paced", json!({})).await.unwrap();
    let t = times.lock().unwrap();
    let gaps: Vec<Duration> = t.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps.len(), 5);
    let ms = |d: Duration| d.as_millis();
    // Each gap is the backoff itself, to the millisecond the paused clock rounds to.
    assert!((50..=51).contains(&ms(gaps[0])), "{gaps:?}");
    assert!((100..=101).contains(&ms(gaps[1])), "{gaps:?}");
    assert!((200..=201).contains(&ms(gaps[2])), "{gaps:?}");
    assert!(ms(gaps[3]) <= 1, "a round with questions is retried at once: {gaps:?}");
    assert!((50..=51).contains(&ms(gaps[4])), "the backoff resets after questions: {gaps:?}");
}

#[tokio::test]
async fn state_is_echoed_byte_for_byte_and_a_dropped_state_is_not_sent() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let server = Server::new("s", "1").tool(tool("drops", move |cx| {
        let step = cx.input_responses().len();
        log.lock().unwrap().push((cx.has_state(), cx.raw_state().map(<[u8]>::to_vec)));
        match (cx.has_state(), step) {
            (false, 0) => InputRequired::new()
                .elicit("a", "?", common::object(json!({"type": "object", "properties": {}})))
                .state(&"first")
                .into(),
            (true, _) => ask(), // questions without state: the next retry must carry none
            (false, _) => Outcome::Complete(CallToolResult::text("done")),
        }
    }));
    let client = builder().connect_in_memory(server).await.unwrap();
    client.call_tool("drops", json!({})).await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[1], (true, Some(serde_json::to_vec("first").unwrap())));
    assert_eq!(seen[2], (false, None));
}

#[tokio::test]
async fn a_missing_callback_fails_with_a_plain_message() {
    let client = Client::builder("bare", "1").connect_in_memory(common::fixture()).await.unwrap();
    let err = client.call_tool("ask_name", json!({})).await.unwrap_err();
    // Without the capability the server refuses up front…
    assert!(matches!(err, ClientError::Rpc(ref e) if e.code == -32021), "{err:?}");
    // …and a server that asks anyway meets the missing callback.
    let server = Server::new("s", "1").tool(tool("asks", |_| ask()));
    let client = Client::builder("bare", "1")
        .on_sample(|_| async { Err(ClientError::Callback("unused".into())) })
        .connect_in_memory(server)
        .await
        .unwrap();
    let err = client.call_tool("asks", json!({})).await.unwrap_err();
    assert!(matches!(err, ClientError::Rpc(ref e) if e.code == -32021), "{err:?}");
    assert_eq!(ClientError::ElicitationNotSupported.to_string(), "Elicitation not supported");
    assert_eq!(ClientError::SamplingNotSupported.to_string(), "Sampling not supported");
    assert_eq!(ClientError::RootsNotSupported.to_string(), "Roots not supported");
}

// On tokio's paused clock: three 300 ms callbacks take 300 ms together and 900 ms one after
// another, exactly, however loaded the machine.
#[tokio::test(start_paused = true)]
async fn one_rounds_callbacks_run_concurrently_and_a_failure_cancels_its_siblings() {
    let client = Client::builder("c", "1")
        .on_elicit(|_| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(accept("Ada"))
        })
        .on_sample(|_| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(CreateMessageResult::text("Paris", "m"))
        })
        .on_roots(|| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(vec![Root::new("file:///r")])
        })
        .connect_in_memory(common::fixture())
        .await
        .unwrap();
    let started = tokio::time::Instant::now();
    let r = client.call_tool("ask_everything", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("Ada / Paris / file:///r"));
    assert!(started.elapsed() < Duration::from_millis(600), "callbacks ran one after another: {:?}", started.elapsed());

    let finished = Arc::new(AtomicBool::new(false));
    let flag = finished.clone();
    let client = Client::builder("c", "1")
        .on_elicit(|_| async { Err(ClientError::Callback("the user closed the window".into())) })
        .on_sample(move |_| {
            let flag = flag.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                flag.store(true, Ordering::SeqCst);
                Err(ClientError::Callback("late".into()))
            }
        })
        .on_roots(|| async { Ok(vec![]) })
        .connect_in_memory(common::fixture())
        .await
        .unwrap();
    let err = client.call_tool("ask_everything", json!({})).await.unwrap_err();
    assert_eq!(err, ClientError::Callback("the user closed the window".into()));
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!finished.load(Ordering::SeqCst), "the sibling callback was not cancelled");
}

// On tokio's paused clock: the clock moves only once every task waits, so the cancellation has
// reached the handler by the time the 100 ms pass, however loaded the machine.
#[tokio::test(start_paused = true)]
async fn dropping_a_call_cancels_the_request_in_flight() {
    /// Sets the flag when the handler ends, whether it saw the cancellation or was dropped.
    struct Ended(Arc<AtomicBool>);
    impl Drop for Ended {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = cancelled.clone();
    let server = Server::new("s", "1").tool(ToolDef::new(Tool::new("slow", empty_input_schema()), move |cx| {
        let ended = Ended(flag.clone());
        async move {
            let _ended = ended;
            cx.cancellation().cancelled().await;
            Ok(Outcome::Complete(CallToolResult::text("never sent")))
        }
    }));
    let client = builder().connect_in_memory(server).await.unwrap();
    let call = client.call_tool("slow", json!({}));
    assert!(tokio::time::timeout(Duration::from_millis(100), call).await.is_err());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(cancelled.load(Ordering::SeqCst));
    // The connection still works.
    assert!(client.list_tools().await.is_ok());
}

#[tokio::test]
async fn the_manual_form_returns_the_round_for_the_caller_to_persist() {
    let server = common::fixture();
    let client = builder().connect_in_memory(server.clone()).await.unwrap();
    let Step::InputRequired(round) = client.call_tool_step("ask_name", json!({}), None, None).await.unwrap() else {
        panic!("expected a round");
    };
    let state = round.request_state.clone().unwrap();
    assert!(round.input_requests.unwrap().contains_key("user_name"));
    // Another client (another process, in real life) resumes the flow on the same server.
    let other = Client::builder("other", "1").connect_in_memory(server).await.unwrap();
    let answers = common::object(json!({"user_name": {"action": "accept", "content": {"name": "Grace"}}}));
    let Step::Complete(r) = other.call_tool_step("ask_name", json!({}), Some(answers), Some(state)).await.unwrap()
    else {
        panic!("expected completion");
    };
    assert_eq!(r.content[0].as_text(), Some("Hello, Grace!"));
}

#[tokio::test]
async fn on_legacy_sessions_server_requests_reach_the_same_callbacks() {
    let client = builder().mode(Mode::Legacy).connect_in_memory(common::fixture()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let r = client.call_tool("ask_name", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("Hello, Ada!"));
    assert!(r.result_type.is_none());
}

#[tokio::test]
async fn progress_tokens_are_sent_only_when_asked_and_progress_reaches_the_hook() {
    let server = Server::new("s", "1").tool(ToolDef::new(Tool::new("work", empty_input_schema()), |cx| async move {
        let token = cx.progress_token().is_some();
        cx.progress(1.0, Some(2.0), Some("half"));
        cx.progress(2.0, Some(2.0), None);
        Ok(Outcome::Complete(CallToolResult::text(format!("token: {token}"))))
    }));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let hook = seen.clone();
    let client = builder()
        .progress_tokens(true)
        .on_notification(move |n| hook.lock().unwrap().push(n))
        .connect_in_memory(server.clone())
        .await
        .unwrap();
    let r = client.call_tool("work", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("token: true"));
    // Notifications travel beside the response; give the reader a moment.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let progress: Vec<f64> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|n| n.method == "notifications/progress")
        .map(|n| n.params.as_ref().unwrap()["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0]);

    let client = builder().connect_in_memory(server).await.unwrap();
    let r = client.call_tool("work", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("token: false"));
}
