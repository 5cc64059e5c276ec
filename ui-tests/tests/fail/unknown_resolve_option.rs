use roundtrip::prelude::*;

#[tool]
async fn provision(name: String, #[resolve(elicitt = "Region for {name}?")] region: String) -> String {
    format!("{name} {region}")
}

fn main() {}
