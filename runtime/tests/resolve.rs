//! The resolver engine, behaviour by behaviour, on hand-built graphs (the shape the macros
//! generate). Flows run through the testing kit.

#![allow(clippy::unwrap_used)] // a test fails loudly
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use roundtrip::Server;
use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
use roundtrip::resolve::{
    Answer, Fallback, Graph, Leg, Node, Part, Question, Resolution, Resolver, Template, evaluate,
};
use roundtrip::server::{Outcome, ToolDef};
use roundtrip::testing::{Scripted, TestKit};
use serde_json::{Value, json};

fn any(_: &Value) -> Result<(), String> {
    Ok(())
}

fn string(v: &Value) -> Result<(), String> {
    v.as_str().map(drop).ok_or_else(|| "must be text".into())
}

fn ask(name: &'static str, message: &'static [Part], property_type: &str) -> Node {
    let schema = roundtrip::resolve::single_property_form(name, &json!({"type": property_type})).unwrap();
    Node {
        name,
        resolver: Resolver::Elicit { message: Template(message), schema: schema.into(), property: Some(name) },
        refusable: false,
        check: any,
        static_pin: name,
        fallback: Fallback::default(),
    }
}

/// A declarative tool over `graph`: the body joins the resolved values.
fn tool(name: &'static str, graph: Graph) -> ToolDef {
    let graph = Arc::new(graph);
    ToolDef::new(Tool::new(name, empty_input_schema()), move |cx| {
        let graph = graph.clone();
        async move {
            Ok(match evaluate(&graph, &cx).await? {
                Leg::Ask(round) => Outcome::InputRequired(round),
                Leg::Refused { name, outcome } => {
                    Outcome::Complete(CallToolResult::error(format!("`{name}` was {outcome:?}; nothing was done")))
                }
                Leg::Ready(mut values) => {
                    let mut parts = Vec::new();
                    for node in graph.nodes() {
                        let text = if node.refusable {
                            format!("{:?}", values.answer::<Value>(node.name)?)
                        } else {
                            values.take::<Value>(node.name)?.to_string()
                        };
                        parts.push(format!("{}={text}", node.name));
                    }
                    Outcome::Complete(CallToolResult::text(parts.join(" ")))
                }
            })
        }
    })
}

/// `name` (argument) → `region`, `size` (independent) → `confirm` (needs both).
fn provisioning() -> Graph {
    Graph::new(
        vec!["name"],
        vec![
            ask(
                "confirm",
                &[
                    Part::Lit("Create "),
                    Part::Ref("name"),
                    Part::Lit(" in "),
                    Part::Ref("region"),
                    Part::Lit(" at "),
                    Part::Ref("size"),
                    Part::Lit("?"),
                ],
                "boolean",
            ),
            ask("region", &[Part::Lit("Region for "), Part::Ref("name"), Part::Lit("?")], "string"),
            ask("size", &[Part::Lit("Size?")], "integer"),
        ],
    )
    .unwrap()
}

fn server(graph: Graph) -> Server {
    Server::new("engine", "1").tool(tool("t", graph))
}

#[tokio::test]
async fn independent_questions_share_a_round_and_dependants_wait() {
    let flow = TestKit::new(server(provisioning()))
        .property("region", json!("eu"))
        .property("size", json!(3))
        .property("confirm", json!(true))
        .call_tool("t", json!({"name": "db"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["region", "size"], vec!["confirm"]]);
    let confirm = &flow.rounds[1]["confirm"];
    assert_eq!(serde_json::to_value(confirm).unwrap()["params"]["message"], "Create db in eu at 3?");
    assert_eq!(flow.text(), r#"region="eu" size=3 confirm=true"#);
}

#[tokio::test]
async fn a_client_value_for_a_resolved_name_is_ignored() {
    let flow = TestKit::new(server(provisioning()))
        .property("region", json!("eu"))
        .property("size", json!(3))
        .property("confirm", json!(true))
        .call_tool("t", json!({"name": "db", "region": "smuggled"}))
        .await
        .unwrap();
    assert_eq!(flow.questions()[0], vec!["region", "size"]);
    assert!(flow.text().contains(r#"region="eu""#));
}

#[tokio::test]
async fn a_decline_on_a_bare_parameter_ends_the_call_naming_it() {
    let flow = TestKit::new(server(provisioning()))
        .decline("region")
        .property("size", json!(3))
        .call_tool("t", json!({"name": "db"}))
        .await
        .unwrap();
    assert!(flow.is_error());
    assert_eq!(flow.text(), "`region` was Declined; nothing was done");
    assert_eq!(flow.rounds.len(), 1);
}

#[tokio::test]
async fn answer_parameters_receive_declines_and_cancels() {
    let mut size = ask("size", &[Part::Lit("Size?")], "integer");
    size.refusable = true;
    let graph = Graph::new(vec![], vec![size]).unwrap();
    for (script, expected) in [(Scripted::Decline, "size=Declined"), (Scripted::Cancel, "size=Cancelled")] {
        let flow = TestKit::new(server(graph.clone())).script("size", script).call_tool("t", json!({})).await.unwrap();
        assert_eq!(flow.text(), expected);
    }
    let flow = TestKit::new(server(graph)).answer("size", json!({"size": 2})).call_tool("t", json!({})).await.unwrap();
    assert_eq!(flow.text(), "size=Accepted(Number(2))");
}

#[tokio::test]
async fn an_invalid_answer_is_asked_again_with_the_reason() {
    let flow = TestKit::new(server(Graph::new(vec![], vec![ask("size", &[Part::Lit("Size?")], "integer")]).unwrap()))
        .answer("size", json!({"size": "big"}))
        .max_rounds(3)
        .call_tool("t", json!({}))
        .await;
    let err = flow.unwrap_err();
    assert_eq!(err, roundtrip::client::ClientError::TooManyRounds(3));
    // Look at the re-ask directly.
    let client = roundtrip::client::Client::builder("c", "1")
        .on_elicit(|_| async { Err(roundtrip::client::ClientError::Callback("x".into())) })
        .connect_in_memory(server(Graph::new(vec![], vec![ask("size", &[Part::Lit("Size?")], "integer")]).unwrap()))
        .await
        .unwrap();
    let roundtrip::client::Step::InputRequired(first) =
        client.call_tool_step("t", json!({}), None, None).await.unwrap()
    else {
        panic!()
    };
    let answers = common::object(json!({"size": {"action": "accept", "content": {"size": "big"}}}));
    let roundtrip::client::Step::InputRequired(again) =
        client.call_tool_step("t", json!({}), Some(answers), first.request_state).await.unwrap()
    else {
        panic!()
    };
    let message = serde_json::to_value(&again.input_requests.unwrap()["size"]).unwrap()["params"]["message"].clone();
    assert_eq!(message, "Size? (`size` \"big\" is not a number; please answer again)");
}

#[tokio::test]
async fn an_answer_without_the_echoed_state_is_asked_again() {
    let client = roundtrip::client::Client::builder("c", "1")
        .on_elicit(|_| async { Err(roundtrip::client::ClientError::Callback("x".into())) })
        .connect_in_memory(server(Graph::new(vec![], vec![ask("size", &[Part::Lit("Size?")], "integer")]).unwrap()))
        .await
        .unwrap();
    let answers = common::object(json!({"size": {"action": "accept", "content": {"size": 2}}}));
    let step = client.call_tool_step("t", json!({}), Some(answers), None).await.unwrap();
    assert!(matches!(step, roundtrip::client::Step::InputRequired(_)));
}

#[tokio::test]
async fn a_with_resolver_that_knows_the_answer_causes_no_round_trip_and_runs_once_per_flow() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let with = Node {
        name: "zone",
        resolver: Resolver::With {
            call: "zone_of(name)",
            args: &["name"],
            f: Arc::new(move |inputs, _cx| {
                counter.fetch_add(1, Ordering::SeqCst);
                Box::pin(
                    async move { Ok(Resolution::Value(json!(format!("{}-zone", inputs[0].as_str().unwrap_or("?"))))) },
                )
            }),
            value_schema: None,
        },
        refusable: false,
        check: string,
        static_pin: "zone",
        fallback: Fallback::default(),
    };
    let a = ask("a", &[Part::Lit("A in "), Part::Ref("zone"), Part::Lit("?")], "string");
    let b = ask("b", &[Part::Lit("B in "), Part::Ref("zone"), Part::Lit("?")], "string");
    let flow = TestKit::new(server(Graph::new(vec!["name"], vec![with, a, b]).unwrap()))
        .property("a", json!("x"))
        .property("b", json!("y"))
        .call_tool("t", json!({"name": "db"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["a", "b"]]);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "two legs, one call: the value travels in the sealed state");
    let message = serde_json::to_value(&flow.rounds[0]["a"]).unwrap()["params"]["message"].clone();
    assert_eq!(message, "A in db-zone?");
}

#[tokio::test]
async fn a_with_resolver_may_ask_exactly_one_question() {
    let with = Node {
        name: "pick",
        resolver: Resolver::With {
            call: "pick()",
            args: &[],
            value_schema: None,
            f: Arc::new(|_, _| {
                Box::pin(async {
                    let schema = roundtrip::resolve::single_property_form("pick", &json!({"type": "string"})).unwrap();
                    Ok(Resolution::Ask(Question::property("Pick one", schema, "pick")))
                })
            }),
        },
        refusable: false,
        check: string,
        static_pin: "pick",
        fallback: Fallback::default(),
    };
    let flow = TestKit::new(server(Graph::new(vec![], vec![with]).unwrap()))
        .property("pick", json!("left"))
        .call_tool("t", json!({}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["pick"]]);
    assert_eq!(flow.text(), r#"pick="left""#);
}

#[tokio::test]
async fn sampling_and_roots_answers_are_recorded_and_asked_once() {
    let sample = Node {
        name: "summary",
        resolver: Resolver::Sample {
            prompt: Template(&[Part::Lit("Summarize "), Part::Ref("text")]),
            max_tokens: 50,
            full: false,
            options: Default::default(),
        },
        refusable: false,
        check: string,
        static_pin: "summary",
        fallback: Fallback::default(),
    };
    let roots = Node {
        name: "roots",
        resolver: Resolver::Roots,
        refusable: false,
        check: any,
        static_pin: "roots",
        fallback: Fallback::default(),
    };
    let ok = ask("ok", &[Part::Lit("Publish "), Part::Ref("summary"), Part::Lit("?")], "boolean");
    let flow = TestKit::new(server(Graph::new(vec!["text"], vec![sample, roots, ok]).unwrap()))
        .script("summary", Scripted::Sample("short".into()))
        .script("roots", Scripted::Roots(vec!["file:///a".into()]))
        .property("ok", json!(true))
        .call_tool("t", json!({"text": "long"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["roots", "summary"], vec!["ok"]]);
    assert_eq!(flow.text(), r#"summary="short" roots=[{"uri":"file:///a"}] ok=true"#);
}

#[tokio::test]
async fn a_deep_chain_takes_depth_plus_one_legs_and_stops_at_the_clients_budget() {
    let chain = Graph::new(
        vec![],
        vec![
            ask("a", &[Part::Lit("a?")], "string"),
            ask("b", &[Part::Ref("a")], "string"),
            ask("c", &[Part::Ref("b")], "string"),
            ask("d", &[Part::Ref("c")], "string"),
        ],
    )
    .unwrap();
    assert_eq!(chain.depth_of("d"), 4);
    let kit = TestKit::new(server(chain))
        .property("a", json!("1"))
        .property("b", json!("2"))
        .property("c", json!("3"))
        .property("d", json!("4"));
    let flow = kit.call_tool("t", json!({})).await.unwrap();
    assert_eq!(flow.rounds.len(), 4);
    assert_eq!(flow.text(), r#"a="1" b="2" c="3" d="4""#);
    assert_eq!(
        kit.max_rounds(3).call_tool("t", json!({})).await.unwrap_err(),
        roundtrip::client::ClientError::TooManyRounds(3)
    );
}

#[test]
fn graphs_refuse_unknown_dependencies_self_references_and_cycles() {
    let err = Graph::new(vec![], vec![ask("a", &[Part::Ref("zzz")], "string")]).unwrap_err();
    assert!(err.contains("`zzz`"), "{err}");
    let err = Graph::new(vec![], vec![ask("a", &[Part::Ref("a")], "string")]).unwrap_err();
    assert!(err.contains("itself"), "{err}");
    let err = Graph::new(vec![], vec![ask("a", &[Part::Ref("b")], "string"), ask("b", &[Part::Ref("a")], "string")])
        .unwrap_err();
    assert!(err.contains("cycle"), "{err}");
}

#[test]
fn answers_unwrap_to_values() {
    assert_eq!(Answer::Accepted(3).accepted(), Some(3));
    assert!(!Answer::<u8>::Declined.is_accepted());
}

/// Form types for [`optional_choices_are_plain_optional_fields`].
mod optional_form {
    use roundtrip::prelude::*;

    #[derive(Deserialize, JsonSchema, Elicit)]
    pub enum Plain {
        A,
        B,
    }

    #[derive(Deserialize, JsonSchema, Elicit)]
    pub enum Titled {
        #[schemars(title = "First")]
        One,
        #[schemars(title = "Second")]
        Two,
    }

    #[derive(Deserialize, JsonSchema, Elicit)]
    #[allow(dead_code)] // only its schema is used
    pub struct Form {
        /// Pick one.
        pub plain: Option<Plain>,
        /// Pick a titled one.
        pub titled: Option<Titled>,
        /// Pick several.
        pub many: Option<Vec<Titled>>,
        pub text: Option<String>,
        pub needed: Titled,
    }
}

#[test]
fn optional_choices_are_plain_optional_fields() {
    // `Option<T>` of a titled enum is `anyOf: [T, null]` in the generated schema; the form
    // asks the choice itself, not required.
    let form = roundtrip::__private::elicit_schema::<optional_form::Form>("form");
    let titled = json!([{ "const": "One", "title": "First" }, { "const": "Two", "title": "Second" }]);
    assert_eq!(
        Value::Object((*form).clone()),
        json!({
            "type": "object",
            "properties": {
                "plain": { "type": "string", "description": "Pick one.", "enum": ["A", "B"] },
                "titled": { "type": "string", "description": "Pick a titled one.", "oneOf": titled },
                "many": { "type": "array", "description": "Pick several.", "items": { "anyOf": titled } },
                "text": { "type": "string" },
                "needed": { "type": "string", "oneOf": titled },
            },
            "required": ["needed"],
        })
    );
}

/// The free slots, from data that has run out: a choice among nothing.
fn no_free_slots() -> roundtrip::Resolve<String> {
    roundtrip::Resolve::Ask(Question::choice("Which slot?", "slot", Vec::<(String, String)>::new()))
}

/// Books a slot among none.
#[roundtrip::tool]
async fn book_from_nothing(#[resolve(with = no_free_slots())] slot: String) -> String {
    format!("booked {slot}")
}

/// The same, refused where the question is built.
fn no_free_slots_checked() -> Result<roundtrip::Resolve<String>, roundtrip::Error> {
    Ok(roundtrip::Resolve::Ask(Question::try_choice("Which slot?", "slot", Vec::<(String, String)>::new())?))
}

/// Books a slot among none, with `try_choice`.
#[roundtrip::tool]
async fn book_from_nothing_checked(#[resolve(with = no_free_slots_checked())] slot: String) -> String {
    format!("booked {slot}")
}

#[tokio::test]
async fn an_empty_choice_is_a_tool_error_naming_the_question_and_is_never_sent() {
    let server = Server::new("engine", "1").tools(roundtrip::tools![book_from_nothing, book_from_nothing_checked]);
    let flow = TestKit::new(server.clone()).call_tool("book_from_nothing", json!({})).await.unwrap();
    assert!(flow.is_error(), "{}", flow.text());
    assert_eq!(
        flow.text(),
        "The question for `slot` offers no choices (its `slot` has none), so it cannot be answered."
    );
    assert!(flow.rounds.is_empty(), "no `oneOf: []` went out: {:?}", flow.rounds);
    let flow = TestKit::new(server).call_tool("book_from_nothing_checked", json!({})).await.unwrap();
    assert!(flow.is_error(), "{}", flow.text());
    assert_eq!(flow.text(), "The question `slot` offers no choices, so it cannot be answered.");
    assert!(flow.rounds.is_empty(), "{:?}", flow.rounds);
}

/// The slots still free: another client may take one between two legs.
static FREE_SLOTS: std::sync::Mutex<Vec<&str>> = std::sync::Mutex::new(Vec::new());

/// The free slots, as a choice.
fn free_slots() -> roundtrip::Resolve<String> {
    let free = FREE_SLOTS.lock().unwrap().clone();
    roundtrip::Resolve::Ask(Question::choice("Which slot?", "slot", free.into_iter().map(|s| (s, s))))
}

/// Books a free slot.
#[roundtrip::tool]
async fn book_free(#[resolve(with = free_slots())] slot: String) -> String {
    format!("booked {slot}")
}

#[tokio::test]
async fn a_choice_whose_answer_was_taken_meanwhile_is_asked_again_saying_so() {
    *FREE_SLOTS.lock().unwrap() = vec!["09:00", "10:00", "11:00"];
    let server = Server::new("engine", "1").tools(roundtrip::tools![book_free]);
    let client = roundtrip::client::Client::builder("c", "1")
        .on_elicit(|_| async { Err(roundtrip::client::ClientError::Callback("x".into())) })
        .connect_in_memory(server)
        .await
        .unwrap();
    let message_of = |step: roundtrip::client::Step<CallToolResult>| {
        let roundtrip::client::Step::InputRequired(asked) = step else { panic!("{step:?}") };
        let request = serde_json::to_value(&asked.input_requests.clone().unwrap()["slot"]).unwrap();
        (request["params"]["message"].as_str().unwrap().to_owned(), asked.request_state)
    };
    let (first, state) = message_of(client.call_tool_step("book_free", json!({}), None, None).await.unwrap());
    assert_eq!(first, "Which slot?");
    // Another client takes 10:00 before this one's answer arrives.
    FREE_SLOTS.lock().unwrap().retain(|s| *s != "10:00");
    let answer = common::object(json!({"slot": {"action": "accept", "content": {"slot": "10:00"}}}));
    let (again, state) = message_of(client.call_tool_step("book_free", json!({}), Some(answer), state).await.unwrap());
    assert_eq!(
        again,
        "Which slot? (`slot` \"10:00\" is no longer one of the choices (\"09:00\", \"11:00\"); please answer again)"
    );
    // A free one is taken.
    let answer = common::object(json!({"slot": {"action": "accept", "content": {"slot": "11:00"}}}));
    let step = client.call_tool_step("book_free", json!({}), Some(answer), state).await.unwrap();
    let roundtrip::client::Step::Complete(result) = step else { panic!("{step:?}") };
    assert_eq!(result.content[0].as_text(), Some("booked 11:00"));
}
