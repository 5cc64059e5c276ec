use roundtrip::prelude::*;

#[tool]
async fn provision(#[arg(rename = "theRegion")] #[resolve(elicit = "Region?")] region: String) -> String {
    region
}

fn main() {}
