use roundtrip::prelude::*;

#[tool(nmae = "deploy")]
async fn provision(name: String) -> String {
    name
}

fn main() {}
