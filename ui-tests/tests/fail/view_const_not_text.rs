use roundtrip::prelude::*;

/// The HTML of a const view is a `&str`.
#[view("ui://demo/dashboard")]
const DASHBOARD: &[u8] = b"<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
