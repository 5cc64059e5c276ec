use roundtrip::prelude::*;

async fn pick_region(name: String) -> Resolve<String> {
    Resolve::Value(name)
}

#[tool]
async fn provision(name: String, #[resolve(with = pick_region(nmae))] region: String) -> String {
    format!("{name} {region}")
}

fn main() {}
