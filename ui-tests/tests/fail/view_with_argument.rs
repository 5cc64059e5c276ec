use roundtrip::prelude::*;

/// A view is read by its URI alone: it takes no arguments.
#[view("ui://demo/dashboard")]
async fn dashboard(theme: String) -> String {
    format!("<!doctype html><p class='{theme}'>dashboard</p>")
}

fn main() {
    let _ = resources![dashboard];
}
