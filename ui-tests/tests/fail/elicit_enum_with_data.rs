use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema, Elicit)]
enum Size {
    Small,
    Custom(u32),
}

fn main() {}
