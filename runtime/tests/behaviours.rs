//! The declarative resolvers, behaviour by behaviour: behaviours 34 to 47 of the project's
//! list, each a test named after it, on tools declared with `#[tool]` and `#[resolve]`.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::atomic::{AtomicUsize, Ordering};

use roundtrip::client::{Client, ClientError, Step};
use roundtrip::prelude::*;
use roundtrip::protocol::JsonObject;
use roundtrip::testing::{Scripted, TestKit};
use serde_json::{Value, json};

// Counters read by one test each (tests run in parallel).
static REFUSED_BODY_RUNS: AtomicUsize = AtomicUsize::new(0);
static SHARED_ZONE_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Provision a database in a region.
#[tool]
async fn provision(
    /// The database.
    name: String,
    #[resolve(elicit = "Region for {name}?")] region: String,
) -> String {
    format!("{name} in {region}")
}

/// `provision`, counting the runs of its body.
#[tool]
async fn counted_provision(name: String, #[resolve(elicit = "Region for {name}?")] region: String) -> String {
    REFUSED_BODY_RUNS.fetch_add(1, Ordering::SeqCst);
    format!("{name} in {region}")
}

async fn zone_of(region: String) -> Resolve<String> {
    Resolve::Value(format!("{region}-a"))
}

async fn counted_zone_of(region: String) -> Resolve<String> {
    SHARED_ZONE_CALLS.fetch_add(1, Ordering::SeqCst);
    Resolve::Value(format!("{region}-a"))
}

/// `placed`, counting the runs of its shared resolver.
#[tool]
async fn counted_placed(
    name: String,
    #[resolve(elicit = "Region for {name}?")] region: String,
    #[resolve(with = counted_zone_of(region))] zone: String,
    #[resolve(elicit = "Rack in {zone} for {name}?")] rack: String,
    #[resolve(elicit = "Disk in {zone}?")] disk: String,
) -> String {
    format!("{name}/{region}/{zone}/{rack}/{disk}")
}

#[tool]
async fn placed(
    name: String,
    #[resolve(elicit = "Region for {name}?")] region: String,
    #[resolve(with = zone_of(region))] zone: String,
    #[resolve(elicit = "Rack in {zone} for {name}?")] rack: String,
    #[resolve(elicit = "Disk in {zone}?")] disk: String,
) -> String {
    format!("{name}/{region}/{zone}/{rack}/{disk}")
}

async fn cached_owner(name: String) -> Resolve<String> {
    Resolve::Value(format!("owner-of-{name}"))
}

#[tool]
async fn no_round_trip(name: String, #[resolve(with = cached_owner(name))] owner: String) -> String {
    format!("{owner} ({name})")
}

#[tool]
async fn chain(
    #[resolve(elicit = "a?")] a: String,
    #[resolve(elicit = "b after {a}?")] b: String,
    #[resolve(elicit = "c after {b}?")] c: String,
    #[resolve(elicit = "d after {c}?")] d: String,
) -> String {
    [a, b, c, d].join("")
}

#[tool]
async fn optional_nickname(
    #[resolve(elicit = "Nickname?")] nickname: Answer<String>,
    #[resolve(elicit = "Greeting for '{nickname}'?")] greeting: String,
) -> String {
    format!("{nickname:?} / {greeting}")
}

#[derive(Deserialize, JsonSchema, Elicit)]
enum Size {
    Small,
    Large,
}

#[derive(Deserialize, JsonSchema, Elicit)]
struct Order {
    /// How many.
    count: u8,
    size: Size,
    note: Option<String>,
}

#[tool]
async fn order(#[resolve(elicit = "Your order?")] order: Order) -> String {
    format!("{} x {}{}", order.count, matches!(order.size, Size::Large), order.note.unwrap_or_default())
}

#[tool]
async fn summarize_and_publish(
    text: String,
    #[resolve(sample = "Summarize: {text}", max_tokens = 50)] summary: String,
    #[resolve(roots)] roots: Vec<Root>,
    #[resolve(elicit = "Publish '{summary}'?")] publish: bool,
) -> String {
    format!("{summary} {} {publish}", roots.len())
}

#[tool]
async fn link(
    #[resolve(elicit_url = "https://id.example.com/link", message = "Link your account")] _consent: Consent,
) -> String {
    "linked".into()
}

fn server() -> Server {
    Server::new("behaviours", "1").tools(tools![
        provision,
        counted_provision,
        counted_placed,
        placed,
        no_round_trip,
        chain,
        optional_nickname,
        order,
        summarize_and_publish,
        link
    ])
}

fn message(flow_round: &roundtrip::protocol::InputRequests, key: &str) -> Value {
    serde_json::to_value(&flow_round[key]).unwrap()["params"]["message"].clone()
}

async fn client(server: Server) -> Client {
    Client::builder("behaviours", "1")
        .on_elicit(|_| async { Err(ClientError::Callback("answered by hand".into())) })
        .connect_in_memory(server)
        .await
        .unwrap()
}

fn answers(v: Value) -> Option<JsonObject> {
    v.as_object().cloned()
}

#[tokio::test]
async fn behaviour_34_a_resolved_parameter_is_not_an_argument_and_a_sent_value_is_ignored() {
    let s = server();
    let def = s.tool_defs().into_iter().find(|d| d.tool.name == "provision").unwrap();
    let properties: Vec<&String> = def.tool.input_schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["name"]);
    let flow = TestKit::new(s)
        .property("region", json!("eu"))
        .call_tool("provision", json!({"name": "db", "region": "smuggled"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["region"]]);
    assert_eq!(flow.text(), "db in eu");
}

#[tokio::test]
async fn behaviour_35_resolvers_see_arguments_and_other_answers_as_the_body_does() {
    let flow = TestKit::new(server())
        .property("region", json!("eu"))
        .property("rack", json!("r1"))
        .property("disk", json!("d1"))
        .call_tool("placed", json!({"name": "db"}))
        .await
        .unwrap();
    assert_eq!(message(&flow.rounds[1], "rack"), "Rack in eu-a for db?");
    assert_eq!(flow.text(), "db/eu/eu-a/r1/d1");
}

#[tokio::test]
async fn behaviour_36_a_shared_resolver_runs_once_per_round() {
    let flow = TestKit::new(server())
        .property("region", json!("eu"))
        .property("rack", json!("r1"))
        .property("disk", json!("d1"))
        .call_tool("counted_placed", json!({"name": "db"}))
        .await
        .unwrap();
    // `zone` feeds two questions; it is computed once, in the leg that first knows the
    // region, not once per dependant, and the third leg takes it from the sealed state.
    assert_eq!(flow.rounds.len(), 2);
    assert_eq!(SHARED_ZONE_CALLS.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn behaviour_37_a_resolver_that_answers_without_asking_causes_no_round_trip() {
    let flow = TestKit::new(server()).call_tool("no_round_trip", json!({"name": "db"})).await.unwrap();
    assert!(flow.rounds.is_empty());
    assert_eq!(flow.text(), "owner-of-db (db)");
}

#[tokio::test]
async fn behaviour_38_independent_questions_share_a_round_and_dependants_wait() {
    let flow = TestKit::new(server())
        .property("region", json!("eu"))
        .property("rack", json!("r1"))
        .property("disk", json!("d1"))
        .call_tool("placed", json!({"name": "db"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["region"], vec!["disk", "rack"]]);
}

#[tokio::test]
async fn behaviour_39_early_answers_survive_deep_chains_and_are_never_asked_again() {
    let flow = TestKit::new(server())
        .property("a", json!("1"))
        .property("b", json!("2"))
        .property("c", json!("3"))
        .property("d", json!("4"))
        .call_tool("chain", json!({}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["a"], vec!["b"], vec!["c"], vec!["d"]]);
    assert_eq!(message(&flow.rounds[3], "d"), "d after 3?");
    assert_eq!(flow.text(), "1234");
}

#[tokio::test]
async fn behaviour_40_a_chain_longer_than_the_clients_budget_ends_with_the_clients_error() {
    let err = TestKit::new(server())
        .property("a", json!("1"))
        .property("b", json!("2"))
        .property("c", json!("3"))
        .property("d", json!("4"))
        .max_rounds(3)
        .call_tool("chain", json!({}))
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::TooManyRounds(3));
}

#[tokio::test]
async fn behaviour_41_refusals_end_bare_parameters_and_reach_answer_parameters() {
    for refusal in [Scripted::Decline, Scripted::Cancel] {
        let flow = TestKit::new(server())
            .script("region", refusal)
            .call_tool("counted_provision", json!({"name": "db"}))
            .await
            .unwrap();
        assert!(flow.is_error());
        assert!(flow.text().contains("`region`"), "{}", flow.text());
    }
    assert_eq!(REFUSED_BODY_RUNS.load(Ordering::SeqCst), 0, "the body never ran");
    // With Answer<T> the body decides; the refusal is recorded and not asked again.
    let flow = TestKit::new(server())
        .decline("nickname")
        .property("greeting", json!("hi"))
        .call_tool("optional_nickname", json!({}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["nickname"], vec!["greeting"]]);
    assert_eq!(message(&flow.rounds[1], "greeting"), "Greeting for ''?");
    assert_eq!(flow.text(), "Declined / hi");
}

#[tokio::test]
async fn behaviour_42_malformed_answers_are_refused_in_plain_words_and_asked_again() {
    let c = client(server()).await;
    let Step::InputRequired(first) = c.call_tool_step("order", json!({}), None, None).await.unwrap() else { panic!() };
    let state = first.request_state;
    for (answer, why) in [
        (json!({"action": "accept"}), "the form was accepted without content"),
        (
            json!({"action": "accept", "content": {"count": 300, "size": "Large"}}),
            "`count` 300 is too large (at most 255)",
        ),
        (
            json!({"action": "accept", "content": {"count": 2, "size": "Huge"}}),
            "`size` \"Huge\" is not one of the choices (\"Small\", \"Large\")",
        ),
        (
            json!({"action": "accept", "content": {"count": -1, "size": "Huge"}}),
            "`count` -1 is too small (at least 0); `size` \"Huge\" is not one of the choices (\"Small\", \"Large\")",
        ),
        (
            json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}),
            "the answer is not an elicitation result",
        ),
    ] {
        let step =
            c.call_tool_step("order", json!({}), answers(json!({"order": answer})), state.clone()).await.unwrap();
        let Step::InputRequired(again) = step else { panic!("{answer} was consumed") };
        let m = message(again.input_requests.as_ref().unwrap(), "order");
        assert_eq!(m, json!(format!("Your order? ({why}; please answer again)")), "{answer}");
    }
    let good = json!({"action": "accept", "content": {"count": 2, "size": "Large"}});
    let Step::Complete(done) =
        c.call_tool_step("order", json!({}), answers(json!({"order": good})), state).await.unwrap()
    else {
        panic!()
    };
    assert_eq!(done.content[0].as_text(), Some("2 x true"));
}

#[tokio::test]
async fn behaviour_43_answers_are_pinned_to_the_question_and_a_reworded_one_is_asked_again() {
    const KEY: [u8; 32] = *b"roundtrip test key 7: not secret";
    let deploy = |question_v2: bool| {
        let policy = roundtrip::RequestStateSecurity::new().keys([KEY]);
        let server = if question_v2 {
            // The redeployed version asks differently.
            #[tool(name = "provision")]
            async fn provision_v2(
                name: String,
                #[resolve(elicit = "Which region for {name}?")] region: String,
            ) -> String {
                format!("{name} in {region}")
            }
            Server::new("fleet", "2").tools(tools![provision_v2])
        } else {
            Server::new("fleet", "1").tools(tools![provision])
        };
        server.security(policy).unwrap()
    };
    let old = client(deploy(false)).await;
    let Step::InputRequired(round) = old.call_tool_step("provision", json!({"name": "db"}), None, None).await.unwrap()
    else {
        panic!()
    };
    let answer = answers(json!({"region": {"action": "accept", "content": {"region": "eu"}}}));
    // The same version consumes the answer…
    let same =
        old.call_tool_step("provision", json!({"name": "db"}), answer.clone(), round.request_state.clone()).await;
    assert!(matches!(same.unwrap(), Step::Complete(_)));
    // …the reworded one asks again rather than consume an answer to another question.
    let new = client(deploy(true)).await;
    let step = new.call_tool_step("provision", json!({"name": "db"}), answer, round.request_state).await.unwrap();
    let Step::InputRequired(again) = step else { panic!("a stale answer was consumed") };
    assert_eq!(message(again.input_requests.as_ref().unwrap(), "region"), "Which region for db?");
}

#[tokio::test]
async fn behaviour_44_an_answer_without_the_echoed_state_is_asked_again() {
    let c = client(server()).await;
    let answer = answers(json!({"region": {"action": "accept", "content": {"region": "eu"}}}));
    let step = c.call_tool_step("provision", json!({"name": "db"}), answer, None).await.unwrap();
    assert!(matches!(step, Step::InputRequired(_)));
}

#[tokio::test]
async fn behaviour_45_the_model_and_the_roots_are_asked_once_per_call() {
    let flow = TestKit::new(server())
        .script("summary", Scripted::Sample("short".into()))
        .script("roots", Scripted::Roots(vec!["file:///a".into()]))
        .property("publish", json!(true))
        .call_tool("summarize_and_publish", json!({"text": "long"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["roots", "summary"], vec!["publish"]]);
    assert_eq!(flow.text(), "short 1 true");
}

#[tokio::test]
async fn behaviour_46_forms_are_flat_objects_of_primitives() {
    let flow = TestKit::new(server())
        .answer("order", json!({"count": 1, "size": "Small"}))
        .call_tool("order", json!({}))
        .await
        .unwrap();
    let schema = serde_json::to_value(&flow.rounds[0]["order"]).unwrap()["params"]["requestedSchema"].clone();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "description": "How many.", "minimum": 0, "maximum": 255},
                "size": {"type": "string", "enum": ["Small", "Large"]},
                "note": {"type": "string"},
            },
            "required": ["count", "size"],
        })
    );
    // Nested structs, maps and lists of objects do not compile: see ui-tests/tests/fail/
    // form_not_flat.rs and elicit_without_form.rs.
}

#[tokio::test]
async fn behaviour_47_url_mode_gives_consent_and_the_retry_completes() {
    let flow = TestKit::new(server())
        .script("_consent", Scripted::Accept(Value::Null))
        .call_tool("link", json!({}))
        .await
        .unwrap();
    let question = serde_json::to_value(&flow.rounds[0]["_consent"]).unwrap();
    assert_eq!(
        question["params"],
        json!({"mode": "url", "message": "Link your account", "url": "https://id.example.com/link"})
    );
    assert_eq!(flow.text(), "linked");
    let declined = TestKit::new(server()).decline("_consent").call_tool("link", json!({})).await.unwrap();
    assert!(declined.is_error());
}
