use roundtrip::prelude::*;

#[tool]
async fn provision(#[resolve(elicit = "Region?")] region: String) -> Outcome<CallToolResult> {
    Outcome::Complete(CallToolResult::text(region))
}

fn main() {}
