use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema, Elicit)]
struct Labels {
    names: Vec<String>,
}

fn main() {}
