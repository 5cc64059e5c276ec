use roundtrip::prelude::*;

/// Link an account.
#[tool]
async fn link(
    #[resolve(elicit_url = "https://example.com/link", message = "Sign in", or_argument)] linked: Consent,
) -> String {
    format!("{linked:?}")
}

fn main() {}
