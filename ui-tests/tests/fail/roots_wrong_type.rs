use roundtrip::prelude::*;

#[tool]
async fn workspace(#[resolve(roots)] roots: String) -> String {
    roots
}

fn main() {}
