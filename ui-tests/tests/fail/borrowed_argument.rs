use roundtrip::prelude::*;

#[tool]
async fn greet(name: &str) -> String {
    format!("Hello, {name}!")
}

fn main() {}
