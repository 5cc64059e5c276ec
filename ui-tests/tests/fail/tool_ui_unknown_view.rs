use roundtrip::prelude::*;

/// A tool linked to a view that was never declared.
#[tool(ui = DASHBOARD)]
async fn dashboard() -> String {
    "dashboard".into()
}

fn main() {
    let _ = tools![dashboard];
}
