use roundtrip::prelude::*;

async fn zone_for(region: String) -> Resolve<String> {
    Resolve::Value(region)
}

#[tool]
async fn provision(
    #[resolve(elicit = "Region?")] region: Answer<String>,
    #[resolve(with = zone_for(region))] zone: String,
) -> String {
    format!("{region:?} {zone}")
}

fn main() {}
