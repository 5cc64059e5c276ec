//! End-to-end tests of sealed `requestState`: real servers, real first legs, real retries.

#![allow(clippy::unwrap_used)] // a test fails loudly
use base64::Engine as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use proptest::prelude::*;
use roundtrip::auth::AuthPrincipal;
use roundtrip::protocol::{
    CallToolResult, ErrorObject, GetPromptResult, JsonObject, Prompt, PromptMessage, ReadResourceResult, Request,
    RequestId, Resource, ResourceContents, ResponseBody, Tool, codes, empty_input_schema,
};
use roundtrip::seal::Codec;
use roundtrip::server::{Inbound, NullPeer, PromptDef, ResourceDef, ToolDef};
use roundtrip::{InputRequired, Outcome, RequestContext, RequestStateSecurity, Server};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

const OLD: [u8; 32] = *b"roundtrip old key 11: not secret";
const NEW: [u8; 32] = *b"roundtrip new key 22: not secret";
const T0: u64 = 1_800_000_000;

/// The typed state the handlers carry between legs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Step {
    round: u32,
    note: String,
    seen: Vec<i64>,
}

fn frozen() -> ErrorObject {
    ErrorObject::invalid_request_state()
}

fn schema() -> JsonObject {
    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}).as_object().cloned().unwrap_or_default()
}

/// Ask until the state has reached `rounds`, then answer with the state it carried.
fn next(cx: &RequestContext, rounds: u32) -> Result<String, InputRequired> {
    match cx.state::<Step>() {
        Some(step) if step.round >= rounds => Ok(serde_json::to_string(&step).unwrap_or_default()),
        previous => {
            let round = previous.as_ref().map_or(1, |s| s.round + 1);
            let step = Step { round, note: format!("round {round} of {}", cx.target_name()), seen: vec![-1, 2, 3] };
            Err(InputRequired::new().elicit("confirm", "Sure?", schema()).state(&step))
        }
    }
}

trait Target {
    fn target_name(&self) -> String;
}

impl Target for RequestContext {
    fn target_name(&self) -> String {
        self.arguments().get("city").and_then(Value::as_str).unwrap_or("?").to_owned()
    }
}

fn tool(name: &str, rounds: u32) -> ToolDef {
    ToolDef::new(Tool::new(name, empty_input_schema()), move |cx| async move {
        Ok(match next(&cx, rounds) {
            Ok(text) => Outcome::Complete(CallToolResult::text(text)),
            Err(round) => Outcome::InputRequired(round),
        })
    })
}

fn prompt(name: &str) -> PromptDef {
    PromptDef::new(Prompt::new(name), |cx| async move {
        Ok(match next(&cx, 1) {
            Ok(text) => Outcome::Complete(GetPromptResult::new(vec![PromptMessage::user(text)])),
            Err(round) => Outcome::InputRequired(round),
        })
    })
}

fn resource(uri: &str) -> ResourceDef {
    let owned = uri.to_owned();
    ResourceDef::new(Resource::new(uri, "note"), move |cx| {
        let uri = owned.clone();
        async move {
            Ok(match next(&cx, 1) {
                Ok(text) => Outcome::Complete(ReadResourceResult::new(vec![ResourceContents::text(uri, None, text)])),
                Err(round) => Outcome::InputRequired(round),
            })
        }
    })
}

fn bare(name: &str) -> Server {
    Server::new(name, "1.0.0")
        .tool(tool("book", 1))
        .tool(tool("cancel", 1))
        .tool(tool("steps", 3))
        .prompt(prompt("book"))
        .resource(resource("notes://a"))
        .resource(resource("notes://b"))
}

fn secured(name: &str, policy: RequestStateSecurity) -> Server {
    bare(name).security(policy).expect("a valid policy")
}

/// A settable clock shared by a test's servers.
#[derive(Clone)]
struct Clock(Arc<AtomicU64>);

impl Clock {
    fn new() -> Self {
        Self(Arc::new(AtomicU64::new(T0)))
    }
    fn set(&self, t: u64) {
        self.0.store(t, Ordering::SeqCst);
    }
    fn policy(&self) -> RequestStateSecurity {
        let now = self.0.clone();
        RequestStateSecurity::new().keys([OLD]).clock(move || now.load(Ordering::SeqCst))
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    })
}

/// One call: the method, its target field, the arguments, and what the retry carries.
#[derive(Clone)]
struct Call {
    method: &'static str,
    target: String,
    arguments: Value,
    principal: Option<&'static str>,
}

fn call(method: &'static str, target: &str, arguments: Value) -> Call {
    Call { method, target: target.to_owned(), arguments, principal: None }
}

fn tool_call(name: &str, arguments: Value) -> Call {
    call("tools/call", name, arguments)
}

impl Call {
    fn by(mut self, principal: &'static str) -> Self {
        self.principal = Some(principal);
        self
    }

    fn params(&self, state: Option<Value>) -> Value {
        let mut params = json!({ "_meta": meta() });
        let key = if self.method == "resources/read" { "uri" } else { "name" };
        params[key] = json!(self.target);
        if self.method != "resources/read" {
            params["arguments"] = self.arguments.clone();
        }
        if let Some(state) = state {
            params["requestState"] = state;
            params["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        }
        params
    }

    async fn send(&self, server: &Server, state: Option<Value>) -> Result<Value, ErrorObject> {
        let mut inbound = Inbound::new(Arc::new(NullPeer));
        inbound.auth = self.principal.map(|p| std::sync::Arc::new(AuthPrincipal::new(p)));
        let request = Request::new(RequestId::Number(1), self.method, Some(self.params(state)));
        let reply = server.handle(request, inbound).await;
        match reply.response.map(|r| r.into_response().body) {
            Some(ResponseBody::Result(v)) => Ok(v),
            Some(ResponseBody::Error(e)) => Err(e),
            None => Err(ErrorObject::internal("no response")),
        }
    }

    /// A first leg: the sealed state it returns.
    async fn first(&self, server: &Server) -> String {
        let result = self.send(server, None).await.expect("the first leg answers");
        assert_eq!(result["resultType"], "input_required", "{result}");
        result["requestState"].as_str().expect("a sealed state").to_owned()
    }

    /// A retry with `token`.
    async fn retry(&self, server: &Server, token: &str) -> Result<Value, ErrorObject> {
        self.send(server, Some(json!(token))).await
    }

    /// A retry that must complete; the state the handler saw.
    async fn completes(&self, server: &Server, token: &str) -> Step {
        let result = self.retry(server, token).await.expect("the retry completes");
        assert_eq!(result["resultType"], "complete", "{result}");
        let text = result
            .pointer("/content/0/text")
            .or_else(|| result.pointer("/messages/0/content/text"))
            .or_else(|| result.pointer("/contents/0/text"))
            .and_then(Value::as_str)
            .expect("a text result");
        serde_json::from_str(text).expect("the handler's state")
    }

    async fn refused(&self, server: &Server, token: &str) {
        assert_eq!(self.retry(server, token).await, Err(frozen()), "{} {}", self.method, self.target);
    }
}

fn paris() -> Call {
    tool_call("book", json!({"city": "Paris", "n": 2}))
}

#[tokio::test]
async fn typed_state_round_trips_and_every_round_is_sealed_afresh() {
    let server = bare("s");
    let a = paris().first(&server).await;
    let b = paris().first(&server).await;
    assert!(a.starts_with("rt1."), "{a}");
    assert_ne!(a, b, "identical first legs give different tokens");
    let step = paris().completes(&server, &a).await;
    assert_eq!(step, Step { round: 1, note: "round 1 of Paris".into(), seen: vec![-1, 2, 3] });
    // A token is not single-use (the server keeps nothing), but it stays bound.
    paris().completes(&server, &a).await;
    paris().completes(&server, &b).await;
}

#[tokio::test]
async fn every_single_bit_flip_is_refused_identically() {
    let server = bare("s");
    let call = paris().by("alice");
    let token = call.first(&server).await;
    call.completes(&server, &token).await;
    let bytes = token.as_bytes();
    let mut variants = 0;
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut flipped = bytes.to_vec();
            flipped[i] ^= 1 << bit;
            let flipped = String::from_utf8(flipped).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into());
            assert_ne!(flipped, token);
            assert_eq!(call.retry(&server, &flipped).await, Err(frozen()), "bit {bit} of byte {i}");
            variants += 1;
        }
    }
    assert_eq!(variants, bytes.len() * 8);
    // Truncation at every length too.
    for len in 0..token.len() {
        call.refused(&server, &token[..len]).await;
    }
}

#[tokio::test]
async fn the_frozen_error_is_the_documented_one() {
    let server = bare("s");
    let err = paris().retry(&server, "nope").await.expect_err("refused");
    assert_eq!(
        serde_json::to_value(&err).expect("serializes"),
        json!({"code": -32602, "message": "Invalid or expired requestState"})
    );
    assert_eq!(err.code, codes::INVALID_PARAMS);
}

#[tokio::test]
async fn bound_to_target_method_and_arguments() {
    let server = bare("s");
    let token = paris().first(&server).await;
    // Another tool with the same arguments.
    tool_call("cancel", json!({"city": "Paris", "n": 2})).refused(&server, &token).await;
    // Another method: a prompt of the same name, with the very same arguments.
    let strings = tool_call("book", json!({"city": "Paris", "n": "2"}));
    let t = strings.first(&server).await;
    call("prompts/get", "book", json!({"city": "Paris", "n": "2"})).refused(&server, &t).await;
    strings.completes(&server, &t).await;
    // Other arguments.
    tool_call("book", json!({"city": "Rome", "n": 2})).refused(&server, &token).await;
    tool_call("book", json!({"city": "Paris", "n": 3})).refused(&server, &token).await;
    tool_call("book", json!({"city": "Paris", "n": 2, "x": null})).refused(&server, &token).await;
    tool_call("book", json!({"city": "Paris"})).refused(&server, &token).await;
    // The same arguments, spelled differently, and the originals, still complete.
    let same: Value = serde_json::from_str(r#"{ "n": 2.0, "city": "Paris" }"#).expect("json");
    tool_call("book", same).completes(&server, &token).await;
    paris().completes(&server, &token).await;

    // The prompt's own token completes on the prompt, not on the tool.
    let prompt = call("prompts/get", "book", json!({"city": "Paris"}));
    let p = prompt.first(&server).await;
    tool_call("book", json!({"city": "Paris"})).refused(&server, &p).await;
    prompt.completes(&server, &p).await;

    // Resources are bound to their URI.
    let a = call("resources/read", "notes://a", json!({}));
    let t = a.first(&server).await;
    call("resources/read", "notes://b", json!({})).refused(&server, &t).await;
    a.completes(&server, &t).await;
}

#[tokio::test]
async fn bound_to_the_principal() {
    let server = bare("s");
    let alice = paris().by("alice");
    let t = alice.first(&server).await;
    paris().by("bob").refused(&server, &t).await;
    paris().refused(&server, &t).await;
    alice.completes(&server, &t).await;

    let anonymous = paris().first(&server).await;
    paris().by("alice").refused(&server, &anonymous).await;
    paris().completes(&server, &anonymous).await;

    // The raw identity is not in the token (it is encrypted, and only a salted digest anyway).
    let long_name: &'static str = "a-very-recognisable-principal-name";
    let t = paris().by(long_name).first(&server).await;
    assert!(!t.contains(long_name));
}

#[tokio::test]
async fn bound_to_the_audience() {
    let a = secured("alpha", RequestStateSecurity::new().keys([OLD]));
    let b = secured("beta", RequestStateSecurity::new().keys([OLD]));
    let a2 = secured("alpha", RequestStateSecurity::new().keys([OLD]));
    let t = paris().first(&a).await;
    paris().refused(&b, &t).await;
    paris().completes(&a2, &t).await;
    // An explicit shared audience joins differently named servers.
    let x = secured("alpha", RequestStateSecurity::new().keys([OLD]).audience("fleet"));
    let y = secured("beta", RequestStateSecurity::new().keys([OLD]).audience("fleet"));
    let t = paris().first(&x).await;
    paris().completes(&y, &t).await;
    paris().refused(&a, &t).await;
}

#[tokio::test]
async fn ttl_window_and_renewal() {
    let clock = Clock::new();
    let server = secured("s", clock.policy());
    let t = paris().first(&server).await;
    clock.set(T0 + 599);
    paris().completes(&server, &t).await;
    clock.set(T0 + 600);
    paris().refused(&server, &t).await;
    clock.set(T0 + 601);
    paris().refused(&server, &t).await;

    // A configured TTL.
    let short = secured("s", clock.policy().ttl(Duration::from_secs(30)));
    clock.set(T0);
    let t = paris().first(&short).await;
    clock.set(T0 + 29);
    paris().completes(&short, &t).await;
    clock.set(T0 + 30);
    paris().refused(&short, &t).await;

    // Every round is sealed afresh: a three-round flow outlives one TTL.
    let steps = tool_call("steps", json!({"city": "Oslo"}));
    clock.set(T0);
    let t1 = steps.first(&server).await;
    clock.set(T0 + 500);
    let r2 = steps.retry(&server, &t1).await.expect("round 2");
    assert_eq!(r2["resultType"], "input_required");
    let t2 = r2["requestState"].as_str().expect("sealed").to_owned();
    clock.set(T0 + 1000);
    steps.refused(&server, &t1).await;
    let r3 = steps.retry(&server, &t2).await.expect("round 3");
    let t3 = r3["requestState"].as_str().expect("sealed").to_owned();
    let step = steps.completes(&server, &t3).await;
    assert_eq!(step.round, 3);
}

#[tokio::test]
async fn issued_in_the_future() {
    let clock = Clock::new();
    let server = secured("s", clock.policy());
    clock.set(T0 + 61);
    let ahead = paris().first(&server).await;
    clock.set(T0 + 59);
    let near = paris().first(&server).await;
    clock.set(T0);
    paris().refused(&server, &ahead).await;
    paris().completes(&server, &near).await;
}

#[tokio::test]
async fn three_phase_rotation_keeps_flows_in_flight() {
    let phase1 = secured("s", RequestStateSecurity::new().keys([OLD]));
    let phase2 = secured("s", RequestStateSecurity::new().keys([OLD, NEW]));
    let phase3 = secured("s", RequestStateSecurity::new().keys([NEW, OLD]));
    let phase4 = secured("s", RequestStateSecurity::new().keys([NEW]));

    let t1 = paris().first(&phase1).await;
    paris().completes(&phase2, &t1).await;
    let t2 = paris().first(&phase2).await;
    // While phase 2 rolls out, phase-1 instances still verify its tokens (sealed with OLD).
    paris().completes(&phase1, &t2).await;
    paris().completes(&phase3, &t2).await;
    let t3 = paris().first(&phase3).await;
    // While phase 3 rolls out, phase-2 instances verify its tokens (sealed with NEW).
    paris().completes(&phase2, &t3).await;
    paris().completes(&phase4, &t3).await;
    // After the last phase, tokens sealed with the retired key are refused.
    paris().refused(&phase4, &t2).await;
    paris().refused(&phase4, &t1).await;
    let t4 = paris().first(&phase4).await;
    paris().completes(&phase3, &t4).await;
    paris().refused(&phase1, &t4).await;
}

#[tokio::test]
async fn instances_sharing_keys_finish_each_others_flows() {
    let a = secured("s", RequestStateSecurity::new().keys([NEW, OLD]));
    let b = secured("s", RequestStateSecurity::new().keys([NEW, OLD]));
    let t = paris().by("alice").first(&a).await;
    paris().by("alice").completes(&b, &t).await;
    let t = paris().first(&b).await;
    paris().completes(&a, &t).await;
}

#[tokio::test]
async fn default_keys_are_process_local() {
    let a = bare("s");
    let b = bare("s");
    let t = paris().first(&a).await;
    paris().refused(&b, &t).await;
    paris().completes(&a, &t).await;
    // A restart is a new server with a new key; clones share the key.
    paris().completes(&a.clone(), &t).await;
}

#[test]
fn bad_key_configurations_are_refused() {
    let short = Server::new("s", "1").security(RequestStateSecurity::new().keys([vec![7u8; 31]]));
    let err = short.expect_err("a 31-byte key is refused");
    assert!(err.to_string().contains("at least 32"), "{err}");
    let dup = Server::new("s", "1").security(RequestStateSecurity::new().keys([OLD, NEW, OLD]));
    assert!(dup.expect_err("duplicates are refused").to_string().contains("same key"));
    let nameless = Server::new("", "1").security(RequestStateSecurity::new().keys([OLD]));
    assert!(nameless.expect_err("no audience").to_string().contains("audience"));
    assert!(Server::new("", "1").security(RequestStateSecurity::new().keys([OLD]).audience("a")).is_ok());
    let none = RequestStateSecurity::keys_from_file("/nonexistent/roundtrip/keys").expect_err("missing file");
    assert!(none.to_string().contains("/nonexistent/roundtrip/keys"));
}

#[test]
fn keys_load_from_a_file() {
    let path = std::env::temp_dir().join(format!("roundtrip-seal-it-{}.keys", std::process::id()));
    let hex: String = NEW.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(
        &path,
        format!("# newest first\n{hex}\nbase64:{}\n", base64::engine::general_purpose::STANDARD.encode(OLD)),
    )
    .expect("write");
    let policy = RequestStateSecurity::keys_from_file(&path);
    let _ = std::fs::remove_file(&path);
    let from_file = secured("s", policy.expect("loads"));
    let literal = secured("s", RequestStateSecurity::new().keys([NEW, OLD]));
    let rt = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    rt.block_on(async {
        let t = paris().first(&from_file).await;
        paris().completes(&literal, &t).await;
        let old_only = secured("s", RequestStateSecurity::new().keys([OLD]));
        let t = paris().first(&old_only).await;
        paris().completes(&from_file, &t).await;
    });
}

/// A codec without crypto: the claims inside are still stamped and checked.
#[derive(Debug)]
struct Reversible {
    fail_seal: bool,
    fail_unseal: bool,
}

impl Codec for Reversible {
    fn seal(&self, bytes: &[u8]) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
        if self.fail_seal {
            return Err("the KMS is down".into());
        }
        Ok(format!("x.{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()))
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
        let bad = || Box::<dyn std::error::Error + Send + Sync>::from("not ours");
        if self.fail_unseal {
            return Err("the KMS is down".into());
        }
        let hex = token.strip_prefix("x.").ok_or_else(bad)?;
        if !hex.len().is_multiple_of(2) {
            return Err(bad());
        }
        (0..hex.len())
            .step_by(2)
            .map(|i| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(bad))
            .collect()
    }
}

#[tokio::test]
async fn custom_codecs_keep_the_claims_and_fail_closed() {
    let ok = secured("s", RequestStateSecurity::new().codec(Reversible { fail_seal: false, fail_unseal: false }));
    let t = paris().by("alice").first(&ok).await;
    assert!(t.starts_with("x."));
    paris().by("alice").completes(&ok, &t).await;
    paris().by("bob").refused(&ok, &t).await;
    tool_call("cancel", json!({"city": "Paris", "n": 2})).by("alice").refused(&ok, &t).await;
    paris().by("alice").refused(&ok, "x.zz").await;
    paris().by("alice").refused(&ok, "rt1.AAAA").await;

    let seal_fails =
        secured("s", RequestStateSecurity::new().codec(Reversible { fail_seal: true, fail_unseal: false }));
    let err = paris().send(&seal_fails, None).await.expect_err("sealing fails closed");
    assert_eq!(err.code, codes::INTERNAL_ERROR);
    assert!(!err.message.contains("KMS"), "the cause is logged, not sent: {err:?}");

    let unseal_fails =
        secured("s", RequestStateSecurity::new().codec(Reversible { fail_seal: false, fail_unseal: true }));
    let t = paris().first(&unseal_fails).await;
    paris().refused(&unseal_fails, &t).await;

    let both = Server::new("s", "1")
        .security(RequestStateSecurity::new().keys([OLD]).codec(Reversible { fail_seal: false, fail_unseal: false }));
    assert!(both.is_err());
}

#[tokio::test]
async fn non_strings_and_oversized_tokens_get_the_frozen_error() {
    let server = bare("s");
    let call = paris();
    for state in [json!(42), json!({"rt1": "x"}), json!(["rt1."]), json!(true), json!(1.5)] {
        assert_eq!(call.send(&server, Some(state.clone())).await, Err(frozen()), "{state}");
    }
    let token = call.first(&server).await;
    let oversized = format!("{token}{}", "A".repeat(64 * 1024));
    call.refused(&server, &oversized).await;
    call.refused(&server, &format!("rt1.{}", "A".repeat(200 * 1024))).await;
    call.refused(&server, "").await;
    call.refused(&server, "rt1.").await;
    // JSON null is "no state": a first leg.
    let first = call.send(&server, Some(Value::Null)).await.expect("a first leg");
    assert_eq!(first["resultType"], "input_required");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().build().expect("runtime")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_get_the_frozen_error(s in any::<String>(), prefixed in any::<bool>()) {
        let server = bare("s");
        let token = if prefixed { format!("rt1.{s}") } else { s };
        let got = runtime().block_on(paris().retry(&server, &token));
        prop_assert_eq!(got, Err(frozen()));
    }

    #[test]
    fn mutations_of_a_real_token_get_the_frozen_error(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 1..8),
    ) {
        let server = bare("s");
        let rt = runtime();
        let call = paris().by("alice");
        let token = rt.block_on(call.first(&server));
        let mut bytes = token.clone().into_bytes();
        for (at, byte, op) in edits {
            let i = at % bytes.len().max(1);
            match op {
                0 if !bytes.is_empty() => bytes[i] ^= byte | 1,
                1 => bytes.insert(i.min(bytes.len()), byte),
                2 if !bytes.is_empty() => { bytes.remove(i); }
                _ => bytes.truncate(i),
            }
        }
        let mutated = String::from_utf8_lossy(&bytes).into_owned();
        let got = rt.block_on(call.retry(&server, &mutated));
        if mutated == token {
            prop_assert!(got.is_ok());
        } else {
            prop_assert_eq!(got, Err(frozen()));
        }
    }
}
