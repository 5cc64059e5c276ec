use roundtrip::prelude::*;

#[tool]
async fn provision(#[resolve()] region: String) -> String {
    region
}

fn main() {}
