use roundtrip::prelude::*;

#[tool]
async fn slow_sum(n: u64, cx: &RequestContext) -> Outcome<CallToolResult> {
    match cx.state::<u64>() {
        Some(n) => Outcome::Complete(CallToolResult::text(n.to_string())),
        None => InputRequired::new().state(&n).into(),
    }
}
