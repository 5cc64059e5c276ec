use roundtrip::prelude::*;

#[derive(JsonSchema)]
struct Config {
    verbose: bool,
}

#[tool]
async fn provision(config: Config) -> String {
    config.verbose.to_string()
}

fn main() {}
