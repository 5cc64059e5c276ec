use roundtrip::prelude::*;

#[resource(mime_type = "text/plain")]
async fn config() -> String {
    String::new()
}

fn main() {}
