use roundtrip::prelude::*;

#[tool]
async fn provision(#[resolve(elicit = "Region?", message = "Pick one")] region: String) -> String {
    region
}

fn main() {}
