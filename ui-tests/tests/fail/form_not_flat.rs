use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[derive(Deserialize, JsonSchema, Elicit)]
struct Contact {
    name: String,
    home: Address,
}

fn main() {}
