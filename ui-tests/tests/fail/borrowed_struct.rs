use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Config {
    name: String,
}

#[tool]
async fn apply(config: &Config) -> String {
    config.name.clone()
}

fn main() {}
