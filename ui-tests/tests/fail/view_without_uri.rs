use roundtrip::prelude::*;

/// A view needs its URI.
#[view(title = "Dashboard")]
const DASHBOARD: &str = "<!doctype html><p>dashboard</p>";

fn main() {}
