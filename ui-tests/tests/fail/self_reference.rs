use roundtrip::prelude::*;

#[tool]
async fn provision(#[resolve(elicit = "Is {region} right?")] region: String) -> String {
    region
}

fn main() {}
