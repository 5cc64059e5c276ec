use roundtrip::prelude::*;

#[tool]
async fn provision(name: String, #[resolve(elicit = "Region for {nmae}?")] region: String) -> String {
    format!("{name} {region}")
}

fn main() {}
