use roundtrip::prelude::*;

#[tool]
async fn count() -> u32 {
    3
}

fn main() {}
