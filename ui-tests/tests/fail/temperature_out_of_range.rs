use roundtrip::prelude::*;

#[tool]
async fn summarize(
    text: String,
    #[resolve(sample = "Summarize {text}", temperature = 7.5)] summary: String,
) -> String {
    summary
}

fn main() {}
