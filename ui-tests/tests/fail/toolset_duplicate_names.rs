use roundtrip::prelude::*;

struct Inventory;

#[toolset]
impl Inventory {
    #[tool(name = "count")]
    async fn count_a(&self) -> String {
        "a".into()
    }

    #[tool(name = "count")]
    async fn count_b(&self) -> String {
        "b".into()
    }
}

fn main() {}
