use roundtrip::prelude::*;

#[tool(name = "deploy now!")]
async fn deploy() -> String {
    "ok".into()
}

fn main() {}
