use roundtrip::prelude::*;

#[tool]
async fn provision(#[resolve(elicit = "Region?", roots)] region: String) -> String {
    region
}

fn main() {}
