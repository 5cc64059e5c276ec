use roundtrip::prelude::*;

/// A view at a URI that is not `ui://`.
#[view("https://example.com/dashboard")]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
