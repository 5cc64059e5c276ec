use roundtrip::prelude::*;

mod sdk {
    pub use roundtrip;
}

/// Say hello, through a re-export of roundtrip.
#[tool(crate = sdk::roundtrip)]
async fn hello(
    /// Who to greet.
    name: String,
) -> String {
    name
}
