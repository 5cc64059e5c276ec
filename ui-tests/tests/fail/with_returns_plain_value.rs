use roundtrip::prelude::*;

async fn zone_of(name: String) -> String {
    format!("{name}-zone")
}

#[tool]
async fn place(name: String, #[resolve(with = zone_of(name))] zone: String) -> String {
    format!("{name} in {zone}")
}

fn main() {}
