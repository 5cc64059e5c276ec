use roundtrip::prelude::*;

#[tool]
async fn add((a, b): (u32, u32)) -> String {
    (a + b).to_string()
}

fn main() {}
