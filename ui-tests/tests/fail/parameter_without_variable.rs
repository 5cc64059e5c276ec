use roundtrip::prelude::*;

#[resource_template("notes://{id}")]
async fn note(id: String, folder: String) -> String {
    id + &folder
}

fn main() {}
