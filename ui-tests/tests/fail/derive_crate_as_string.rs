use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema, Elicit)]
#[roundtrip(crate = "::roundtrip")]
enum Size {
    Small,
    Large,
}

fn main() {}
