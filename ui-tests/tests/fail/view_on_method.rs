use roundtrip::prelude::*;

struct Inventory;

impl Inventory {
    /// A view is not a method.
    #[view("ui://demo/dashboard")]
    async fn dashboard(&self) -> String {
        "<!doctype html><p>dashboard</p>".into()
    }
}

fn main() {}
