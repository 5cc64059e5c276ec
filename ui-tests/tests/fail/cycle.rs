use roundtrip::prelude::*;

#[tool]
async fn provision(
    #[resolve(elicit = "Size for {region}?")] size: u32,
    #[resolve(elicit = "Region for size {size}?")] region: String,
) -> String {
    format!("{size} {region}")
}

fn main() {}
