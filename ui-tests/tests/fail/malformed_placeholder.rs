use roundtrip::prelude::*;

#[tool]
async fn provision(name: String, #[resolve(elicit = "Region for {name?")] region: String) -> String {
    format!("{name} {region}")
}

fn main() {}
