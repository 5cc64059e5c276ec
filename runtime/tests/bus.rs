//! Replicas that share a bus (`Server::bus`): a list change, a resource update or a run-time
//! registration made on one reaches the others' streams once, even when the bus delivers it
//! twice; a registration names a definition that each replica puts back from what it holds
//! (`standby_tools`), also on a replica started later; one that a replica does not hold is
//! skipped there; readiness follows the bus. The bus here is a test double in memory, so that
//! delivery can be made to repeat or stop; `fleet.rs` runs two replicas on a real Redis.

#![allow(clippy::unwrap_used)] // a test fails loudly

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::{send_as as send, tool_names};
use roundtrip::prelude::*;
use roundtrip::server::{Bus, Inbox, ListChange};
use serde_json::json;
use tokio::sync::broadcast::Receiver;

/// Greet the user: asks their name.
#[tool]
async fn greet(#[resolve(elicit = "Your name?")] name: String) -> String {
    format!("Hello, {name}!")
}

/// Always there.
#[tool(read_only)]
async fn status() -> &'static str {
    "up"
}

/// Acme's own report.
#[tool(read_only)]
async fn acme_report() -> &'static str {
    "acme numbers"
}

/// The fleet's events, in memory: each published event is delivered to every attached inbox
/// (`copies` times), the kept ones given to each inbox as it attaches.
#[derive(Clone, Default)]
struct Hub {
    inboxes: Arc<Mutex<Vec<Inbox>>>,
    kept: Arc<Mutex<HashMap<String, String>>>,
    copies: Arc<Mutex<usize>>,
    up: Arc<AtomicBool>,
}

impl Hub {
    fn new(copies: usize) -> Self {
        let hub = Self::default();
        *hub.copies.lock().unwrap() = copies;
        hub.up.store(true, Ordering::Relaxed);
        hub
    }
}

impl Bus for Hub {
    fn publish(&self, event: String, keep: Option<String>) {
        if let Some(key) = keep {
            self.kept.lock().unwrap().insert(key, event.clone());
        }
        let inboxes = self.inboxes.lock().unwrap().clone();
        for _ in 0..*self.copies.lock().unwrap() {
            for inbox in &inboxes {
                inbox.receive(&event);
            }
        }
    }

    fn attach(&self, inbox: Inbox) {
        for event in self.kept.lock().unwrap().values() {
            inbox.receive(event);
        }
        self.inboxes.lock().unwrap().push(inbox);
    }

    fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }
}

/// A replica on `hub`, built as every replica is: `status`, with `greet` held for run time.
fn replica(hub: &Hub) -> Server {
    Server::new("fleet", "1.0.0")
        .tools(tools![status])
        .standby_tools(tools![greet, acme_report])
        .tenants(|caller| caller.claims.get("org")?.as_str().map(str::to_owned))
        .bus(hub.clone())
}

/// Every change announced so far.
fn drained(changes: &mut Receiver<ListChange>) -> Vec<ListChange> {
    std::iter::from_fn(|| changes.try_recv().ok()).collect()
}

#[tokio::test]
async fn a_tool_registered_on_one_replica_is_announced_listed_and_called_on_another() {
    let hub = Hub::new(1);
    let (a, b) = (replica(&hub), replica(&hub));
    // Serving (a first request) attaches each to the bus.
    assert_eq!(tool_names(&a, None).await, ["status"]);
    assert_eq!(tool_names(&b, None).await, ["status"]);
    let mut heard_on_b = b.subscribe_changes();

    a.add_tools(tools![greet]).unwrap();
    assert_eq!(drained(&mut heard_on_b), [ListChange::Tools]);
    assert_eq!(tool_names(&b, None).await, ["status", "greet"]);
    let asked = send(&b, None, "tools/call", json!({"name": "greet", "arguments": {}})).await.unwrap();
    assert_eq!(asked["resultType"], "input_required", "B runs the definition it holds");

    // Removed on B: gone on A too, and A refuses the flow's next leg.
    assert!(b.remove_tool("greet"));
    assert_eq!(tool_names(&a, None).await, ["status"]);
    let (key, _) = asked["inputRequests"].as_object().unwrap().iter().next().unwrap();
    let retry = json!({
        "name": "greet",
        "arguments": {},
        "inputResponses": { key.clone(): {"action": "accept", "content": {"name": "Ada"}} },
        "requestState": asked["requestState"],
    });
    let refused = send(&a, None, "tools/call", retry).await.unwrap_err();
    assert_eq!(refused.message, "Unknown tool: greet");
}

#[tokio::test]
async fn a_change_delivered_twice_is_announced_once_and_ones_own_is_not_repeated() {
    let hub = Hub::new(2);
    let (a, b) = (replica(&hub), replica(&hub));
    tool_names(&a, None).await;
    tool_names(&b, None).await;
    let (mut on_a, mut on_b) = (a.subscribe_changes(), b.subscribe_changes());

    a.notify_list_changed(ListChange::Prompts);
    a.notify_resource_updated("file:///report");
    a.add_tools(tools![greet]).unwrap();
    let expected = [ListChange::Prompts, ListChange::ResourceUpdated("file:///report".into()), ListChange::Tools];
    assert_eq!(drained(&mut on_a), expected, "A's own events, coming back twice, are not told again");
    assert_eq!(drained(&mut on_b), expected, "each once on B");
}

#[tokio::test]
async fn a_replica_started_later_has_what_was_registered_before_it() {
    let hub = Hub::new(1);
    let a = replica(&hub);
    tool_names(&a, None).await;
    a.add_tools(tools![greet]).unwrap();
    a.remove_tool("status");
    a.add_tools_for("acme", tools![acme_report]).unwrap();

    let late = replica(&hub);
    assert_eq!(tool_names(&late, None).await, ["greet"], "greet added, status removed before it started");
    assert_eq!(tool_names(&late, Some("acme")).await, ["greet", "acme_report"], "the tenant's own too");
    assert_eq!(tool_names(&late, Some("globex")).await, ["greet"]);
}

#[tokio::test]
async fn a_registration_a_replica_does_not_hold_is_skipped_there() {
    let hub = Hub::new(1);
    let a = replica(&hub);
    let bare = Server::new("fleet", "1.0.0").tools(tools![status]).bus(hub.clone());
    tool_names(&a, None).await;
    tool_names(&bare, None).await;
    let mut heard = bare.subscribe_changes();

    a.add_tools(tools![greet]).unwrap();
    assert_eq!(tool_names(&bare, None).await, ["status"], "nothing to put back: logged, not listed");
    assert!(drained(&mut heard).is_empty(), "nothing changed there, nothing told");
}

#[tokio::test]
async fn readiness_follows_the_bus() {
    let hub = Hub::new(1);
    let server = replica(&hub);
    assert!(server.ready().await.is_ok());
    hub.up.store(false, Ordering::Relaxed);
    assert!(server.ready().await.is_err(), "not ready while the bus delivers nothing");
    hub.up.store(true, Ordering::Relaxed);
    assert!(server.ready().await.is_ok());
}

#[tokio::test]
async fn a_line_that_is_not_an_event_is_dropped() {
    let hub = Hub::new(1);
    let server = replica(&hub);
    tool_names(&server, None).await;
    let mut heard = server.subscribe_changes();
    let inbox = hub.inboxes.lock().unwrap()[0].clone();
    for junk in ["", "{}", "not json", r#"{"id":"zz","changed":"tools"}"#, r#"{"id":"1","changed":"everything"}"#] {
        assert!(inbox.receive(junk));
    }
    assert!(drained(&mut heard).is_empty());
    drop(server);
    assert!(!inbox.receive("{}"), "the server is gone: deliver no more");
    assert!(!inbox.is_open());
}
