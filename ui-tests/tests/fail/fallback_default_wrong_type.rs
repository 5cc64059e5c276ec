use roundtrip::prelude::*;

#[tool]
async fn provision(#[resolve(elicit = "Which region?", or_default = 5)] region: String) -> String {
    region
}

fn main() {}
