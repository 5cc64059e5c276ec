use roundtrip::prelude::*;

/// A resource, not a view.
#[resource("config://dashboard", mime_type = "text/html")]
async fn config() -> String {
    "<!doctype html><p>dashboard</p>".into()
}

/// A tool linked to a plain resource.
#[tool(ui = config)]
async fn dashboard() -> String {
    "dashboard".into()
}

fn main() {
    let _ = tools![dashboard];
}
