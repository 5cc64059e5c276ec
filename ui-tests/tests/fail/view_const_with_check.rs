use roundtrip::prelude::*;

async fn allowed() -> Result<(), String> {
    Ok(())
}

/// A const view has nothing a check could take.
#[view("ui://demo/dashboard", check = allowed())]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {
    let _ = resources![DASHBOARD];
}
