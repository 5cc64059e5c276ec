use roundtrip::prelude::*;

/// Provision a database.
#[tool]
async fn provision(name: String, #[resolve(elicit = "Which region should {name} live in?")] region: String) -> String {
    name + &region
}
