use roundtrip::prelude::*;

struct Counter {
    n: u32,
}

impl Counter {
    #[tool]
    async fn bump(&mut self) -> String {
        self.n += 1;
        self.n.to_string()
    }
}

fn main() {}
