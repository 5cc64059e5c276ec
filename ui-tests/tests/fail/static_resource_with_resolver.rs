use roundtrip::prelude::*;

#[resource("config://app")]
async fn config(#[resolve(elicit = "Which profile?")] profile: String) -> String {
    profile
}

fn main() {}
