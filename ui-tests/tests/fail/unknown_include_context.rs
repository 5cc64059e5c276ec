use roundtrip::prelude::*;

#[tool]
async fn summarize(
    text: String,
    #[resolve(sample = "Summarize {text}", include_context = "everything")] summary: String,
) -> String {
    summary
}

fn main() {}
