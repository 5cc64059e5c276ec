use roundtrip::prelude::*;

#[prompt]
async fn review(lines: u32) -> String {
    lines.to_string()
}

fn main() {}
