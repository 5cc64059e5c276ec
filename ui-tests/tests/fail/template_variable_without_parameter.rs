use roundtrip::prelude::*;

#[resource_template("notes://{folder}/{id}")]
async fn note(id: String) -> String {
    id
}

fn main() {}
