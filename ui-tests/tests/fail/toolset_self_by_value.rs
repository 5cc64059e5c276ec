use roundtrip::prelude::*;

struct Inventory;

#[toolset]
impl Inventory {
    #[tool]
    async fn count(self) -> String {
        "0".into()
    }
}

fn main() {}
