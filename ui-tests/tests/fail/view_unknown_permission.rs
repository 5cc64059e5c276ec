use roundtrip::prelude::*;

/// `bluetooth` is not a permission a view can ask for.
#[view("ui://demo/dashboard", permissions(camera, bluetooth))]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
