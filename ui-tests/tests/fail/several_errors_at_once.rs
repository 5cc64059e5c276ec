use roundtrip::prelude::*;

#[tool(name = "bad name")]
async fn provision(
    #[resolve(elicit = "Region for {nmae}?")] region: String,
    #[resolve(roots, sample = "x")] roots: Vec<Root>,
) -> String {
    format!("{region} {roots:?}")
}

fn main() {}
