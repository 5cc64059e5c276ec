use roundtrip::prelude::*;

/// `domain` is a host name, not a URL.
#[view("ui://demo/dashboard", domain = "https://dashboard.example.com")]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
