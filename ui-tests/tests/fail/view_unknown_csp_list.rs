use roundtrip::prelude::*;

/// `connect` is not one of the lists.
#[view("ui://demo/dashboard", csp(connect = ["https://api.example.com"]))]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
