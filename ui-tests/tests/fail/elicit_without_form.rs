use roundtrip::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Contact {
    name: String,
}

#[tool]
async fn invite(#[resolve(elicit = "Who?")] contact: Contact) -> String {
    contact.name
}

fn main() {}
