use roundtrip::prelude::*;

struct Inventory;

#[tool]
async fn restart(#[resolve(elicit = "Which inventory?")] inventory: State<Inventory>) -> String {
    let _ = inventory;
    "Restarted.".into()
}

fn main() {}
