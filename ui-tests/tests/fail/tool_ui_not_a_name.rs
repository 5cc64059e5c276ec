use roundtrip::prelude::*;

/// `ui` takes a view's name or its URI, not a call.
#[tool(ui = dashboard_view())]
async fn dashboard() -> String {
    "dashboard".into()
}

fn main() {
    let _ = tools![dashboard];
}
