use roundtrip::prelude::*;

/// The same origin twice in one list.
#[view("ui://demo/dashboard", csp(connect_domains = ["https://api.example.com", "https://api.example.com"]))]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
