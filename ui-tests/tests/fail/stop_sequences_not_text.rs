use roundtrip::prelude::*;

#[tool]
async fn summarize(text: String, #[resolve(sample = "Summarize {text}", stop = ["END", 3])] summary: String) -> String {
    summary
}

fn main() {}
