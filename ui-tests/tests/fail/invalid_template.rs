use roundtrip::prelude::*;

#[resource_template("notes://{+id}")]
async fn note(id: String) -> String {
    id
}

fn main() {}
