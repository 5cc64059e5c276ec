use roundtrip::prelude::*;

struct Inventory;

impl Inventory {
    #[tool]
    async fn count(&self) -> String {
        "0".into()
    }
}

fn main() {
    let _ = Server::new("inventory", "1").toolset(std::sync::Arc::new(Inventory));
}
