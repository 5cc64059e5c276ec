use roundtrip::prelude::*;

/// `agent` is not a visibility.
#[tool(visibility = "agent")]
async fn refresh() -> String {
    "refreshed".into()
}

fn main() {
    let _ = tools![refresh];
}
