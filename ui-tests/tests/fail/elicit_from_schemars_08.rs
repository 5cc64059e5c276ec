use roundtrip::prelude::*;

/// Derives the JsonSchema of schemars 0.8, the application's own dependency, not schemars 1's.
#[derive(Deserialize, schemars08::JsonSchema, Elicit)]
#[schemars(crate = "schemars08")]
struct Contact {
    email: String,
}

#[tool]
async fn subscribe(#[resolve(elicit = "Where should we write?")] contact: Contact) -> String {
    contact.email
}

fn main() {}
