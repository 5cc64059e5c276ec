use roundtrip::prelude::*;

#[tool]
async fn provision(name: Answer<String>) -> String {
    format!("{name:?}")
}

fn main() {}
