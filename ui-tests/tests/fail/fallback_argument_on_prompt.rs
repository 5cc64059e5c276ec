use roundtrip::prelude::*;

/// Greet someone.
#[prompt]
async fn greet(#[resolve(elicit = "Your name?", or_argument)] name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
