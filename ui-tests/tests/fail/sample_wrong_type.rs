use roundtrip::prelude::*;

#[tool]
async fn summarize(text: String, #[resolve(sample = "Summarize {text}")] summary: u32) -> String {
    format!("{text} {summary}")
}

fn main() {}
