//! The derives of roundtrip's prelude work in a crate that depends on roundtrip alone.

#![allow(clippy::unwrap_used)] // a test fails loudly

use roundtrip::testing::TestKit;

#[tokio::test]
async fn the_form_the_choice_and_the_output_come_from_roundtrips_derives() {
    let kit = TestKit::new(roundtrip_only_dependency::server());
    let flow = kit.answer("order", roundtrip::__private::serde_json::json!({"count": 2, "size": "large"}));
    let flow = flow.call_tool("order", roundtrip::__private::serde_json::json!({})).await.unwrap();
    assert_eq!(flow.result.structured_content.unwrap()["summary"], "2 Large for you");
    let question = roundtrip::__private::serde_json::to_value(&flow.rounds[0]["order"]).unwrap();
    let schema = &question["params"]["requestedSchema"]["properties"];
    assert_eq!(schema["count"]["maximum"], 9, "{schema}");
    assert_eq!(schema["size"]["oneOf"][1]["title"], "Large cup", "{schema}");
    assert_eq!(schema["size"]["oneOf"][1]["const"], "large", "serde's rename_all is applied: {schema}");
    let tool = roundtrip_only_dependency::server().describe().to_json()["tools"][0]["outputSchema"].clone();
    assert_eq!(tool["properties"]["cups"]["type"], "integer", "{tool}");
}
