use roundtrip::prelude::*;

struct Inventory;

#[tool]
async fn restart(
    inventory: State<Inventory>,
    #[resolve(elicit = "Restart what in {inventory}?")] instance: String,
) -> String {
    let _ = inventory;
    format!("Restarted {instance}.")
}

fn main() {}
