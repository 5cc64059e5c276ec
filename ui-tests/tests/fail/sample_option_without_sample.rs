use roundtrip::prelude::*;

#[tool]
async fn summarize(text: String, #[resolve(elicit = "Summary of {text}?", system = "You are terse.")] summary: String) -> String {
    summary
}

fn main() {}
