use roundtrip::prelude::*;

/// Asks a nickname that may be left empty.
#[tool]
async fn greet(#[resolve(elicit = "A nickname?")] nickname: Option<String>) -> String {
    nickname.unwrap_or_default()
}

fn main() {}
