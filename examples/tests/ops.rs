//! The ops example's contract, flow by flow, through the testing kit: state reached from
//! every declaration, checks before questions, questions built from data, the errors the
//! protocol expects, and the progress and log notifications of each leg.

#![allow(clippy::unwrap_used)] // a test fails loudly
use roundtrip::client::{Client, ClientError, Step};
use roundtrip::protocol::{InputRequest, JsonObject};
use roundtrip::testing::TestKit;
use roundtrip_examples::ops::server;
use serde_json::{Value, json};

fn kit() -> TestKit {
    TestKit::new(server())
}

fn question(flow_round: &roundtrip::protocol::InputRequests, key: &str) -> Value {
    serde_json::to_value(&flow_round[key]).unwrap()
}

#[tokio::test]
async fn deploy_to_staging_asks_one_titled_choice() {
    let flow = kit()
        .property("environment", json!("staging"))
        .call_tool("deploy", json!({"service": "api", "version": "1.4.2"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["environment"]]);
    let q = question(&flow.rounds[0], "environment");
    assert_eq!(q["params"]["message"], "Deploy api 1.4.2 to which environment?");
    assert_eq!(
        q["params"]["requestedSchema"]["properties"]["environment"]["oneOf"],
        json!([{"const": "staging", "title": "Staging"}, {"const": "production", "title": "Production"}])
    );
    assert_eq!(flow.text(), "Deployed api 1.4.2 to staging.");
    assert!(!flow.is_error());
    // The first leg only asked; the second reported progress and logged.
    assert!(flow.notifications[0].is_empty(), "{:?}", flow.notifications[0]);
    let progress: Vec<&Value> = flow.progress();
    assert_eq!(progress.len(), 2);
    assert_eq!(progress[1]["message"], "rolled out");
    assert_eq!(flow.logs()[0]["data"], "deployed api 1.4.2 to staging");
}

#[tokio::test]
async fn deploy_to_production_asks_a_confirmation_that_names_service_and_version() {
    for (confirm, text) in [(true, "Deployed web 2.0.0 to production."), (false, "Deployment of web 2.0.0 cancelled.")]
    {
        let flow = kit()
            .property("environment", json!("production"))
            .property("confirm", json!(confirm))
            .call_tool("deploy", json!({"service": "web", "version": "2.0.0"}))
            .await
            .unwrap();
        assert_eq!(flow.questions(), vec![vec!["environment"], vec!["confirm"]]);
        let q = question(&flow.rounds[1], "confirm");
        assert_eq!(q["params"]["message"], "Deploy web 2.0.0 to production?");
        assert_eq!(q["params"]["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
        assert_eq!(flow.text(), text);
    }
}

#[tokio::test]
async fn deploy_of_an_unknown_service_ends_before_any_question() {
    let flow = kit().call_tool("deploy", json!({"service": "db", "version": "1"})).await.unwrap();
    assert!(flow.rounds.is_empty());
    assert!(flow.is_error());
    assert!(flow.text().contains("unknown service") && flow.text().contains("db"), "{}", flow.text());
}

#[tokio::test]
async fn a_missing_argument_is_an_error_result_naming_it() {
    let flow = kit().call_tool("deploy", json!({"service": "api"})).await.unwrap();
    assert!(flow.rounds.is_empty());
    assert!(flow.is_error());
    assert!(flow.text().contains("`version`"), "{}", flow.text());
    let flow = kit().call_tool("deploy", json!({"service": "api", "version": 3})).await.unwrap();
    assert!(flow.is_error() && flow.text().contains("`version`"), "{}", flow.text());
}

#[tokio::test]
async fn an_unknown_tool_stays_a_protocol_error() {
    let err = kit().call_tool("nope", json!({})).await.unwrap_err();
    assert!(matches!(&err.error, ClientError::Rpc(e) if e.code == -32602), "{err:?}");
}

#[tokio::test]
async fn restart_offers_the_instances_of_the_service() {
    let flow =
        kit().property("instance", json!("web-2")).call_tool("restart", json!({"service": "web"})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["instance"]]);
    let q = question(&flow.rounds[0], "instance");
    assert_eq!(q["params"]["message"], "Restart which instance of web?");
    assert_eq!(
        q["params"]["requestedSchema"]["properties"]["instance"]["oneOf"],
        json!([{"const": "web-1", "title": "web-1"}, {"const": "web-2", "title": "web-2"}])
    );
    assert_eq!(flow.text(), "Restarted web-2.");
    let unknown = kit().call_tool("restart", json!({"service": "db"})).await.unwrap();
    assert!(unknown.rounds.is_empty() && unknown.is_error() && unknown.text().contains("db"));
}

async fn client() -> Client {
    Client::builder("ops-test", "1.0.0")
        .on_elicit(|_| async { Err(ClientError::Callback("driven by hand".into())) })
        .on_sample(|_| async { Err(ClientError::Callback("driven by hand".into())) })
        .connect_in_memory(server())
        .await
        .unwrap()
}

fn accept(key: &str, content: Value) -> JsonObject {
    let mut answers = JsonObject::new();
    answers.insert(key.into(), json!({"action": "accept", "content": content}));
    answers
}

#[tokio::test]
async fn an_answer_outside_the_offered_instances_is_asked_again_in_plain_words() {
    let client = client().await;
    let args = json!({"service": "web"});
    let Step::InputRequired(first) = client.call_tool_step("restart", args.clone(), None, None).await.unwrap() else {
        panic!("restart asks first")
    };
    let state = first.request_state.clone();
    let wrong = accept("instance", json!({"instance": "api-1"}));
    let Step::InputRequired(again) = client.call_tool_step("restart", args.clone(), Some(wrong), state).await.unwrap()
    else {
        panic!("an instance of another service is asked again")
    };
    let requests = again.input_requests.unwrap();
    let InputRequest::Elicit(params) = &requests["instance"] else { panic!("a form again") };
    assert!(params.message().contains("not one of the choices"), "{}", params.message());
    let right = accept("instance", json!({"instance": "web-1"}));
    let Step::Complete(done) = client.call_tool_step("restart", args, Some(right), again.request_state).await.unwrap()
    else {
        panic!("a valid answer completes")
    };
    assert_eq!(done.content[0].as_text(), Some("Restarted web-1."));
}

#[tokio::test]
async fn open_incident_asks_one_form_and_stores_the_answer() {
    let server = server();
    let flow = TestKit::new(server.clone())
        .property("title", json!("Database slow"))
        .property("severity", json!("sev2"))
        .call_tool("open_incident", json!({}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["incident"]]);
    let schema = &question(&flow.rounds[0], "incident")["params"]["requestedSchema"];
    assert_eq!(schema["properties"]["title"]["minLength"], 5);
    assert_eq!(schema["properties"]["severity"]["enum"], json!(["sev1", "sev2", "sev3"]));
    assert_eq!(schema["properties"]["page_oncall"]["type"], "boolean");
    assert_eq!(schema["properties"]["page_oncall"]["default"], false);
    assert_eq!(flow.text(), "Opened incident #2: Database slow (sev2).");
    assert_eq!(flow.result.structured_content, Some(json!({"id": 2, "title": "Database slow", "severity": "sev2"})));
    // The same server now has it.
    let read = TestKit::new(server).read_resource("incident://2").await.unwrap();
    assert_eq!(serde_json::to_value(&read.result.contents[0]).unwrap()["text"], "Incident #2: Database slow (sev2).");
}

#[tokio::test]
async fn the_incident_list_is_bounded() {
    let server = server();
    for n in 0..roundtrip_examples::ops::MAX_INCIDENTS + 5 {
        TestKit::new(server.clone())
            .property("title", json!(format!("Incident number {n}")))
            .property("severity", json!("sev3"))
            .call_tool("open_incident", json!({}))
            .await
            .unwrap();
    }
    // The oldest were forgotten; the newest is there with its own number.
    let last = roundtrip_examples::ops::MAX_INCIDENTS + 6;
    let read = TestKit::new(server.clone()).read_resource(&format!("incident://{last}")).await.unwrap();
    assert!(
        serde_json::to_value(&read.result.contents[0]).unwrap()["text"].as_str().unwrap().contains("Incident number")
    );
    assert!(TestKit::new(server).read_resource("incident://1").await.is_err(), "the oldest is gone");
}

#[tokio::test]
async fn paging_on_call_is_logged() {
    let flow = kit()
        .property("title", json!("Checkout errors"))
        .property("severity", json!("sev1"))
        .property("page_oncall", json!(true))
        .call_tool("open_incident", json!({}))
        .await
        .unwrap();
    assert_eq!(flow.logs().len(), 1);
    assert_eq!(flow.logs()[0]["level"], "warning");
    assert_eq!(flow.notifications[1].len(), 1, "the log came in the second leg");
}

#[tokio::test]
async fn the_incident_resource_reads_known_incidents_and_refuses_others() {
    let flow = kit().read_resource("incident://1").await.unwrap();
    assert_eq!(serde_json::to_value(&flow.result.contents[0]).unwrap()["text"], "Incident #1: Login outage (sev1).");
    let err = kit().read_resource("incident://7").await.unwrap_err();
    let ClientError::Rpc(e) = &err.error else { panic!("{err:?}") };
    assert_eq!((e.code, e.message.as_str()), (-32602, "Resource not found"));
    assert_eq!(e.data, Some(json!({"uri": "incident://7"})));
}

#[tokio::test]
async fn postmortem_refuses_an_unknown_incident_before_asking() {
    let err = kit().get_prompt("postmortem", json!({"incident": "7"})).await.unwrap_err();
    assert!(err.rounds.is_empty(), "nothing was asked");
    let ClientError::Rpc(e) = &err.error else { panic!("{err:?}") };
    assert_eq!(e.code, -32602);
    assert!(e.message.contains("no incident #7"), "{}", e.message);

    let flow =
        kit().property("author", json!("Grace")).get_prompt("postmortem", json!({"incident": "1"})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["author"]]);
    assert_eq!(question(&flow.rounds[0], "author")["params"]["message"], "Who writes the postmortem of incident #1?");
    let message = serde_json::to_value(&flow.result.messages).unwrap();
    assert_eq!(message[0]["content"]["text"], "Write the postmortem of incident #1 (Login outage) as Grace.");
    assert_eq!(message[0]["role"], "user");
}

#[tokio::test]
async fn summarize_logs_samples_as_an_sre_at_a_low_temperature() {
    let flow = kit()
        .script("summary", roundtrip::testing::Scripted::Sample("All quiet.".into()))
        .call_tool("summarize_logs", json!({"service": "worker"}))
        .await
        .unwrap();
    let q = question(&flow.rounds[0], "summary");
    assert_eq!(q["method"], "sampling/createMessage");
    assert_eq!(q["params"]["systemPrompt"], "You are an SRE.");
    assert_eq!(q["params"]["temperature"], 0.2);
    assert_eq!(flow.text(), "Summary: All quiet.");
    let unknown = kit().call_tool("summarize_logs", json!({"service": "db"})).await.unwrap();
    assert!(unknown.rounds.is_empty() && unknown.is_error());
}
