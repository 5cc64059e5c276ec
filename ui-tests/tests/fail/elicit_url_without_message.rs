use roundtrip::prelude::*;

#[tool]
async fn link(#[resolve(elicit_url = "https://example.com/link")] consent: Consent) -> String {
    format!("{consent:?}")
}

fn main() {}
