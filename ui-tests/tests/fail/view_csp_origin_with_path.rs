use roundtrip::prelude::*;

/// A CSP list takes origins, not URLs with paths.
#[view("ui://demo/dashboard", csp(resource_domains = ["https://cdn.example.com/libs/"]))]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
