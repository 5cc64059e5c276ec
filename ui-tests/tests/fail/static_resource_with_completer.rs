use roundtrip::prelude::*;

fn profiles(_: &str, _: &str) -> Vec<String> {
    Vec::new()
}

#[resource("config://app", complete = profiles)]
async fn config() -> String {
    String::new()
}

fn main() {}
