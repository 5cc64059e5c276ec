use roundtrip::prelude::*;

#[resource("config://app")]
async fn config(profile: String) -> String {
    profile
}

fn main() {}
