use roundtrip::prelude::*;

/// A tool whose view is not at a `ui://` URI.
#[tool(ui = "https://example.com/dashboard")]
async fn dashboard() -> String {
    "dashboard".into()
}

fn main() {
    let _ = tools![dashboard];
}
