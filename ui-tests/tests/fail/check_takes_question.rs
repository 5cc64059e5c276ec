use roundtrip::prelude::*;

async fn not_empty(region: String) -> Result<(), String> {
    if region.is_empty() { Err("empty".into()) } else { Ok(()) }
}

#[tool(check = not_empty(region))]
async fn provision(name: String, #[resolve(elicit = "Region for {name}?")] region: String) -> String {
    format!("{name} in {region}")
}

fn main() {}
