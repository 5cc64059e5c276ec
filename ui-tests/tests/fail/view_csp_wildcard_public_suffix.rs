use roundtrip::prelude::*;

/// A view whose wildcard would let it reach every `.co.uk` site.
#[view("ui://demo/dashboard", csp(connect_domains = ["https://api.example.com", "https://*.co.uk"]))]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
