use roundtrip::prelude::*;

/// Say hello.
#[tool]
async fn hello(
    /// Who to greet.
    name: String,
) -> String {
    name
}
