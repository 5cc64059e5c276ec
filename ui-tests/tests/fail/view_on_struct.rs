use roundtrip::prelude::*;

/// A view is HTML: a const, a static or a fn.
#[view("ui://demo/dashboard")]
struct Dashboard;

fn main() {}
