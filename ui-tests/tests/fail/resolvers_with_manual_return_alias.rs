use roundtrip::prelude::*;

type Reply = Result<Outcome<CallToolResult>, String>;

#[tool]
async fn provision(#[resolve(elicit = "Region?")] region: String) -> Reply {
    Ok(Outcome::Complete(CallToolResult::text(region)))
}

fn main() {}
