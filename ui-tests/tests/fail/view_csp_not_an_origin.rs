use roundtrip::prelude::*;

/// A view whose origin would add a directive to the host's policy.
#[view("ui://demo/dashboard", csp(connect_domains = ["https://api.example.com; script-src *"]))]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
