use roundtrip::prelude::*;

#[tool(crate = "::roundtrip")]
async fn hello() -> String {
    "Hello!".into()
}

fn main() {}
