use roundtrip::prelude::*;

/// Greet someone.
#[tool]
async fn greet(#[resolve(elicit = "Your name?", or_form)] name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
