use roundtrip::prelude::*;

/// Derives the JsonSchema of schemars 0.8, the application's own dependency, not schemars 1's.
#[derive(Deserialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
struct Config {
    verbose: bool,
}

#[tool]
async fn provision(config: Config) -> String {
    config.verbose.to_string()
}

fn main() {}
